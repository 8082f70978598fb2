#!/usr/bin/env python3
"""An example robot adapter for the vcloe rig: the robot role of docs/protocol.md in ~250 lines.

A real robot's driver starts from here and replaces the `Drives` class: `command` sends a
joint position command to the robot's own controller, `encoders` reads the joint angles. The
rest is the protocol: the handshake (its hello: the SHA-256 of the files it runs; the peers'
hellos checked), the move to the start, commands applied as they come through the rate limit,
the status at the camera rate, the end of the run, and the robot-side safety rules (a silent
pose stream or controller, a command out of range or too fast) that end in a controlled stop:
the drives hold where they are. It never relies on the controller to keep the rate limit.

    python3 robot_adapter.py --commands ipc:///tmp/vcloe-commands --poses ipc:///tmp/vcloe-poses \
        --status ipc:///tmp/vcloe-status --frames 2000 --experiment E --reference R --robot ROBOT

needs python3-zmq (Debian). As shipped, `Drives` is a test double whose joints follow each
command at once; the test tests/bridge/live_rig.py drives it with `vcloe control`.
"""
import argparse
import json
import sys
import time

import zmq

import vcloe_bridge as vb


class Drives:
    """Replace with the robot's driver. Angles in rad, the joint order of the robot file."""

    def __init__(self, standing):
        self.theta = list(standing)

    def command(self, theta):
        self.theta = list(theta)

    def encoders(self):
        return list(self.theta)


class Stop(Exception):
    """A controlled stop: its status reason and why."""


class RateLimit:
    """docs/protocol.md, "Safety", the rule of bridge::SafetyMonitor::limit: a command due further
    than v * T_camera from the one applied stops the robot (reason 5); otherwise, once per
    controller tick of real time, each joint's allowance A refills by v * Tc up to v * T_camera
    (full at the start hold) and the command applied moves towards the one due by at most A, which
    the move spends. Over n ticks a joint moves at most (n * Tc + T_camera) * v; frames, stamps and
    heartbeats never enter it."""

    def __init__(self, applied, speed, tc, t_camera):
        self.applied, self.v, self.tc, self.t_camera = list(applied), speed, tc, t_camera
        self.allowance = [speed * t_camera] * len(self.applied)
        self.held_back = 0  # ticks on which the limit held a joint back

    def tick(self, target):
        for i, (t, a) in enumerate(zip(target, self.applied)):
            if abs(t - a) > self.v * self.t_camera:
                raise Stop(5, f"joint {i + 1}: {t} rad is {abs(t - a)} rad from the {a} rad applied")
        full = self.v * self.t_camera
        moved = []
        for i, (t, a) in enumerate(zip(target, self.applied)):
            room = min(self.allowance[i] + self.v * self.tc, full)
            step = max(-room, min(room, t - a))
            self.allowance[i] = room - abs(step)
            moved.append(a + step)
        self.held_back += any(m != t for m, t in zip(moved, target))
        self.applied = moved
        return self.applied


