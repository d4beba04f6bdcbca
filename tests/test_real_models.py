"""The real models of ../shared/models run on cpu and match the TFLite interpreter.

The bound for each model is what TFLite's own two kernel sets (builtin and XNNPACK) disagree
by on the same input, or a small relative tolerance, whichever is larger.
"""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders.shared_models import model_path, realistic_inputs
from oracle import tflite_run

FLOAT_MODELS = ["mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "transformer_block",
                "face_detection_short_range", "hand_landmark_lite", "palm_detection_lite",
                "pose_detection"]


@pytest.mark.parametrize("name", FLOAT_MODELS)
def test_float_model_matches_interpreter(name):
    path = model_path(name)
    sess = onert_py.Session(path, backends="cpu")
    xs = realistic_inputs(sess)
    out = sess.run(xs)
    ref = tflite_run(path, xs)
    xnn = tflite_run(path, xs, xnnpack=True)
    assert len(out) == len(ref)
    for o, r, x in zip(out, ref, xnn):
        assert o.shape == r.shape and o.dtype == r.dtype
        scale = float(np.abs(r).max()) + 1e-6
        bound = max(2e-5 * scale, 2 * float(np.abs(x - r).max()))
        err = float(np.abs(o - r).max())
        assert err <= bound, f"{name}: max abs error {err:.3g} over bound {bound:.3g}"
