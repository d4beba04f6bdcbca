"""GATHER, GATHER_ND, SELECT, SELECT_V2, SPLIT, SPLIT_V, PACK, UNPACK, SLICE, STRIDED_SLICE
(and CAST between the index and value dtypes they use) against the TFLite interpreter; results
must be exact. Parameters are constants, or graph
inputs (then the output shape is known only at run time, and one session runs with several
parameter values)."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import ModelBuilder, single_op_model
from op_harness import check_op, check_runs, open_session, rand

I32, I64, F32 = np.int32, np.int64, np.float32
N = None   # a dimension the model leaves unknown


# ---- GATHER ------------------------------------------------------------------------------------
# (params shape, indices, axis, batch_dims)
GATHERS = {
    "axis0_vector": ((5, 3), [4, 0, 2, 2], 0, 0),
    "axis1_matrix": ((3, 4, 5), [[0, 3], [1, 1]], 1, 0),
    "axis_last": ((2, 3, 4), [3, 0], -1, 0),
    "axis_neg2": ((2, 3, 4), [2, 1, 0], -2, 0),
    "scalar_index": ((4, 3), 2, 0, 0),
    "rank1_params": ((6,), [[5, 0], [1, 2]], 0, 0),
    "batch_dims1": ((2, 3, 4), [[0, 2], [1, 1]], 1, 1),
    "batch_dims1_axis2": ((2, 3, 4), [[3, 0, 1], [2, 2, 0]], 2, 1),
    "batch_dims_neg": ((2, 3, 4), [[3, 0], [1, 2]], 2, -1),
    "batch_dims2": ((2, 3, 4, 2), [[[1], [0], [3]], [[2], [2], [0]]], 2, 2),
}


def gather_out(xs, idx, axis, batch_dims) -> tuple[int, ...]:
    idx = np.asarray(idx)
    axis %= len(xs)
    b = batch_dims + idx.ndim if batch_dims < 0 else batch_dims
    return tuple(xs[:axis]) + idx.shape[b:] + tuple(xs[axis + 1:])


@pytest.mark.parametrize("index_dtype", [np.int16, I32, I64])
@pytest.mark.parametrize("case", list(GATHERS))
def test_gather(backend, rng, case, index_dtype):
    xs, idx, axis, bd = GATHERS[case]
    out = gather_out(xs, idx, axis, bd)
    model = single_op_model("GATHER", [("x", xs, "float32"), np.array(idx, index_dtype)],
                            [("y", out, "float32")], axis=axis, batch_dims=bd)
    check_op(model, [rand(rng, xs)], backend)


@pytest.mark.parametrize("dtype", ["int32", "int64", "int8", "bool"])
def test_gather_dtypes(backend, rng, dtype):
    model = single_op_model("GATHER", [("x", (4, 3), dtype), np.array([3, 1, 3], I32)],
                            [("y", (3, 3), dtype)], axis=0)
    check_op(model, [rand(rng, (4, 3), dtype, -100, 100)], backend)


def test_gather_indices_input(backend, rng):
    """Indices are data: a graph input read every run."""
    model = single_op_model("GATHER", [("x", (5, 3), "float32"), ("i", (2, 3), "int32")],
                            [("y", (2, 3, 3), "float32")], axis=0)
    check_op(model, [rand(rng, (5, 3)), np.array([[4, 0, 1], [2, 2, 3]], I32)], backend)


def test_gather_quantized(backend, rng):
    q = {"scale": [0.25], "zero_point": [3]}
    b = ModelBuilder()
    x = b.add_input("x", (4, 5), "int8", quant=q)
    y = b.add_tensor("y", (4, 2), "int8", quant=q)
    b.add_op("GATHER", [x, b.add_const("i", np.array([4, 1], I32))], [y], axis=1)
    b.add_output(y)
    check_op(b.build(), [rand(rng, (4, 5), "int8", -128, 128)], backend)


def test_gather_index_out_of_range_fails(backend, rng):
    model = single_op_model("GATHER", [("x", (3, 2), "float32"), ("i", (2,), "int32")],
                            [("y", (2, 2), "float32")], axis=0)
    with open_session(model, backend) as sess:
        sess.run([rand(rng, (3, 2)), np.array([0, 2], I32)])
        with pytest.raises(onert_py.ExecutionError, match="out of range"):
            sess.run([rand(rng, (3, 2)), np.array([0, 3], I32)])
        with pytest.raises(onert_py.ExecutionError, match="out of range"):
            sess.run([rand(rng, (3, 2)), np.array([-1, 0], I32)])


def test_boolean_mask(backend, rng):
    """WHERE -> GATHER_ND (and SHAPE of the coordinates): the gather's input shape, hence its
    output shape, follows the data."""
    b = ModelBuilder()
    x, c = b.add_input("x", (3, 4)), b.add_input("c", (3, 4), "bool")
    coords = b.add_tensor("coords", (N, 2), "int64")
    y = b.add_tensor("y", (N,))
    n = b.add_tensor("n", (2,), "int32")
    b.add_op("WHERE", [c], [coords])
    b.add_op("GATHER_ND", [x, coords], [y])
    b.add_op("SHAPE", [coords], [n], out_type="int32")
    b.add_output(y)
    b.add_output(n)
    xv = rand(rng, (3, 4))
    runs = [[xv, rng.random((3, 4)) < 0.5], [xv, np.eye(3, 4, dtype=bool)],
            [xv, np.ones((3, 4), bool)], [xv, rng.random((3, 4)) < 0.3]]
    check_runs(b.build(), runs, backend)


def test_gather_with_resized_inputs(backend, rng):
    """Params and indices of other shapes than the model declares (-1 dims)."""
    model = single_op_model("GATHER", [("x", (N, 3), "float32"), ("i", (N,), "int32")],
                            [("y", (N, 3), "float32")], axis=0)
    check_runs(model, [[rand(rng, (5, 3)), np.array([4, 0], I32)],
                       [rand(rng, (2, 3)), np.array([1, 1, 0, 1], I32)]], backend)


# ---- GATHER_ND ---------------------------------------------------------------------------------
GATHER_NDS = {
    "full_index": ((4, 3, 2), [[0, 2, 1], [3, 0, 0]]),
    "rows": ((4, 3, 2), [[1], [3], [0]]),
    "pairs": ((4, 3, 2), [[1, 2], [0, 0]]),
    "nested": ((4, 3, 2), [[[1, 2], [3, 1]], [[0, 0], [2, 2]]]),
    "matrix": ((3, 5), [[2, 4], [0, 1], [1, 3]]),
}


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("index_dtype", [np.int16, I32, I64])
@pytest.mark.parametrize("case", list(GATHER_NDS))
def test_gather_nd(backend, rng, case, index_dtype, dtype):
    xs, idx = GATHER_NDS[case]
    idx = np.array(idx, index_dtype)
    out = idx.shape[:-1] + tuple(xs[idx.shape[-1]:])
    model = single_op_model("GATHER_ND", [("x", xs, dtype), idx], [("y", out, dtype)])
    check_op(model, [rand(rng, xs, dtype, -100, 100)], backend)


def test_gather_nd_indices_input(backend, rng):
    model = single_op_model("GATHER_ND", [("x", (4, 4), "float32"), ("i", (3, 2), "int32")],
                            [("y", (3,), "float32")])
    check_op(model, [rand(rng, (4, 4)), np.array([[3, 2], [0, 1], [2, 0]], I32)], backend)


# ---- SELECT / SELECT_V2 ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32", "int8"])
@pytest.mark.parametrize("cond_shape", [(3, 4), (3,), ()])
def test_select(backend, rng, cond_shape, dtype):
    model = single_op_model("SELECT", [("c", cond_shape, "bool"), ("x", (3, 4), dtype),
                                       ("y", (3, 4), dtype)], [("z", (3, 4), dtype)])
    check_op(model, [rng.random(cond_shape) < 0.5, rand(rng, (3, 4), dtype, -100, 100),
                     rand(rng, (3, 4), dtype, -100, 100)], backend)


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3), (2, 3)), ((1, 3), (2, 1), (2, 3)),
                                    ((), (2, 3), (3,)), ((2, 1, 4), (3, 1), (1, 3, 4))])
def test_select_v2(backend, rng, shapes):
    c, x, y = shapes
    out = np.broadcast_shapes(c, x, y)
    model = single_op_model("SELECT_V2", [("c", c, "bool"), ("x", x, "float32"),
                                          ("y", y, "float32")], [("z", out, "float32")])
    check_op(model, [rng.random(c) < 0.5, rand(rng, x), rand(rng, y)], backend)


# ---- SPLIT / SPLIT_V ---------------------------------------------------------------------------
@pytest.mark.parametrize("axis_dtype", [I32, I64])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("xs,axis,n", [((6, 4), 0, 3), ((2, 6, 2), 1, 2), ((2, 3, 4), -1, 4),
                                       ((4,), 0, 1), ((2, 4), -2, 2)])
def test_split(backend, rng, xs, axis, n, dtype, axis_dtype):
    part = tuple(d // n if i == axis % len(xs) else d for i, d in enumerate(xs))
    model = single_op_model("SPLIT", [np.array(axis, axis_dtype), ("x", xs, dtype)],
                            [(f"y{k}", part, dtype) for k in range(n)], num_splits=n)
    check_op(model, [rand(rng, xs, dtype, -100, 100)], backend)


def test_split_axis_input(backend, rng):
    """A computed axis: the output shapes are known at run time only, and change with it."""
    model = single_op_model("SPLIT", [("axis", (), "int32"), ("x", (4, 6), "float32")],
                            [("y0", (None, None), "float32"), ("y1", (None, None), "float32")],
                            num_splits=2)
    x = rand(rng, (4, 6))
    check_runs(model, [[np.array(0, I32), x], [np.array(1, I32), x], [np.array(-2, I32), x]],
               backend)


@pytest.mark.parametrize("size_dtype", [I32, I64])
@pytest.mark.parametrize("xs,sizes,axis", [((6, 2), [1, 2, 3], 0), ((2, 7), [2, -1, 1], 1),
                                           ((2, 3, 5), [4, 1], -1), ((4, 3), [-1], 0),
                                           ((5, 2), [0, 5], 0)])
def test_split_v(backend, rng, xs, sizes, axis, size_dtype):
    a = axis % len(xs)
    resolved = [xs[a] - sum(s for s in sizes if s >= 0) if s == -1 else s for s in sizes]
    outs = [(f"y{k}", tuple(s if i == a else d for i, d in enumerate(xs)), "float32")
            for k, s in enumerate(resolved)]
    model = single_op_model("SPLIT_V", [("x", xs, "float32"), np.array(sizes, size_dtype),
                                        np.array(axis, I32)], outs, num_splits=len(sizes))
    check_op(model, [rand(rng, xs)], backend)


def test_split_v_sizes_input(backend, rng):
    model = single_op_model("SPLIT_V", [("x", (7, 2), "int32"), ("sizes", (2,), "int32"),
                                        np.array(0, I32)],
                            [("y0", (None, 2), "int32"), ("y1", (None, 2), "int32")],
                            num_splits=2)
    x = rand(rng, (7, 2), "int32", -50, 50)
    check_runs(model, [[x, np.array([3, 4], I32)], [x, np.array([-1, 1], I32)],
                       [x, np.array([7, 0], I32)], [x, np.array([1, -1], I32)]], backend,
               expected={2: [x, np.zeros((0, 2), I32)]})


# ---- PACK / UNPACK -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_pack(backend, rng, axis, n, dtype):
    xs = (2, 3)
    out = np.stack([np.zeros(xs)] * n, axis=axis).shape
    model = single_op_model("PACK", [(f"x{k}", xs, dtype) for k in range(n)],
                            [("y", out, dtype)], axis=axis, values_count=n)
    check_op(model, [rand(rng, xs, dtype, -100, 100) for _ in range(n)], backend)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2])
def test_unpack(backend, rng, axis, dtype):
    xs = (2, 3, 4)
    n = xs[axis]
    part = tuple(d for i, d in enumerate(xs) if i != axis % 3)
    model = single_op_model("UNPACK", [("x", xs, dtype)],
                            [(f"y{k}", part, dtype) for k in range(n)], axis=axis, num=n)
    check_op(model, [rand(rng, xs, dtype, -100, 100)], backend)


# ---- SLICE -------------------------------------------------------------------------------------
SLICES = {
    "2d": ((4, 5), [1, 2], [2, 3]),
    "to_end": ((4, 5), [1, 2], [-1, 2]),
    "all_to_end": ((3, 4, 2), [0, 1, 1], [-1, -1, -1]),
    "4d": ((2, 3, 4, 5), [1, 0, 2, 1], [1, 3, 2, 3]),
    "empty": ((4, 5), [2, 5], [2, 0]),
    "1d": ((6,), [5], [1]),
}


@pytest.mark.parametrize("index_dtype", [I32, I64])
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("case", list(SLICES))
def test_slice(backend, rng, case, dtype, index_dtype):
    xs, begin, size = SLICES[case]
    out = tuple(d - b if s == -1 else s for d, b, s in zip(xs, begin, size))
    model = single_op_model("SLICE", [("x", xs, dtype), np.array(begin, index_dtype),
                                      np.array(size, index_dtype)], [("y", out, dtype)])
    check_op(model, [rand(rng, xs, dtype, -100, 100)], backend)


def test_slice_begin_input(backend, rng):
    """A computed begin with a constant size: the shape is static, the window moves."""
    model = single_op_model("SLICE", [("x", (4, 5), "float32"), ("begin", (2,), "int32"),
                                      np.array([2, 3], I32)], [("y", (2, 3), "float32")])
    x = rand(rng, (4, 5))
    check_runs(model, [[x, np.array([0, 0], I32)], [x, np.array([2, 1], I32)],
                       [x, np.array([1, 2], I32)]], backend)


def test_slice_begin_and_size_inputs(backend, rng):
    model = single_op_model("SLICE", [("x", (4, 5), "float32"), ("begin", (2,), "int64"),
                                      ("size", (2,), "int64")], [("y", (None, None), "float32")])
    x = rand(rng, (4, 5))
    check_runs(model, [[x, np.array([1, 1], I64), np.array([2, 3], I64)],
                       [x, np.array([0, 2], I64), np.array([-1, 2], I64)],
                       [x, np.array([3, 0], I64), np.array([1, -1], I64)]], backend)


# ---- STRIDED_SLICE -----------------------------------------------------------------------------
# (input shape, begin, end, strides, options, the same slice in NumPy)
STRIDED = {
    "basic": ((4, 5), [1, 0], [3, 5], [1, 2], {}, np.s_[1:3, 0:5:2]),
    "negative_stride": ((4, 5), [3, -1], [0, 0], [-1, -2], {}, np.s_[3:0:-1, -1:0:-2]),
    "reverse_all": ((3, 4), [0, 0], [0, 0], [-1, -1], {"begin_mask": 3, "end_mask": 3},
                    np.s_[::-1, ::-1]),
    "negative_indices": ((6,), [-4], [-1], [1], {}, np.s_[-4:-1]),
    "clamped": ((4, 5), [-10, 2], [10, 100], [1, 1], {}, np.s_[-10:10, 2:100]),
    "begin_end_mask": ((4, 5, 2), [2, 1, 1], [0, 3, 0], [1, 1, 1],
                       {"begin_mask": 1, "end_mask": 4}, np.s_[:0, 1:3, 1:]),
    "shrink": ((4, 5, 2), [1, 0, 1], [2, 5, 2], [1, 1, 1], {"shrink_axis_mask": 5},
               np.s_[1, 0:5, 1]),
    "shrink_negative": ((4, 5), [-1, 0], [0, 5], [1, 2], {"shrink_axis_mask": 1},
                        np.s_[-1, 0:5:2]),
    "fewer_specs": ((4, 5, 3), [1], [3], [1], {}, np.s_[1:3]),
    "ellipsis": ((2, 3, 4, 5), [0, 1], [0, 4], [1, 2], {"ellipsis_mask": 1},
                 np.s_[..., 1:4:2]),
    "ellipsis_middle": ((2, 3, 4, 5), [1, 0, 2], [2, 0, 5], [1, 1, 1], {"ellipsis_mask": 2},
                        np.s_[1:2, ..., 2:5]),
    "new_axis": ((3, 4), [0, 0, 1], [0, 3, 3], [1, 1, 1], {"new_axis_mask": 1},
                 np.s_[None, 0:3, 1:3]),
    "new_axis_middle": ((3, 4), [1, 0, 0], [3, 0, 4], [1, 1, 2], {"new_axis_mask": 2},
                        np.s_[1:3, None, 0:4:2]),
    "ellipsis_new_axis": ((2, 3, 4), [0, 0], [0, 0], [1, 1],
                          {"ellipsis_mask": 1, "new_axis_mask": 2}, np.s_[..., None]),
    "shrink_and_new_axis": ((3, 4), [0, 2, 0], [0, 3, 4], [1, 1, 3],
                            {"new_axis_mask": 1, "shrink_axis_mask": 2}, np.s_[None, 2, 0:4:3]),
    "empty": ((4, 5), [3, 0], [1, 5], [1, 1], {}, np.s_[3:1, 0:5]),
    "5d": ((2, 2, 3, 2, 3), [0, 1, 0, 1, 2], [2, 2, 3, 2, 0], [1, 1, 2, 1, -1], {},
           np.s_[0:2, 1:2, 0:3:2, 1:2, 2:0:-1]),
}


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("case", list(STRIDED))
def test_strided_slice(backend, rng, case, dtype):
    xs, begin, end, strides, options, index = STRIDED[case]
    out = np.zeros(xs)[index].shape
    model = single_op_model("STRIDED_SLICE", [("x", xs, dtype), np.array(begin, I32),
                                              np.array(end, I32), np.array(strides, I32)],
                            [("y", out, dtype)], **options)
    check_op(model, [rand(rng, xs, dtype, -100, 100)], backend)


def test_strided_slice_offset(backend, rng):
    """offset: end counts from begin (end = begin + end)."""
    model = single_op_model("STRIDED_SLICE", [("x", (5, 6), "float32"), np.array([1, 2], I32),
                                              np.array([3, 4], I32), np.array([1, 2], I32)],
                            [("y", (3, 2), "float32")], offset=True)
    check_op(model, [rand(rng, (5, 6))], backend)


def test_strided_slice_offset_begin_input(backend, rng):
    """With offset the shape follows end and strides: a computed begin keeps it static."""
    model = single_op_model("STRIDED_SLICE", [("x", (5, 6), "float32"), ("begin", (2,), "int32"),
                                              np.array([2, 3], I32), np.array([1, 1], I32)],
                            [("y", (2, 3), "float32")], offset=True)
    x = rand(rng, (5, 6))
    check_runs(model, [[x, np.array([0, 0], I32)], [x, np.array([3, 2], I32)]], backend)


def test_strided_slice_inputs(backend, rng):
    """begin, end and strides all computed: the output shape changes between runs."""
    model = single_op_model("STRIDED_SLICE", [("x", (4, 6), "float32"), ("b", (2,), "int32"),
                                              ("e", (2,), "int32"), ("s", (2,), "int32")],
                            [("y", (None, None), "float32")], shrink_axis_mask=0, end_mask=2)
    x = rand(rng, (4, 6))
    runs = [([0, 1], [4, 0], [1, 2]), ([3, 5], [0, 0], [-1, -1]), ([1, -2], [2, 0], [1, 1]),
            ([2, 0], [2, 0], [1, 1]), ([-1, 0], [0, 0], [-2, 3])]
    check_runs(model, [[x] + [np.array(v, I32) for v in r] for r in runs], backend,
               expected={3: [np.zeros((0, 6), F32)]})


def test_strided_slice_quantized(backend, rng):
    q = {"scale": [0.5], "zero_point": [-3]}
    b = ModelBuilder()
    x = b.add_input("x", (4, 6), "int8", quant=q)
    y = b.add_tensor("y", (2, 3), "int8", quant=q)
    b.add_op("STRIDED_SLICE", [x, b.add_const("b", np.array([3, 0], I32)),
                               b.add_const("e", np.array([0, 6], I32)),
                               b.add_const("s", np.array([-2, 2], I32))], [y])
    b.add_output(y)
    check_op(b.build(), [rand(rng, (4, 6), "int8", -128, 128)], backend)


# ---- CAST (ElementwiseUnary) -------------------------------------------------------------------
@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "float32"),
                                     ("float32", "bool"), ("bool", "float32"),
                                     ("int64", "int32"), ("int32", "int64")])
def test_cast(backend, rng, src, dst):
    model = single_op_model("CAST", [("x", (3, 4), src)], [("y", (3, 4), dst)],
                            in_data_type=src, out_data_type=dst)
    check_op(model, [rand(rng, (3, 4), src, -5, 5)], backend)
