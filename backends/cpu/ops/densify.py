"""DENSIFY: expand a sparse constant (TFLite's SparsityParameters) into a dense tensor.

The compiler folds DENSIFY of a constant into a constant (core/compiler/constant_folding.py);
the kernel runs only where that is not done (the dense tensor is a subgraph output): the dense
array is built once at configure time and copied out on each run."""
from __future__ import annotations

import numpy as np

from ....core.ir.sparsity import densify
from .common import ANY, OpKernel, register


@register("Densify")
class DensifyLayer(OpKernel):
    dtypes = ANY
    quantized = True

    def validate(self) -> None:
        x = self.inputs[0]
        sparsity = getattr(x, "sparsity", None)
        if not x.is_constant or sparsity is None:
            raise self.fail("DENSIFY needs a constant sparse input")
        try:
            self.dense = densify(x.buffer.reshape(-1), self.outputs[0].shape, sparsity)
        except (ValueError, IndexError) as e:
            raise self.fail(f"invalid sparse tensor: {e}") from None

    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.dense)
