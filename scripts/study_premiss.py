#!/usr/bin/python3
"""How far the twin on the priors misses the virtual robot, for variants of the truth.

The study behind docs/virtual-robot.md ("The pre-identification miss"): for each variant of
config/truth.yaml (and of the priors or the trajectory) it runs

    vcloe run --backend virtual --truth T --reference REF --out m.csv     (default noise, seed 1)
    vcloe simulate --model config/robot.yaml --reference REF --out s.csv
    vcloe compare m.csv s.csv --json

and prints the per-axis RMS (mm, mrad) and the ratio (largest position RMS) / (largest angle
RMS) in metres. A variant the virtual robot's safety stop ends is printed with its reason.
Needs a built vcloe (scripts/build.sh) and python3-yaml; takes about 1 min 40 s.

    /usr/bin/python3 scripts/study_premiss.py [--vcloe build/apps/vcloe] [--out DIR]
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, "config")
EXCITATION = os.path.join(CONFIG, "excitation-default.yaml")


def scaled_trajectory(path, out, position, angle):
    """The trajectory with its position and angle coefficients scaled (offsets kept)."""
    tr = yaml.safe_load(open(path))
    for axis, k in [("x", position), ("y", position), ("z", position),
                    ("alpha", angle), ("beta", angle), ("gamma", angle)]:
        for key in ("s", "c"):
            tr["axes"][axis][key] = [k * v for v in tr["axes"][axis][key]]
    yaml.safe_dump(tr, open(out, "w"))
    return out


def gains(kp, ki, kd):
    """Truth drive gains, priors off by the default file's ratios (+29 %, -23 %, +29 %)."""
    def truth(t):
        t["drive_pid"] = {"lp": kp, "li": ki, "ld": kd}

    def priors(r):
        r["drive_pid"] = {"lp": 1.29 * kp, "li": 0.77 * ki, "ld": 1.29 * kd}
    return truth, priors


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vcloe", default=os.path.join(ROOT, "build", "apps", "vcloe"))
    ap.add_argument("--out", default="/tmp/vcloe-premiss")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    truth0 = yaml.safe_load(open(os.path.join(CONFIG, "truth.yaml")))
    robot0 = yaml.safe_load(open(os.path.join(CONFIG, "robot.yaml")))

    def run(tag, truth_edit=None, prior_edit=None, reference=EXCITATION):
        d = os.path.join(a.out, tag)
        os.makedirs(d, exist_ok=True)
        t, r = copy.deepcopy(truth0), copy.deepcopy(robot0)
        if truth_edit:
            truth_edit(t)
        if prior_edit:
            prior_edit(r)
        yaml.safe_dump(t, open(os.path.join(d, "truth.yaml"), "w"))
        yaml.safe_dump(r, open(os.path.join(d, "robot.yaml"), "w"))
        m, s = os.path.join(d, "m.csv"), os.path.join(d, "s.csv")
        for cmd in ([a.vcloe, "run", "--truth", os.path.join(d, "truth.yaml"), "--robot",
                     os.path.join(d, "robot.yaml"), "--reference", reference, "--out", m, "--force"],
                    [a.vcloe, "simulate", "--model", os.path.join(d, "robot.yaml"), "--reference",
                     reference, "--out", s, "--force"]):
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode:
                why = p.stderr.strip().splitlines()[-1]
                stop = re.search(r"ending at t = ([0-9.]+) s: (safety stop: .*)", why)
                if stop:
                    why = f"{stop.group(2)} at t = {float(stop.group(1)):.3f} s"
                print(f"| {tag} | {why} | | |", flush=True)
                return
        p = subprocess.run([a.vcloe, "compare", m, s, "--json"], capture_output=True, text=True,
                           check=True)
        j = json.loads(p.stdout)
        mm = " / ".join(f"{v:.3f}" for v in j["rms_mm"])
        mrad = " / ".join(f"{v:.2f}" for v in j["rms_mrad"])
        print(f"| {tag} | {mm} | {mrad} | {max(j['rms_mm']) / max(j['rms_mrad']):.3f} |", flush=True)

    print("| variant (excitation trajectory unless named) | RMS x / y / z (mm) | RMS α / β / γ (mrad) "
          "| max mm / max mrad (m) |")
    print("|---|---|---|---|")
    run("default truth and priors")
    run("priors given the truth gains", prior_edit=lambda r: r.update(drive_pid=dict(truth0["drive_pid"])))
    run("priors given the truth friction", prior_edit=lambda r: r.update(friction=dict(truth0["friction"])))
    run("priors' friction 0.1 / 0.05", prior_edit=lambda r: r["friction"].update(coulomb=0.1, viscous=0.05))
    for kp, ki, kd in [(280, 1000, 28), (280, 1000, 7), (200, 1000, 10), (280, 500, 14),
                       (200, 700, 10), (140, 700, 7)]:
        t, r = gains(kp, ki, kd)
        run(f"truth gains {kp} / {ki} / {kd}", t, r)
    run("truth Coulomb 3.0 N·m", lambda t: t["friction"].update(coulomb=[3.0] * 6))
    run("truth viscous 3.0 N·m·s/rad", lambda t: t["friction"].update(viscous=[3.0] * 6))
    run("truth platform inertia ×1.5",
        lambda t: t["inertia"].update(platform=[1.5 * v for v in truth0["inertia"]["platform"]]))
    for m in (30.0, 34.0):
        run(f"truth platform mass {m:g} kg",
            lambda t, m=m: t["inertia"].update(platform=[m] + truth0["inertia"]["platform"][1:]))
    run("excitation, positions only", reference=scaled_trajectory(
        EXCITATION, os.path.join(a.out, "positions-only.yaml"), 1.0, 0.0))
    run("excitation, angles only", reference=scaled_trajectory(
        EXCITATION, os.path.join(a.out, "angles-only.yaml"), 0.0, 1.0))
    run("config/reference.yaml", reference=os.path.join(CONFIG, "reference.yaml"))
    for seed in (1001, 1002, 1003):
        ref = os.path.join(a.out, f"random-{seed}.yaml")
        subprocess.run([a.vcloe, "trajectory", "random", "--seed", str(seed), "--out", ref, "--force"],
                       check=True, capture_output=True)
        run(f"random trajectory, seed {seed}", reference=ref)
    return 0


if __name__ == "__main__":
    sys.exit(main())
