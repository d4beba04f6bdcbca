"""DENSIFY: expand a sparse constant (TFLite's SparsityParameters) into a dense tensor, once,
at configure time."""
from __future__ import annotations

import numpy as np

from .common import ANY, CpuKernel, register


def densify(values: np.ndarray, dense_shape: tuple[int, ...], sparsity: dict) -> np.ndarray:
    """The dense array described by compressed `values` and the sparsity metadata."""
    order = sparsity["traversal_order"]
    block_map = sparsity["block_map"]
    dims = sparsity["dim_metadata"]
    rank = len(dense_shape)
    if len(order) != len(dims) or len(order) != rank + len(block_map):
        raise ValueError("sparsity metadata does not match the tensor's rank")
    block = {d: dims[rank + k]["dense_size"] for k, d in enumerate(block_map)}
    # size of each expanded dimension, in expanded-dimension numbering
    out = np.zeros(dense_shape, values.dtype)
    coords = [0] * len(order)

    def visit(level: int, prev: int) -> None:
        meta = dims[level]
        if level == len(order):
            return
        if meta["format"] == 0:          # DENSE
            size = meta["dense_size"]
            for i in range(size):
                coords[order[level]] = i
                idx = prev * size + i
                if level + 1 == len(order):
                    place(idx)
                else:
                    visit(level + 1, idx)
        else:                            # SPARSE_CSR
            seg, ind = meta["array_segments"], meta["array_indices"]
            if prev + 1 >= len(seg):
                raise ValueError("sparse segment index out of range")
            for k in range(int(seg[prev]), int(seg[prev + 1])):
                coords[order[level]] = int(ind[k])
                if level + 1 == len(order):
                    place(k)
                else:
                    visit(level + 1, k)

    def place(idx: int) -> None:
        pos = []
        for d in range(rank):
            c = coords[d]
            if d in block:
                c = c * block[d] + coords[rank + block_map.index(d)]
            pos.append(c)
        out[tuple(pos)] = values[idx]

    visit(0, 0)
    return out


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
