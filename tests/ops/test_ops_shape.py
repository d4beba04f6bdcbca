"""Data movement (RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, CONCATENATION, PAD, PADV2,
DEPTH_TO_SPACE, SPACE_TO_DEPTH) against the TFLite interpreter; results must be exact."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import ModelBuilder, single_op_model
from builders.single_op import unary_model
from op_harness import check_op, rand


# ---- RESHAPE / SQUEEZE / EXPAND_DIMS -----------------------------------------------------------
# (input shape, shape input or None, new_shape option or None, output shape)
RESHAPE_CASES = {
    "shape_input": ((2, 3, 4), [6, 4], None, (6, 4)),
    "shape_input_minus1": ((2, 3, 4), [4, -1], None, (4, 6)),
    "to_rank1": ((2, 3, 4), [-1], None, (24,)),
    "to_rank4": ((6, 4), [1, 2, 3, 4], None, (1, 2, 3, 4)),
    "option_only": ((2, 3, 4), None, [3, 8], (3, 8)),
    "option_and_input": ((2, 3, 4), [2, 12], [2, 12], (2, 12)),
}


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("case", list(RESHAPE_CASES))
def test_reshape(backend, rng, case, dtype):
    xs, shape, new_shape, out = RESHAPE_CASES[case]
    inputs = [("x", xs, dtype)] + ([] if shape is None else [np.array(shape, np.int32)])
    options = {} if new_shape is None else {"new_shape": new_shape}
    model = single_op_model("RESHAPE", inputs, [("y", out, dtype)], **options)
    check_op(model, [rand(rng, xs, dtype, -100, 100)], backend)


# (input shape, squeeze_dims, output shape)
SQUEEZE_CASES = {
    "all": ((1, 3, 1, 4, 1), [], (3, 4)),
    "one": ((1, 3, 1, 4), [2], (1, 3, 4)),
    "negative": ((2, 3, 1), [-1], (2, 3)),
    "several": ((1, 3, 1, 4), [0, 2], (3, 4)),
}


@pytest.mark.parametrize("case", list(SQUEEZE_CASES))
def test_squeeze(backend, rng, case):
    xs, dims, out = SQUEEZE_CASES[case]
    model = unary_model("SQUEEZE", xs, out_shape=out, squeeze_dims=dims)
    check_op(model, [rand(rng, xs)], backend)


@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4])
def test_expand_dims(backend, rng, axis):
    xs = (2, 3, 4)
    out = np.expand_dims(np.zeros(xs), axis).shape
    model = single_op_model("EXPAND_DIMS", [("x", xs, "float32"), np.array([axis], np.int32)],
                            [("y", out, "float32")])
    check_op(model, [rand(rng, xs)], backend)


def test_expand_dims_int32_data_int64_axis(backend, rng):
    model = single_op_model("EXPAND_DIMS", [("x", (3, 4), "int32"), np.array(1, np.int64)],
                            [("y", (3, 1, 4), "int32")])
    check_op(model, [rand(rng, (3, 4), "int32", -9, 9)], backend)


# ---- TRANSPOSE -------------------------------------------------------------------------------
TRANSPOSES = {
    "2d": ((3, 5), [1, 0]),
    "3d_swap_last": ((2, 3, 4), [0, 2, 1]),
    "3d_rotate": ((2, 3, 4), [2, 0, 1]),
    "nhwc_to_nchw": ((2, 3, 4, 5), [0, 3, 1, 2]),
    "nchw_to_nhwc": ((2, 3, 4, 5), [0, 2, 3, 1]),
    "4d_reverse": ((2, 3, 4, 5), [3, 2, 1, 0]),
    "5d": ((2, 3, 1, 4, 2), [0, 2, 4, 1, 3]),
    "6d": ((2, 1, 3, 2, 1, 2), [5, 0, 3, 1, 4, 2]),
    "identity": ((2, 3, 4), [0, 1, 2]),
}


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("case", list(TRANSPOSES))
def test_transpose(backend, rng, case, dtype):
    xs, perm = TRANSPOSES[case]
    out = tuple(xs[p] for p in perm)
    model = single_op_model("TRANSPOSE", [("x", xs, dtype), np.array(perm, np.int32)],
                            [("y", out, dtype)])
    check_op(model, [rand(rng, xs, dtype, -100, 100)], backend)


# ---- CONCATENATION ---------------------------------------------------------------------------
@pytest.mark.parametrize("n_inputs", [2, 3])
@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -3])
def test_concatenation(backend, rng, axis, n_inputs):
    base = [2, 3, 4, 5]
    shapes = []
    for k in range(n_inputs):
        s = list(base)
        s[axis] = k + 1
        shapes.append(tuple(s))
    out = list(base)
    out[axis] = sum(s[axis] for s in shapes)
    inputs = [(f"x{k}", s, "float32") for k, s in enumerate(shapes)]
    model = single_op_model("CONCATENATION", inputs, [("y", tuple(out), "float32")], axis=axis)
    check_op(model, [rand(rng, s) for s in shapes], backend)


def test_concatenation_int32_with_const(backend, rng):
    c = rand(rng, (2, 2), "int32", -9, 9)
    model = single_op_model("CONCATENATION", [("a", (2, 3), "int32"), c, ("b", (2, 1), "int32")],
                            [("y", (2, 6), "int32")], axis=1)
    check_op(model, [rand(rng, (2, 3), "int32", -9, 9), rand(rng, (2, 1), "int32", -9, 9)],
             backend)


def test_concatenation_rank1(backend, rng):
    model = single_op_model("CONCATENATION", [("a", (3,), "float32"), ("b", (5,), "float32")],
                            [("y", (8,), "float32")], axis=0)
    check_op(model, [rand(rng, (3,)), rand(rng, (5,))], backend)


# ---- PAD / PADV2 -----------------------------------------------------------------------------
PADS = {
    "4d_hw": ((1, 3, 4, 2), [[0, 0], [1, 2], [2, 1], [0, 0]]),
    "4d_all": ((2, 2, 3, 2), [[1, 0], [0, 1], [1, 1], [2, 0]]),
    "2d": ((3, 4), [[1, 1], [0, 3]]),
    "1d": ((5,), [[2, 3]]),
    "3d_none": ((2, 3, 4), [[0, 0], [0, 0], [0, 0]]),
}


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("case", list(PADS))
def test_pad(backend, rng, case, dtype):
    xs, pads = PADS[case]
    out = tuple(d + a + b for d, (a, b) in zip(xs, pads))
    model = single_op_model("PAD", [("x", xs, dtype), np.array(pads, np.int32)],
                            [("y", out, dtype)])
    check_op(model, [rand(rng, xs, dtype, 1, 100)], backend)


def test_pad_int64_paddings(backend, rng):
    model = single_op_model("PAD", [("x", (2, 3), "float32"), np.array([[1, 0], [0, 2]], np.int64)],
                            [("y", (3, 5), "float32")])
    check_op(model, [rand(rng, (2, 3))], backend)


@pytest.mark.parametrize("dtype,value", [("float32", 1.5), ("float32", -7.0), ("int32", 9)])
@pytest.mark.parametrize("case", ["4d_hw", "2d"])
def test_padv2(backend, rng, case, dtype, value):
    xs, pads = PADS[case]
    out = tuple(d + a + b for d, (a, b) in zip(xs, pads))
    model = single_op_model("PADV2", [("x", xs, dtype), np.array(pads, np.int32),
                                      np.array(value, dtype)], [("y", out, dtype)])
    check_op(model, [rand(rng, xs, dtype, 1, 100)], backend)


# ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH ---------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("xs,block", [((1, 2, 3, 8), 2), ((2, 2, 2, 18), 3), ((1, 1, 1, 4), 2)])
def test_depth_to_space(backend, rng, xs, block, dtype):
    n, h, w, c = xs
    out = (n, h * block, w * block, c // block ** 2)
    model = unary_model("DEPTH_TO_SPACE", xs, dtype, out_shape=out, block_size=block)
    check_op(model, [rand(rng, xs, dtype, -100, 100)], backend)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("xs,block", [((1, 4, 6, 3), 2), ((2, 6, 3, 2), 3), ((1, 2, 2, 1), 2)])
def test_space_to_depth(backend, rng, xs, block, dtype):
    n, h, w, c = xs
    out = (n, h // block, w // block, c * block ** 2)
    model = unary_model("SPACE_TO_DEPTH", xs, dtype, out_shape=out, block_size=block)
    check_op(model, [rand(rng, xs, dtype, -100, 100)], backend)


def test_depth_to_space_roundtrip(backend, rng):
    """SPACE_TO_DEPTH then DEPTH_TO_SPACE gives the input back."""
    b = ModelBuilder()
    x = b.add_input("x", (1, 4, 6, 2), "float32")
    mid = b.add_tensor("mid", (1, 2, 3, 8), "float32")
    y = b.add_tensor("y", (1, 4, 6, 2), "float32")
    b.add_op("SPACE_TO_DEPTH", [x], [mid], block_size=2)
    b.add_op("DEPTH_TO_SPACE", [mid], [y], block_size=2)
    b.add_output(y)
    xv = rand(rng, (1, 4, 6, 2))
    out = check_op(b.build(), [xv], backend)
    np.testing.assert_array_equal(out[0], xv)


# ---- quantized (int8 / uint8) data movement: values move unchanged, padding is the zero point --
def quantized_model(op: str, xs: tuple[int, ...], out: tuple[int, ...], dtype: str,
                    consts: list[np.ndarray], **options) -> bytes:
    q = {"scale": [0.5], "zero_point": [-3 if dtype == "int8" else 130]}
    b = ModelBuilder()
    x = b.add_input("x", xs, dtype, quant=q)
    ins = [x] + [b.add_const(f"c{k}", c) for k, c in enumerate(consts)]
    y = b.add_tensor("y", out, dtype, quant=q)
    b.add_op(op, ins, [y], **options)
    b.add_output(y)
    return b.build()


QUANTIZED = {
    "pad": ("PAD", (1, 3, 3, 2), (1, 4, 6, 2), [np.array(PADS["4d_hw"][1], np.int32)], {}),
    "reshape": ("RESHAPE", (2, 3, 4), (6, 4), [np.array([6, 4], np.int32)], {}),
    "transpose": ("TRANSPOSE", (2, 3, 4), (4, 2, 3), [np.array([2, 0, 1], np.int32)], {}),
    "depth_to_space": ("DEPTH_TO_SPACE", (1, 2, 3, 8), (1, 4, 6, 2), [], {"block_size": 2}),
    "space_to_depth": ("SPACE_TO_DEPTH", (1, 4, 6, 2), (1, 2, 3, 8), [], {"block_size": 2}),
    "resize_nearest": ("RESIZE_NEAREST_NEIGHBOR", (1, 3, 4, 2), (1, 6, 7, 2),
                       [np.array([6, 7], np.int32)], {}),
}


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("case", list(QUANTIZED))
def test_quantized_data_movement(backend, rng, case, dtype):
    op, xs, out, consts, options = QUANTIZED[case]
    info = np.iinfo(dtype)
    model = quantized_model(op, xs, out, dtype, consts, **options)
    check_op(model, [rand(rng, xs, dtype, info.min, info.max + 1)], backend)
