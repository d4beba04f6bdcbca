"""acl_neon's float32 spatial kernels (native module _spatial) at every instruction-set level
the CPU has and with 1 and 2 threads, against the TFLite interpreter (Circle INSTANCE_NORM:
against a NumPy reference): odd channel counts (vector tails), padding, strides, dilations,
channel multipliers and fused activations."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders.single_op import depthwise_models, pool_model
from onert_py.model_builder import ModelBuilder, single_op_model
from op_harness import assert_outputs, backend_or_skip, rand, session_internals
from oracle import tflite_run

backend_or_skip("acl_neon")
from onert_py.backends.acl_neon import native  # noqa: E402

if not native.available("spatial")[0]:
    pytest.skip(native.available("spatial")[1], allow_module_level=True)

TOL = {"rtol": 1e-4, "atol": 1e-5}


def neon_session(model: bytes, threads: int) -> onert_py.Session:
    """A session on acl_neon (cpu behind it) that must have given the model's op to acl_neon."""
    s = onert_py.Session(model, backends=["acl_neon", "cpu"], config={"num_threads": threads})
    ran = s.placement().used_backends
    assert "acl_neon" in ran, f"acl_neon refused the op (ran on {sorted(ran)})"
    return s


def check_every_isa(model: bytes, inputs: list[np.ndarray], expected: list[np.ndarray],
                    tol: dict = TOL) -> None:
    """Outputs equal `expected` with 1 and 2 threads at every instruction set level."""
    levels = native.available_isas()
    try:
        for threads in (1, 2):
            session = neon_session(model, threads)
            for level in levels:
                native.set_isa(level)
                got = [np.array(o, copy=True) for o in session.run(inputs)]
                assert_outputs(got, expected, label=f"isa {level}, {threads} threads", **tol)
    finally:
        native.set_isa(levels[-1])


# (input NHWC, kernel (kh, kw), multiplier, stride, dilation, padding, bias, activation)
DEPTHWISE = {
    "3x3_s1_c37_relu6": ((1, 9, 11, 37), (3, 3), 1, 1, 1, "SAME", True, "RELU6"),
    "3x3_s2_batch2": ((2, 10, 9, 20), (3, 3), 1, 2, 1, "SAME", True, "NONE"),
    "5x5_s1_relu": ((1, 12, 13, 19), (5, 5), 1, 1, 1, "SAME", True, "RELU"),
    "5x5_s2_valid_n1to1": ((1, 11, 12, 33), (5, 5), 1, 2, 1, "VALID", True, "RELU_N1_TO_1"),
    "3x3_dilation2_valid": ((1, 8, 9, 5), (3, 3), 1, 1, 2, "VALID", True, "NONE"),
    "2x4_mult2_s2": ((1, 7, 8, 3), (2, 4), 2, 2, 1, "SAME", True, "RELU"),
    "7x7_wide_c48": ((1, 6, 17, 48), (7, 7), 1, 1, 1, "SAME", False, "NONE"),
    "tanh_is_ignored": ((1, 5, 6, 8), (3, 3), 1, 1, 1, "SAME", True, "TANH"),
    # rows wide enough for the 8- and 4-column runs of strides 1 and 2, odd sizes
    "3x3_s2_wide_same": ((1, 7, 37, 21), (3, 3), 1, 2, 1, "SAME", True, "RELU6"),
    "3x3_s2_wide_valid": ((2, 6, 38, 17), (3, 3), 1, 2, 1, "VALID", True, "NONE"),
    "5x5_s2_wide_same": ((1, 9, 41, 35), (5, 5), 1, 2, 1, "SAME", True, "RELU_N1_TO_1"),
    "5x5_s2_wide_valid": ((1, 8, 43, 16), (5, 5), 1, 2, 1, "VALID", False, "RELU"),
    "5x5_s1_wide": ((1, 5, 29, 24), (5, 5), 1, 1, 1, "SAME", True, "RELU6"),
}


@pytest.mark.parametrize("case", list(DEPTHWISE))
def test_depthwise(case):
    rng = np.random.default_rng(3)
    xs, kernel, mult, s, d, padding, has_bias, act = DEPTHWISE[case]
    model, ref = depthwise_models(rng, xs, kernel, mult, (s, s), (d, d), padding, has_bias, act)
    x = rand(rng, xs)
    check_every_isa(model, [x], tflite_run(ref or model, [x]))


