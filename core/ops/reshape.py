"""RESHAPE, SQUEEZE, EXPAND_DIMS: the bytes move unchanged into the output's shape (TFLite's
reshape.cc, squeeze.cc, expand_dims.cc). The target shape (shape input, axes) is already in
the output's shape: the shape rule computed it, at run time for a computed shape input."""
from __future__ import annotations

from .base import ANY, OpKernel


class ReshapeBase(OpKernel):
    dtypes = ANY
    quantized = True

    def validate(self) -> None:
        if not self.dynamic and self.inputs[0].nbytes != self.outputs[0].nbytes:
            raise self.fail(f"cannot reshape {self.inputs[0].shape} to {self.outputs[0].shape}")

    def prepare(self) -> None:
        self.src = self.buf(0).reshape(self.out.shape)


__all__ = ["ReshapeBase"]
