#!/usr/bin/python3
"""Print the numbers of config/rig.yaml (the default virtual stereo rig) from its geometry.

Geometry (docs/vision.md, "Default rig"): two 4096x3000 px cameras (3.45 um pixels, 16 mm
lenses: f = 4640 px), 0.8 m apart along base x, both 0.95 m from the aim point (0, 0, 0.10) m
of the base frame O, looking down at 45 deg from the -y side and toed in to the aim point.
Camera axes follow OpenCV: z along the optical axis, x to the image right, y down.

    /usr/bin/python3 scripts/gen_default_rig.py
"""
import numpy as np
from scipy.spatial.transform import Rotation

AIM = np.array([0.0, 0.0, 0.10])
DIST, BASELINE, ELEV = 0.95, 0.8, np.radians(45)


def camera_in_base(centre):
    z = AIM - centre
    z /= np.linalg.norm(z)
    x = np.cross(z, [0, 0, 1.0])
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return np.stack([x, y, z], 1), centre  # R_O_C, p_O_C


mid = AIM + DIST * np.array([0, -np.cos(ELEV), np.sin(ELEV)])
R_O_L, c_L = camera_in_base(mid - [BASELINE / 2, 0, 0])
R_O_R, c_R = camera_in_base(mid + [BASELINE / 2, 0, 0])
# T_C_O (C = left camera): p_C = R_O_L^T (p_O - c_L)
R_C_O = R_O_L.T
t_C_O = -R_O_L.T @ c_L
# T_R_L: p_R = R_O_R^T (R_O_L p_L + c_L - c_R)
R_R_L = R_O_R.T @ R_O_L
t_R_L = R_O_R.T @ (c_L - c_R)
fmt = lambda v: "[" + ", ".join(repr(float(x)) for x in v) + "]"
print("right_from_left:\n  rotation_vector:", fmt(Rotation.from_matrix(R_R_L).as_rotvec()))
print("  translation:", fmt(t_R_L))
print("camera_from_base:\n  rotation_vector:", fmt(Rotation.from_matrix(R_C_O).as_rotvec()))
print("  translation:", fmt(t_C_O))
