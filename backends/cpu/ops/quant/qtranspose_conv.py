"""Quantized TRANSPOSE_CONV (int8 per-channel / per-tensor weights, uint8, int16x8) with the TFLite
interpreter's integer results. The checks, multipliers and requantization constants are
core/ops/transpose_conv.py's (QTransposeConvBase), with the TFLite kernels each form follows.

The accumulator acc = sum (x - x_zp)(w - w_zp) is computed exactly: one float GEMM of the input
pixels against the weights (qgemm.Operand, float32 or float64 picked by qgemm.pick_float for the
bound cin * overlapping taps * max|x| * max|w|, so that every GEMM and scatter partial sum is an
exact integer), scatter-added by the float kernel's TransposeConvPlan; the bias and the rescale
are applied in int64 by ConvRequant (core/ops/conv2d.py). Not modelled: int32 accumulator
overflow in the int8/uint8 paths and int32 wrap of the left shift (only with accumulators beyond
2^31).

Float form: ../transpose_conv.py.
"""
from __future__ import annotations

import numpy as np

from .....core.ops.transpose_conv import (VECTOR_VALUES, QTransposeConvBase,
                                          transpose_padding)
from .....core.quant import qmath
from .....core.quant.qgemm import Operand, dtype_bound, exact_matmul, pick_float
from ..transpose_conv import TransposeConvPlan
from .base import U8, quantized_input, register

I64 = np.dtype(np.int64)


@register("TransposeConv", when=quantized_input(2))
class QTransposeConvLayer(QTransposeConvBase):
    """inputs (output_shape, weights [O, KH, KW, I], input NHWC, bias?); quantized input."""

    def validate(self) -> None:
        super().validate()
        w, x, p = self.inputs[1], self.inputs[2], self.op.params
        # the weights as the GEMM's right-hand side [I, KH*KW*O], minus their zero point
        self.wop = Operand(TransposeConvPlan.weights(w.buffer), self.w_zp) if w.is_constant \
            else None
        w_bound = self.wop.amax if self.wop is not None else dtype_bound(w.dtype, self.w_zp)
        taps = -(-int(w.shape[1]) // p.stride_h) * -(-int(w.shape[2]) // p.stride_w)
        self.ft = pick_float(self.cin * taps, dtype_bound(x.dtype, self.x_zp), w_bound)

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
        plan.scatter()
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
