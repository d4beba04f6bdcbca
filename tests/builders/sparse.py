"""Sparse constants in TFLite's SparsityParameters form (CSR rows, blocks) and a DENSIFY model."""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import ModelBuilder
from op_harness import rand


def sparse_matrix(rng: np.random.Generator, shape: tuple[int, ...], density: float) -> np.ndarray:
    """A float32 array with about `density` of its entries non-zero."""
    values = rand(rng, shape, low=1, high=5)
    return np.where(rng.random(shape) < density, values, 0).astype(np.float32)


def csr_last_dim(dense: np.ndarray, index_dtype: str = "int32") -> tuple[np.ndarray, dict]:
    """Compressed values and sparsity of `dense`: every leading dim DENSE, the last SPARSE_CSR
    (segments and indices stored as `index_dtype` vectors)."""
    rows = dense.reshape(-1, dense.shape[-1])
    segments, indices, values = [0], [], []
    for row in rows:
        nz = np.flatnonzero(row)
        indices += nz.tolist()
        values += row[nz].tolist()
        segments.append(len(indices))
    dims = [{"format": "DENSE", "dense_size": d} for d in dense.shape[:-1]]
    dims.append({"format": "SPARSE_CSR", "array_segments": np.array(segments, index_dtype),
                 "array_indices": np.array(indices, index_dtype)})
    order = list(range(dense.ndim))
    return np.array(values, np.float32), {"traversal_order": order, "block_map": [],
                                          "dim_metadata": dims}


def block_csr(dense: np.ndarray, bh: int, bw: int) -> tuple[np.ndarray, dict]:
    """Compressed values and sparsity of a 2-D `dense` in (bh, bw) blocks: block rows DENSE,
    block columns SPARSE_CSR, each kept block stored whole, row-major."""
    h, w = dense.shape
    segments, indices, values = [0], [], []
    for r in range(h // bh):
        for c in range(w // bw):
            block = dense[r * bh:(r + 1) * bh, c * bw:(c + 1) * bw]
            if block.any():
                indices.append(c)
                values += block.reshape(-1).tolist()
        segments.append(len(indices))
    dims = [{"format": "DENSE", "dense_size": h // bh},
            {"format": "SPARSE_CSR", "array_segments": segments, "array_indices": indices},
            {"format": "DENSE", "dense_size": bh}, {"format": "DENSE", "dense_size": bw}]
    return np.array(values, np.float32), {"traversal_order": [0, 1, 2, 3], "block_map": [0, 1],
                                          "dim_metadata": dims}


def densify_add_model(values: np.ndarray, sparsity: dict, shape: tuple[int, ...]) -> bytes:
    """y = x + DENSIFY(sparse constant)."""
    b = ModelBuilder()
    x = b.add_input("x", shape, "float32")
    c = b.add_const("w_sparse", values, sparsity=sparsity, shape=shape)
    d = b.add_tensor("w", shape, "float32")
    b.add_op("DENSIFY", [c], [d])
    y = b.add_tensor("y", shape, "float32")
    b.add_op("ADD", [x, d], [y])
    b.add_output(y)
    return b.build()
