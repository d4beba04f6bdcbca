"""Compile-time constant folding (core/compiler/constant_folding.py): DEQUANTIZE and DENSIFY of
constants become constant weights, so backends that need constant weights take the ops that
read them, with the interpreter's answers."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import ModelBuilder
from builders.sparse import csr_last_dim, sparse_matrix
from oracle import tflite_run


def conv_model(kind: str, rng) -> bytes:
    """CONV_2D whose weights come from DEQUANTIZE (float16 or per-channel int8) or from
    DENSIFY -> DEQUANTIZE (sparse float16)."""
    b = ModelBuilder()
    x = b.add_input("x", (1, 6, 6, 3))
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    if kind == "float16":
        c = b.add_const("w16", w.astype(np.float16))
    elif kind == "int8":
        scales = (np.abs(w).reshape(4, -1).max(1) / 127).astype(np.float32)
        q = np.clip(np.round(w / scales[:, None, None, None]), -127, 127).astype(np.int8)
        c = b.add_const("w8", q, quant={"scale": scales, "zero_point": [0] * 4,
                                        "quantized_dimension": 0})
    else:
        dense = sparse_matrix(rng, (4, 3, 3, 3), 0.4).astype(np.float16)
        values, sparsity = csr_last_dim(dense)
        s = b.add_const("w_sparse", values.astype(np.float16), sparsity=sparsity,
                        shape=dense.shape)
        c = b.add_tensor("w_dense16", dense.shape, "float16")
        b.add_op("DENSIFY", [s], [c])
    wf = b.add_tensor("w", (4, 3, 3, 3), "float32")
    b.add_op("DEQUANTIZE", [c], [wf])
    y = b.add_tensor("y", (1, 6, 6, 4))
    b.add_op("CONV_2D", [x, wf, b.add_const("bias", rng.standard_normal(4).astype(np.float32))],
             [y], padding="SAME", stride_h=1, stride_w=1)
    b.add_output(y)
    return b.build()


@pytest.mark.parametrize("kind", ["float16", "int8", "sparse"])
def test_folded_weights_go_to_acl_neon(kind):
    rng = np.random.default_rng(3)
    model = conv_model(kind, rng)
    x = rng.standard_normal((1, 6, 6, 3)).astype(np.float32)
    expected = tflite_run(model, [x])[0]
    for backends in ("cpu", "acl_neon;cpu"):
        with onert_py.Session(model, backends=backends) as s:
            text = s.explain()
            assert "constants folded at compile time" in text and "DEQUANTIZE" in text
            assert "DEQUANTIZE                   " not in text      # no op left to run
            assert "DENSIFY                      " not in text
            np.testing.assert_allclose(s.run(x)[0], expected, rtol=1e-5, atol=1e-5)
            conv = [line for line in text.splitlines() if "CONV_2D" in line][0]
            if backends != "cpu" and "acl_neon" in text.split("\n")[0]:
                assert "acl_neon" in conv, text


def test_subgraph_output_is_not_folded():
    """A dequantized constant that is itself an output keeps its op (and the interpreter's
    answer)."""
    b = ModelBuilder()
    x = b.add_input("x", (2, 3))
    c = b.add_const("c", np.arange(6, dtype=np.float16).reshape(2, 3))
    d = b.add_tensor("d", (2, 3))
    b.add_op("DEQUANTIZE", [c], [d])
    y = b.add_tensor("y", (2, 3))
    b.add_op("ADD", [x, d], [y])
    b.add_output(d)
    b.add_output(y)
    model = b.build()
    x = np.ones((2, 3), np.float32)
    with onert_py.Session(model, backends="cpu") as s:
        assert "constants folded" not in s.explain()
        for got, want in zip(s.run(x), tflite_run(model, [x])):
            np.testing.assert_array_equal(got, want)


def test_densified_output_is_not_folded():
    """DENSIFY of a constant that is an output runs its kernel: the same dense array on every
    run (its buffer is planned like any other, so nothing written at compile time is relied
    on)."""
    b = ModelBuilder()
    x = b.add_input("x", (2, 4))
    dense = np.array([[0, 1, 0, 2], [3, 0, 0, 0]], np.float32)
    values, sparsity = csr_last_dim(dense)
    s = b.add_const("w_sparse", values, sparsity=sparsity, shape=(2, 4))
    d = b.add_tensor("d", (2, 4))
    b.add_op("DENSIFY", [s], [d])
    y = b.add_tensor("y", (2, 4))
    b.add_op("ADD", [x, d], [y])
    b.add_output(d)
    b.add_output(y)
    model = b.build()
    with onert_py.Session(model, backends="cpu") as sess:
        assert "constants folded" not in sess.explain()
        for x in (np.ones((2, 4), np.float32), np.full((2, 4), 5, np.float32)):
            got = sess.run(x)
            np.testing.assert_array_equal(got[0], dense)
            for g, want in zip(got, tflite_run(model, [x])):
                np.testing.assert_array_equal(g, want)


def test_broken_sparse_constant_is_a_compile_error():
    b = ModelBuilder()
    x = b.add_input("x", (2, 4))
    values, sparsity = csr_last_dim(np.eye(2, 4, dtype=np.float32))
    sparsity["dim_metadata"][1]["array_indices"] = [0, 9]      # column 9 of a 4-column matrix
    s = b.add_const("w_sparse", values, sparsity=sparsity, shape=(2, 4))
    d = b.add_tensor("d", (2, 4))
    b.add_op("DENSIFY", [s], [d])
    y = b.add_tensor("y", (2, 4))
    b.add_op("ADD", [x, d], [y])
    b.add_output(y)
    with pytest.raises(onert_py.CompileError, match="DENSIFY.*invalid sparse tensor"):
        onert_py.Session(b.build(), backends="cpu")
