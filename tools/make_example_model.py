"""Writes examples/mini_cnn.tflite, the small model `make demo` runs.

A MobileNet-like classifier for 64x64 RGB images: conv 3x3/2 + RELU6, an inverted residual
block (1x1 expand, depthwise 3x3, 1x1 project, residual ADD), global MEAN, FULLY_CONNECTED,
SOFTMAX. Random weights with a fixed seed; about 40 KB.
"""
from __future__ import annotations

import os

import numpy as np

from onert_py.model_builder import ModelBuilder

OUT = os.path.join(os.path.dirname(__file__), "..", "examples", "mini_cnn.tflite")


def build() -> bytes:
    rng = np.random.default_rng(2026)

    def weights(*shape: int) -> np.ndarray:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)

    b = ModelBuilder()
    x = b.add_input("image", (1, 64, 64, 3), "float32")
    stem = b.add_tensor("stem", (1, 32, 32, 16), "float32")
    b.add_op("CONV_2D", [x, b.add_const("stem_w", weights(16, 3, 3, 3)),
                         b.add_const("stem_b", weights(16))], [stem],
             padding="SAME", stride_h=2, stride_w=2, fused_activation_function="RELU6")
    expand = b.add_tensor("expand", (1, 32, 32, 64), "float32")
    b.add_op("CONV_2D", [stem, b.add_const("exp_w", weights(64, 1, 1, 16)),
                         b.add_const("exp_b", weights(64))], [expand],
             padding="VALID", fused_activation_function="RELU6")
    dw = b.add_tensor("depthwise", (1, 32, 32, 64), "float32")
    b.add_op("DEPTHWISE_CONV_2D", [expand, b.add_const("dw_w", weights(1, 3, 3, 64)),
                                   b.add_const("dw_b", weights(64))], [dw],
             padding="SAME", depth_multiplier=1, fused_activation_function="RELU6")
    proj = b.add_tensor("project", (1, 32, 32, 16), "float32")
    b.add_op("CONV_2D", [dw, b.add_const("proj_w", weights(16, 1, 1, 64)),
                         b.add_const("proj_b", weights(16))], [proj], padding="VALID")
    res = b.add_tensor("residual", (1, 32, 32, 16), "float32")
    b.add_op("ADD", [stem, proj], [res])
    pooled = b.add_tensor("pooled", (1, 16), "float32")
    b.add_op("MEAN", [res, b.add_const("axes", np.array([1, 2], np.int32))], [pooled],
             keep_dims=False)
    logits = b.add_tensor("logits", (1, 10), "float32")
    b.add_op("FULLY_CONNECTED", [pooled, b.add_const("fc_w", weights(10, 16)),
                                 b.add_const("fc_b", weights(10))], [logits])
    probs = b.add_tensor("probabilities", (1, 10), "float32")
    b.add_op("SOFTMAX", [logits], [probs], beta=1.0)
    b.add_output(probs)
    return b.build()


if __name__ == "__main__":
    data = build()
    with open(OUT, "wb") as f:
        f.write(data)
    print(f"wrote {os.path.normpath(OUT)} ({len(data)} bytes)")
