"""Quantized CONV_2D (int8 per-channel / per-tensor weights, uint8 with weight zero points, int16x8)
with the TFLite interpreter's integer results.

TFLite's builtin CONV_2D runs, per input type (conv.cc Eval):
  uint8 -> optimized_ops::Conv (im2col + cpu_backend_gemm, per-tensor multiplier),
  int8  -> optimized_integer_ops::ConvPerChannel (im2col + cpu_backend_gemm, per-channel),
  int16 -> reference_integer_ops::ConvPerChannel (int64 accumulator and bias).
The accumulator is exact integer arithmetic in all of them:
    acc = sum (x - x_zp) * (w - w_zp) + bias.
Here the GEMM runs in float32 (or float64) BLAS on x - x_zp (padding = 0 = the zero point) and
w - w_zp, or, where the float64 rescale stays exact (QConvBase.plan_raw_input), on x itself (one
cast per run instead of a slower subtraction; padding = x_zp) with -x_zp * sum(w - w_zp) folded
into each channel's bias; it is exact because a bound on every partial sum (max|x - x_zp| times the largest sum of
|w - w_zp| of one output channel) is checked against the float's integer range in prepare().
The rescale, probed against the interpreter (ties, per-channel scales, 1..40 channels):
  - int8 and uint8 (the GEMM library's output stage): SaturatingRoundingDoublingHighMul, then a
    rounding right shift that rounds halves UP, on every element (no scalar tail);
  - int16x8: the int64 MultiplyByQuantizedMultiplier (multiplier rounded to 16 bits, one
    rounding shift), as qmath.multiply_by_quantized_multiplier_int64.
Both are folded into one int64 multiply-add-shift per element (see `ConvRequant`). For 8-bit
outputs without reference-rounded channels, the q31 form is evaluated in float64 instead
(qconv_f64.Float64Rescale: exact, and bit-identical, wherever a bound on |acc * M + K| < 2^53
holds, checked per channel in validate(); else ConvRequant runs). Multipliers
are QuantizeMultiplier(double(in_scale) * double(w_scale[c]) / double(out_scale)), as
PopulateConvolutionQuantizationParams computes them.
Not modelled: int32 accumulator overflow and int32 wrap-around of the left shift when the real
multiplier exceeds 1 (both need accumulators beyond 2^31, where TFLite's own result is garbage).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..conv2d import Conv2DLayer
from .....core.quant import qmath
from .base import I8, I16, U8, QuantKernel, quantized, register
from .qconv_f64 import Float64Rescale

I64 = np.int64
F32_EXACT = 1 << 24         # float32 holds every integer below this exactly


class ConvRequant:
    """acc -> clamp((acc * M + K) >> S) per output channel (last axis), where `g` (the GEMM result
    without bias, exact integers in a float array) plus the bias is the accumulator.

    mode "q31": SaturatingRoundingDoublingHighMul(acc << left, m) = (acc*m*2^left + 2^30) >> 31
    (its nudge rounds halves up for both signs), followed by a right shift that rounds halves up
    (the vector unit's vrshl): nested floors fold into (acc*M + 2^30 + 2^(30+r)) >> (31+r).
    Channels from `split` on round the last shift halves away from zero instead (the reference
    RoundingDivideByPOT: scalar tails), which subtracts 2^31 where the high product is negative.
    mode "i64": the int64 MultiplyByQuantizedMultiplier: (acc*R + 2^(t-1)) >> t.
    The output zero point is folded into K (a multiple of 2^S) when that cannot overflow."""

    def __init__(self, mult, shift, bias, zp: int, lo: int, hi: int, mode: str,
                 split: int | None = None) -> None:
        mult, shift, bias = (np.asarray(a, I64) for a in (mult, shift, bias))
        n = bias.size
        mult, shift = np.broadcast_to(mult, (n,)), np.broadcast_to(shift, (n,))
        if mode == "i64":
            m = np.where(mult < 0x7FFF0000, (mult + (1 << 15)) >> 16, 0x7FFF)
            s = 15 - shift
            if np.any(s < 1):
                raise ValueError("int16 convolution multiplier too large (>= 2^14)")
            k = bias * m + (np.int64(1) << (s - 1))
            right = np.zeros(n, I64)
        else:
            left, right = np.maximum(shift, 0), np.maximum(-shift, 0)
            m = mult << left
            s = 31 + right
            k = bias * m + (1 << 30) + np.where(right > 0, np.int64(1) << (29 + right + 1), 0)
        self.split = n if split is None or mode == "i64" else int(split)
        # reference rounding on channels [split, n): where P = acc*M < -2^30, i.e. where
        # tmp = P + K  <  K - bias*M - 2^30  (= the rounding terms), subtract 2^31 (if r > 0)
        self.thresh = (k - bias * m - (1 << 30))[self.split:]
        self.dfix = np.where(right > 0, np.int64(1) << 31, 0)[self.split:]
        self.fold = bool(s.max(initial=0) + int(abs(zp)).bit_length() < 62)
        if self.fold:
            k = k + (np.int64(zp) << s)
            self.thresh = self.thresh + (np.int64(zp) << s[self.split:])
        self.zp, self.lo, self.hi = int(zp), int(lo), int(hi)
        uniform = n > 0 and np.all(m == m[0]) and np.all(s == s[0])
        self.m = int(m[0]) if uniform else m
        self.s = int(s[0]) if uniform else s
        self.k = k

    def __call__(self, g: np.ndarray, out: np.ndarray, tmp: np.ndarray,
                 neg: np.ndarray | None) -> None:
        np.copyto(tmp, g, casting="unsafe")          # exact: g holds integers
        np.multiply(tmp, self.m, out=tmp)
        np.add(tmp, self.k, out=tmp)
        if self.split < tmp.shape[-1]:     # branch-free: (t - thresh) >> 63 is -1 where t < thresh
            t = tmp[..., self.split:]
            np.subtract(t, self.thresh, out=neg)
            np.right_shift(neg, 63, out=neg)
            np.bitwise_and(neg, self.dfix, out=neg)
            np.subtract(t, neg, out=t)
        np.right_shift(tmp, self.s, out=tmp)
        if not self.fold:
            np.add(tmp, self.zp, out=tmp)
        np.clip(tmp, self.lo, self.hi, out=tmp)
        np.copyto(out, tmp, casting="unsafe")


def _tensor(buffer: np.ndarray) -> SimpleNamespace:
    """A stand-in tensor for driving a float kernel's prepare/run on our float buffers."""
    return SimpleNamespace(buffer=buffer)


class QConvBase(QuantKernel):
    """Checks and weight-dependent constants shared by quantized CONV_2D and DEPTHWISE_CONV_2D.
    Subclasses set `filter_axis` (the output-channel axis of the filter)."""

    filter_axis = 0

    def validate(self) -> None:
        op = self.op.type
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        b = self.inputs[2] if len(self.inputs) > 2 else None
        if len(x.shape) != 4 or len(w.shape) != 4:
            raise self.fail(f"{op} needs 4-D input and filter, got {x.shape} and {w.shape}")
        if b is None:
            raise self.fail(f"quantized {op} needs a bias (TFLite refuses a quantized "
                            f"convolution without one; use a zero int32/int64 bias)")
        if y.dtype != x.dtype:
            raise self.fail(f"quantized {op}: output type {y.dtype} differs from input {x.dtype}")
        want_w = U8 if x.dtype == U8 else I8
        if w.dtype != want_w:
            raise self.fail(f"quantized {op} with {x.dtype} input needs a {want_w} filter, "
                            f"not {w.dtype}")
        cout = w.shape[self.filter_axis]
        ws = self.filter_scales(x, w, y, cout, self.filter_axis)
        if not (w.is_constant and b.is_constant):
            raise self.fail(f"quantized {op} needs a constant filter and bias")
        wzp = np.asarray(w.quant.zero_point, I64)
        if x.dtype != U8 and np.any(wzp != 0):
            raise self.fail(f"quantized {x.dtype} {op} needs filter zero points 0, got "
                            f"{sorted(set(wzp.tolist()))[:4]}")
        in_s, out_s = self.scale(x), self.scale(y)
        product = np.float64(in_s) * ws.astype(np.float64)
        self.check_bias(b, x, cout, product)
        mult, shift = qmath.quantize_multiplier(np.broadcast_to(product / np.float64(out_s),
                                                                (cout,)))
        self.xzp = self.zero_point(x)
        # filter minus its zero point, and the float type that keeps the GEMM exact
        wq = np.asarray(w.buffer, I64) - (int(wzp[0]) if x.dtype == U8 else 0)
        lo, hi = qmath.dtype_range(x.dtype)
        xabs = max(abs(lo - self.xzp), abs(hi - self.xzp))
        red = tuple(a for a in range(4) if a != self.filter_axis)
        bound = xabs * int(np.abs(wq).sum(axis=red).max(initial=0))
        self.acc_dtype = np.dtype(np.float32 if bound < F32_EXACT else np.float64)
        bias = np.asarray(b.buffer, I64).reshape(cout)
        self.requant = ConvRequant(mult, shift, bias, self.zero_point(y),
                                   *self.qrange(y, self.op.params.fused_activation_function),
                                   mode="i64" if x.dtype == I16 else "q31",
                                   split=self.reference_split(cout))
        # the exact float64 form of that rescale (qconv_f64), where it applies
        self.f64 = None if x.dtype == I16 else Float64Rescale.plan(self.requant, y.dtype,
                                                                   bound, bias)
        self.raw = False
        if x.dtype != I16:
            self.plan_raw_input(x, y, wq, bias, mult, shift, red)
        self.wf = wq.astype(self.acc_dtype)

    def plan_raw_input(self, x, y, wq: np.ndarray, bias: np.ndarray, mult, shift, red) -> None:
        """Where the float64 rescale stays exact: accumulate x itself (one cast per run instead
        of a subtraction, which is slower) and fold -x_zp * sum(w - w_zp) of each channel into
        the bias; padded taps then hold x_zp (their x - x_zp is 0 as before). `self.requant`
        keeps the x - x_zp form (the acl backends read it); `self.f64` gets the folded one."""
        lo, hi = qmath.dtype_range(x.dtype)
        bound = max(abs(lo), abs(hi)) * int(np.abs(wq).sum(axis=red).max(initial=0))
        dt = np.dtype(np.float32 if bound < F32_EXACT else np.float64)
        if dt.itemsize > self.acc_dtype.itemsize:
            return
        braw = bias - self.xzp * wq.sum(axis=red).reshape(bias.shape)
        rq = ConvRequant(mult, shift, braw, self.zero_point(y),
                         *self.qrange(y, self.op.params.fused_activation_function),
                         mode="q31", split=self.reference_split(bias.size))
        f64 = Float64Rescale.plan(rq, y.dtype, bound, braw)
        if f64 is not None:
            self.raw, self.acc_dtype, self.f64 = True, dt, f64

    def reference_split(self, cout: int) -> int:
        """The first output channel rescaled with the reference (away-from-zero) rounding."""
        return cout

    def float_plan(self, layer_cls: type, xf: np.ndarray, yf: np.ndarray):
        """The float kernel `layer_cls` prepared on the float buffers `xf` (x - x_zp, which
        `run` fills) and `yf`, with the float filter; `prepare` then calls `hook`."""
        fl = layer_cls.__new__(layer_cls)
        fl.op, fl.act = self.op, None
        fl.ctx = getattr(self, "ctx", None)     # its scratch buffers obey max_tensor_bytes too
        fl.inputs = [_tensor(xf), _tensor(self.wf), None]
        fl.outputs = [_tensor(yf)]
        fl.prepare()
        self.float_kernel, self.dest = fl, xf
        self.x, self.zp = self.buf(0), self.acc_dtype.type(self.xzp)
        return fl

    def hook(self, targets: list) -> None:
        """Route the float kernel's per-chunk `act(out)` calls to the requantization of that
        chunk into the integer output: targets are (float chunk, int chunk) pairs."""
        self.float_kernel.act = self.make_act(targets)

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
class QConv2DLayer(QConvBase):
    dtypes = frozenset({I8, U8, I16})
    filter_axis = 0

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(x.shape) == 4 and len(w.shape) == 4 and x.shape[3] != w.shape[3]:
            raise self.fail(f"quantized Conv2D: input has {x.shape[3]} channels, filter "
                            f"{w.shape[3]} (grouped convolution is not supported)")
        super().validate()

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
        self.hook(targets)
