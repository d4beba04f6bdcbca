"""Quantized TRANSPOSE_CONV (int8 per-channel / per-tensor weights, uint8, int16x8) with the TFLite
interpreter's integer results.

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

The accumulator acc = sum (x - x_zp)(w - w_zp) is computed exactly: one float GEMM of the input
pixels against the weights (qgemm.Operand, float32 or float64 picked by qgemm.pick_float for the
bound cin * overlapping taps * max|x| * max|w|, so that every GEMM and scatter partial sum is an
exact integer), scatter-added by the float kernel's TransposeConvPlan; the bias and the rescale
are applied in int64 by qconv.ConvRequant. Not modelled: int32 accumulator overflow in the
int8/uint8 paths and int32 wrap of the left shift (only with accumulators beyond 2^31).
"""
from __future__ import annotations

import numpy as np

from ..transpose_conv import TransposeConvPlan, transpose_conv_shape, transpose_padding
from .....core.quant import qmath
from .base import I8, I16, U8, QuantKernel, quantized_input, register
from .qconv import ConvRequant
from .....core.quant.qgemm import Operand, dtype_bound, exact_matmul, pick_float

I32, I64 = np.dtype(np.int32), np.dtype(np.int64)
ACTIVATIONS = ("NONE", "RELU", "RELU_N1_TO_1", "RELU6")
VECTOR_CHANNELS = 8          # int8 optimized_ops::Quantize: output channels 8 at a time
VECTOR_VALUES = 16           # uint8 Quantize: the flat output 16 values at a time


def transpose_conv_multipliers(dtype, s_in: float, w_scales: np.ndarray, s_out: float,
                               cout: int) -> np.ndarray:
    """The real multipliers per output channel, as the builtin kernel's Prepare computes them."""
    ws = np.asarray(w_scales, np.float32).reshape(-1)
    if np.dtype(dtype) == U8:
        prod = np.float64(np.float32(s_in) * ws[0])
        return np.full(cout, prod / np.float64(np.float32(s_out)))
    real = np.float64(np.float32(s_in)) * ws.astype(np.float64) / np.float64(np.float32(s_out))
    return np.broadcast_to(real, (cout,)).copy()


@register("TransposeConv", when=quantized_input(2))
class QTransposeConvLayer(QuantKernel):
    """inputs (output_shape, weights [O, KH, KW, I], input NHWC, bias?); quantized input."""

    dtypes = frozenset({I8, U8, I16})

    @classmethod
    def supports(cls, op, graph):
        if len(op.inputs) < 3 or min(op.inputs[:3]) < 0:
            return False, "TRANSPOSE_CONV needs output_shape, weights and input"
        x = graph.operands[op.inputs[2]]
        if x.dtype not in cls.dtypes:
            return False, (f"{cls.backend_id} quantized TransposeConv supports int8, uint8, "
                           f"int16, not {x.dtype}")
        return cls.outputs_quantized(op, graph)

    # ------------------------------------------------------------------ checks and constants
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
            try:
                transpose_conv_shape(y.shape, x.shape, w.shape)
            except ValueError as e:
                raise self.fail(str(e)) from None
        if p.stride_h < 1 or p.stride_w < 1:
            raise self.fail(f"strides must be positive, got ({p.stride_h}, {p.stride_w})")
        if p.padding not in ("SAME", "VALID"):
            raise self.fail(f"unknown padding {p.padding!r}")
        act = p.get("fused_activation_function", "NONE") or "NONE"
        if act not in ACTIVATIONS:
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
        # the weights as the GEMM's right-hand side [I, KH*KW*O], minus their zero point
        self.wop = Operand(TransposeConvPlan.weights(w.buffer), self.w_zp) if w.is_constant \
            else None
        w_bound = self.wop.amax if self.wop is not None else dtype_bound(w.dtype, self.w_zp)
        taps = -(-int(w.shape[1]) // p.stride_h) * -(-int(w.shape[2]) // p.stride_w)
        self.ft = pick_float(cin * taps, dtype_bound(x.dtype, self.x_zp), w_bound)
        if bias is None or bias.is_constant:       # else: built from the bias at each run
            self.requant = self.make_requant(None if bias is None else bias.buffer)
        else:
            self.requant = None

    def make_requant(self, bias) -> ConvRequant:
        b = np.zeros(self.cout, I64) if bias is None else np.asarray(bias, I64).reshape(-1)
        return ConvRequant(self.mult, self.shift, b, self.y_zp, self.lo, self.hi, self.mode,
                           split=self.split)

    # ------------------------------------------------------------------ buffers
    def prepare(self) -> None:
        p = self.op.params
        w, x, out = self.inputs[1], self.inputs[2], self.out
        top, left = transpose_padding(p.padding, out.shape[1], out.shape[2], w.shape[1],
                                      w.shape[2], p.stride_h, p.stride_w)
        acc_dtype = np.dtype(self.ft if self.ft is not None else I64)
        shape_only = np.broadcast_to(np.zeros((), acc_dtype), out.shape)
        self.plan = TransposeConvPlan(tuple(x.shape), tuple(w.shape), shape_only, p.stride_h,
                                      p.stride_w, top, left)
        self.xf = np.empty(tuple(x.shape), acc_dtype) if self.ft is not None else None
        self.tmp = np.empty(out.shape, I64)
        self.neg = np.empty(out.shape[:3] + (self.cout - self.split,), I64)
        self.tail = None
        if x.dtype == U8 and out.size % VECTOR_VALUES:
            self.tail = np.unravel_index(np.arange(qmath.vector_part(out.size, VECTOR_VALUES),
                                                   out.size), out.shape)

    def run(self) -> None:
        plan = self.plan
        wop = self.wop if self.wop is not None else \
            Operand(TransposeConvPlan.weights(self.buf(1)), self.w_zp)
        x = self.buf(2)
        if self.ft is not None:
            np.subtract(x, self.x_zp, out=self.xf, dtype=self.ft)
            np.matmul(self.xf.reshape(plan.x_rows, self.cin), wop.as_float(self.ft),
                      out=plan.cols)
        else:
            plan.cols[...] = exact_matmul(x.reshape(plan.x_rows, self.cin), wop, self.x_zp)
        plan.full.fill(0)
        for dst, src in plan.pairs:
            np.add(dst, src, out=dst)
        requant = self.requant if self.requant is not None else self.make_requant(self.buf(3))
        requant(plan.crop, self.out, self.tmp, self.neg)
        if self.tail is not None:
            self.scalar_tail()

    def scalar_tail(self) -> None:
        """uint8: redo the flat output's last values with the scalar (away-from-zero) rescale."""
        idx = self.tail
        acc = self.plan.crop[idx].astype(I64)
        bias = self.buf(3)
        if bias is not None:
            acc += np.asarray(bias, I64).reshape(-1)[idx[3]]
        r = qmath.multiply_by_quantized_multiplier(qmath.wrap_int32(acc), self.mult[idx[3]],
                                                   self.shift[idx[3]])
        out = self.out.reshape(-1)
        qmath.clamp_cast(r + self.y_zp, self.lo, self.hi, out.dtype,
                         out=out[out.size - acc.size:])
