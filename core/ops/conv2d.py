"""CONV_2D's shared logic: the group count (`conv_groups`), the float kernels' checks
(`Conv2DBase`), and the quantized form's Prepare (`QConv2DBase`, on `QConvBase`, which
DEPTHWISE_CONV_2D shares): quantization checks, multipliers and the requantization constants of
`ConvRequant`.

Grouped convolution (conv.cc Prepare): the filter's input depth may be a divisor of the input's;
groups = input depth / filter input depth, and output channel c reads the input channels of group
c // (cout / groups). TFLite runs every grouped form on its reference kernels
(reference_ops::Conv, reference_integer_ops::ConvPerChannel, reference_ops::HybridConvPerChannel):
for int8 and uint8 that means the reference rescale on every channel (`reference_split` 0). A
filter depth that does not divide the input depth is refused (TFLite refuses it too), and so are
output channels that are not a multiple of the groups (TFLite reads past the input then).
A backend whose kernel computes ungrouped convolutions only sets `grouped_kernel = False`: its
`supports` then refuses grouped ones, which run on the next backend (cpu).

TFLite's builtin CONV_2D runs, per input type (conv.cc Eval), ungrouped:
  uint8 -> optimized_ops::Conv (im2col + cpu_backend_gemm, per-tensor multiplier),
  int8  -> optimized_integer_ops::ConvPerChannel (im2col + cpu_backend_gemm, per-channel),
  int16 -> reference_integer_ops::ConvPerChannel (int64 accumulator and bias).
The accumulator is exact integer arithmetic in all of them:
    acc = sum (x - x_zp) * (w - w_zp) + bias.
The rescale, probed against the interpreter (ties, per-channel scales, 1..40 channels):
  - int8 and uint8 (the GEMM library's output stage): SaturatingRoundingDoublingHighMul, then a
    rounding right shift that rounds halves UP, on every element (no scalar tail);
  - int16x8: the int64 MultiplyByQuantizedMultiplier (multiplier rounded to 16 bits, one
    rounding shift), as qmath.multiply_by_quantized_multiplier_int64.
Both are folded into one int64 multiply-add-shift per element (see `ConvRequant`). Multipliers
are QuantizeMultiplier(double(in_scale) * double(w_scale[c]) / double(out_scale)), as
PopulateConvolutionQuantizationParams computes them.
Not modelled: int32 accumulator overflow and int32 wrap-around of the left shift when the real
multiplier exceeds 1 (both need accumulators beyond 2^31, where TFLite's own result is garbage).

Kernels: cpu backends/cpu/ops/conv2d.py (float), quant/qconv2d.py (quantized), hybrid_conv.py
(hybrid); acl_neon ops/conv2d.py; acl_cl ops/conv2d.py.
"""
from __future__ import annotations

import numpy as np

from ..ir import Graph, Operation
from ..quant import qmath
from .base import OpKernel, clamp_activation
from .quant_base import I8, I16, U8, QuantOpKernel

I64 = np.int64


def conv_groups(x_shape, w_shape) -> int:
    """The group count of a CONV_2D on NHWC input `x_shape` with OHWI filter `w_shape`: input
    depth / filter input depth. ValueError when the ranks are not 4, the filter depth does not
    divide the input depth, or the output channels are not a multiple of the groups."""
    if len(x_shape) != 4 or len(w_shape) != 4:
        raise ValueError(f"Conv2D needs 4-D input and filter, got {tuple(x_shape)} and "
                         f"{tuple(w_shape)}")
    cin, cout, depth = int(x_shape[3]), int(w_shape[0]), int(w_shape[3])
    if depth < 1 or cin % depth:
        raise ValueError(f"the input's {cin} channels are not a multiple of the filter's input "
                         f"depth {depth} (a grouped convolution's filter covers input depth / "
                         f"groups channels)")
    groups = cin // depth
    if cout % groups:
        raise ValueError(f"the filter's {cout} output channels are not a multiple of the "
                         f"{groups} groups (input depth {cin} / filter depth {depth})")
    return groups


def ungrouped_only(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
    """The refusal of a backend whose CONV_2D kernel computes ungrouped convolutions only
    (`cls.grouped_kernel` False; other op types pass): (False, why) for a filter covering fewer
    input channels than the input has (invalid group counts included: the backend that takes
    them refuses them with conv_groups' reason), else (True, "")."""
    if getattr(cls, "grouped_kernel", True) or op.type != "Conv2D" or len(op.inputs) < 2 \
            or min(op.inputs[:2]) < 0:
        return True, ""
    x, w = graph.operands[op.inputs[0]].shape, graph.operands[op.inputs[1]].shape
    if len(x) == 4 and len(w) == 4 and x[3] != w[3]:
        return False, (f"{cls.backend_id} {op.type} computes ungrouped convolutions only (the "
                       f"filter covers {w[3]} of the input's {x[3]} channels)")
    return True, ""


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


def check_groups(kernel) -> int:
    """conv_groups of a kernel's input and filter, its refusal as the kernel's compile error."""
    try:
        return conv_groups(kernel.inputs[0].shape, kernel.inputs[1].shape)
    except ValueError as e:
        raise kernel.fail(str(e)) from None


class Conv2DBase(OpKernel):
    """Float CONV_2D: NHWC input and OHWI filter, grouped when the filter's input depth is a
    divisor of the input's (`groups`); the fused activation is a clamp (`act`: TANH/SIGN_BIT are
    ignored, as the interpreter ignores them)."""

    grouped_kernel = True

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        return ungrouped_only(cls, op, graph) if ok else (ok, why)

    def validate(self) -> None:
        self.groups = check_groups(self)
        self.act = clamp_activation(self.op.params.fused_activation_function)


class QConvBase(QuantOpKernel):
    """Checks and weight-dependent constants shared by quantized CONV_2D and DEPTHWISE_CONV_2D.
    `filter_axis`: the output-channel axis of the filter (0: OHWI). validate() leaves
    `xzp`, `wq` (int64 filter minus its zero point), `bq` (int64 bias per channel), `mult`,
    `shift` (QuantizeMultiplier per channel) and `requant` (the ConvRequant of acc - bias)."""

    dtypes = frozenset({I8, U8, I16})
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
        self.mult, self.shift = qmath.quantize_multiplier(
            np.broadcast_to(product / np.float64(out_s), (cout,)))
        self.xzp = self.zero_point(x)
        self.wq = np.asarray(w.buffer, I64) - (int(wzp[0]) if x.dtype == U8 else 0)
        self.bq = np.asarray(b.buffer, I64).reshape(cout)
        self.requant = ConvRequant(self.mult, self.shift, self.bq, self.zero_point(y),
                                   *self.qrange(y, self.op.params.fused_activation_function),
                                   mode="i64" if x.dtype == I16 else "q31",
                                   split=self.reference_split(cout))

    def reference_split(self, cout: int) -> int:
        """The first output channel rescaled with the reference (away-from-zero) rounding."""
        return cout


class QConv2DBase(QConvBase):
    """Quantized CONV_2D: an OHWI filter, grouped when its input depth is a divisor of the
    input's (`groups`; every channel then takes the reference rounding)."""

    grouped_kernel = True

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        return ungrouped_only(cls, op, graph) if ok else (ok, why)

    def validate(self) -> None:
        self.groups = check_groups(self)
        super().validate()

    def reference_split(self, cout: int) -> int:
        return 0 if self.groups > 1 else cout


__all__ = ["conv_groups", "ungrouped_only", "check_groups", "ConvRequant", "Conv2DBase",
           "QConvBase", "QConv2DBase"]
