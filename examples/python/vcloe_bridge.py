"""The vcloe rig protocol in Python, written from docs/protocol.md alone (standard library only).

decode(frame) -> dict (or raises Malformed); encode(kind, ...) -> bytes; hello_files(...) the
SHA-256 of the files a role runs, for its hello. Used by the example robot adapter
(robot_adapter.py) and by the tests that read vcloe's live streams from Python.
"""
import hashlib
import struct
import time
import zlib

VERSION = 3                                              # the schema version this module speaks
HEADER = struct.Struct("<4sHHIIQqq")  # magic, version, type, body_length, crc32, sequence (u64), exposure_ns, publish_ns
POSE, COMMAND, STATUS, HEARTBEAT, HELLO, END = 1, 2, 3, 4, 5, 6
BODY = {POSE: struct.Struct("<q6ddIB3x"), COMMAND: struct.Struct("<q6d"), STATUS: struct.Struct("<BxH4xQq6d"),
        HEARTBEAT: struct.Struct("<"), HELLO: struct.Struct("<BBB5x32s32s32s32s32s"), END: struct.Struct("<B7xqQ")}
RUNNING, STOPPED, WAITING, MOVING = 0, 1, 2, 3           # status.state
REASONS = ["none", "pose timeout", "invalid poses", "controller lost", "command out of range",
           "command rate limit", "malformed command", "robot failure", "finished",
           "interrupted", "handshake refused"]  # status.reason
ROBOT, VISION, CONTROL = 1, 2, 3                         # hello.role, end.role
NO_CLOCK, LOCKSTEP, REALTIME = 0, 1, 2                   # hello.clock (robot and control state theirs)
RUN_FILES = ("experiment", "reference", "robot", "payload", "precorrection")  # hello: bit k of `files` is RUN_FILES[k]
READS = {ROBOT: RUN_FILES, CONTROL: RUN_FILES, VISION: ("experiment",)}


class Malformed(ValueError):
    pass


def steady_ns():
    """The steady clock of every header (CLOCK_MONOTONIC, as C++'s steady_clock on Linux)."""
    return time.monotonic_ns()


def payload_text(mass, inertia):
    """The bytes hashed for a payload given as numbers (docs/protocol.md, "Handshake")."""
    return ("payload mass %.17g inertia %.17g %.17g %.17g\n" % (mass, *inertia)).encode()


def hello_files(experiment=None, reference=None, robot=None, payload=None, precorrection=None):
    """{name: hex SHA-256 or None}: files by path, the payload as (mass, (Ixx, Iyy, Izz)); the
    pre-correction: the command file the robot adds tick by tick (None: the servo alone)."""
    def digest(path):
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    out = {n: (digest(p) if p else None) for n, p in
           (("experiment", experiment), ("reference", reference), ("robot", robot), ("precorrection", precorrection))}
    out["payload"] = hashlib.sha256(payload_text(*payload)).hexdigest() if payload else None
    return out


def hello_problem(mine_role, mine, peer, mine_clock=NO_CLOCK):
    """None, or which file (or clock) differs between this role's and a peer's hello."""
    if mine_clock and peer["role"] != VISION and not peer["clock"]:
        return f"clock: not stated there (hello byte 42 is 0), {mine_clock} here"
    if mine_clock and peer["clock"] and mine_clock != peer["clock"]:
        return f"clock: {peer['clock']} there, {mine_clock} here"
    for name in RUN_FILES:
        if name in READS[mine_role] and name in READS[peer["role"]] and mine[name] != peer["files"][name]:
            return f"{name}: {str(peer['files'][name])[:12]} there, {str(mine[name])[:12]} here"
    return None


def decode(frame):
    if len(frame) < 40:
        raise Malformed("short")
    magic, version, kind, length, crc, seq, exposure_ns, publish_ns = HEADER.unpack_from(frame)
    if magic != b"VCLO":
        raise Malformed("magic")
    if zlib.crc32(frame[:12] + b"\0\0\0\0" + frame[16:]) != crc:
        raise Malformed("crc")
    if version != VERSION:
        raise Malformed(f"schema version {version}")  # a peer speaking another version: refuse it by name
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
    elif kind == HELLO:
        role, stated, clock, *digests = BODY[HELLO].unpack_from(frame, 40)
        if role not in (ROBOT, VISION, CONTROL) or stated >> len(RUN_FILES) or clock > REALTIME:
            raise Malformed("hello role/files/clock")
        files = {}
        for k, (name, d) in enumerate(zip(RUN_FILES, digests)):
            if not stated & (1 << k) and d != bytes(32):
                raise Malformed("hello digest of a file not stated")
            files[name] = d.hex() if stated & (1 << k) else None
        m.update(role=role, clock=clock, files=files)
    elif kind == END:
        role, last_frame, count = BODY[END].unpack_from(frame, 40)
        if role not in (ROBOT, VISION, CONTROL) or last_frame < -1:
            raise Malformed("end role/frame")
        m.update(role=role, last_frame=last_frame, count=count)
    return m


def encode(kind, seq, exposure_ns, *fields):
    """fields: pose (frame, pose6, fre, markers, valid), command (frame, theta6),
    status (state, reason, last_command, tick, theta6), heartbeat (), hello (role, files: the dict
    of hello_files[, clock]: required, LOCKSTEP or REALTIME, for the robot and control), end (role,
    last_frame, count)."""
    if kind == HELLO:
        role, files, *clock = fields
        clock = clock[0] if clock else NO_CLOCK
        if role != VISION and clock not in (LOCKSTEP, REALTIME):
            raise ValueError("hello: the robot and control state their clock (LOCKSTEP or REALTIME): "
                             "a peer refuses a hello whose byte 42 is 0")
        stated = sum(1 << k for k, n in enumerate(RUN_FILES) if files.get(n))
        fields = (role, stated, clock,
                  *(bytes.fromhex(files[n]) if files.get(n) else bytes(32) for n in RUN_FILES))
    flat = []
    for f in fields:
        flat.extend(f if isinstance(f, (tuple, list)) else [f])
    body = BODY[kind].pack(*flat)
    frame = bytearray(HEADER.pack(b"VCLO", VERSION, kind, len(body), 0, seq, exposure_ns, steady_ns()) + body)
    frame[12:16] = struct.pack("<I", zlib.crc32(bytes(frame)))
    return bytes(frame)
