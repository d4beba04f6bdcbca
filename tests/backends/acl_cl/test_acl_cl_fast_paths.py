"""acl_cl's specialised kernels against the interpreter, each checked to be the kernel that ran:
binary ops with one operand a vector over the last dim or a value per row (either side),
reductions over
consecutive axes (reduce_mid; others take reduce6), and the blocked convolution kernels at
small sizes (a FullyConnected with one row, a Conv2D whose pixels do not fill a block)."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.backends.acl_cl.ops.common import ClKernel
from onert_py.model_builder import single_op_model
from op_harness import ACCUMULATE, check_op, rand

pytestmark = pytest.mark.usefixtures("cl_ready")   # skip where no OpenCL device builds


@pytest.fixture
def kernels_run(monkeypatch):
    """The names of the OpenCL kernels the sessions' ops launch."""
    names: list[str] = []
    real = ClKernel.launch

    def launch(self, knl, gsize, lsize=None, *args):
        names.append(knl.function_name)
        return real(self, knl, gsize, lsize, *args)
    monkeypatch.setattr(ClKernel, "launch", launch)
    return names


@pytest.mark.parametrize("op,act", [("SUB", "NONE"), ("DIV", "RELU"), ("MUL", "RELU6"),
                                    ("ADD", "NONE")])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("vec,kernel", [((5,), "binary_lastdim"), ((1, 1, 1, 5), "binary_lastdim"),
                                        ((2, 3, 4, 1), "binary_lastdim"),
                                        ((3, 4, 1), "binary_bcast")])   # rows repeat: general
def test_binary_last_dim_vector(kernels_run, op, act, swap, vec, kernel):
    rng = np.random.default_rng(1)
    full = (2, 3, 4, 5)
    shapes = (vec, full) if swap else (full, vec)
    model = single_op_model(op, [("a", shapes[0], "float32"), ("b", shapes[1], "float32")],
                            [("y", full, "float32")], fused_activation_function=act)
    xs = [rand(rng, s, low=0.5, high=2.0) for s in shapes]
    check_op(model, xs, "acl_cl")
    assert kernels_run == [kernel]


def test_binary_other_broadcast_stays_general(kernels_run):
    rng = np.random.default_rng(2)
    model = single_op_model("SUB", [("a", (2, 1, 5), "float32"), ("b", (3, 1), "float32")],
                            [("y", (2, 3, 5), "float32")])
    check_op(model, [rand(rng, (2, 1, 5)), rand(rng, (3, 1))], "acl_cl")
    assert "binary_bcast" in kernels_run and "binary_lastdim" not in kernels_run


@pytest.mark.parametrize("op,shape,axes,keep,kernel", [
    ("MEAN", (1, 6, 7, 9), [1, 2], True, "reduce_mid"),
    ("SUM", (4, 3, 5), [0], False, "reduce_mid"),
    ("REDUCE_MAX", (3, 4, 6), [2], False, "reduce_mid"),
    ("REDUCE_MIN", (2, 3, 4, 5), [-3, 2], False, "reduce_mid"),
    ("REDUCE_PROD", (2, 3, 4), [0, 2], False, "reduce6"),
    ("MEAN", (3, 4, 5), [0, 1, 2], False, "reduce_mid"),
])
def test_reduce_kernels(kernels_run, op, shape, axes, keep, kernel):
    rng = np.random.default_rng(3)
    rank = len(shape)
    out = tuple(1 if d in {a % rank for a in axes} else n for d, n in enumerate(shape))
    if not keep:
        out = tuple(n for d, n in enumerate(shape) if d not in {a % rank for a in axes})
    model = single_op_model(op, [("x", shape, "float32"), np.array(axes, np.int32)],
                            [("y", out, "float32")], keep_dims=keep)
    low = 0.7 if op == "REDUCE_PROD" else -2.0
    check_op(model, [rand(rng, shape, low=low, high=1.3 if low > 0 else 2.0)], "acl_cl",
             **ACCUMULATE)
    assert kernels_run == [kernel]


@pytest.mark.parametrize("rows,units", [(1, 37), (3, 16), (17, 24), (40, 70)])
def test_fully_connected_blockings(rows, units):
    """conv_gemm's pixel block shrinks to the row count and its channel block to 8 for few
    outputs; every size here leaves a partial block somewhere."""
    rng = np.random.default_rng(4)
    w, b = rand(rng, (units, 29)), rand(rng, (units,))
    model = single_op_model("FULLY_CONNECTED", [("x", (rows, 29), "float32"), w, b],
                            [("y", (rows, units), "float32")])
    check_op(model, [rand(rng, (rows, 29))], "acl_cl", **ACCUMULATE)


@pytest.mark.parametrize("shape,cout", [((1, 3, 3, 5), 19), ((2, 5, 3, 4), 40)])
def test_conv_pixels_short_of_a_block(shape, cout):
    rng = np.random.default_rng(5)
    w, b = rand(rng, (cout, 3, 3, shape[3])), rand(rng, (cout,))
    model = single_op_model("CONV_2D", [("x", shape, "float32"), w, b],
                            [("y", (*shape[:3], cout), "float32")], padding="SAME")
    check_op(model, [rand(rng, shape)], "acl_cl", **ACCUMULATE)


@pytest.mark.parametrize("a_s,b_s,adj_x,adj_y", [
    ((2, 9, 13), (2, 13, 19), False, False),     # full and partial 4 x 8 blocks
    ((2, 13, 9), (2, 19, 13), True, True),       # strided rows of B: gathered columns
    ((3, 1, 6, 16), (2, 16, 24), False, False),  # broadcast batches, whole column vectors
])
def test_batch_matmul_blocks(a_s, b_s, adj_x, adj_y):
    rng = np.random.default_rng(6)
    rows = a_s[-1] if adj_x else a_s[-2]
    cols = b_s[-2] if adj_y else b_s[-1]
    batch = np.broadcast_shapes(a_s[:-2], b_s[:-2])
    model = single_op_model("BATCH_MATMUL", [("a", a_s, "float32"), ("b", b_s, "float32")],
                            [("y", (*batch, rows, cols), "float32")], adj_x=adj_x, adj_y=adj_y)
    check_op(model, [rand(rng, a_s), rand(rng, b_s)], "acl_cl", **ACCUMULATE)
