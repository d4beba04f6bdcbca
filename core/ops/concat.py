"""CONCATENATION and PACK: inputs joined along an axis (PACK along a new one), following
TFLite's concatenation.cc and pack.cc.

Quantized forms (int8, uint8, int16):
- CONCATENATION uint8: inputs whose scale or zero point differ from the output's are
  requantized as ConcatenationWithScaling does, in float32: round(q * s + bias) + out_zp with
  s = in_scale * (1 / out_scale), bias = -in_zp * s, std::round (halves away from zero),
  clamped (`requantize`); equal ones are copied. int8 / int16: TFLite requires every input to
  carry the output's scale and zero point (Prepare), so other parameters are refused here.
  No fused activation on quantized concatenation.
- PACK: the same requirement for every quantized type (pack.cc Prepare); values are copied.
"""
from __future__ import annotations

import numpy as np

from ..quant import qmath
from .base import ANY, OpKernel, activation
from .movement import MoveKernel
from .quant_base import U8, QuantOpKernel

F32 = np.float32


def requantize(q: np.ndarray, scale: np.float32, bias: np.float32, zp: int,
               out: np.ndarray | None = None) -> np.ndarray:
    """uint8 codes `q` requantized as ConcatenationWithScaling does (float32 arithmetic)."""
    v = qmath.round_half_away(q.astype(F32) * scale + bias)
    return qmath.clamp_cast(v.astype(np.int64) + zp, 0, 255, U8, out=out)


def requant_table(scale: np.float32, bias: np.float32, zp: int) -> np.ndarray:
    """`requantize` of every uint8 code: a 256-entry table, bit-exact with it."""
    return requantize(np.arange(256, dtype=U8), scale, bias, zp)


class ConcatBase(OpKernel):
    dtypes = ANY

    def validate(self) -> None:
        rank = len(self.outputs[0].shape)
        self.axis = self.op.params.axis % max(rank, 1)
        self.act = activation(self.op.params.get("fused_activation_function"))

    def prepare(self) -> None:
        self.srcs = [t.buffer for t in self.inputs]


class QConcatBase(QuantOpKernel, ConcatBase):
    def validate(self) -> None:
        ConcatBase.validate(self)
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
        ConcatBase.prepare(self)        # self.srcs: the input buffers
        self.requantized = []           # (input, scale, bias, its requantized copy in srcs)
        for i, (t, r) in enumerate(zip(self.inputs, self.rescale)):
            if r is not None:
                self.srcs[i] = np.empty(t.buffer.shape, U8)
                self.requantized.append((t, *r, self.srcs[i]))


class PackBase(MoveKernel):
    def validate(self) -> None:
        for i, t in enumerate(self.inputs):
            if t.dtype != self.inputs[0].dtype:
                raise self.fail(f"input {i} has dtype {t.dtype}, input 0 {self.inputs[0].dtype}")
        self.check_same_dtype(0)
        rank = len(self.outputs[0].shape) if not self.outputs[0].is_dynamic else None
        self.axis = int(self.op.params.get("axis", 0))
        if rank is not None and not -rank <= self.axis < rank:
            raise self.fail(f"axis {self.axis} out of range for output rank {rank}")

    def prepare(self) -> None:
        self.srcs = [t.buffer for t in self.inputs]


class QPackBase(QuantOpKernel, PackBase):
    def validate(self) -> None:
        PackBase.validate(self)
        for t in self.inputs:
            if t.quant is None:
                raise self.fail(f"PACK input {t.name!r} has no quantization parameters")
            self.check_same_quant(t, self.outputs[0])


__all__ = ["ConcatBase", "QConcatBase", "PackBase", "QPackBase", "requantize",
           "requant_table"]
