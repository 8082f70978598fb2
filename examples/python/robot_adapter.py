#!/usr/bin/env python3
"""An example robot adapter for the vcloe rig: the robot role of docs/protocol.md in ~150 lines.

A real robot's driver starts from here and replaces the `Drives` class: `command` sends a
joint position command to the robot's own controller, `encoders` reads the joint angles. The
rest is the protocol: the start handshake, commands applied as they come, the status at the
camera rate, and the robot-side safety rules (a silent pose stream or controller, a command out
of range) that end in a controlled stop: the drives hold where they are.

    python3 robot_adapter.py --commands ipc:///tmp/vcloe-commands --poses ipc:///tmp/vcloe-poses \
        --status ipc:///tmp/vcloe-status --frames 2000

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

    def __init__(self, start):
        self.theta = list(start)

    def command(self, theta):
        self.theta = list(theta)

    def encoders(self):
        return list(self.theta)


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
        self.drives = Drives(a.start)
        self.seq = {vb.STATUS: 0}
        self.tick = 0
        self.last_command_seq = 0
        self.last_frame = -1
        self.malformed = 0
        self.applied = []  # (frame, theta) of every command applied
        now = time.monotonic()
        self.last_pose = self.last_controller = now

    def publish_status(self, state, reason=0):
        frame = vb.encode(vb.STATUS, self.seq[vb.STATUS], vb.steady_ns(), state, reason, self.last_command_seq,
                          self.tick, self.drives.encoders())
        self.seq[vb.STATUS] += 1
        self.status.send(frame, zmq.NOBLOCK)

    def read(self, socket):
        """The next message on `socket` or None; malformed frames are counted and dropped."""
        while True:
            try:
                frame = socket.recv(zmq.NOBLOCK)
            except zmq.Again:
                return None
            try:
                return vb.decode(frame)
            except vb.Malformed:
                self.malformed += 1

    def handshake(self):
        """Waiting status until the controller's heartbeat and the pose stream are both heard."""
        heard_controller = heard_poses = False
        end = time.monotonic() + self.a.start_timeout
        while not (heard_controller and heard_poses):
            if time.monotonic() > end:
                sys.exit("robot adapter: the controller or the pose stream did not connect")
            self.publish_status(vb.WAITING)
            time.sleep(0.005)
            heard_controller |= self.read(self.commands) is not None
            heard_poses |= self.read(self.poses) is not None
        while self.read(self.commands) is not None:  # handshake heartbeats
            pass

    def on_command(self, m):
        self.last_controller = time.monotonic()
        if m["type"] == vb.HEARTBEAT:
            return None
        if m["type"] != vb.COMMAND or m["frame"] <= self.last_frame:
            return 6  # malformed command
        if any(abs(t) > self.a.joint_limit for t in m["theta"]):
            return 4  # command outside the joint range
        self.drives.command(m["theta"])
        self.last_frame, self.last_command_seq = m["frame"], m["seq"]
        self.applied.append((m["frame"], m["theta"]))
        return None

    def run(self):
        period = 1.0 / self.a.camera_hz
        ticks_per_frame = round(self.a.controller_hz / self.a.camera_hz)
        t0 = time.monotonic()
        self.last_pose = self.last_controller = t0
        for k in range(self.a.frames):
            self.tick = k * ticks_per_frame
            self.publish_status(vb.RUNNING)
            while time.monotonic() < t0 + (k + 1) * period:
                m = self.read(self.commands)
                if m is not None:
                    reason = self.on_command(m)
                    if reason:
                        return self.stop(reason)
                while (p := self.read(self.poses)) is not None:
                    if p["type"] == vb.POSE:
                        self.last_pose = time.monotonic()
                now = time.monotonic()
                if now - self.last_pose > self.a.pose_timeout:
                    return self.stop(1)
                if now - self.last_controller > self.a.heartbeat_timeout:
                    return self.stop(3)
                time.sleep(0.0002)
        self.tick = self.a.frames * ticks_per_frame
        for _ in range(3):
            self.publish_status(vb.STOPPED, 8)  # finished
        return 0

    def stop(self, reason):
        """Controlled stop: hold where the joints are, drives enabled; say why."""
        self.drives.command(self.drives.encoders())
        for _ in range(3):
            self.publish_status(vb.STOPPED, reason)
            time.sleep(0.01)
        print(f"robot adapter: controlled stop: {vb.REASONS[reason]}", file=sys.stderr)
        return 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--commands", required=True)
    p.add_argument("--poses", required=True)
    p.add_argument("--status", required=True)
    p.add_argument("--frames", type=int, required=True, help="camera periods to run")
    p.add_argument("--camera-hz", type=float, default=100.0)
    p.add_argument("--controller-hz", type=float, default=1000.0)
    p.add_argument("--joint-limit", type=float, default=0.9948)
    p.add_argument("--pose-timeout", type=float, default=0.02)
    p.add_argument("--heartbeat-timeout", type=float, default=0.05)
    p.add_argument("--start-timeout", type=float, default=30.0)
    p.add_argument("--start", type=float, nargs=6, default=[0.0] * 6, help="joint angles at the start (rad)")
    p.add_argument("--log", help="write the applied commands here (JSON)")
    a = p.parse_args()
    adapter = Adapter(a)
    adapter.handshake()
    status = adapter.run()
    if a.log:
        with open(a.log, "w") as f:
            json.dump({"applied": adapter.applied, "malformed": adapter.malformed}, f)
    return status


if __name__ == "__main__":
    sys.exit(main())
