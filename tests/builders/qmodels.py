"""Quantized models the test suite generates itself (no converter needed): a small uint8 CNN
with per-tensor asymmetric weights, the form TFLite's older (TF1) quantized models take."""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import ModelBuilder
from builders.quant import qdict

U8 = "uint8"


def _weights(b: ModelBuilder, rng, name: str, shape, scale: float, zp: int) -> int:
    w = rng.integers(0, 256, size=shape).astype(np.uint8)
    return b.add_const(name, w, quant=qdict(scale, zp))


def _bias(b: ModelBuilder, rng, name: str, n: int, scale: float) -> int:
    return b.add_const(name, rng.integers(-300, 300, size=n).astype(np.int32),
                       quant=qdict(scale, 0))


def uint8_cnn(seed: int = 0, size: int = 16) -> bytes:
    """conv3x3/2 RELU6 -> depthwise3x3 RELU6 -> conv1x1 -> ADD(residual) -> AVG_POOL ->
    CONCATENATION -> MEAN -> FULLY_CONNECTED -> SOFTMAX, all uint8."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    s_in, s_w, s_r6, s_mid = 1 / 128, 0.004, 6 / 255, 0.05
    h = size // 2
    x = b.add_input("image", (1, size, size, 3), U8, quant=qdict(s_in, 128))
    c1 = b.add_tensor("conv1", (1, h, h, 8), U8, quant=qdict(s_r6, 0))
    b.add_op("CONV_2D", [x, _weights(b, rng, "w1", (8, 3, 3, 3), s_w, 127),
                         _bias(b, rng, "b1", 8, s_in * s_w)], [c1],
             padding="SAME", stride_h=2, stride_w=2, fused_activation_function="RELU6")
    d1 = b.add_tensor("dw1", (1, h, h, 8), U8, quant=qdict(s_r6, 0))
    b.add_op("DEPTHWISE_CONV_2D", [c1, _weights(b, rng, "w2", (1, 3, 3, 8), 0.01, 131),
                                   _bias(b, rng, "b2", 8, s_r6 * 0.01)], [d1],
             padding="SAME", stride_h=1, stride_w=1, depth_multiplier=1,
             fused_activation_function="RELU6")
    p1 = b.add_tensor("pw1", (1, h, h, 8), U8, quant=qdict(s_mid, 120))
    b.add_op("CONV_2D", [d1, _weights(b, rng, "w3", (8, 1, 1, 8), 0.006, 125),
                         _bias(b, rng, "b3", 8, s_r6 * 0.006)], [p1],
             padding="VALID", stride_h=1, stride_w=1)
    a1 = b.add_tensor("add", (1, h, h, 8), U8, quant=qdict(0.06, 100))
    b.add_op("ADD", [p1, c1], [a1])
    q = h // 2
    ap = b.add_tensor("pool", (1, q, q, 8), U8, quant=qdict(0.06, 100))
    b.add_op("AVERAGE_POOL_2D", [a1], [ap], padding="VALID", stride_h=2, stride_w=2,
             filter_height=2, filter_width=2)
    mp = b.add_tensor("maxpool", (1, q, q, 8), U8, quant=qdict(s_r6, 0))
    b.add_op("MAX_POOL_2D", [d1], [mp], padding="VALID", stride_h=2, stride_w=2,
             filter_height=2, filter_width=2)
    cat = b.add_tensor("concat", (1, q, q, 16), U8, quant=qdict(0.06, 90))
    b.add_op("CONCATENATION", [ap, mp], [cat], axis=3)
    m = b.add_tensor("mean", (1, 16), U8, quant=qdict(0.03, 80))
    b.add_op("MEAN", [cat, b.add_const("axes", np.array([1, 2], np.int32))], [m],
             keep_dims=False)
    fc = b.add_tensor("logits", (1, 5), U8, quant=qdict(0.1, 128))
    b.add_op("FULLY_CONNECTED", [m, _weights(b, rng, "w4", (5, 16), 0.01, 128),
                                 _bias(b, rng, "b4", 5, 0.03 * 0.01)], [fc])
    sm = b.add_tensor("probs", (1, 5), U8, quant=qdict(1 / 256, 0))
    b.add_op("SOFTMAX", [fc], [sm], beta=1.0)
    b.add_output(sm)
    b.add_output(fc)
    return b.build()
