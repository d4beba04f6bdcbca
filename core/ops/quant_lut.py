"""The base of the quantized unary ops that TFLite computes through lookup tables
(core/quant/qlut_math.py: `lut8` for int8/uint8, as activations.cc PopulateLookupTable /
common.h LUTPopulate build them; `lut16`, LUTPopulate<int16_t>, for int16): validate() checks
the operands as the interpreter's Prepare does and builds the table of the op's function
(`transform`). Ops: TANH, LOGISTIC (core/ops/elementwise_activation.py), and the cpu backend's
ELU, GELU (backends/cpu/ops/quant/qactivation.py), EXP, LOG, RSQRT int16
(backends/cpu/ops/quant/qunary.py). A backend's kernel adds the lookup (`run`)."""
from __future__ import annotations

from ..quant import qlut_math as qm
from .quant_base import I16, QuantOpKernel


class QLutBase(QuantOpKernel):
    """A quantized unary op run through a lookup table built in validate() (`self.table`;
    `self.x_zp`: the input's zero point)."""

    int16_zero_points = True        # int16 needs input and output zero point 0

    def transform(self, x_scale, x_zp, y_scale, y_zp):
        """The op's float32 function, for these quantization parameters."""
        raise NotImplementedError

    def check_output(self, x, y) -> None:
        """Refuse output parameters the interpreter refuses."""

    def validate(self) -> None:
        x, y = self.unary_operands()
        xs, xz, ys, yz = self.scale(x), self.zero_point(x), self.scale(y), self.zero_point(y)
        if x.dtype == I16 and self.int16_zero_points and (xz or yz):
            raise self.fail(f"int16 {self.op.subtype} needs zero points 0 on input and output "
                            f"(input {xz}, output {yz})")
        self.check_output(x, y)
        fn = self.transform(xs, xz, ys, yz)
        self.x_zp = xz
        if x.dtype == I16:
            self.table = qm.lut16(fn, xs, xz, ys, yz)
        else:
            self.table = qm.lut8(fn, xs, xz, ys, yz, x.dtype)


__all__ = ["QLutBase"]
