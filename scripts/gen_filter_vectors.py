#!/usr/bin/python3
"""Generate the zero-phase Butterworth test vectors in tests/data/filter/ (run once, committed).

Uses Debian's python3-scipy (/usr/bin/python3): for each case, the design
scipy.signal.butter(N, cutoff, fs=fs, output='sos') and y = scipy.signal.sosfiltfilt(sos, x)
on a unit-scale test signal x (sines + seeded Gaussian noise). The C++ port
(vision/src/butterworth.cpp) must reproduce `sos` and `y` (tests/vision/test_butterworth.cpp).

    /usr/bin/python3 scripts/gen_filter_vectors.py
"""
import json
import os

import numpy as np
import scipy
import scipy.signal as sig

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "filter")

# (name, order, cutoff_hz, sample_rate_hz, samples)
CASES = [
    ("paper_o8_60hz_fs500", 8, 60.0, 500.0, 400),   # Li et al. 2019 §4.2 at a fast camera rate
    ("paper_o8_60hz_fs1000", 8, 60.0, 1000.0, 300),  # the controller rate
    ("o1_10hz_fs100", 1, 10.0, 100.0, 120),
    ("o2_20hz_fs100", 2, 20.0, 100.0, 150),
    ("o3_5hz_fs100", 3, 5.0, 100.0, 200),
    ("o5_40hz_fs100", 5, 40.0, 100.0, 150),  # cutoff above fs/4: negative real pole
    ("o6_1hz_fs100", 6, 1.0, 100.0, 250),    # low cutoff, poles near the unit circle
    ("o8_60hz_fs500_short", 8, 60.0, 500.0, 28),  # one sample more than the padding length
]


def signal(n, fs, seed):
    t = np.arange(n) / fs
    rng = np.random.default_rng(seed)
    x = (0.6 * np.sin(2 * np.pi * 0.7 * t) + 0.25 * np.sin(2 * np.pi * 0.3 * fs * t + 0.4)
         + 0.1 * rng.standard_normal(n) + 0.2)
    return x


def main():
    os.makedirs(OUT, exist_ok=True)
    for i, (name, order, fc, fs, n) in enumerate(CASES):
        sos = sig.butter(order, fc, fs=fs, output="sos")
        x = signal(n, fs, 1000 + i)
        y = sig.sosfiltfilt(sos, x)
        doc = {
            "generator": "scripts/gen_filter_vectors.py",
            "scipy_version": scipy.__version__,
            "order": order,
            "cutoff_hz": fc,
            "sample_rate_hz": fs,
            "padlen": int(3 * (2 * len(sos) + 1 - min((sos[:, 2] == 0).sum(), (sos[:, 5] == 0).sum()))),
            "sos": sos.tolist(),
            "x": x.tolist(),
            "y": y.tolist(),
        }
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(doc, f)  # repr floats: exact round trip
            f.write("\n")
        print(name, sos.shape, n)


if __name__ == "__main__":
    main()
