"""One-op models on graph inputs: float unary and binary models, convolutions (with the bias the
interpreter needs), pooling, `build` with quantized inputs and outputs, and a window op's output
size."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from onert_py.model_builder import ModelBuilder, single_op_model
from op_harness import rand


def conv_out(size: int, k: int, stride: int, dilation: int, padding: str) -> int:
    """TFLite's output size of a convolution or pooling window along one axis."""
    if padding == "SAME":
        return (size + stride - 1) // stride
    return (size - ((k - 1) * dilation + 1) + stride) // stride


def unary_model(op: str, shape: Sequence[int], dtype: str = "float32",
                out_dtype: str | None = None, out_shape: Sequence[int] | None = None,
                **options: Any) -> bytes:
    """A model computing `op` on one graph input."""
    return single_op_model(op, [("x", tuple(shape), dtype)],
                           [("y", tuple(out_shape or shape), out_dtype or dtype)], **options)


def binary_model(op: str, a_shape: Sequence[int], b_shape: Sequence[int], dtype: str = "float32",
                 out_dtype: str | None = None, **options: Any) -> bytes:
    """A model computing `op` on two graph inputs, the output shape broadcast from theirs."""
    out = tuple(np.broadcast_shapes(tuple(a_shape), tuple(b_shape)))
    return single_op_model(op, [("a", tuple(a_shape), dtype), ("b", tuple(b_shape), dtype)],
                           [("y", out, out_dtype or dtype)], **options)


def conv_models(op: str, xs: tuple, w: np.ndarray, bias: np.ndarray | None, out: tuple,
                opts: dict) -> tuple[bytes, bytes | None]:
    """The model under test and, when it has no bias, the interpreter's reference model: TFLite
    needs a bias, so it runs the same convolution with a zero one."""
    model = single_op_model(op, [("x", xs, "float32"), w, bias], [("y", out, "float32")], **opts)
    if bias is not None:
        return model, None
    zero = np.zeros(out[3:], np.float32)
    return model, single_op_model(op, [("x", xs, "float32"), w, zero], [("y", out, "float32")],
                                  **opts)


def depthwise_models(rng: np.random.Generator, xs: tuple, kernel: tuple, mult: int,
                     stride: tuple, dilation: tuple, padding: str, has_bias: bool,
                     act: str) -> tuple[bytes, bytes | None]:
    """A float DEPTHWISE_CONV_2D on input NHWC `xs` with a random (1, kh, kw, xs[3] * mult)
    filter and (with `has_bias`) bias from `rng`, and the interpreter's reference model as
    conv_models gives it; kernel, stride and dilation are (h, w)."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    cout = xs[3] * mult
    w = rand(rng, (1, kh, kw, cout))
    bias = rand(rng, (cout,)) if has_bias else None
    out = (xs[0], conv_out(xs[1], kh, sh, dh, padding), conv_out(xs[2], kw, sw, dw, padding), cout)
    opts = dict(padding=padding, stride_h=sh, stride_w=sw, dilation_h_factor=dh,
                dilation_w_factor=dw, depth_multiplier=mult, fused_activation_function=act)
    return conv_models("DEPTHWISE_CONV_2D", xs, w, bias, out, opts)


def pool_model(op: str, xs: tuple, f: tuple, s: tuple, padding: str, act: str,
               dtype: str = "float32", quant: dict | None = None,
               out_quant: dict | None = None) -> bytes:
    """A pooling op (AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D) on input NHWC `xs` with filter
    `f` and stride `s` (h, w); `quant`/`out_quant`: the input's/output's quantization."""
    out = (xs[0], conv_out(xs[1], f[0], s[0], 1, padding), conv_out(xs[2], f[1], s[1], 1, padding),
           xs[3])
    return single_op_model(op, [("x", xs, dtype, quant)], [("y", out, dtype, out_quant)],
                           padding=padding, stride_h=s[0], stride_w=s[1], filter_height=f[0],
                           filter_width=f[1], fused_activation_function=act)


# every dtype that data-movement ops move (quantized ones move the integers)
MOVE = ["float32", "int32", "int64", "bool", "int8", "uint8", "int16"]
Q = {"scale": [0.5], "zero_point": [3]}     # the quantization `build` gives tensors in tests


def build(op: str, ins: Sequence, outs: Sequence, quant: dict | None = None,
          **options: Any) -> bytes:
    """single_op_model, with `quant` on every graph input and output tensor when given."""
    if quant is None:
        return single_op_model(op, ins, outs, **options)
    b = ModelBuilder()
    ids = [b.add_input(*s, quant=quant) if isinstance(s, tuple) else b.add_const(f"c{i}", s)
           for i, s in enumerate(ins)]
    out = [b.add_tensor(*s, quant=quant) for s in outs]
    b.add_op(op, ids, out, **options)
    for o in out:
        b.add_output(o)
    return b.build()


def data(rng, shape, dtype):
    """Values for data movement: integers in [-100, 100) (uint8 [0, 100)), floats in [-2, 2)."""
    lo, hi = (-100, 100) if np.dtype(dtype).kind in "iu" else (-2, 2)
    return rand(rng, shape, dtype, 0 if dtype == "uint8" else lo, hi)
