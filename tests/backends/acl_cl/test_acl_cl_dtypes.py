"""acl_cl data movement on every element type (a byte copy keyed by element size): each op runs
on acl_cl alone (so a refusal fails the compile, not a silent cpu fallback) and must match the
TFLite interpreter exactly; quantized tensors keep their bytes, padding takes the zero point;
mixed types and mismatched quantization are refused with a reason."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.backends.acl_cl.backend import ClConfig
from onert_py.core.loader import load_model
from onert_py.model_builder import single_op_model
from oracle import tflite_run

DTYPES = ["int32", "int64", "uint8", "int8", "int16", "bool"]
I32 = np.int32


def rand(rng, shape, dtype: str) -> np.ndarray:
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -(1 << 40)), min(info.max, 1 << 40)
    return rng.integers(lo, hi, shape, dtype=np.int64, endpoint=True).astype(dtype)


def reference(model: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The interpreter's answer; where it has no kernel for the type, the cpu backend's (the
    project's reference kernels)."""
    try:
        return tflite_run(model, inputs)
    except RuntimeError:
        with onert_py.Session(model, backends="cpu") as s:
            return [np.array(o, copy=True) for o in s.run(inputs)]


def check_acl_cl(model: bytes, inputs: list[np.ndarray]) -> None:
    expected = reference(model, inputs)
    with onert_py.Session(model, backends="acl_cl") as s:
        for _ in range(2):
            got = s.run(inputs)
            for g, e in zip(got, expected):
                assert g.dtype == e.dtype and g.shape == e.shape
                np.testing.assert_array_equal(g, e)


# op, input shape, extra inputs (constants), output shapes, options
CASES = {
    "transpose": ("TRANSPOSE", (2, 3, 4), [np.array([2, 0, 1], I32)], [(4, 2, 3)], {}),
    "reshape": ("RESHAPE", (2, 3, 4), [np.array([6, 4], I32)], [(6, 4)], {}),
    "expand_dims": ("EXPAND_DIMS", (2, 3), [np.array([1], I32)], [(2, 1, 3)], {}),
    "slice": ("SLICE", (3, 4, 5), [np.array([1, 0, 2], I32), np.array([2, 3, 2], I32)],
              [(2, 3, 2)], {}),
    "strided_slice": ("STRIDED_SLICE", (4, 6), [np.array([0, 5], I32), np.array([4, 0], I32),
                                                 np.array([2, -2], I32)], [(2, 3)], {}),
    "pad": ("PAD", (2, 3), [np.array([[1, 0], [2, 1]], I32)], [(3, 6)], {}),
    "reverse": ("REVERSE_V2", (3, 4), [np.array([1], I32)], [(3, 4)], {}),
    "tile": ("TILE", (2, 3), [np.array([2, 2], I32)], [(4, 6)], {}),
    "split": ("SPLIT", None, None, [(2, 2), (2, 2)], {"num_splits": 2}),
    "unpack": ("UNPACK", (3, 2, 4), [], [(3, 4), (3, 4)], {"num": 2, "axis": 1}),
    "depth_to_space": ("DEPTH_TO_SPACE", (1, 2, 2, 4), [], [(1, 4, 4, 1)], {"block_size": 2}),
    "space_to_depth": ("SPACE_TO_DEPTH", (1, 4, 4, 1), [], [(1, 2, 2, 4)], {"block_size": 2}),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", list(CASES))
def test_movement_any_dtype(cl_ready, rng, case, dtype):
    op, shape, extra, outs, opts = CASES[case]
    if op == "SPLIT":           # inputs (axis, x)
        model = single_op_model(op, [np.array([1], I32), ("x", (2, 4), dtype)],
                                [(f"y{k}", s, dtype) for k, s in enumerate(outs)], **opts)
        inputs = [rand(rng, (2, 4), dtype)]
    else:
        model = single_op_model(op, [("x", shape, dtype), *extra],
                                [(f"y{k}", s, dtype) for k, s in enumerate(outs)], **opts)
        inputs = [rand(rng, shape, dtype)]
    check_acl_cl(model, inputs)


@pytest.mark.parametrize("dtype", DTYPES)
def test_concat_pack_any_dtype(cl_ready, rng, dtype):
    model = single_op_model("CONCATENATION", [("a", (2, 3), dtype), ("b", (2, 1), dtype)],
                            [("y", (2, 4), dtype)], axis=1)
    check_acl_cl(model, [rand(rng, (2, 3), dtype), rand(rng, (2, 1), dtype)])
    model = single_op_model("PACK", [("a", (2, 3), dtype), ("b", (2, 3), dtype)],
                            [("y", (2, 2, 3), dtype)], axis=1, values_count=2)
    check_acl_cl(model, [rand(rng, (2, 3), dtype), rand(rng, (2, 3), dtype)])


@pytest.mark.parametrize("index_dtype", ["int16", "int32", "int64"])
@pytest.mark.parametrize("dtype", ["int64", "int8", "bool", "float32"])
def test_gather_any_dtype_and_index_type(cl_ready, rng, dtype, index_dtype):
    model = single_op_model("GATHER", [("x", (4, 3), dtype), ("i", (5,), index_dtype)],
                            [("y", (4, 5), dtype)], axis=1)
    x = rand(rng, (4, 3), dtype) if dtype != "float32" else rng.standard_normal((4, 3)).astype(
        np.float32)
    check_acl_cl(model, [x, np.array([2, 0, 1, 2, 2], index_dtype)])


def test_gather_int64_index_out_of_range_fails_run(cl_ready):
    model = single_op_model("GATHER", [("x", (4, 3), "int32"), ("i", (2,), "int64")],
                            [("y", (4, 2), "int32")], axis=1)
    with onert_py.Session(model, backends="acl_cl") as s:
        with pytest.raises(onert_py.ExecutionError, match="out of range"):
            s.run([np.zeros((4, 3), I32), np.array([0, 3], np.int64)])


Q = {"scale": [0.5], "zero_point": [7]}


@pytest.mark.parametrize("op,extra,out", [
    ("PAD", [np.array([[1, 1], [0, 2]], I32)], (4, 5)),
    ("TRANSPOSE", [np.array([1, 0], I32)], (3, 2)),
    ("SLICE", [np.array([0, 1], I32), np.array([2, 2], I32)], (2, 2))])
@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_quantized_bytes_and_zero_point_padding(cl_ready, rng, op, extra, out, dtype):
    model = single_op_model(op, [("x", (2, 3), dtype, Q), *extra], [("y", out, dtype, Q)])
    check_acl_cl(model, [rand(rng, (2, 3), dtype)])


def _refusal(model: bytes) -> str:
    m = load_model(model)
    g = m.primary_subgraph if hasattr(m, "primary_subgraph") else m.subgraphs[0]
    op = next(iter(g.operations.values()))
    cfg = ClConfig()
    ok, why = cfg.supports(op, g)
    assert not ok
    return why


def test_refuses_mixed_types_and_mismatched_quantization():
    mixed = single_op_model("CONCATENATION", [("a", (2, 3), "int32"), ("b", (2, 1), "int64")],
                            [("y", (2, 4), "int32")], axis=1)
    assert "copies elements" in _refusal(mixed)
    requant = single_op_model("TRANSPOSE", [("x", (2, 3), "int8", Q), np.array([1, 0], I32)],
                              [("y", (3, 2), "int8", {"scale": [0.25], "zero_point": [7]})])
    assert "scale and zero point" in _refusal(requant)
    with pytest.raises(onert_py.CompileError, match="acl_cl"):
        onert_py.Session(requant, backends="acl_cl")
