"""TRANSPOSE_CONV's shared logic: the output shape check (its shape rule is
core/compiler/shape_rules_conv.py), the padding, the float kernels' checks
(`TransposeConvBase`) and the quantized form's Prepare (`QTransposeConvBase`: quantization
checks, multipliers, requantization constants).

Inputs (TFLite order): output_shape int32[4], weights [O, KH, KW, I], input NHWC, optional bias
[O]. Padding follows TFLite: the SAME padding of a forward convolution from the output back to
the input (`total // 2` before, the rest after); VALID pads nothing. A non-constant
output_shape makes the output dynamic (the shape rule raises Dynamic at compile time).

TFLite's builtin TRANSPOSE_CONV (transpose_conv.cc, kGenericOptimized) runs, per input type:
  int8  -> optimized_integer_ops::TransposeConvV2: GEMM into col2im (int32), Col2im scatter-add,
           BiasAdd, then optimized_ops::Quantize, which rescales the output channels in blocks
           of 8 with the vector rescale (rounding doubling high multiply, then a right shift that
           rounds halves UP) and the last `cout % 8` channels ("leftover values, one by one")
           with the scalar MultiplyByQuantizedMultiplier (halves away from zero);
  uint8 -> optimized_ops::TransposeConvV2: the same GEMM/col2im, with a per-tensor multiplier,
           rescaled over the flat output (all batches) 16 values at a time with the vector
           rescale and the last `size % 16` values with the scalar one;
  int16 -> reference_integer_ops::TransposeConv: int64 accumulator and bias, the int64
           MultiplyByQuantizedMultiplier (multiplier rounded to 16 bits, one rounding shift).
Multipliers (PopulateConvolutionQuantizationParams): int8/int16, per channel or per tensor,
QuantizeMultiplier(double(s_in) * double(s_w[c]) / double(s_out)); uint8 (GetQuantized-
ConvolutionMultipler) takes the scale product in float32: double(float32(s_in * s_w)) / s_out.
The fused activation clamps the result. The weights' zero point is ignored for int8 and int16
(the kernels assume symmetric weights) and subtracted for uint8. All of this was probed against
the interpreter (ties from power-of-two multipliers, 5..19 channels, zero points, strides 1-3,
SAME/VALID, batches, activations).

Kernels: cpu backends/cpu/ops/transpose_conv.py (float), quant/qtranspose_conv.py (quantized);
acl_neon ops/transpose_conv.py; acl_cl ops/transpose_conv.py.
"""
from __future__ import annotations

import numpy as np

from ..compiler.shape_inference import conv_out
from ..ir import Graph, Operation
from ..quant import qmath
from .base import CLAMPS, OpKernel, activation, same_padding
from .conv2d import ConvRequant
from .quant_base import I8, I16, U8, QuantOpKernel

F32, I32, I64 = np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.int64)
VECTOR_CHANNELS = 8          # int8 optimized_ops::Quantize: output channels 8 at a time
VECTOR_VALUES = 16           # uint8 Quantize: the flat output 16 values at a time


def transpose_conv_shape(out_shape, x: tuple, w: tuple) -> tuple[int, ...]:
    """Check an output_shape value against the input [N,H,W,I] and weights [O,KH,KW,I]."""
    out = tuple(int(d) for d in np.asarray(out_shape).reshape(-1))
    if len(out) != 4:
        raise ValueError(f"output_shape must hold 4 values (NHWC), got {out}")
    if len(x) != 4 or len(w) != 4:
        raise ValueError(f"needs a 4-D input and 4-D weights, got {tuple(x)} and {tuple(w)}")
    if x[3] != w[3]:
        raise ValueError(f"input channels {x[3]} differ from the weights' {w[3]} "
                         f"(weights are [O, KH, KW, I])")
    if out[0] != x[0]:
        raise ValueError(f"output_shape batch {out[0]} differs from the input's {x[0]}")
    if out[3] != w[0]:
        raise ValueError(f"output_shape channels {out[3]} differ from the weights' {w[0]}")
    if any(d < 0 for d in out):
        raise ValueError(f"output_shape {out} has a negative dimension")
    return out


