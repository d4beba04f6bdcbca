"""DENSIFY: expand a sparse constant (TFLite's SparsityParameters) into a dense tensor, once,
at configure time."""
from __future__ import annotations

import numpy as np

from ....core.ir.sparsity import densify
from .common import ANY, CpuKernel, register


@register("Densify")
class DensifyLayer(CpuKernel):
    dtypes = ANY
    quantized = True

    @classmethod
    def folds_constant(cls, op, graph) -> bool:
        return graph.operands[op.inputs[0]].is_constant

    def validate(self) -> None:
        x = self.inputs[0]
        sparsity = getattr(x, "sparsity", None)
        if not x.is_constant or sparsity is None:
            raise self.fail("DENSIFY needs a constant sparse input")
        try:
            dense = densify(x.buffer.reshape(-1), self.outputs[0].shape, sparsity)
        except (ValueError, IndexError) as e:
            raise self.fail(f"invalid sparse tensor: {e}") from None
        np.copyto(self.outputs[0].buffer, dense)
        self.run = None
