"""Pool2D (AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D): the parameters, validation and window
geometry of TFLite's pooling.cc that every backend shares.

- The window: filter_height x filter_width taps, strides stride_h / stride_w, SAME or VALID
  padding (`pool_geometry`); the fused activation of the float kernels is a clamp (RELU,
  RELU6, RELU_N1_TO_1), any other one is ignored as the interpreter ignores it.
- Quantized AVERAGE and MAX (int8, uint8, int16) work in the input's integer domain: pooling.cc
  expects the output to carry the input's scale and zero point (a DCHECK in Prepare), so a
  mismatch is refused at compile time; the output is clamped to the fused activation's range.
  L2_POOL_2D has no quantized kernel in TFLite (Prepare refuses it); it stays refused.

Kernels: backends/cpu/ops/pool2d.py (float) and backends/cpu/ops/quant/qpool.py (quantized, with
the integer arithmetic), acl_neon ops/pool2d.py and ops/quant_pool2d.py, acl_cl ops/pool2d.py
and ops/quant_pool2d.py.
"""
from __future__ import annotations

from .base import OpKernel, clamp_activation
from .quant_base import QuantOpKernel
from .window import pool_geometry     # the pooling window, for the backends

QUANTIZED_KINDS = ("AVERAGE_POOL_2D", "MAX_POOL_2D")    # the sub-types with quantized kernels


class Pool2DBase(OpKernel):
    """Float pooling: an NHWC input; `act` is the fused clamp (None: none)."""

    def validate(self) -> None:
        if len(self.inputs[0].shape) != 4:
            raise self.fail(f"pooling needs NHWC input, got {self.inputs[0].shape}")
        self.act = clamp_activation(self.op.params.get("fused_activation_function"))


class QPool2DBase(QuantOpKernel):
    """Quantized AVERAGE / MAX pooling: an NHWC input, the output of the input's type, scale and
    zero point; (`lo`, `hi`) is the output clamp under the fused activation."""

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if len(x.shape) != 4:
            raise self.fail(f"pooling needs NHWC input, got {x.shape}")
        if x.dtype != y.dtype:
            raise self.fail(f"quantized pooling needs equal input/output types, got {x.dtype} "
                            f"and {y.dtype}")
        self.check_same_quant(x, y)
        self.lo, self.hi = self.qrange(y, self.op.params.get("fused_activation_function"))


__all__ = ["QUANTIZED_KINDS", "pool_geometry", "Pool2DBase", "QPool2DBase"]