def check_output_shape(kernel, out_shape, x: tuple, w: tuple) -> None:
    """`transpose_conv_shape`'s refusal as `kernel`'s compile failure."""
    try:
        transpose_conv_shape(out_shape, x, w)
    except ValueError as e:
        raise kernel.fail(str(e)) from None


def check_window(kernel, p) -> None:
    """The strides and the padding scheme of the params `p`, refused as `kernel`'s failure."""
    if p.stride_h < 1 or p.stride_w < 1:
        raise kernel.fail(f"strides must be positive, got ({p.stride_h}, {p.stride_w})")
    if p.padding not in ("SAME", "VALID"):
        raise kernel.fail(f"unknown padding {p.padding!r}")


def transpose_padding(padding: str, oh: int, ow: int, kh: int, kw: int, sh: int,
                      sw: int) -> tuple[int, int]:
    """(top, left) padding of a transposed convolution with output size (oh, ow)."""
    if padding != "SAME":
        return 0, 0
    top, _ = same_padding(oh, kh, sh, 1, conv_out(oh, kh, sh, 1, "SAME"))
    left, _ = same_padding(ow, kw, sw, 1, conv_out(ow, kw, sw, 1, "SAME"))
    return top, left


def transpose_conv_multipliers(dtype, s_in: float, w_scales: np.ndarray, s_out: float,
                               cout: int) -> np.ndarray:
    """The real multipliers per output channel, as the builtin kernel's Prepare computes them."""
    ws = np.asarray(w_scales, np.float32).reshape(-1)
    if np.dtype(dtype) == U8:
        prod = np.float64(np.float32(s_in) * ws[0])
        return np.full(cout, prod / np.float64(np.float32(s_out)))
    real = np.float64(np.float32(s_in)) * ws.astype(np.float64) / np.float64(np.float32(s_out))
    return np.broadcast_to(real, (cout,)).copy()


class TransposeConvBase(OpKernel):
    """Float TRANSPOSE_CONV: inputs (output_shape, weights, input, bias?), float32 data; `act`
    the fused activation."""

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        if len(op.inputs) < 3 or op.inputs[2] < 0 or op.inputs[1] < 0:
            return False, "TRANSPOSE_CONV needs output_shape, weights and input"
        x = graph.operands[op.inputs[2]]
        if x.dtype != F32:
            return False, f"{cls.backend_id} TransposeConv supports float32, not {x.type_name}"
        return True, ""

    def validate(self) -> None:
        shape_t, w, x = self.inputs[0], self.inputs[1], self.inputs[2]
        bias = self.inputs[3] if len(self.inputs) > 3 else None
        if shape_t.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise self.fail(f"output_shape must be int32, not {shape_t.dtype}")
        for name, t in (("weights", w), ("output", self.outputs[0])) + (
                (("bias", bias),) if bias is not None else ()):
            if t.dtype != F32:
                raise self.fail(f"{name} must be float32 like the input, not {t.dtype}")
        if not w.is_dynamic and len(w.shape) != 4:
            raise self.fail(f"weights must be 4-D [O, KH, KW, I], got {w.shape}")
        if bias is not None and not bias.is_dynamic and not w.is_dynamic \
                and tuple(bias.shape) != (w.shape[0],):
            raise self.fail(f"bias must have shape ({w.shape[0]},), got {bias.shape}")
        p = self.op.params
        check_window(self, p)
        self.act = activation(p.get("fused_activation_function", "NONE"))
        if not self.dynamic:
            check_output_shape(self, self.outputs[0].shape, x.shape, w.shape)


