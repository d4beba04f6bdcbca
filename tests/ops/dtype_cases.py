"""Model builders for the data-movement dtype tests (test_ops_dtypes.py): each case builds
one op on UNQUANTIZED tensors of a given dtype and its inputs. Kept apart from the tests so
the dtype lists there can be probed against the interpreter with the very same models."""
from __future__ import annotations

from typing import Callable

import numpy as np

from onert_py.model_builder import single_op_model
from op_harness import rand

I32 = np.int32
DTYPES = ["float32", "int8", "uint8", "int16", "int32", "int64", "bool"]
Case = Callable[[np.random.Generator, str], tuple[bytes, list[np.ndarray]]]
CASES: dict[str, Case] = {}


def data(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    """Values spread over a good part of the dtype's range (distinct enough to catch moves)."""
    kind = np.dtype(dtype).kind
    if kind == "u":
        return rand(rng, shape, dtype, 0, 250)
    if kind == "i":
        return rand(rng, shape, dtype, -120, 120)
    return rand(rng, shape, dtype, -50, 50)


def case(name: str) -> Callable[[Case], Case]:
    def deco(fn: Case) -> Case:
        CASES[name] = fn
        return fn
    return deco


def unary(op: str, xs, out, *consts, **options) -> Case:
    def build(rng, dt):
        model = single_op_model(op, [("x", xs, dt), *consts], [("y", out, dt)], **options)
        return model, [data(rng, xs, dt)]
    return build


CASES["RESHAPE"] = unary("RESHAPE", (2, 3, 4), (4, 6), np.array([4, -1], I32))
CASES["SQUEEZE"] = unary("SQUEEZE", (1, 3, 1, 4), (3, 4), squeeze_dims=[0, 2])
CASES["EXPAND_DIMS"] = unary("EXPAND_DIMS", (3, 4), (3, 4, 1), np.array([-1], I32))
CASES["TRANSPOSE"] = unary("TRANSPOSE", (2, 3, 4), (4, 2, 3), np.array([2, 0, 1], I32))
CASES["SLICE"] = unary("SLICE", (3, 4, 5), (2, 2, 4), np.array([1, 2, 0], I32),
                       np.array([-1, 2, 4], I32))
CASES["STRIDED_SLICE"] = unary("STRIDED_SLICE", (4, 6), (2, 3), np.array([3, 0], I32),
                               np.array([0, 6], I32), np.array([-2, 2], I32))
CASES["GATHER"] = unary("GATHER", (4, 3), (4, 2), np.array([2, 0], I32), axis=1)
CASES["GATHER_ND"] = unary("GATHER_ND", (3, 4, 2), (2, 2), np.array([[2, 1], [0, 3]], I32))
CASES["TILE"] = unary("TILE", (2, 3), (4, 9), np.array([2, 3], I32))
CASES["PAD"] = unary("PAD", (2, 3), (3, 6), np.array([[1, 0], [2, 1]], I32))
CASES["BROADCAST_TO"] = unary("BROADCAST_TO", (3, 1), (2, 3, 4), np.array([2, 3, 4], I32),
                              version=2)
CASES["SPACE_TO_DEPTH"] = unary("SPACE_TO_DEPTH", (1, 4, 4, 2), (1, 2, 2, 8), block_size=2)
CASES["DEPTH_TO_SPACE"] = unary("DEPTH_TO_SPACE", (1, 2, 2, 8), (1, 4, 4, 2), block_size=2)


@case("PADV2")
def _padv2(rng, dt):
    value = np.array(True if dt == "bool" else 7, dt)
    model = single_op_model("PADV2", [("x", (2, 3), dt), np.array([[0, 1], [1, 1]], I32), value],
                            [("y", (3, 5), dt)])
    return model, [data(rng, (2, 3), dt)]


@case("CONCATENATION")
def _concat(rng, dt):
    model = single_op_model("CONCATENATION", [("a", (2, 3), dt), ("b", (2, 2), dt)],
                            [("y", (2, 5), dt)], axis=1)
    return model, [data(rng, (2, 3), dt), data(rng, (2, 2), dt)]


@case("PACK")
def _pack(rng, dt):
    model = single_op_model("PACK", [("a", (2, 3), dt), ("b", (2, 3), dt)],
                            [("y", (2, 2, 3), dt)], axis=1, values_count=2)
    return model, [data(rng, (2, 3), dt), data(rng, (2, 3), dt)]


@case("UNPACK")
def _unpack(rng, dt):
    model = single_op_model("UNPACK", [("x", (2, 3, 4), dt)],
                            [(f"y{k}", (2, 4), dt) for k in range(3)], axis=1, num=3)
    return model, [data(rng, (2, 3, 4), dt)]


@case("SPLIT")
def _split(rng, dt):
    model = single_op_model("SPLIT", [np.array(1, I32), ("x", (2, 6), dt)],
                            [(f"y{k}", (2, 2), dt) for k in range(3)], num_splits=3)
    return model, [data(rng, (2, 6), dt)]


@case("SPLIT_V")
def _split_v(rng, dt):
    model = single_op_model("SPLIT_V", [("x", (5, 2), dt), np.array([1, -1], I32),
                                        np.array(0, I32)],
                            [("y0", (1, 2), dt), ("y1", (4, 2), dt)], num_splits=2)
    return model, [data(rng, (5, 2), dt)]


@case("FILL")
def _fill(rng, dt):
    model = single_op_model("FILL", [np.array([2, 3], I32), ("v", (), dt)], [("y", (2, 3), dt)])
    return model, [data(rng, (), dt)]


def _select(op: str, cond_shape) -> Case:
    def build(rng, dt):
        model = single_op_model(op, [("c", cond_shape, "bool"), ("x", (2, 3), dt),
                                     ("y", (2, 3), dt)], [("z", (2, 3), dt)])
        return model, [rng.random(cond_shape) < 0.5, data(rng, (2, 3), dt), data(rng, (2, 3), dt)]
    return build


CASES["SELECT"] = _select("SELECT", (2,))
CASES["SELECT_V2"] = _select("SELECT_V2", (1, 3))


def cast_case(src: str, dst: str) -> tuple[bytes, Callable[[np.random.Generator], np.ndarray]]:
    model = single_op_model("CAST", [("x", (3, 5), src)], [("y", (3, 5), dst)],
                            in_data_type=src, out_data_type=dst)
    return model, lambda rng: cast_data(rng, src, dst)


def cast_data(rng: np.random.Generator, src: str, dst: str) -> np.ndarray:
    """Values in range for the target (C++ casts of out-of-range values are undefined), with
    fractions (truncation toward zero), zeros, ones, and negatives unless the target is
    unsigned."""
    kind = np.dtype(src).kind
    low = 0 if np.dtype(dst).kind == "u" else -100
    if kind == "b":
        return rng.random((3, 5)) < 0.5
    if kind in "iu":
        return rand(rng, (3, 5), src, max(low, 0) if kind == "u" else low, 120)
    x = rng.uniform(low, 120, (3, 5)).astype(src)
    x.reshape(-1)[:3] = [0.0, 1.0, 0.75 if low == 0 else -0.75]
    return x
