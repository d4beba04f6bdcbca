"""Float models of convolutions followed by swish (LOGISTIC, then MUL of the convolution output
by it: EfficientNet's form) or HARD_SWISH (MobileNetV3's), for acl_neon's epilogue fusion tests
(backends/acl_neon/fusion.py, propose_epilogues)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from onert_py.model_builder import ModelBuilder


@dataclass(frozen=True)
class Layer:
    depthwise: bool               # DEPTHWISE_CONV_2D (multiplier 1) or CONV_2D
    out: int                      # output channels (a depthwise layer keeps its input's)
    tail: str = "swish"           # "swish" or "hard_swish"
    k: int = 1
    stride: int = 1
    act: str = "NONE"             # the convolution's fused activation
    mul_first: bool = False       # MUL(LOGISTIC output, conv output) rather than (conv, LOGISTIC)
    mul_act: str = "NONE"         # the MUL's fused activation


# every form the epilogues cover: CONV_2D 1x1 (the GEMM in place) and 3x3 stride 2 (im2col),
# DEPTHWISE_CONV_2D 3x3 and 5x5, strides 1 and 2, both MUL operand orders, clamps on the
# convolution and on the MUL, column counts that leave tile tails
LAYERS = (
    Layer(False, 24, k=3, stride=2),
    Layer(True, 24, k=3, mul_first=True),
    Layer(False, 40, tail="hard_swish"),
    Layer(True, 40, tail="hard_swish", k=5, stride=2, act="RELU6"),
    Layer(False, 19, act="RELU6", mul_act="RELU"),
    Layer(True, 19, k=3, stride=2, mul_act="RELU_N1_TO_1"),
    Layer(False, 33, k=3, tail="hard_swish", act="RELU_N1_TO_1"),
)
INNER = ("conv", "logistic")      # the inner tensors extra_output can name


def layer_model(layers=LAYERS, batch: int = 2, h: int = 17, w: int = 15, cin: int = 5,
                extra_output: tuple[int, str] | None = None) -> tuple[bytes, list[list[int]]]:
    """The model (input (batch, h, w, cin), one output) and, per layer, its op indices: the
    convolution, then LOGISTIC and MUL or HARD_SWISH. `extra_output` (layer, "conv" or
    "logistic") also makes that inner tensor a model output."""
    rng = np.random.default_rng(11)
    b = ModelBuilder()
    x = b.add_input("x", (batch, h, w, cin), "float32")
    shape = (batch, h, w, cin)
    ops: list[list[int]] = []
    extra = None

    def const(name: str, dims, fan_in: int) -> int:
        return b.add_const(name, (rng.standard_normal(dims) / np.sqrt(fan_in)).astype(np.float32))

    for n, lay in enumerate(layers):
        c = shape[3]
        oh, ow = -(-shape[1] // lay.stride), -(-shape[2] // lay.stride)
        cout = c if lay.depthwise else lay.out
        y = b.add_tensor(f"l{n}_conv", (batch, oh, ow, cout), "float32")
        bias = const(f"l{n}_b", (cout,), 4)
        common = dict(padding="SAME", stride_h=lay.stride, stride_w=lay.stride,
                      fused_activation_function=lay.act)
        if lay.depthwise:
            wt = const(f"l{n}_w", (1, lay.k, lay.k, c), lay.k * lay.k)
            conv = b.add_op("DEPTHWISE_CONV_2D", [x, wt, bias], [y], depth_multiplier=1,
                            **common)
        else:
            wt = const(f"l{n}_w", (cout, lay.k, lay.k, c), lay.k * lay.k * c)
            conv = b.add_op("CONV_2D", [x, wt, bias], [y], **common)
        out = b.add_tensor(f"l{n}_out", (batch, oh, ow, cout), "float32")
        inner = {"conv": y}
        if lay.tail == "swish":
            s = inner["logistic"] = b.add_tensor(f"l{n}_sig", (batch, oh, ow, cout), "float32")
            sig = b.add_op("LOGISTIC", [y], [s])
            mul = b.add_op("MUL", [s, y] if lay.mul_first else [y, s], [out],
                           fused_activation_function=lay.mul_act)
            ops.append([conv, sig, mul])
        else:
            ops.append([conv, b.add_op("HARD_SWISH", [y], [out])])
        if extra_output is not None and extra_output[0] == n:
            extra = inner[extra_output[1]]
        x, shape = out, (batch, oh, ow, cout)
    b.add_output(x)
    if extra is not None:
        b.add_output(extra)
    return b.build(), ops


def layer_inputs(batch: int = 2, h: int = 17, w: int = 15, cin: int = 5) -> list[np.ndarray]:
    return [np.random.default_rng(5).uniform(-3, 3, (batch, h, w, cin)).astype(np.float32)]
