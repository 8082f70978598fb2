"""The vcloe rig protocol in Python, written from docs/protocol.md alone (standard library only).

decode(frame) -> dict (or raises Malformed); encode(kind, ...) -> bytes. Used by the example
robot adapter (robot_adapter.py) and by the tests that read vcloe's live streams from Python.
"""
import struct
import time
import zlib

HEADER = struct.Struct("<4sHHIIqqq")  # magic, version, type, body_length, crc32, sequence, exposure_ns, publish_ns
POSE, COMMAND, STATUS, HEARTBEAT = 1, 2, 3, 4
BODY = {POSE: struct.Struct("<q6ddIB3x"), COMMAND: struct.Struct("<q6d"), STATUS: struct.Struct("<BxH4xQq6d"),
        HEARTBEAT: struct.Struct("<")}
RUNNING, STOPPED, WAITING = 0, 1, 2                      # status.state
REASONS = ["none", "pose timeout", "invalid poses", "heartbeat lost", "command out of range",
           "command rate limit", "malformed command", "robot failure", "finished",
           "interrupted"]  # status.reason


class Malformed(ValueError):
    pass


def steady_ns():
    """The steady clock of every header (CLOCK_MONOTONIC, as C++'s steady_clock on Linux)."""
    return time.monotonic_ns()


def decode(frame):
    if len(frame) < 40:
        raise Malformed("short")
    magic, version, kind, length, crc, seq, exposure_ns, publish_ns = HEADER.unpack_from(frame)
    if magic != b"VCLO" or version != 1:
        raise Malformed("magic/version")
    if zlib.crc32(frame[:12] + b"\0\0\0\0" + frame[16:]) != crc:
        raise Malformed("crc")
    if kind not in BODY or length != BODY[kind].size or len(frame) != 40 + length:
        raise Malformed("type/length")
    m = dict(type=kind, seq=seq, exposure_ns=exposure_ns, publish_ns=publish_ns)
    if kind == POSE:
        j, x, y, z, a, b, g, fre, markers, valid = BODY[POSE].unpack_from(frame, 40)
        m.update(frame=j, pose=(x, y, z, a, b, g), fre=fre, markers=markers, valid=bool(valid))
    elif kind == COMMAND:
        j, *theta = BODY[COMMAND].unpack_from(frame, 40)
        m.update(frame=j, theta=tuple(theta))
    elif kind == STATUS:
        state, reason, last, tick, *theta = BODY[STATUS].unpack_from(frame, 40)
        m.update(state=state, reason=reason, last_command=last, tick=tick, theta=tuple(theta))
    return m


def encode(kind, seq, exposure_ns, *fields):
    """fields: pose (frame, pose6, fre, markers, valid), command (frame, theta6),
    status (state, reason, last_command, tick, theta6), heartbeat ()."""
    flat = []
    for f in fields:
        flat.extend(f if isinstance(f, (tuple, list)) else [f])
    body = BODY[kind].pack(*flat)
    frame = bytearray(HEADER.pack(b"VCLO", 1, kind, len(body), 0, seq, exposure_ns, steady_ns()) + body)
    frame[12:16] = struct.pack("<I", zlib.crc32(bytes(frame)))
    return bytes(frame)