class Adapter:
    def __init__(self, a):
        self.a = a
        ctx = zmq.Context.instance()
        self.status = ctx.socket(zmq.PUB)
        self.status.bind(a.status)
        self.commands = ctx.socket(zmq.SUB)
        self.poses = ctx.socket(zmq.SUB)
        for s, endpoint in ((self.commands, a.commands), (self.poses, a.poses)):
            s.setsockopt(zmq.SUBSCRIBE, b"")
            s.setsockopt(zmq.RCVHWM, 1000)  # bounded: a flood is dropped by ZeroMQ, counted by the sequence gaps
            s.connect(endpoint)
        self.drives = Drives(a.stand_at or a.start)
        self.tc, self.t_camera = 1.0 / a.controller_hz, 1.0 / a.camera_hz
        self.limit = RateLimit(self.drives.encoders(), a.max_command_speed, self.tc, self.t_camera)
        payload = (a.payload_mass, a.payload_inertia) if a.payload_mass else None
        self.files = vb.hello_files(a.experiment, a.reference, a.robot, payload)
        self.seq = {vb.STATUS: 0, vb.HELLO: 0, vb.END: 0}
        self.tick = 0
        self.last_command_seq = 0
        self.last_frame = -1
        self.due = list(self.drives.encoders())  # the newest command received
        self.malformed = 0
        self.applied = []  # (frame, theta) of every command accepted
        self.controller_ended = False
        now = time.monotonic()
        self.last_pose = self.last_controller = now

    def send(self, kind, *fields):
        self.status.send(vb.encode(kind, self.seq[kind], vb.steady_ns(), *fields), zmq.NOBLOCK)
        self.seq[kind] += 1

    def publish_status(self, state, reason=0):
        self.send(vb.STATUS, state, reason, self.last_command_seq, self.tick, self.drives.encoders())

    def read(self, socket):
        """The next message on `socket` or None; malformed frames are counted and dropped."""
        while True:
            try:
                frame = socket.recv(zmq.NOBLOCK)
            except zmq.Again:
                return None
            try:
                return vb.decode(frame)
            except vb.Malformed as e:
                if str(e).startswith("schema version"):
                    sys.exit(f"robot adapter: a peer speaks {e}; this adapter speaks version {vb.VERSION}")
                self.malformed += 1

    def check_hello(self, m, role):
        """A peer's hello: the files both read must be the same bytes, the controller's clock
        realtime (a real robot runs on real time; refused by name)."""
        if m["type"] != vb.HELLO:
            return False
        problem = vb.hello_problem(vb.ROBOT, self.files, m, vb.REALTIME) if m["role"] == role else "another role"
        if problem:
            for _ in range(3):
                self.publish_status(vb.STOPPED, 10)  # handshake refused
            sys.exit(f"robot adapter: handshake refused: role {m['role']} runs another {problem}")
        return True

    def handshake(self):
        """Hello and waiting status until the controller's and the pose source's hellos are heard."""
        heard_controller = heard_poses = False
        end = time.monotonic() + self.a.start_timeout
        while not (heard_controller and heard_poses):
            if time.monotonic() > end:
                sys.exit("robot adapter: no hello from the controller or the pose source")
            self.send(vb.HELLO, vb.ROBOT, self.files, vb.REALTIME)
            self.publish_status(vb.WAITING)
            time.sleep(0.005)
            while (m := self.read(self.commands)) is not None:
                heard_controller |= self.check_hello(m, vb.CONTROL)
            while (m := self.read(self.poses)) is not None:
                heard_poses |= self.check_hello(m, vb.VISION)

    def alive(self):
        """Read both streams; a stop when either is silent too long (hellos count before the run)."""
        while (m := self.read(self.commands)) is not None:
            self.on_command(m)
        while (p := self.read(self.poses)) is not None:
            if p["type"] in (vb.POSE, vb.HELLO):
                self.last_pose = time.monotonic()
        now = time.monotonic()
        if now - self.last_pose > self.a.pose_timeout:
            raise Stop(1, "pose stream silent")
        if now - self.last_controller > self.a.heartbeat_timeout:
            raise Stop(3, "controller silent")

    def move_to_start(self):
        """From where the drives stand to the start, at --move-speed, through the rate limit."""
        start, t0, k = list(self.a.start), time.monotonic(), 0
        self.last_pose = self.last_controller = t0
        while any(abs(s - a) > 1e-12 for s, a in zip(start, self.limit.applied)):
            step = self.a.move_speed * self.tc
            target = [a + max(-step, min(step, s - a)) for s, a in zip(start, self.limit.applied)]
            self.drives.command(self.limit.tick(target))
            k += 1
            if k % max(1, round(self.t_camera / self.tc)) == 0:
                self.publish_status(vb.MOVING)
            self.alive()
            time.sleep(max(0.0, t0 + k * self.tc - time.monotonic()))
        self.due = start

    def on_command(self, m):
        self.last_controller = time.monotonic()
        if m["type"] == vb.END and m["role"] == vb.CONTROL:
            self.controller_ended = True
        if m["type"] != vb.COMMAND:
            return  # heartbeats, the controller's late hellos
        if m["frame"] <= self.last_frame:
            raise Stop(6, f"command for frame {m['frame']} after frame {self.last_frame}")
        if any(abs(t) > self.a.joint_limit for t in m["theta"]):
            raise Stop(4, f"command outside +-{self.a.joint_limit} rad")
        self.due = list(m["theta"])
        self.last_frame, self.last_command_seq = m["frame"], m["seq"]
        self.applied.append((m["frame"], m["theta"]))

    def run(self):
        ticks_per_frame = round(self.a.controller_hz / self.a.camera_hz)
        t0 = time.monotonic()
        self.last_pose = self.last_controller = t0
        for self.tick in range(self.a.frames * ticks_per_frame):
            if self.tick % ticks_per_frame == 0:
                self.publish_status(vb.RUNNING)
            self.alive()
            self.drives.command(self.limit.tick(self.due))  # the rate limit, per tick of real time
            time.sleep(max(0.0, t0 + (self.tick + 1) * self.tc - time.monotonic()))
        self.tick = self.a.frames * ticks_per_frame
        self.send(vb.END, vb.ROBOT, self.a.frames - 1, self.a.frames)
        for _ in range(3):
            self.publish_status(vb.STOPPED, 8)  # finished
        end = time.monotonic() + self.a.start_timeout  # hold until the controller says its end
        while not self.controller_ended and time.monotonic() < end:
            while (m := self.read(self.commands)) is not None:
                self.controller_ended |= m["type"] == vb.END and m["role"] == vb.CONTROL
            time.sleep(0.001)
        return 0

    def stop(self, reason, why):
        """Controlled stop: hold where the joints are, drives enabled; say why."""
        self.drives.command(self.drives.encoders())
        for _ in range(3):
            self.publish_status(vb.STOPPED, reason)
            time.sleep(0.01)
        print(f"robot adapter: controlled stop: {vb.REASONS[reason]}: {why}", file=sys.stderr)
        return 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--commands", required=True)
    p.add_argument("--poses", required=True)
    p.add_argument("--status", required=True)
    p.add_argument("--frames", type=int, required=True, help="camera periods to run")
    p.add_argument("--experiment", required=True, help="the experiment file (hashed for the hello)")
    p.add_argument("--reference", required=True, help="the reference file (hashed for the hello)")
    p.add_argument("--robot", required=True, help="the robot file (hashed for the hello)")
    p.add_argument("--payload-mass", type=float, help="kg, with --payload-inertia: the payload carried")
    p.add_argument("--payload-inertia", type=float, nargs=3)
    p.add_argument("--camera-hz", type=float, default=100.0)
    p.add_argument("--controller-hz", type=float, default=1000.0)
    p.add_argument("--joint-limit", type=float, default=0.9948)
    p.add_argument("--max-command-speed", type=float, default=10.0, help="the rate limit (rad/s)")
    p.add_argument("--move-speed", type=float, default=0.5, help="to the start before the run (rad/s)")
    p.add_argument("--pose-timeout", type=float, default=0.02)
    p.add_argument("--heartbeat-timeout", type=float, default=0.05)
    p.add_argument("--start-timeout", type=float, default=30.0)
    p.add_argument("--start", type=float, nargs=6, default=[0.0] * 6, help="joint angles at the reference's start (rad)")
    p.add_argument("--stand-at", type=float, nargs=6, help="joint angles the drives stand at before the move (rad)")
    p.add_argument("--log", help="write the commands accepted here (JSON)")
    a = p.parse_args()
    adapter = Adapter(a)
    adapter.handshake()
    try:
        adapter.move_to_start()
        status = adapter.run()
    except Stop as s:
        status = adapter.stop(*s.args)
    if a.log:
        with open(a.log, "w") as f:
            json.dump({"applied": adapter.applied, "malformed": adapter.malformed,
                       "drives": adapter.drives.encoders()}, f)
    return status


if __name__ == "__main__":
    sys.exit(main())
