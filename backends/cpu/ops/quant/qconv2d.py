"""Quantized CONV_2D (int8 per-channel / per-tensor weights, uint8 with weight zero points, int16x8)
with the TFLite interpreter's integer results. The checks, multipliers and requantization
constants (ConvRequant) are core/ops/conv2d.py's, with the TFLite kernels each form follows.

The accumulator acc = sum (x - x_zp) * (w - w_zp) + bias is computed here by the float kernel
(conv2d.py's Conv2DLayer): the GEMM runs in float32 (or float64) BLAS on x - x_zp (padding = 0 =
the zero point) and w - w_zp, or, where the float64 rescale stays exact
(QConvMixin.plan_raw_input), on x itself (one cast per run instead of a slower subtraction;
padding = x_zp) with -x_zp * sum(w - w_zp) folded into each channel's bias; it is exact because
a bound on every partial sum (max|x - x_zp| times the largest sum of |w - w_zp| of one output
channel) is checked against the float's integer range in validate(). Each chunk is rescaled by
ConvRequant (one int64 multiply-add-shift per element) or, for 8-bit outputs without
reference-rounded channels, by the q31 form evaluated in float64 (f64_rescale.Float64Rescale:
exact, and bit-identical, wherever a bound on |acc * M + K| < 2^53 holds, checked per channel in
validate()).

Float form: ../conv2d.py; hybrid form: ../hybrid_conv.py. DEPTHWISE_CONV_2D shares QConvMixin
(qdepthwise_conv2d.py).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .....core.ops.conv2d import ConvRequant, QConv2DBase
from .....core.quant import qmath
from .....core.quant.qgemm import F32_EXACT
from ..conv2d import Conv2DLayer
from .base import I16, quantized, register
from .f64_rescale import Float64Rescale

I64 = np.int64


def _tensor(buffer: np.ndarray) -> SimpleNamespace:
    """A stand-in tensor for driving a float kernel's prepare/run on our float buffers."""
    return SimpleNamespace(buffer=buffer)


class QConvMixin:
    """The cpu compute shared by quantized CONV_2D and DEPTHWISE_CONV_2D, mixed in before the
    core base (core/ops/conv2d.py QConvBase): validate() adds the exact float type of the
    accumulation (`acc_dtype`), the float64 rescale (`f64`) and the raw-input plan."""

    def validate(self) -> None:
        super().validate()
        x, y = self.inputs[0], self.outputs[0]
        # the float type that keeps the GEMM of x - x_zp and w - w_zp exact
        lo, hi = qmath.dtype_range(x.dtype)
        xabs = max(abs(lo - self.xzp), abs(hi - self.xzp))
        red = tuple(a for a in range(4) if a != self.filter_axis)
        bound = xabs * int(np.abs(self.wq).sum(axis=red).max(initial=0))
        self.acc_dtype = np.dtype(np.float32 if bound < F32_EXACT else np.float64)
        # the exact float64 form of the rescale (f64_rescale), where it applies
        self.f64 = None if x.dtype == I16 else Float64Rescale.plan(self.requant, y.dtype,
                                                                   bound, self.bq)
        self.raw = False
        if x.dtype != I16:
            self.plan_raw_input(red)
        self.wf = self.wq.astype(self.acc_dtype)

    def plan_raw_input(self, red: tuple) -> None:
        """Where the float64 rescale stays exact: accumulate x itself (one cast per run instead
        of a subtraction, which is slower) and fold -x_zp * sum(w - w_zp) of each channel into
        the bias; padded taps then hold x_zp (their x - x_zp is 0 as before). `self.requant`
        keeps the x - x_zp form (the acl backends read it); `self.f64` gets the folded one.
        `red`: the filter's axes other than its output channels."""
        x, y, wq, bias = self.inputs[0], self.outputs[0], self.wq, self.bq
        lo, hi = qmath.dtype_range(x.dtype)
        bound = max(abs(lo), abs(hi)) * int(np.abs(wq).sum(axis=red).max(initial=0))
        dt = np.dtype(np.float32 if bound < F32_EXACT else np.float64)
        if dt.itemsize > self.acc_dtype.itemsize:
            return
        braw = bias - self.xzp * wq.sum(axis=red).reshape(bias.shape)
        rq = ConvRequant(self.mult, self.shift, braw, self.zero_point(y),
                         *self.qrange(y, self.op.params.fused_activation_function),
                         mode="q31", split=self.reference_split(bias.size))
        f64 = Float64Rescale.plan(rq, y.dtype, bound, braw)
        if f64 is not None:
            self.raw, self.acc_dtype, self.f64 = True, dt, f64

    def float_plan(self, layer_cls: type, xf: np.ndarray, yf: np.ndarray):
        """The float kernel `layer_cls` prepared on the float buffers `xf` (x - x_zp, which
        `run` fills) and `yf`, with the float filter; `prepare` then routes its per-chunk
        `act(out)` calls to the requantization of each chunk (`make_act`)."""
        fl = layer_cls.__new__(layer_cls)
        fl.op, fl.act = self.op, None
        fl.ctx = getattr(self, "ctx", None)     # its scratch buffers obey max_tensor_bytes too
        fl.inputs = [_tensor(xf), _tensor(self.wf), None]
        fl.outputs = [_tensor(yf)]
        fl.prepare()
        self.float_kernel, self.dest = fl, xf
        self.x, self.zp = self.buf(0), self.acc_dtype.type(self.xzp)
        return fl

    def make_act(self, targets: list):
        """An `act(chunk)` requantizing each float chunk of `targets` ((float chunk, int chunk)
        pairs) into its integer chunk: Float64Rescale where it applies, else ConvRequant."""
        if self.f64 is not None:
            return self.f64.hook(targets)
        size = max((f.size for f, _ in targets), default=0)
        tmp = np.empty(size, I64)
        neg = np.empty(size, I64)
        plan = {}
        for f, q in targets:
            t = tmp[:f.size].reshape(f.shape)
            tail = t[..., self.requant.split:]
            plan[id(f)] = (q, t, neg[:tail.size].reshape(tail.shape))
        requant = self.requant

        def act(f: np.ndarray) -> None:
            q, t, ng = plan[id(f)]
            requant(f, q, t, ng)
        return act

    def run(self) -> None:
        if self.raw:
            np.copyto(self.dest, self.x)
        else:
            np.subtract(self.x, self.zp, out=self.dest, dtype=self.acc_dtype)
        self.float_kernel.run()


@register("Conv2D", when=quantized)
class QConv2DLayer(QConvMixin, QConv2DBase):
    def prepare(self) -> None:
        dt, y = self.acc_dtype, self.out
        fl = self.float_plan(Conv2DLayer, np.zeros(self.buf(0).shape, dt), np.empty(y.shape, dt))
        if not fl.pointwise and fl.pad.interior is not None:
            # write x - zp (or x) straight into the bordered copy: no refresh copy; the border
            # is 0 = x_zp - x_zp, or x_zp itself for the raw input (plan_raw_input)
            self.dest, fl.pad.interior = fl.pad.interior, None
            fl.pad.padded[...] = self.xzp if self.raw else 0
        y2d = y.reshape(-1, y.shape[3])
        targets, r = [], 0
        for _, f in fl.chunks:
            targets.append((f, y2d[r:r + f.shape[0]]))
            r += f.shape[0]
        fl.act = self.make_act(targets)