def test_depthwise_filter_and_bias_as_inputs():
    """Weights read at run time (not constants): a second run with new weights is current."""
    rng = np.random.default_rng(4)
    xs, out = (1, 6, 7, 12), (1, 6, 7, 12)
    model = single_op_model("DEPTHWISE_CONV_2D", [("x", xs, "float32"),
                            ("w", (1, 3, 3, 12), "float32"), ("b", (12,), "float32")],
                            [("y", out, "float32")], padding="SAME", depth_multiplier=1)
    session = neon_session(model, 2)
    for _ in range(2):
        inputs = [rand(rng, xs), rand(rng, (1, 3, 3, 12)), rand(rng, (12,))]
        assert_outputs(session.run(inputs), tflite_run(model, inputs), **TOL)


def test_neg_depthwise_zero_stride():
    model = single_op_model("DEPTHWISE_CONV_2D", [("x", (1, 5, 5, 4), "float32"),
                            np.ones((1, 3, 3, 4), np.float32), np.zeros(4, np.float32)],
                            [("y", (1, 5, 5, 4), "float32")], padding="SAME", stride_h=0,
                            stride_w=1, depth_multiplier=1)
    with pytest.raises(onert_py.errors.OnertPyError, match="stride"):
        onert_py.Session(model, backends=["acl_neon", "cpu"])


# (input NHWC, filter (h, w), stride, padding, activation)
POOLS = {
    "3x3_s2_same_c19_relu6": ((1, 7, 9, 19), (3, 3), 2, "SAME", "RELU6"),
    "2x2_s2_valid_batch2": ((2, 8, 8, 35), (2, 2), 2, "VALID", "NONE"),
    "global_7x7_c33": ((1, 7, 7, 33), (7, 7), 1, "VALID", "RELU_N1_TO_1"),
    "3x2_s1_same_c3": ((1, 6, 5, 3), (3, 2), 1, "SAME", "RELU"),
    "filter_over_input": ((1, 2, 3, 17), (3, 3), 1, "SAME", "NONE"),
}


@pytest.mark.parametrize("case", list(POOLS))
@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_pool(op, case):
    rng = np.random.default_rng(5)
    xs, f, s, padding, act = POOLS[case]
    model = pool_model(op, xs, f, (s, s), padding, act)
    x = rand(rng, xs, low=-4, high=8)
    check_every_isa(model, [x], tflite_run(model, [x]))


