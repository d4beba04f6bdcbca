"""For MediaPipe's face mesh with attention (../shared/models/face_landmark_with_attention.tflite):
its outputs by name, MediaPipe's refinement index maps, and a synthetic face to run it on.

The index maps are data from MediaPipe's
mediapipe/modules/face_landmark/tensors_to_face_landmarks_with_attention.pbtxt
(LandmarksRefinementCalculator options; Copyright The MediaPipe Authors, Apache License 2.0):
refined landmark k of the lips / left eye / right eye replaces mesh landmark MAP[k]. The irises
are new landmarks (468-477); MediaPipe gives each the average depth of its eye's contour
(EYE_CONTOUR: the first 16 points of the eye's map), which is where they belong in the image too.
"""
from __future__ import annotations

import numpy as np

OUTPUTS = ("mesh", "lips", "left_eye", "right_eye", "left_iris", "right_iris", "face_flag")

LIPS = (
    61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291,      # lower outer
    185, 40, 39, 37, 0, 267, 269, 270, 409,                 # upper outer (no corners)
    78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308,       # lower inner
    191, 80, 81, 82, 13, 312, 311, 310, 415,                # upper inner (no corners)
    76, 77, 90, 180, 85, 16, 315, 404, 320, 307, 306,       # lower semi-outer
    184, 74, 73, 72, 11, 302, 303, 304, 408,                # upper semi-outer (no corners)
    62, 96, 89, 179, 86, 15, 316, 403, 319, 325, 292,       # lower semi-inner
    183, 42, 41, 38, 12, 268, 271, 272, 407)                # upper semi-inner (no corners)

LEFT_EYE = (
    33, 7, 163, 144, 145, 153, 154, 155, 133,               # lower contour
    246, 161, 160, 159, 158, 157, 173,                      # upper contour (no corners)
    130, 25, 110, 24, 23, 22, 26, 112, 243,                 # halo x2 lower
    247, 30, 29, 27, 28, 56, 190,                           # halo x2 upper
    226, 31, 228, 229, 230, 231, 232, 233, 244,             # halo x3 lower
    113, 225, 224, 223, 222, 221, 189,                      # halo x3 upper
    35, 124, 46, 53, 52, 65,                                # halo x4 upper / eyebrow inner
    143, 111, 117, 118, 119, 120, 121, 128, 245,            # halo x5 lower
    156, 70, 63, 105, 66, 107, 55, 193)                     # halo x5 upper / eyebrow outer

RIGHT_EYE = (
    263, 249, 390, 373, 374, 380, 381, 382, 362,
    466, 388, 387, 386, 385, 384, 398,
    359, 255, 339, 254, 253, 252, 256, 341, 463,
    467, 260, 259, 257, 258, 286, 414,
    446, 261, 448, 449, 450, 451, 452, 453, 464,
    342, 445, 444, 443, 442, 441, 413,
    265, 353, 276, 283, 282, 295,
    372, 340, 346, 347, 348, 349, 350, 357, 465,
    383, 300, 293, 334, 296, 336, 285, 417)

EYE_CONTOUR = 16      # the first 16 indexes of an eye's map: its lower and upper contour


def split_outputs(outputs) -> dict[str, np.ndarray]:
    """The model's seven outputs by name; landmark sets as (n, 2) or (n, 3) pixel arrays of the
    192x192 input (the mesh has x, y, z; the refined sets x, y)."""
    named = dict(zip(OUTPUTS, outputs))
    out = {"mesh": named["mesh"].reshape(-1, 3), "face_flag": float(named["face_flag"].ravel()[0])}
    for k in OUTPUTS[1:6]:
        out[k] = named[k].reshape(-1, 2)
    return out


def _ellipse(yy, xx, cy, cx, ry, rx):
    return ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0


def synthetic_face(size: int = 192, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    """A frontal cartoon face (hair, skin, brows, eyes with irises, nose, lips) on a plain
    background, RGB in [0, 1] as MediaPipe feeds the model, shape (1, size, size, 3); (dx, dy)
    moves it by that many pixels. The model's face flag scores it as a face (a logit of about
    25; uniform noise scores about -17), so its landmarks follow the drawn features."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    s = size / 192
    cx, cy = 96 * s + dx, 100 * s + dy
    img = np.empty((size, size, 3))
    img[:] = (0.25, 0.3, 0.35)
    parts = [((cy - 10 * s, cx, 80 * s, 62 * s), (0.35, 0.22, 0.12)),          # hair
             ((cy, cx, 72 * s, 56 * s), (0.87, 0.70, 0.58)),                   # skin
             ((cy + 12 * s, cx, 10 * s, 5 * s), (0.78, 0.60, 0.50)),            # nose
             ((cy + 17 * s, cx - 4 * s, 2 * s, 2.5 * s), (0.4, 0.25, 0.2)),     # nostrils
             ((cy + 17 * s, cx + 4 * s, 2 * s, 2.5 * s), (0.4, 0.25, 0.2)),
             ((cy + 36 * s, cx, 6 * s, 17 * s), (0.75, 0.35, 0.35)),            # lips
             ((cy + 36 * s, cx, 1.2 * s, 15 * s), (0.35, 0.12, 0.12))]          # mouth line
    for side in (-1, 1):
        ex, ey = cx + side * 22 * s, cy - 12 * s
        parts += [((ey - 11 * s, ex, 2.5 * s, 12 * s), (0.3, 0.2, 0.12)),       # brow
                  ((ey, ex, 5.5 * s, 11 * s), (0.95, 0.95, 0.95)),              # eye white
                  ((ey, ex, 5 * s, 5 * s), (0.35, 0.25, 0.15)),                 # iris
                  ((ey, ex, 2.2 * s, 2.2 * s), (0.05, 0.05, 0.05))]             # pupil
    for (py, px, ry, rx), colour in parts:
        img[_ellipse(yy, xx, py, px, ry, rx)] = colour
    return img.astype(np.float32)[None]
