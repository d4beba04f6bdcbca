"""Quantized CONCATENATION, PACK, PAD / PADV2 (int8, uint8, int16), following TFLite's
concatenation.cc, pack.cc and pad.cc:

- CONCATENATION uint8: inputs whose scale or zero point differ from the output's are
  requantized as ConcatenationWithScaling does, in float32: round(q * s + bias) + out_zp with
  s = in_scale * (1 / out_scale), bias = -in_zp * s, std::round (halves away from zero),
  clamped; equal ones are copied. int8 / int16: TFLite requires every input to carry the
  output's scale and zero point (Prepare), so other parameters are refused here.
  No fused activation on quantized concatenation.
- PACK: the same requirement for every quantized type (pack.cc Prepare); values are copied.
- PAD / PADV2: the padding value is the OUTPUT's zero point (PAD) or PADV2's constant, whose
  scale and zero point TFLite requires to equal the output's.
"""
from __future__ import annotations

import numpy as np

from ..shape_ops import ConcatLayer, PadLayer
from ..slice_split import PackLayer
from .....core.quant import qmath
from .base import U8, QuantKernel, quantized, register

F32 = np.float32


@register("Concat", when=quantized)
class QConcat(QuantKernel, ConcatLayer):
    def validate(self) -> None:
        ConcatLayer.validate(self)
        y = self.outputs[0]
        act = self.op.params.get("fused_activation_function")
        if act not in (None, "NONE"):
            raise self.fail(f"quantized CONCATENATION has no fused activation ({act})")
        inv, self.zp = F32(1) / F32(self.scale(y)), self.zero_point(y)
        self.rescale = []       # per input: None (copied) or uint8's float32 (scale, bias)
        for t in self.inputs:
            if t.dtype != y.dtype or t.quant is None:
                raise self.fail(f"CONCATENATION input {t.name!r} ({t.dtype}) must be quantized "
                                f"{y.dtype} like the output")
            if y.dtype != U8:
                self.check_same_quant(t, y)
            same = self.scale(t) == self.scale(y) and self.zero_point(t) == self.zero_point(y)
            s = F32(self.scale(t)) * inv
            self.rescale.append(None if same else (s, F32(F32(-self.zero_point(t)) * s)))

    def prepare(self) -> None:
        ConcatLayer.prepare(self)       # self.srcs: the input buffers
        self.requantized = []           # (input, scale, bias, its requantized copy in srcs)
        for i, (t, r) in enumerate(zip(self.inputs, self.rescale)):
            if r is not None:
                self.srcs[i] = np.empty(t.buffer.shape, U8)
                self.requantized.append((t, *r, self.srcs[i]))

    def run(self) -> None:
        for t, s, bias, buf in self.requantized:
            v = qmath.round_half_away(t.buffer.astype(F32) * s + bias)
            qmath.clamp_cast(v.astype(np.int64) + self.zp, 0, 255, U8, out=buf)
        ConcatLayer.run(self)       # act is None: refused above


@register("Pack", when=quantized)
class QPack(QuantKernel, PackLayer):
    def validate(self) -> None:
        PackLayer.validate(self)
        for t in self.inputs:
            if t.quant is None:
                raise self.fail(f"PACK input {t.name!r} has no quantization parameters")
            self.check_same_quant(t, self.outputs[0])


@register("Pad", "PadV2", when=quantized)
class QPad(QuantKernel, PadLayer):
    def validate(self) -> None:
        PadLayer.validate(self)
        y = self.outputs[0]
        value = self.inputs[2] if len(self.inputs) > 2 else None
        if value is None:
            self.value = self.zero_point(y)
            return
        if value.quant is None:
            raise self.fail("PADV2 constant_values of a quantized tensor must be quantized")
        self.check_same_quant(value, y)
