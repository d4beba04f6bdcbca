"""acl_neon's float32 GEMM family (Conv2D, FullyConnected, TransposeConv) at every instruction
set this CPU has and at 1 and 2 threads, against the TFLite interpreter; odd shapes (register
tile tails), every fused clamp, and the forms it must leave to cpu."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders.single_op import conv_models
from onert_py.model_builder import single_op_model
from oracle import tflite_run

native = pytest.importorskip("onert_py.backends.acl_neon.native")
try:
    native.module("gemm")
except native.NativeUnavailable as e:           # pragma: no cover - a build without C++
    pytest.skip(str(e), allow_module_level=True)

RNG = np.random.default_rng(7)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


CONV = [  # input, filter OHWI, stride, dilation, padding, activation, output
    ((1, 9, 11, 5), (19, 1, 1, 5), (1, 1), (1, 1), "VALID", "RELU6", (1, 9, 11, 19)),
    ((2, 7, 9, 3), (33, 3, 3, 3), (2, 2), (1, 1), "SAME", "RELU", (2, 4, 5, 33)),
    ((1, 10, 9, 4), (7, 3, 2, 4), (1, 2), (2, 1), "SAME", "RELU_N1_TO_1", (1, 10, 5, 7)),
    ((1, 8, 8, 6), (17, 3, 3, 6), (1, 1), (2, 2), "VALID", "NONE", (1, 4, 4, 17)),
    ((1, 6, 7, 8), (5, 1, 1, 8), (2, 2), (1, 1), "SAME", "TANH", (1, 3, 4, 5)),
    # GEMM column tails of at most 8 (computed 8 wide): N = 8, 24, 40, 56 (1x1, or > 16 inputs)
    ((1, 5, 5, 7), (8, 1, 1, 7), (1, 1), (1, 1), "VALID", "RELU6", (1, 5, 5, 8)),
    ((1, 5, 5, 11), (24, 1, 1, 11), (1, 1), (1, 1), "VALID", "NONE", (1, 5, 5, 24)),
    ((1, 6, 5, 9), (40, 1, 1, 9), (1, 1), (1, 1), "VALID", "RELU", (1, 6, 5, 40)),
    ((1, 7, 5, 20), (56, 3, 3, 20), (2, 2), (1, 1), "SAME", "RELU6", (1, 4, 3, 56)),
    # the direct convolution (<= 16 input channels): pixel blocks, padding on every side,
    # couts of one and several vectors with tails
    ((1, 21, 37, 3), (32, 3, 3, 3), (2, 2), (1, 1), "SAME", "RELU6", (1, 11, 19, 32)),
    ((2, 13, 30, 1), (24, 5, 5, 1), (1, 1), (1, 1), "SAME", "NONE", (2, 13, 30, 24)),
    ((1, 16, 35, 2), (16, 7, 7, 2), (2, 2), (1, 1), "VALID", "RELU", (1, 5, 15, 16)),
    ((1, 15, 33, 16), (40, 3, 3, 16), (1, 1), (2, 3), "SAME", "NONE", (1, 15, 33, 40)),
]


def sessions(model: bytes, inputs, expected, rtol=2e-4, atol=2e-4):
    """Run on acl_neon at every ISA level and 1/2 threads; each must match `expected`."""
    levels = native.available_isas()
    try:
        for level in levels:
            native.set_isa(level)
            for threads in (1, 2):
                s = onert_py.Session(model, backends="acl_neon", config={"num_threads": threads})
                got = s.run(inputs)
                got = got if isinstance(got, (list, tuple)) else [got]
                for g, e in zip(got, expected):
                    np.testing.assert_allclose(g, e, rtol=rtol, atol=atol,
                                               err_msg=f"{level} threads={threads}")
    finally:
        native.set_isa(levels[-1])


@pytest.mark.parametrize("case", CONV, ids=lambda c: f"{c[1]}s{c[2]}d{c[3]}{c[4]}{c[5]}")
def test_conv2d(case):
    xs, ws, stride, dil, pad, act, out = case
    w, b = rand(*ws), rand(ws[0])
    model, _ = conv_models("CONV_2D", xs, w, b, out, dict(
        padding=pad, stride_h=stride[0], stride_w=stride[1], dilation_h_factor=dil[0],
        dilation_w_factor=dil[1], fused_activation_function=act))
    x = rand(*xs)
    sessions(model, [x], tflite_run(model, [x]))


@pytest.mark.parametrize("cin,kernel,direct", [(1, 3, True), (3, 3, True), (16, 5, True),
                                               (17, 3, False), (3, 1, False)])
def test_conv2d_plan_picks_direct(cin, kernel, direct):
    """ConvPlan takes the direct convolution for windows over <= 16 input channels (the stem of
    a CNN), the GEMM for more channels or 1x1 filters."""
    geom = [1, 9, 9, cin, kernel, kernel, 1, 1, 1, 1, 0, 0, 10 - kernel, 10 - kernel, 8]
    plan = native.module("gemm").ConvPlan(rand(8, kernel, kernel, cin), None, geom, -np.inf,
                                          np.inf)
    assert plan.direct is direct


@pytest.mark.parametrize("xs,n,act,keep", [((3, 37), 70, "RELU", False),
                                           ((2, 5, 16), 16, "NONE", True),
                                           ((1, 129), 33, "RELU6", False)])
def test_fully_connected(xs, n, act, keep):
    k = xs[-1]
    w, b = rand(n, k), rand(n)
    out = xs[:-1] + (n,) if keep else (int(np.prod(xs[:-1])), n)
    model = single_op_model("FULLY_CONNECTED", [("x", xs, "float32"), w, b],
                            [("y", out, "float32")], fused_activation_function=act,
                            keep_num_dims=keep)
    x = rand(*xs)
    sessions(model, [x], tflite_run(model, [x]))


@pytest.mark.parametrize("pad,stride,act", [("SAME", (2, 2), "RELU"), ("VALID", (2, 1), "NONE")])
def test_transpose_conv(pad, stride, act):
    xs, ws = (1, 4, 5, 6), (9, 3, 3, 6)
    oh = xs[1] * stride[0] if pad == "SAME" else (xs[1] - 1) * stride[0] + ws[1]
    ow = xs[2] * stride[1] if pad == "SAME" else (xs[2] - 1) * stride[1] + ws[2]
    out = (1, oh, ow, ws[0])
    w, b = rand(*ws), rand(ws[0])
    model = single_op_model("TRANSPOSE_CONV", [np.array(out, np.int32), w,
                                               ("x", xs, "float32"), b],
                            [("y", out, "float32")], padding=pad, stride_h=stride[0],
                            stride_w=stride[1], fused_activation_function=act)
    x = rand(*xs)
    sessions(model, [x], tflite_run(model, [x]))


def test_forms_left_to_cpu():
    """FC with TANH (not a clamp: the interpreter rejects it, cpu computes it) is refused with
    the reason and runs on cpu."""
    from onert_py.backends.acl_neon.ops.fully_connected import FullyConnectedLayer
    from onert_py.core.loader.flatbuffer_loader import load_flatbuffer
    w, b = rand(4, 8), rand(4)
    model = single_op_model("FULLY_CONNECTED", [("x", (2, 8), "float32"), w, b],
                            [("y", (2, 4), "float32")], fused_activation_function="TANH")
    graph = load_flatbuffer(model, "fc").primary
    op = next(iter(graph.operations.values()))
    ok, why = FullyConnectedLayer.supports(op, graph)
    assert not ok and "TANH" in why
    x = rand(2, 8)
    got = onert_py.Session(model, backends="acl_neon;cpu").run([x])
    np.testing.assert_allclose(got[0] if isinstance(got, list) else got,
                               np.tanh(x @ w.T + b), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("a_s,b_s,adj_x,adj_y", [
    ((4, 37, 20), (4, 20, 45), False, False),          # several row tiles and column blocks
    ((2, 20, 13), (2, 45, 20), True, True),
    ((3, 1, 9, 16), (1, 2, 16, 33), False, False),     # both batches broadcast
    ((1, 4, 128, 64), (1, 4, 64, 128), False, False),  # the transformer block's attention
])
def test_batch_matmul(a_s, b_s, adj_x, adj_y):
    a, b = rand(*a_s), rand(*b_s)
    out = np.matmul(np.swapaxes(a, -1, -2) if adj_x else a, np.swapaxes(b, -1, -2) if adj_y else b)
    model = single_op_model("BATCH_MATMUL", [("a", a_s, "float32"), ("b", b_s, "float32")],
                            [("y", out.shape, "float32")], adj_x=adj_x, adj_y=adj_y)
    sessions(model, [a, b], tflite_run(model, [a, b]))


def test_bound_step_checks_its_buffers():
    """A plan bound to slots (core/exec/native.py) reads their buffers when its step runs;
    a buffer too small, read-only or unbound is a RuntimeError naming the operand, not a
    wild read or write, and a slot pointed elsewhere is followed by the same step."""
    from onert_py.core.exec.native import _native, run_step
    w, b = rand(5, 8), rand(5)
    plan = native.module("gemm").FcPlan(w, b, 3, -np.inf, np.inf)
    x, y = rand(3, 8), np.zeros((3, 5), np.float32)
    xs, ys = _native.slot(x), _native.slot(y)
    step = plan.bind(xs, ys, 1)
    run_step(step)
    np.testing.assert_allclose(y, x @ w.T + b, rtol=1e-5, atol=1e-5)
    x2 = rand(3, 8)
    _native.set_slot(xs, x2)                  # re-pointed: the same step reads x2
    run_step(step)
    np.testing.assert_allclose(y, x2 @ w.T + b, rtol=1e-5, atol=1e-5)
    frozen = np.zeros((3, 5), np.float32)
    frozen.setflags(write=False)
    for xa, ya, msg in ((x[:2], y, "fully connected input: buffer of 64 bytes, the kernel "
                                   "needs 96"),
                        (x, y[:2], "fully connected output: buffer of 40 bytes"),
                        (x, frozen, "fully connected output: buffer is read-only"),
                        (None, y, "fully connected input: no buffer is bound")):
        with pytest.raises(RuntimeError, match=msg):
            run_step(plan.bind(_native.slot(xa), _native.slot(ya), 1))
    with pytest.raises(TypeError, match="tensor slots"):
        plan.bind(xs, 1)
    assert not frozen.any()
