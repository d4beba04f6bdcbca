"""Ops whose output shapes follow input values (SHAPE, RANGE, FILL, BROADCAST_TO, TILE,
ONE_HOT, ARG_MAX/ARG_MIN, TOPK_V2, NON_MAX_SUPPRESSION_V4/V5), or the result itself (WHERE,
UNIQUE), and the existing kernels fed computed parameters (RESHAPE shape, TRANSPOSE perm,
EXPAND_DIMS axis, PAD paddings, reduction axes, RESIZE size), against the TFLite interpreter.

A parameter that is a graph input makes the output shape known only at run time; `check_runs`
(op_harness) runs one session several times with different values and compares every run."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import ModelBuilder, single_op_model
from op_harness import check_op, check_runs, rand

I32, I64, F32 = np.int32, np.int64, np.float32
N = None   # a dimension the model leaves unknown


# ---- SHAPE -------------------------------------------------------------------------------------
@pytest.mark.parametrize("out_type", ["int32", "int64"])
@pytest.mark.parametrize("xs", [(2, 3, 4), (5,), (1, 1, 2, 1)])
def test_shape(backend, rng, xs, out_type):
    model = single_op_model("SHAPE", [("x", xs, "float32")], [("y", (len(xs),), out_type)],
                            out_type=out_type)
    check_op(model, [rand(rng, xs)], backend)


def test_shape_of_scalar(backend):
    model = single_op_model("SHAPE", [("x", (), "float32")], [("y", (0,), "int64")],
                            out_type="int64")
    check_runs(model, [[np.array(2.0, F32)]], backend, expected={0: [np.zeros(0, I64)]})


def test_shape_of_resized_input(backend, rng):
    model = single_op_model("SHAPE", [("x", (N, 3), "float32")], [("y", (2,), "int32")],
                            out_type="int32")
    check_runs(model, [[rand(rng, (2, 3))], [rand(rng, (7, 3))]], backend)


def test_reshape_to_computed_shape(backend, rng):
    """RESHAPE(x, SHAPE(t)): the shape tensor is computed inside the graph."""
    b = ModelBuilder()
    x, t = b.add_input("x", (2, 12)), b.add_input("t", (4, 6))
    s = b.add_tensor("s", (2,), "int32")
    y = b.add_tensor("y", (N, N))
    b.add_op("SHAPE", [t], [s], out_type="int32")
    b.add_op("RESHAPE", [x, s], [y])
    b.add_output(y)
    check_op(b.build(), [rand(rng, (2, 12)), rand(rng, (4, 6))], backend)


# ---- RANGE -------------------------------------------------------------------------------------
RANGES = {"int32": [(0, 5, 1), (3, 18, 4), (10, -3, -3), (4, 5, 2)],
          "int64": [(-2, 9, 2)],
          "float32": [(0.0, 1.0, 0.1), (2.5, -1.0, -0.7), (-1.0, 7.3, 0.3)]}


@pytest.mark.parametrize("dtype,args", [(d, a) for d, cases in RANGES.items() for a in cases])
def test_range(backend, dtype, args):
    n = len(np.arange(*args))
    model = single_op_model("RANGE", [np.array(a, dtype) for a in args], [("y", (n,), dtype)])
    check_op(model, [], backend)


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_range_inputs(backend, dtype):
    """start, limit and delta computed: the length changes between runs."""
    model = single_op_model("RANGE", [("start", (), dtype), ("limit", (), dtype),
                                      ("delta", (), dtype)], [("y", (N,), dtype)])
    runs = [(0, 5, 1), (10, -3, -3), (2, 2, 1), (1, 30, 2)]
    check_runs(model, [[np.array(v, dtype) for v in r] for r in runs], backend,
               expected={2: [np.zeros(0, dtype)]})


# ---- FILL / BROADCAST_TO / TILE ----------------------------------------------------------------
@pytest.mark.parametrize("dims_dtype", [I32, I64])
@pytest.mark.parametrize("value", [np.float32(1.5), np.int32(-7), np.bool_(True), np.int64(9)])
def test_fill(backend, value, dims_dtype):
    model = single_op_model("FILL", [np.array([2, 3, 1], dims_dtype), ("v", (), value.dtype.name)],
                            [("y", (2, 3, 1), value.dtype.name)])
    check_op(model, [np.array(value)], backend)


def test_fill_dims_input(backend):
    model = single_op_model("FILL", [("dims", (2,), "int32"), np.array(0.25, F32)],
                            [("y", (N, N), "float32")])
    check_runs(model, [[np.array([2, 3], I32)], [np.array([4, 1], I32)],
                       [np.array([0, 5], I32)], [np.array([1, 2], I32)]], backend,
               expected={2: [np.zeros((0, 5), F32)]})


@pytest.mark.parametrize("shape_dtype", [I32, I64])
@pytest.mark.parametrize("xs,target", [((3,), (2, 3)), ((2, 1), (2, 4)), ((1, 3, 1), (2, 3, 4)),
                                       ((), (2, 2)), ((2, 3), (2, 3))])
def test_broadcast_to(backend, rng, xs, target, shape_dtype):
    # BROADCAST_TO starts at version 2 in the interpreter (version 1 is the flex op)
    model = single_op_model("BROADCAST_TO", [("x", xs, "float32"), np.array(target, shape_dtype)],
                            [("y", target, "float32")], version=2)
    check_op(model, [rand(rng, xs)], backend)


def test_broadcast_to_shape_input(backend, rng):
    model = single_op_model("BROADCAST_TO", [("x", (1, 3), "int32"), ("s", (3,), "int32")],
                            [("y", (N, N, N), "int32")], version=2)
    x = rand(rng, (1, 3), "int32", -9, 9)
    check_runs(model, [[x, np.array([2, 4, 3], I32)], [x, np.array([1, 1, 3], I32)]], backend)


@pytest.mark.parametrize("m_dtype", [I32, I64])
@pytest.mark.parametrize("xs,m", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((1, 2, 2), (2, 3, 2)),
                                  ((4,), (3,)), ((2, 3), (0, 2))])
def test_tile(backend, rng, xs, m, m_dtype):
    out = tuple(d * k for d, k in zip(xs, m))
    model = single_op_model("TILE", [("x", xs, "float32"), np.array(m, m_dtype)],
                            [("y", out, "float32")])
    check_op(model, [rand(rng, xs)], backend)


def test_tile_multiples_input(backend, rng):
    model = single_op_model("TILE", [("x", (2, 2), "int32"), ("m", (2,), "int64")],
                            [("y", (N, N), "int32")])
    x = rand(rng, (2, 2), "int32", -9, 9)
    check_runs(model, [[x, np.array([2, 3], I64)], [x, np.array([1, 1], I64)],
                       [x, np.array([3, 2], I64)]], backend)


# ---- ONE_HOT -----------------------------------------------------------------------------------
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("dtype,on,off", [("float32", 1.0, 0.0), ("float32", 2.5, -1.0),
                                          ("int32", 7, 3), ("bool", True, False)])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(backend, axis, dtype, on, off, index_dtype):
    idx = np.array([[0, 3, 1], [4, -1, 2]], index_dtype)     # 4 and -1 are off everywhere
    depth = 4
    out = list(idx.shape)
    out.insert(axis % 3, depth)
    model = single_op_model("ONE_HOT", [("i", idx.shape, index_dtype),
                                        np.array(depth, index_dtype),
                                        np.array(on, dtype), np.array(off, dtype)],
                            [("y", tuple(out), dtype)], axis=axis)
    check_op(model, [idx], backend)


def test_one_hot_depth_input(backend):
    model = single_op_model("ONE_HOT", [("i", (3,), "int32"), ("depth", (), "int32"),
                                        ("on", (), "float32"), ("off", (), "float32")],
                            [("y", (3, N), "float32")], axis=-1)
    idx = np.array([0, 2, 1], I32)
    check_runs(model, [[idx, np.array(3, I32), np.array(1, F32), np.array(0, F32)],
                       [idx, np.array(5, I32), np.array(-2, F32), np.array(4, F32)]], backend)


# ---- WHERE / UNIQUE (shape from the result) ----------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "float32", "int32", "int64"])
@pytest.mark.parametrize("xs", [(2, 3), (7,), (2, 2, 3)])
def test_where(backend, rng, xs, dtype):
    model = single_op_model("WHERE", [("c", xs, dtype)], [("y", (N, len(xs)), "int64")])
    check_op(model, [rand(rng, xs, dtype, 0, 2)], backend)


def test_where_counts_change(backend, rng):
    """The number of true elements differs per run, down to none."""
    model = single_op_model("WHERE", [("c", (3, 4), "bool")], [("y", (N, 2), "int64")])
    runs = [[rng.random((3, 4)) < 0.5], [np.zeros((3, 4), bool)], [np.ones((3, 4), bool)],
            [rng.random((3, 4)) < 0.2]]
    out = check_runs(model, runs, backend, expected={1: [np.zeros((0, 2), I64)]})
    assert out[2][0].shape == (12, 2)


@pytest.mark.parametrize("idx_type", ["int32", "int64"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "int8"])
def test_unique(backend, dtype, idx_type):
    x = np.array([3, 1, 3, 0, -2, 1, 1, 7, -2], dtype)
    model = single_op_model("UNIQUE", [("x", x.shape, dtype)],
                            [("y", (N,), dtype), ("idx", x.shape, idx_type)],
                            idx_out_type=idx_type)
    check_op(model, [x], backend)


def test_unique_counts_change(backend, rng):
    model = single_op_model("UNIQUE", [("x", (N,), "int32")],
                            [("y", (N,), "int32"), ("idx", (N,), "int32")], idx_out_type="int32")
    runs = [[np.array([4, 4, 2, 9, 2], I32)], [np.array([5], I32)],
            [rand(rng, (20,), "int32", 0, 6)], [np.arange(8, dtype=I32)[::-1].copy()]]
    check_runs(model, runs, backend)


# ---- NON_MAX_SUPPRESSION_V4 / V5 ---------------------------------------------------------------
BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                  [0, 10.1, 1, 11.1], [0, 100, 1, 101], [1, 1, 0, 0], [0.5, 0.5, 0.6, 0.6]], F32)
SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.82, 0.4], F32)


def nms_model(version: int, max_out, n: int = 8) -> bytes:
    """NMS on graph inputs boxes, scores, iou and score thresholds (and sigma for V5);
    max_output_size is a constant, or a graph input when None."""
    ins = [("boxes", (n, 4), "float32"), ("scores", (n,), "float32"),
           ("max", (), "int32") if max_out is None else np.array(max_out, I32),
           ("iou", (), "float32"), ("score", (), "float32")]
    size = N if max_out is None else max_out
    if version == 4:
        outs = [("sel", (size,), "int32"), ("valid", (), "int32")]
    else:
        ins.append(("sigma", (), "float32"))
        outs = [("sel", (size,), "int32"), ("scores_out", (size,), "float32"),
                ("valid", (), "int32")]
    return single_op_model(f"NON_MAX_SUPPRESSION_V{version}", ins, outs)


@pytest.mark.parametrize("max_out", [0, 2, 6, 10])
@pytest.mark.parametrize("iou,score", [(0.5, 0.0), (0.7, 0.55), (0.5, 0.99), (1.0, -1.0)])
def test_nms_v4(backend, max_out, iou, score):
    model = nms_model(4, max_out)
    check_op(model, [BOXES, SCORES, np.array(iou, F32), np.array(score, F32)], backend)


@pytest.mark.parametrize("sigma", [0.0, 0.5, 2.0])
@pytest.mark.parametrize("iou,score", [(0.5, 0.0), (0.8, 0.3), (0.3, 0.99)])
def test_nms_v5(backend, iou, score, sigma):
    model = nms_model(5, 6)
    check_op(model, [BOXES, SCORES, np.array(iou, F32), np.array(score, F32),
                     np.array(sigma, F32)], backend)


def test_nms_max_output_size_input(backend, rng):
    model = nms_model(4, None)
    runs = [[BOXES, SCORES, np.array(m, I32), np.array(0.5, F32), np.array(0.1, F32)]
            for m in (3, 0, 8, 1)]
    check_runs(model, runs, backend, expected={1: [np.zeros(0, I32), np.array(0, I32)]})


def test_nms_random_boxes(backend, rng):
    corners = rng.uniform(0, 10, (50, 2)).astype(F32)
    boxes = np.concatenate([corners, corners + rng.uniform(0.5, 3, (50, 2)).astype(F32)], 1)
    scores = rng.permutation(50).astype(F32) / 50     # distinct: the order is unambiguous
    model = nms_model(5, 20, 50)
    check_op(model, [boxes, scores, np.array(0.4, F32), np.array(0.05, F32),
                     np.array(0.7, F32)], backend, rtol=1e-5, atol=1e-6)


# ---- ARG_MAX / ARG_MIN / TOPK_V2 ---------------------------------------------------------------
@pytest.mark.parametrize("out_type", ["int32", "int64"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "int8", "uint8", "bool"])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("op", ["ARG_MAX", "ARG_MIN"])
def test_arg_min_max(backend, rng, op, axis, dtype, out_type):
    xs = (3, 4, 5)
    out = tuple(d for i, d in enumerate(xs) if i != axis % 3)
    model = single_op_model(op, [("x", xs, dtype), np.array([axis], I32)],
                            [("y", out, out_type)], output_type=out_type)
    check_op(model, [rand(rng, xs, dtype, 0, 4)], backend)    # few values: many ties


def test_arg_max_axis_input(backend, rng):
    """A computed axis on a cube: same output shape, different axis, between runs."""
    model = single_op_model("ARG_MAX", [("x", (3, 3), "float32"), ("axis", (), "int64")],
                            [("y", (N,), "int32")], output_type="int32")
    x = rand(rng, (3, 3))
    check_runs(model, [[x, np.array(0, I64)], [x, np.array(1, I64)],
                       [x, np.array(-2, I64)]], backend)


@pytest.mark.parametrize("dtype", ["float32", "int32", "int8"])
@pytest.mark.parametrize("xs,k", [((3, 6), 3), ((2, 2, 5), 5), ((7,), 1), ((4, 3), 0)])
def test_topk_v2(backend, rng, xs, k, dtype):
    model = single_op_model("TOPK_V2", [("x", xs, dtype), np.array(k, I32)],
                            [("v", xs[:-1] + (k,), dtype), ("i", xs[:-1] + (k,), "int32")])
    check_op(model, [rand(rng, xs, dtype, -3, 3)], backend)    # few values: many ties


def test_topk_v2_k_input(backend, rng):
    model = single_op_model("TOPK_V2", [("x", (2, 6), "float32"), ("k", (), "int32")],
                            [("v", (2, N), "float32"), ("i", (2, N), "int32")])
    x = rand(rng, (2, 6))
    check_runs(model, [[x, np.array(2, I32)], [x, np.array(6, I32)], [x, np.array(4, I32)]],
               backend)


# ---- computed parameters of the older kernels --------------------------------------------------
def test_reshape_shape_input(backend, rng):
    model = single_op_model("RESHAPE", [("x", (2, 3, 4), "float32"), ("s", (2,), "int32")],
                            [("y", (N, N), "float32")])
    x = rand(rng, (2, 3, 4))
    check_runs(model, [[x, np.array([4, 6], I32)], [x, np.array([-1, 12], I32)],
                       [x, np.array([24, 1], I32)]], backend)


def test_transpose_perm_input(backend, rng):
    """On a cube every perm gives the same shape: the values must still follow the perm."""
    model = single_op_model("TRANSPOSE", [("x", (3, 3, 3), "int32"), ("p", (3,), "int32")],
                            [("y", (3, 3, 3), "int32")])
    x = rand(rng, (3, 3, 3), "int32", -99, 99)
    check_runs(model, [[x, np.array(p, I32)] for p in ([0, 1, 2], [2, 0, 1], [1, 2, 0])],
               backend)


def test_transpose_perm_input_shape_changes(backend, rng):
    model = single_op_model("TRANSPOSE", [("x", (2, 3, 4), "float32"), ("p", (3,), "int32")],
                            [("y", (N, N, N), "float32")])
    x = rand(rng, (2, 3, 4))
    check_runs(model, [[x, np.array(p, I32)] for p in ([2, 0, 1], [0, 2, 1], [1, 0, 2])],
               backend)


def test_expand_dims_axis_input(backend, rng):
    model = single_op_model("EXPAND_DIMS", [("x", (2, 3), "float32"), ("a", (), "int32")],
                            [("y", (N, N, N), "float32")])
    x = rand(rng, (2, 3))
    check_runs(model, [[x, np.array(a, I32)] for a in (0, 2, -1, -3)], backend)


@pytest.mark.parametrize("op", ["PAD", "PADV2"])
def test_pad_paddings_input(backend, rng, op):
    """Paddings [[1,0],[0,1]] then [[0,1],[1,0]]: one output shape, moved contents."""
    ins = [("x", (2, 3), "float32"), ("p", (2, 2), "int32")]
    if op == "PADV2":
        ins.append(("v", (), "float32"))
    model = single_op_model(op, ins, [("y", (N, N), "float32")])
    x = rand(rng, (2, 3))
    runs = [[x, np.array(p, I32)] for p in ([[1, 0], [0, 1]], [[0, 1], [1, 0]], [[2, 1], [0, 3]])]
    if op == "PADV2":
        runs = [r + [np.array(v, F32)] for r, v in zip(runs, (1.5, -2.0, 0.0))]
    check_runs(model, runs, backend)


@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("op", ["SUM", "MEAN", "REDUCE_MAX"])
def test_reduce_axes_input(backend, rng, op, keep_dims):
    model = single_op_model(op, [("x", (3, 3, 3), "float32"), ("a", (N,), "int32")],
                            [("y", (N, N, N) if keep_dims else (N, N), "float32")],
                            keep_dims=keep_dims)
    x = rand(rng, (3, 3, 3))
    runs = [[x, np.array(a, I32)] for a in ([0], [2], [-1], [1, 0])]
    check_runs(model, runs, backend, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"])
def test_resize_size_input(backend, rng, op):
    model = single_op_model(op, [("x", (1, 3, 4, 2), "float32"), ("s", (2,), "int32")],
                            [("y", (1, N, N, 2), "float32")])
    x = rand(rng, (1, 3, 4, 2))
    check_runs(model, [[x, np.array(s, I32)] for s in ([6, 8], [3, 4], [5, 2])], backend)


def test_dynamic_chain(backend, rng):
    """RANGE -> RESHAPE -> TILE -> GATHER, each shape computed from the previous run-time
    shapes: n comes in as data."""
    b = ModelBuilder()
    n = b.add_input("n", (), "int32")
    table = b.add_input("table", (5, 2), "float32")
    r = b.add_tensor("r", (N,), "int32")
    r2 = b.add_tensor("r2", (N, 1), "int32")
    t = b.add_tensor("t", (N, 2), "int32")
    y = b.add_tensor("y", (N, 2, 2), "float32")
    b.add_op("RANGE", [b.add_const("zero", np.array(0, I32)), n,
                       b.add_const("one", np.array(1, I32))], [r])
    b.add_op("RESHAPE", [r, b.add_const("s", np.array([-1, 1], I32))], [r2])
    b.add_op("TILE", [r2, b.add_const("m", np.array([1, 2], I32))], [t])
    b.add_op("GATHER", [table, t], [y], axis=0)
    b.add_output(y)
    tbl = rand(rng, (5, 2))
    check_runs(b.build(), [[np.array(k, I32), tbl] for k in (3, 5, 1, 0)], backend)
