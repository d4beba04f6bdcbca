"""Sparse constants (TFLite's SparsityParameters): the dense array they describe. Used by the
compiler's constant folding and by the cpu DENSIFY kernel."""
from __future__ import annotations

import numpy as np


def densify(values: np.ndarray, dense_shape: tuple[int, ...], sparsity: dict) -> np.ndarray:
    """The dense array described by compressed `values` and the sparsity metadata.

    The traversal is done level by level over whole arrays: at each level every position
    reached so far expands into its children (all of them for a DENSE level, the CSR
    segment's indices for a SPARSE level), carrying the coordinate of that level along.
    """
    order = list(sparsity["traversal_order"])
    block_map = list(sparsity["block_map"])
    dims = sparsity["dim_metadata"]
    rank = len(dense_shape)
    if len(order) != len(dims) or len(order) != rank + len(block_map):
        raise ValueError("sparsity metadata does not match the tensor's rank")
    pos = np.zeros(1, np.int64)                 # index into the next level's storage
    coords: dict[int, np.ndarray] = {}          # expanded dimension -> coordinate per element
    for level, meta in enumerate(dims):
        if meta["format"] == 0:                 # DENSE
            size = int(meta["dense_size"])
            child = np.arange(size, dtype=np.int64)
            coords = {d: np.repeat(c, size) for d, c in coords.items()}
            coords[order[level]] = np.tile(child, pos.size)
            pos = (pos[:, None] * size + child[None, :]).reshape(-1)
        else:                                   # SPARSE_CSR
            seg = np.asarray(meta["array_segments"], np.int64)
            ind = np.asarray(meta["array_indices"], np.int64)
            if pos.size and (pos.max() + 1 >= seg.size or seg[-1] > ind.size):
                raise ValueError("sparse segments out of range")
            counts = seg[pos + 1] - seg[pos]
            if (counts < 0).any():
                raise ValueError("sparse segments are not increasing")
            starts = np.repeat(seg[pos], counts)
            within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
            new_pos = starts + within
            coords = {d: np.repeat(c, counts) for d, c in coords.items()}
            coords[order[level]] = ind[new_pos]
            pos = new_pos
    if pos.size and pos.max() >= values.size:
        raise ValueError(f"sparse structure addresses {pos.max() + 1} values, "
                         f"the buffer has {values.size}")
    index = []
    for d in range(rank):
        c = coords[d]
        if d in block_map:
            k = block_map.index(d)
            c = c * int(dims[rank + k]["dense_size"]) + coords[rank + k]
        if c.size and (c.max() >= dense_shape[d] or c.min() < 0):
            raise ValueError(f"sparse index {int(c.max())} outside dimension {d} of {dense_shape}")
        index.append(c)
    out = np.zeros(dense_shape, values.dtype)
    out[tuple(index)] = values[pos]
    return out
