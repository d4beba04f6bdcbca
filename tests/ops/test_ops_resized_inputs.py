"""Every cpu op type with inputs of another shape than the model declares (a -1 batch, other
spatial sizes): static shape inference must give the interpreter's output shapes."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from onert_py.model_builder import single_op_model
from op_harness import ACCUMULATE, check_op, rand

N = None   # an unknown dimension: stored as 1, shape_signature -1
F = "float32"


def one_input(op: str, shape: tuple, out_shape: tuple, consts: tuple = (), dtype: str = F,
              out_dtype: str | None = None, **options: Any) -> bytes:
    """A model of `op` on one input (then constant inputs), output declared `out_shape`."""
    return single_op_model(op, [("x", shape, dtype), *consts],
                           [("y", out_shape, out_dtype or dtype)], **options)


def two_inputs(op: str, a: tuple, b: tuple, out: tuple, dtype: str = F,
               out_dtype: str | None = None, **options: Any) -> bytes:
    """A model of `op` on two inputs, output declared `out`."""
    return single_op_model(op, [("a", a, dtype), ("b", b, dtype)],
                           [("y", out, out_dtype or dtype)], **options)


_WEIGHTS = np.random.default_rng(7)


def weights(*shape: int) -> np.ndarray:
    """Fixed random float32 constants for the models below."""
    return _WEIGHTS.standard_normal(shape).astype(F)


CONV_W, CONV_B = weights(4, 3, 3, 3), weights(4)
DW_W, DW_B = weights(1, 3, 3, 4), weights(4)
FC_W, FC_B = weights(5, 6), weights(5)
PADS = np.array([[0, 0], [1, 2], [2, 0], [0, 0]], np.int32)


def I32(values: list[int]) -> np.ndarray:  # noqa: N802
    return np.array(values, np.int32)


# name -> (model factory, shapes of the inputs actually fed, input dtype)
CASES: dict[str, tuple[Callable[[], bytes], list[tuple[int, ...]], str]] = {
    "conv2d": (lambda: one_input("CONV_2D", (N, 8, 8, 3), (N, 4, 4, 4), (CONV_W, CONV_B),
                                 padding="SAME", stride_h=2, stride_w=2), [(2, 11, 9, 3)], F),
    "depthwise_m2": (lambda: one_input("DEPTHWISE_CONV_2D", (N, 6, 6, 2), (N, 6, 6, 4),
                                       (DW_W, DW_B), padding="SAME", depth_multiplier=2),
                     [(3, 7, 5, 2)], F),
    "fully_connected": (lambda: one_input("FULLY_CONNECTED", (N, 6), (N, 5), (FC_W, FC_B)),
                        [(4, 6)], F),
    "fully_connected_keep_dims": (lambda: one_input("FULLY_CONNECTED", (N, 2, 6), (N, 2, 5),
                                                    (FC_W, FC_B), keep_num_dims=True),
                                  [(3, 2, 6)], F),
    "batch_matmul": (lambda: two_inputs("BATCH_MATMUL", (N, 3, 4), (N, 4, 5), (N, 3, 5)),
                     [(2, 3, 4), (2, 4, 5)], F),
    "add_broadcast": (lambda: two_inputs("ADD", (N, 3), (3,), (N, 3)), [(4, 3), (3,)], F),
    "maximum": (lambda: two_inputs("MAXIMUM", (N, 3), (N, 3), (N, 3)), [(5, 3), (5, 3)], F),
    "squared_difference": (lambda: two_inputs("SQUARED_DIFFERENCE", (N, 2), (2,), (N, 2)),
                           [(3, 2), (2,)], F),
    "less": (lambda: two_inputs("LESS", (N, 3), (N, 3), (N, 3), out_dtype="bool"),
             [(2, 3), (2, 3)], F),
    "relu": (lambda: one_input("RELU", (N, 4), (N, 4)), [(3, 4)], F),
    "exp": (lambda: one_input("EXP", (N, 4), (N, 4)), [(3, 4)], F),
    "cast": (lambda: one_input("CAST", (N, 4), (N, 4), out_dtype="int32"), [(3, 4)], F),
    "mean": (lambda: one_input("MEAN", (N, 4, 4, 3), (N, 3), (I32([1, 2]),)),
             [(2, 5, 6, 3)], F),
    "sum_keep_dims": (lambda: one_input("SUM", (N, 4, 3), (N, 1, 3), (I32([1]),),
                                        keep_dims=True), [(2, 6, 3)], F),
    "softmax": (lambda: one_input("SOFTMAX", (N, 10), (N, 10), beta=1.0), [(3, 10)], F),
    "log_softmax": (lambda: one_input("LOG_SOFTMAX", (N, 10), (N, 10)), [(3, 10)], F),
    "reshape": (lambda: one_input("RESHAPE", (N, 2, 6), (N, 6), (I32([-1, 6]),)),
                [(3, 2, 6)], F),
    "squeeze": (lambda: one_input("SQUEEZE", (N, 3, 1, 4), (N, 3, 4), squeeze_dims=[2]),
                [(2, 3, 1, 4)], F),
    "expand_dims": (lambda: one_input("EXPAND_DIMS", (N, 4), (N, 1, 4), (I32([1]),)),
                    [(3, 4)], F),
    "transpose": (lambda: one_input("TRANSPOSE", (N, 3, 4), (N, 4, 3), (I32([0, 2, 1]),)),
                  [(2, 5, 4)], F),
    "concatenation": (lambda: two_inputs("CONCATENATION", (N, 2, 3), (N, 4, 3), (N, 6, 3),
                                         axis=1), [(2, 2, 3), (2, 4, 3)], F),
    "pad": (lambda: one_input("PAD", (N, 3, 3, 2), (N, 6, 5, 2), (PADS,)), [(2, 4, 5, 2)], F),
    "padv2": (lambda: one_input("PADV2", (N, 3, 3, 2), (N, 6, 5, 2),
                                (PADS, np.array(2.5, F))), [(2, 4, 5, 2)], F),
    "max_pool": (lambda: one_input("MAX_POOL_2D", (N, 8, 8, 3), (N, 4, 4, 3), padding="SAME",
                                   stride_h=2, stride_w=2, filter_height=3, filter_width=3),
                 [(2, 9, 7, 3)], F),
    "average_pool": (lambda: one_input("AVERAGE_POOL_2D", (N, 8, 8, 3), (N, 3, 3, 3),
                                       padding="VALID", stride_h=2, stride_w=2,
                                       filter_height=3, filter_width=3), [(2, 9, 7, 3)], F),
    "prelu": (lambda: one_input("PRELU", (N, 4, 4, 3), (N, 4, 4, 3),
                                (np.array([0.1, 0.2, 0.3], F),)), [(2, 5, 5, 3)], F),
    "resize_bilinear": (lambda: one_input("RESIZE_BILINEAR", (N, 4, 4, 2), (N, 8, 8, 2),
                                          (I32([8, 8]),)), [(3, 5, 6, 2)], F),
    "resize_nearest": (lambda: one_input("RESIZE_NEAREST_NEIGHBOR", (N, 4, 4, 2), (N, 8, 8, 2),
                                         (I32([8, 8]),)), [(3, 5, 6, 2)], F),
    "depth_to_space": (lambda: one_input("DEPTH_TO_SPACE", (N, 2, 2, 8), (N, 4, 4, 2),
                                         block_size=2), [(2, 3, 1, 8)], F),
    "space_to_depth": (lambda: one_input("SPACE_TO_DEPTH", (N, 4, 4, 2), (N, 2, 2, 8),
                                         block_size=2), [(2, 6, 2, 2)], F),
}


@pytest.mark.parametrize("case", list(CASES))
def test_resized_input(backend, rng, case):
    factory, shapes, dtype = CASES[case]
    inputs = [rand(rng, s, dtype) for s in shapes]
    check_op(factory(), inputs, backend, **ACCUMULATE)
