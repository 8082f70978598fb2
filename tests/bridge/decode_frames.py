#!/usr/bin/env python3
"""A vcloe bridge decoder written from docs/protocol.md alone (standard library only).

Reads frames from a file of [u32 little-endian length][frame bytes] records and prints one
line per frame: the decoded fields, or MALFORMED with the reason. The C++ specification
(tests/bridge/test_messages.cpp) compares these lines with what it encoded.
"""
import struct
import sys
import zlib

HEADER = struct.Struct("<4sHHIIqqq")   # magic, version, type, body_length, crc32, sequence, exposure_ns, publish_ns
BODY_LENGTH = {1: 72, 2: 56, 3: 72, 4: 0}
POSE = struct.Struct("<q6ddIB3x")
COMMAND = struct.Struct("<q6d")
STATUS = struct.Struct("<BxH4xQq6d")


def decode(frame):
    if len(frame) < 40:
        return "MALFORMED short"
    magic, version, mtype, length, crc, seq, exposure_ns, publish_ns = HEADER.unpack_from(frame)
    if magic != b"VCLO" or version != 1:
        return "MALFORMED magic/version"
    if zlib.crc32(frame[:12] + b"\0\0\0\0" + frame[16:]) != crc:
        return "MALFORMED crc"
    if mtype not in BODY_LENGTH or length != BODY_LENGTH[mtype] or len(frame) != 40 + length:
        return "MALFORMED type/length"
    head = f"seq={seq} exposure_ns={exposure_ns}"
    if mtype == 1:
        j, x, y, z, a, b, g, fre, markers, valid = POSE.unpack_from(frame, 40)
        return f"pose {head} frame={j} pose={x!r},{y!r},{z!r},{a!r},{b!r},{g!r} fre={fre!r} markers={markers} valid={valid}"
    if mtype == 2:
        j, *theta = COMMAND.unpack_from(frame, 40)
        return f"command {head} frame={j} theta=" + ",".join(repr(t) for t in theta)
    if mtype == 3:
        state, reason, last, tick, *theta = STATUS.unpack_from(frame, 40)
        return f"status {head} state={state} reason={reason} last_command={last} tick={tick} theta=" + ",".join(
            repr(t) for t in theta)
    return f"heartbeat {head}"


def main(path):
    data = open(path, "rb").read()
    at = 0
    while at < len(data):
        (n,) = struct.unpack_from("<I", data, at)
        print(decode(data[at + 4:at + 4 + n]))
        at += 4 + n


if __name__ == "__main__":
    main(sys.argv[1])
