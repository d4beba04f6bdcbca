"""PAD, PADV2 and MIRROR_PAD, following TFLite's pad.cc and mirror_pad.cc.

PAD / PADV2: constant paddings are checked at configure (the interior of the output the input
fills is then fixed); computed ones are read in every run. The padding value is PADV2's
constant_values, else zero, or the zero point of a quantized tensor. Quantized form: the
padding value is the OUTPUT's zero point (PAD) or PADV2's constant, whose scale and zero point
TFLite requires to equal the output's.
MIRROR_PAD: REFLECT leaves the edge out of the mirrored part, SYMMETRIC repeats it."""
from __future__ import annotations

import numpy as np

from .base import ANY, OpKernel
from .movement import MoveKernel
from .quant_base import QuantOpKernel


class PadBase(OpKernel):
    dtypes = ANY
    quantized = True

    def validate(self) -> None:
        pads = self.inputs[1]
        self.pads = None      # computed paddings are read in every run
        if pads.is_constant:
            self.pads = pads.buffer.reshape(-1, 2).astype(np.int64)
            if (self.pads < 0).any():
                raise self.fail(f"negative paddings {self.pads.tolist()}")
        value = self.inputs[2] if len(self.inputs) > 2 else None
        q = self.inputs[0].quant
        self.value = None     # a computed constant_values is read in every run
        if value is None:
            self.value = int(q.zero_point[0]) if q is not None else 0
        elif value.is_constant:
            self.value = value.buffer.reshape(()).item()

    def interior_of(self, pads: np.ndarray) -> np.ndarray:
        """The view of the output that the input fills; ValueError when the paddings do not
        take the input's shape to the output's."""
        x, out = self.buf(0), self.out
        if pads.shape != (x.ndim, 2) or (pads < 0).any() or \
                tuple(int(d + a + b) for d, (a, b) in zip(x.shape, pads)) != out.shape:
            raise ValueError(f"paddings {pads.tolist()} do not take {x.shape} to {out.shape}")
        return out[tuple(slice(int(a), int(a) + d) for (a, _), d in zip(pads, x.shape))]

    def prepare(self) -> None:
        try:
            self.interior = None if self.pads is None else self.interior_of(self.pads)
        except ValueError as e:
            raise self.fail(str(e)) from None


class QPadBase(QuantOpKernel, PadBase):
    def validate(self) -> None:
        PadBase.validate(self)
        y = self.outputs[0]
        value = self.inputs[2] if len(self.inputs) > 2 else None
        if value is None:
            self.value = self.zero_point(y)
            return
        if value.quant is None:
            raise self.fail("PADV2 constant_values of a quantized tensor must be quantized")
        self.check_same_quant(value, y)


class MirrorPadBase(MoveKernel):
    index_inputs = (1,)

    def validate(self) -> None:
        super().validate()
        mode = self.op.params.get("mode", "REFLECT")
        if mode not in ("REFLECT", "SYMMETRIC", 0, 1):
            raise self.fail(f"unknown mirror pad mode {mode!r}")
        self.mode = "reflect" if mode in ("REFLECT", 0) else "symmetric"


__all__ = ["PadBase", "QPadBase", "MirrorPadBase"]
