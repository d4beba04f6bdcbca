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


def se_block_model(batch: int = 2, h: int = 9, w: int = 11, c: int = 24, cout: int = 20,
                   const_gate: bool = False, gate_first: bool = False,
                   mul_act: str = "NONE", project_k: int = 1,
                   gated_output: bool = False) -> tuple[bytes, dict[str, list[int]]]:
    """EfficientNet's block end: DEPTHWISE_CONV_2D + swish -> y; squeeze-and-excitation
    MEAN(y) -> CONV_2D 1x1 + swish -> CONV_2D 1x1 -> LOGISTIC -> gate (batch, 1, 1, c), or a
    constant gate (1, 1, 1, c) (`const_gate`); MUL(y, gate) (`gate_first`: MUL(gate, y)) with
    `mul_act` -> project CONV_2D `project_k` x `project_k` to `cout` channels. The op indices by
    part: "dw" (conv, LOGISTIC, MUL), "reduce" (likewise), "gate" (MUL, project conv).
    `gated_output` also makes the MUL's product a model output."""
    rng = np.random.default_rng(13)
    b = ModelBuilder()
    x = b.add_input("x", (batch, h, w, c), "float32")
    ops: dict[str, list[int]] = {}

    def const(name: str, dims, fan_in: int) -> int:
        return b.add_const(name, (rng.standard_normal(dims) / np.sqrt(fan_in)).astype(np.float32))

    def swish(name: str, y: int, shape) -> tuple[int, list[int]]:
        s = b.add_tensor(name + "_sig", shape, "float32")
        out = b.add_tensor(name + "_swish", shape, "float32")
        return out, [b.add_op("LOGISTIC", [y], [s]), b.add_op("MUL", [y, s], [out])]

    full = (batch, h, w, c)
    d = b.add_tensor("dw", full, "float32")
    dw = b.add_op("DEPTHWISE_CONV_2D", [x, const("dw_w", (1, 3, 3, c), 9),
                                        const("dw_b", (c,), 4)], [d], padding="SAME",
                  stride_h=1, stride_w=1, depth_multiplier=1)
    y, tail = swish("dw", d, full)
    ops["dw"] = [dw, *tail]
    if const_gate:
        gate = b.add_const("gate", rng.uniform(0, 1, (1, 1, 1, c)).astype(np.float32))
    else:
        squeezed = (batch, 1, 1, c)
        m = b.add_tensor("mean", squeezed, "float32")
        b.add_op("MEAN", [y, b.add_const("axes", np.array([1, 2], np.int32))], [m],
                 keep_dims=True)
        r = b.add_tensor("reduce", (batch, 1, 1, 4), "float32")
        red = b.add_op("CONV_2D", [m, const("r_w", (4, 1, 1, c), c), const("r_b", (4,), 4)],
                       [r], padding="SAME")
        rs, tail = swish("reduce", r, (batch, 1, 1, 4))
        ops["reduce"] = [red, *tail]
        e = b.add_tensor("expand", squeezed, "float32")
        b.add_op("CONV_2D", [rs, const("e_w", (c, 1, 1, 4), 4), const("e_b", (c,), 4)], [e],
                 padding="SAME")
        gate = b.add_tensor("gate", squeezed, "float32")
        b.add_op("LOGISTIC", [e], [gate])
    g = b.add_tensor("gated", full, "float32")
    mul = b.add_op("MUL", [gate, y] if gate_first else [y, gate], [g],
                   fused_activation_function=mul_act)
    out = b.add_tensor("out", (batch, h, w, cout), "float32")
    project = b.add_op("CONV_2D", [g, const("p_w", (cout, project_k, project_k, c),
                                            c * project_k ** 2), const("p_b", (cout,), 4)],
                       [out], padding="SAME")
    ops["gate"] = [mul, project]
    b.add_output(out)
    if gated_output:
        b.add_output(g)
    return b.build(), ops