@pytest.mark.parametrize("mode", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("xs,size", [((1, 5, 4, 21), (9, 7)), ((2, 6, 7, 3), (4, 3)),
                                     ((1, 1, 1, 17), (3, 2))])
def test_resize_bilinear(xs, size, mode):
    rng = np.random.default_rng(6)
    out = (xs[0], size[0], size[1], xs[3])
    model = single_op_model("RESIZE_BILINEAR", [("x", xs, "float32"), np.array(size, np.int32)],
                            [("y", out, "float32")], align_corners=mode[0],
                            half_pixel_centers=mode[1])
    x = rand(rng, xs, low=-5, high=5)
    check_every_isa(model, [x], tflite_run(model, [x]), {"rtol": 1e-5, "atol": 1e-5})


@pytest.mark.parametrize("xs", [(3, 37), (2, 3, 17), (1, 2, 2, 64), (4, 1)])
def test_l2_normalization(xs):
    rng = np.random.default_rng(7)
    model = single_op_model("L2_NORMALIZATION", [("x", xs, "float32")], [("y", xs, "float32")])
    x = rand(rng, xs)
    x[0, ...] = 0
    check_every_isa(model, [x], tflite_run(model, [x]), {"rtol": 1e-5, "atol": 1e-6})


@pytest.mark.parametrize("xs,radius,bias,alpha,beta", [((2, 3, 2, 7), 2, 1.5, 0.3, 0.75),
                                                      ((1, 2, 3, 21), 5, 1.0, 1.0, 0.5),
                                                      ((1, 1, 2, 5), 0, 2.0, 0.3, 1.0)])
def test_local_response_normalization(xs, radius, bias, alpha, beta):
    rng = np.random.default_rng(8)
    model = single_op_model("LOCAL_RESPONSE_NORMALIZATION", [("x", xs, "float32")],
                            [("y", xs, "float32")], radius=radius, bias=bias, alpha=alpha,
                            beta=beta)
    x = rand(rng, xs)
    check_every_isa(model, [x], tflite_run(model, [x]))


def instance_norm_model(shape, gamma, beta, eps, act) -> bytes:
    b = ModelBuilder("circle")
    idx = [b.add_input("x", shape, "float32")]
    idx += [-1 if a is None else b.add_const(n, a) for n, a in (("g", gamma), ("b", beta))]
    y = b.add_tensor("y", shape, "float32")
    b.add_op("INSTANCE_NORM", idx, [y], epsilon=eps, fused_activation_function=act)
    b.add_output(y)
    return b.build()


@pytest.mark.parametrize("shape,gamma_len,beta_len,act", [((1, 4, 5, 3), 3, 3, "NONE"),
                                                          ((2, 7, 19), 1, 19, "RELU6"),
                                                          ((2, 3, 3, 70), 70, 0, "RELU"),
                                                          ((1, 6, 5), 0, 0, "NONE")])
def test_instance_norm(shape, gamma_len, beta_len, act):
    rng = np.random.default_rng(9)
    c = shape[-1]
    gamma = rand(rng, (gamma_len,)) if gamma_len else None
    beta = rand(rng, (beta_len,)) if beta_len else None
    x = rand(rng, shape, low=-3, high=5)
    eps = 1e-3
    axes = tuple(range(1, x.ndim - 1))
    x64 = x.astype(np.float64)
    want = (x64 - x64.mean(axis=axes, keepdims=True)) / np.sqrt(
        x64.var(axis=axes, keepdims=True) + np.float64(np.float32(eps))) * (
            1 if gamma is None else gamma)
    want = want + (0 if beta is None else beta)
    lo, hi = {"NONE": (None, None), "RELU": (0, None), "RELU6": (0, 6)}[act]
    if lo is not None:
        want = np.clip(want, lo, hi)
    assert c == shape[-1]
    model = instance_norm_model(shape, gamma, beta, eps, act)
    check_every_isa(model, [x], [want.astype(np.float32)], {"rtol": 1e-5, "atol": 1e-5})


def test_unsupported_forms_fall_back_to_cpu():
    """L2 pooling and a fused TANH on L2_NORMALIZATION are left to cpu, with the reason."""
    from onert_py.backends.acl_neon.ops.norm import L2NormalizationLayer
    from onert_py.backends.acl_neon.ops.pool2d import Pool2DLayer
    xs = (1, 4, 4, 3)
    pool = single_op_model("L2_POOL_2D", [("x", xs, "float32")], [("y", (1, 2, 2, 3), "float32")],
                           padding="VALID", stride_h=2, stride_w=2, filter_height=2,
                           filter_width=2)
    l2 = single_op_model("L2_NORMALIZATION", [("x", xs, "float32")], [("y", xs, "float32")],
                         fused_activation_function="TANH")
    for model, cls, why in ((pool, Pool2DLayer, "L2_POOL_2D"), (l2, L2NormalizationLayer, "TANH")):
        s = onert_py.Session(model, backends=["acl_neon", "cpu"])
        g = session_internals(s).compiled.lowered.graph     # the IR op supports() takes
        op = next(o for o in g.operations.values() if o.type in ("Pool2D", "L2Normalization"))
        ok, reason = cls.supports(op, g)
        assert not ok and why in reason
        assert s.placement().backend_of(op.index) == "cpu"


def test_bound_steps_check_their_operands():
    """Plans with optional operands bind None for an absent one (DepthwiseConv2D's bias: the
    plan's zeros; InstanceNorm's gamma/beta) and refuse a missing required one when bound; a
    bound buffer too small is a RuntimeError from the step naming it."""
    from onert_py.core.exec.native import _native, run_step
    lib = native.module("spatial")
    rng = np.random.default_rng(3)
    x, w = rand(rng, (1, 4, 5, 3)), rand(rng, (1, 1, 1, 3))
    y = np.zeros((1, 4, 5, 3), np.float32)
    plan = lib.depthwise_plan(1, 4, 5, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 4, 5, -np.inf, np.inf)
    slot = _native.slot
    run_step(plan.bind(slot(x), slot(w), None, slot(y), 1))
    np.testing.assert_allclose(y, x * w.reshape(3), rtol=1e-6)
    with pytest.raises(RuntimeError, match="depthwise filter: buffer of 8 bytes"):
        run_step(plan.bind(slot(x), slot(w.reshape(-1)[:2]), None, slot(y), 1))
    with pytest.raises(RuntimeError, match="depthwise bias: buffer of 4 bytes"):
        run_step(plan.bind(slot(x), slot(w), slot(w.reshape(-1)[:1]), slot(y), 1))
    with pytest.raises(ValueError, match="input, filter and output are required"):
        plan.bind(slot(x), None, None, slot(y), 1)
    norm = lib.instance_norm_plan(1, 20, 3, 1e-3, 3, 0, -np.inf, np.inf)
    with pytest.raises(ValueError, match="gamma is bound iff present"):
        norm.bind(slot(x), None, None, slot(y), 1)
    with pytest.raises(RuntimeError, match="instance norm output: buffer of 60 bytes, the "
                                           "kernel needs 240"):
        run_step(norm.bind(slot(x), slot(w.reshape(-1)), None, slot(y[0, :1]), 1))