class QTransposeConvBase(QuantOpKernel):
    """Quantized TRANSPOSE_CONV: inputs (output_shape, weights [O, KH, KW, I], input NHWC,
    bias?). validate() leaves the multipliers (`mult`, `shift`), the rescale `mode`, `split`
    (the first channel with the reference rounding), zero points, clamp and, for a constant or
    absent bias, `requant` (else `make_requant` builds it from the bias at each run)."""

    dtypes = frozenset({I8, U8, I16})

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        if len(op.inputs) < 3 or min(op.inputs[:3]) < 0:
            return False, "TRANSPOSE_CONV needs output_shape, weights and input"
        x = graph.operands[op.inputs[2]]
        if x.dtype not in cls.dtypes:
            return False, (f"{cls.backend_id} quantized TransposeConv supports int8, uint8, "
                           f"int16, not {x.dtype}")
        return cls.outputs_quantized(op, graph)

    def validate(self) -> None:
        shape_t, w, x, y = self.inputs[0], self.inputs[1], self.inputs[2], self.outputs[0]
        bias = self.inputs[3] if len(self.inputs) > 3 else None
        p = self.op.params
        if shape_t.dtype != I32:
            raise self.fail(f"output_shape must be int32, not {shape_t.dtype}")
        want_w = U8 if x.dtype == U8 else I8
        if w.dtype != want_w:
            raise self.fail(f"quantized TRANSPOSE_CONV with {x.dtype} input needs {want_w} "
                            f"weights, not {w.dtype}")
        if y.dtype != x.dtype:
            raise self.fail(f"quantized TRANSPOSE_CONV: output type {y.dtype} differs from the "
                            f"input's {x.dtype}")
        if w.is_dynamic or len(w.shape) != 4 or x.is_dynamic or len(x.shape) != 4:
            raise self.fail("quantized TRANSPOSE_CONV needs 4-D input and weights of known shape")
        cout, cin = int(w.shape[0]), int(w.shape[3])
        if not y.is_dynamic:
            check_output_shape(self, y.shape, x.shape, w.shape)
        check_window(self, p)
        act = p.get("fused_activation_function", "NONE") or "NONE"
        if act not in CLAMPS:
            raise self.fail(f"quantized TRANSPOSE_CONV has no fused {act}")
        ws = self.filter_scales(x, w, y, cout, 0)
        s_in, s_out = self.scale(x), self.scale(y)
        if bias is not None:
            self.check_bias(bias, x, cout, np.float64(np.float32(s_in) * ws[0]))
            if bias.quant is not None and np.any(bias.quant.zero_point != 0) and x.dtype != U8:
                raise self.fail("quantized TRANSPOSE_CONV needs bias zero points 0")
        real = transpose_conv_multipliers(x.dtype, s_in, ws, s_out, cout)
        self.mult, self.shift = qmath.quantize_multiplier(real)
        self.mode = "i64" if x.dtype == I16 else "q31"
        if self.mode == "i64" and np.any(self.shift >= 15):
            raise self.fail("int16 TRANSPOSE_CONV: real multiplier too large (>= 2^14)")
        # int8 rescales the last cout % 8 channels with the reference rounding
        self.split = cout - cout % VECTOR_CHANNELS if x.dtype == I8 else cout
        self.y_zp = self.zero_point(y)
        self.lo, self.hi = self.qrange(y, act)
        self.x_zp = self.zero_point(x)
        self.w_zp = self.zero_point(w) if x.dtype == U8 else 0   # int8/int16 kernels ignore it
        self.cout, self.cin = cout, cin
        if bias is None or bias.is_constant:       # else: built from the bias at each run
            self.requant = self.make_requant(None if bias is None else bias.buffer)
        else:
            self.requant = None

    def make_requant(self, bias) -> ConvRequant:
        b = np.zeros(self.cout, I64) if bias is None else np.asarray(bias, I64).reshape(-1)
        return ConvRequant(self.mult, self.shift, b, self.y_zp, self.lo, self.hi, self.mode,
                           split=self.split)


__all__ = ["transpose_conv_shape", "check_output_shape", "check_window", "transpose_padding",
           "transpose_conv_multipliers", "TransposeConvBase", "QTransposeConvBase",
           "VECTOR_CHANNELS", "VECTOR_VALUES"]
