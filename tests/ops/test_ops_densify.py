"""DENSIFY of sparse constants (TFLite SparsityParameters: CSR rows, blocks) against the TFLite
interpreter."""
from __future__ import annotations

import numpy as np
import pytest

from builders.sparse import block_csr, csr_last_dim, densify_add_model, sparse_matrix
from op_harness import check_op, rand


# (an all-zero constant has no data, and the interpreter then takes it for non-constant)
@pytest.mark.parametrize("shape,density", [((4, 6), 0.3), ((3, 8), 0.1), ((2, 3, 5), 0.5),
                                           ((5, 5), 1.0)])
def test_densify_csr(backend, rng, shape, density):
    dense = sparse_matrix(rng, shape, density)
    values, sparsity = csr_last_dim(dense)
    out = check_op(densify_add_model(values, sparsity, shape), [np.zeros(shape, np.float32)],
                   backend)
    np.testing.assert_array_equal(out[0], dense)


@pytest.mark.parametrize("index_dtype", ["uint8", "uint16"])
def test_densify_small_index_vectors(backend, rng, index_dtype):
    dense = sparse_matrix(rng, (5, 7), 0.4)
    values, sparsity = csr_last_dim(dense, index_dtype)
    check_op(densify_add_model(values, sparsity, (5, 7)), [rand(rng, (5, 7))], backend)


@pytest.mark.parametrize("shape,block", [((4, 4), (2, 2)), ((4, 8), (2, 4)), ((6, 4), (3, 1))])
def test_densify_blocks(backend, rng, shape, block):
    bh, bw = block
    keep = rng.random((shape[0] // bh, shape[1] // bw)) < 0.5
    keep[0, 0] = True
    dense = np.kron(keep, np.ones(block)).astype(np.float32) * rand(rng, shape, low=1, high=5)
    values, sparsity = block_csr(dense, bh, bw)
    check_op(densify_add_model(values, sparsity, shape), [rand(rng, shape)], backend)


def test_densify_all_dense_format(backend, rng):
    dense = rand(rng, (3, 4))
    sparsity = {"traversal_order": [0, 1], "block_map": [],
                "dim_metadata": [{"format": "DENSE", "dense_size": 3},
                                 {"format": "DENSE", "dense_size": 4}]}
    model = densify_add_model(dense.reshape(-1), sparsity, (3, 4))
    check_op(model, [rand(rng, (3, 4))], backend)
