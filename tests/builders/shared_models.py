"""The real models of ../shared/models (outside the repository): their paths (a test that
needs an absent one skips) and realistic inputs for them."""
from __future__ import annotations

import os

import numpy as np
import pytest

import onert_py
from paths import MODELS_DIR


def model_path(name: str) -> str:
    """The path of shared model `name`; skips the calling test when it is absent."""
    path = os.path.join(MODELS_DIR, f"{name}.tflite")
    if not os.path.exists(path):
        pytest.skip(f"{path} not present (the shared models folder is outside the repo)")
    return path


def realistic_inputs(sess: onert_py.Session, seed: int = 0) -> list[np.ndarray]:
    """Images in [0, 1), token ids in a small range, other floats standard normal."""
    rng = np.random.default_rng(seed)
    out = []
    for info in sess.inputs:
        if info.dtype.kind == "f":
            if len(info.shape) == 4:
                out.append(rng.uniform(0, 1, info.shape).astype(info.dtype))
            else:
                out.append(rng.standard_normal(info.shape).astype(info.dtype))
        else:
            out.append(rng.integers(0, 32, info.shape).astype(info.dtype))
    return out


def quantized_inputs(sess: onert_py.Session, seed: int) -> list[np.ndarray]:
    """Float-like data quantized with each input's own parameters (images in [-1, 1),
    activations standard normal), so the model sees realistic values."""
    rng = np.random.default_rng(seed)
    out = []
    for info in sess.inputs:
        q = info.quantization
        real = (rng.uniform(-1, 1, info.shape) if len(info.shape) == 4
                else rng.standard_normal(info.shape))
        x = np.round(real / q["scale"]) + q["zero_point"]
        info_i = np.iinfo(info.dtype)
        out.append(np.clip(x, info_i.min, info_i.max).astype(info.dtype))
    return out
