#!/usr/bin/env python3
"""Prints vcloe bridge frames as decoded by examples/python/vcloe_bridge.py, the Python decoder
written from docs/protocol.md alone.

Reads frames from a file of [u32 little-endian length][frame bytes] records and prints one
line per frame: the decoded fields, or MALFORMED with the reason. The C++ specification
(tests/bridge/test_messages.cpp) compares these lines with what it encoded.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
import vcloe_bridge as vb  # noqa: E402


def line(frame):
    try:
        m = vb.decode(frame)
    except vb.Malformed as e:
        return f"MALFORMED {e}"
    head = f"seq={m['seq']} exposure_ns={m['exposure_ns']}"
    if m["type"] == vb.POSE:
        p = ",".join(repr(v) for v in m["pose"])
        return (f"pose {head} frame={m['frame']} pose={p} fre={m['fre']!r} markers={m['markers']} "
                f"valid={int(m['valid'])}")
    if m["type"] == vb.COMMAND:
        return f"command {head} frame={m['frame']} theta=" + ",".join(repr(t) for t in m["theta"])
    if m["type"] == vb.STATUS:
        return (f"status {head} state={m['state']} reason={m['reason']} last_command={m['last_command']} "
                f"tick={m['tick']} theta=" + ",".join(repr(t) for t in m["theta"]))
    if m["type"] == vb.HELLO:
        files = " ".join(f"{name}={m['files'][name] or '-'}" for name in vb.RUN_FILES)
        return f"hello {head} role={m['role']} clock={m['clock']} {files}"
    if m["type"] == vb.END:
        return f"end {head} role={m['role']} last_frame={m['last_frame']} count={m['count']}"
    return f"heartbeat {head}"


def main(path):
    data = open(path, "rb").read()
    at = 0
    while at < len(data):
        (n,) = struct.unpack_from("<I", data, at)
        print(line(data[at + 4:at + 4 + n]))
        at += 4 + n


if __name__ == "__main__":
    main(sys.argv[1])
