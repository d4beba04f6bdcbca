"""Data movement on UNQUANTIZED tensors of every dtype the TFLite interpreter accepts for each
op (models in dtype_cases.py), TRANSPOSE on ranks 1-6, and CAST between every pair of plain
dtypes. Results must be exact.

Forms the interpreter refuses, left out: SPACE_TO_DEPTH / DEPTH_TO_SPACE on int16 and bool,
PACK on bool, UNPACK on int64, SPLIT / SPLIT_V on bool, ZEROS_LIKE on anything but float32,
int32, int64, and ONES_LIKE altogether (no such TFLite builtin). MIRROR_PAD, REVERSE_V2,
SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND and ZEROS_LIKE run in all their dtypes in
test_ops_misc.py."""
from __future__ import annotations

import numpy as np
import pytest

from dtype_cases import CASES, DTYPES, cast_case, data
from onert_py.model_builder import single_op_model
from op_harness import check_op

REFUSED = {
    "SPACE_TO_DEPTH": {"int16", "bool"},
    "DEPTH_TO_SPACE": {"int16", "bool"},
    "PACK": {"bool"},
    "UNPACK": {"int64"},
    "SPLIT": {"bool"},
    "SPLIT_V": {"bool"},
}
PAIRS = [(op, dt) for op in CASES for dt in DTYPES if dt not in REFUSED.get(op, ())]


@pytest.mark.parametrize("op,dtype", PAIRS, ids=[f"{o}-{d}" for o, d in PAIRS])
def test_data_movement_dtype(backend, rng, op, dtype):
    model, inputs = CASES[op](rng, dtype)
    check_op(model, inputs, backend)


# ---- TRANSPOSE on ranks 1-6 (float32 / int32 / bool ranks 2-6 are in test_ops_shape.py) -------
PERMS = {
    1: ((5,), [0]),
    2: ((3, 4), [1, 0]),
    3: ((2, 3, 4), [1, 2, 0]),
    4: ((2, 3, 2, 4), [3, 1, 0, 2]),
    5: ((2, 1, 3, 2, 2), [4, 2, 0, 3, 1]),
    6: ((2, 2, 1, 3, 2, 2), [1, 5, 3, 0, 2, 4]),
}
TRANSPOSE_PAIRS = [(r, dt) for r in PERMS for dt in DTYPES
                   if r == 1 or dt not in ("float32", "int32", "bool")]


@pytest.mark.parametrize("rank,dtype", TRANSPOSE_PAIRS,
                         ids=[f"rank{r}-{d}" for r, d in TRANSPOSE_PAIRS])
def test_transpose_rank_dtype(backend, rng, rank, dtype):
    xs, perm = PERMS[rank]
    out = tuple(xs[p] for p in perm)
    model = single_op_model("TRANSPOSE", [("x", xs, dtype), np.array(perm, np.int32)],
                            [("y", out, dtype)])
    check_op(model, [data(rng, xs, dtype)], backend)


# ---- CAST --------------------------------------------------------------------------------------
CAST_TYPES = ["float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
              "uint32", "int64", "bool"]
# pairs already in test_ops_gather_slice.py::test_cast
TESTED = {("float32", "int32"), ("int32", "float32"), ("float32", "bool"), ("bool", "float32"),
          ("int64", "int32"), ("int32", "int64")}
CASTS = [(s, d) for s in CAST_TYPES for d in CAST_TYPES if (s, d) not in TESTED]


@pytest.mark.parametrize("src,dst", CASTS, ids=[f"{s}-{d}" for s, d in CASTS])
def test_cast_pairs(backend, rng, src, dst):
    model, make = cast_case(src, dst)
    check_op(model, [make(rng)], backend)
