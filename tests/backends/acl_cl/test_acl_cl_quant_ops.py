"""acl_cl's quantized 8-bit Reshape/Squeeze/ExpandDims, Concat, Pool2D, Conv2D,
DepthwiseConv2D, ADD/SUB/MUL and Softmax against the interpreter, bit-exact, on the model
builders of tests/builders (those of the cpu tests, tests/ops/test_q_*.py); every op must be
placed on acl_cl (the session runs with acl_cl alone). int16 forms and parameters acl_cl
refuses fall back to cpu with a reason."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders import qadd as qb
from builders import qconv, qmove, qmul, qpool
from builders.quant import QTYPES, all_pairs, quantized_binary, quantized_unary, softmax_model
from cl_harness import check_on_cl, placed
from quant_harness import qrand


pytestmark = pytest.mark.usefixtures("cl_ready")   # skip where no OpenCL device builds


@pytest.mark.parametrize("name", ["reshape", "squeeze", "expand_dims"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_q_reshape(name, dtype):
    shape, model = qmove.case_model(name, dtype)
    check_on_cl(model, [qrand(np.random.default_rng(1), shape, dtype)])


def test_q_reshape_other_params_stays_on_cpu():
    shape, model = qmove.case_model("reshape", "int8", zp_shift=3)
    assert "acl_cl" not in placed(model)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("axis", [0, 1])
def test_q_concat(dtype, axis):
    _, scale, zp = QTYPES[dtype]
    shapes = [(2, 3), (1, 3), (4, 3)] if axis == 0 else [(2, 3), (2, 1), (2, 4)]
    model = qmove.concat_model(shapes, axis, dtype, [(scale, zp)] * 3, (scale, zp))
    rng = np.random.default_rng(3)
    check_on_cl(model, [qrand(rng, s, dtype) for s in shapes])


def test_q_concat_uint8_requantizes():
    _, scale, zp = QTYPES["uint8"]
    shapes, model = qmove.concat_case("uint8", [(scale * 0.5, 10), (scale, zp),
                                                (scale * 3.3, 200)])
    rng = np.random.default_rng(4)
    xs = [qrand(rng, s, "uint8") for s in shapes]
    xs[0][0, :] = [1, 3, 5]                   # exact .5 ties of q * 0.5
    check_on_cl(model, xs)


def test_q_concat_int8_other_params_refused_on_acl_cl():
    _, scale, zp = QTYPES["int8"]
    _, model = qmove.concat_case("int8", [(scale, zp), (scale * 2, zp), (scale, zp)])
    with pytest.raises(onert_py.CompileError):
        onert_py.Session(model, backends="acl_cl")


@pytest.mark.parametrize("case", list(qpool.POOL_CASES))
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_q_pool2d(op, dtype, case):
    xs, model = qpool.pool_model(op, case, dtype)
    rng = np.random.default_rng(sum(map(ord, case)))
    x = qrand(rng, xs, dtype)
    if case == "2x2_s2_valid":      # small values: many exact .5 ties of the average
        x = qrand(rng, xs, dtype, 0, 3) if dtype == "uint8" else qrand(rng, xs, dtype, -3, 3)
    check_on_cl(model, [x])


FORMS8 = ["int8", "int8pt", "uint8"]


@pytest.mark.parametrize("form", FORMS8)
@pytest.mark.parametrize("case", list(qconv.CONV))
def test_q_conv2d(form, case):
    xs, ws, stride, dil, padding, act = qconv.CONV[case]
    model, x = qconv.qconv_model("CONV_2D", form, xs, ws, stride, dil, padding, act)
    check_on_cl(model, [x])


@pytest.mark.parametrize("form", FORMS8)
@pytest.mark.parametrize("case", list(qconv.DEPTHWISE))
def test_q_depthwise_conv2d(form, case):
    xs, ws, mult, stride, dil, padding, act = qconv.DEPTHWISE[case]
    model, x = qconv.qconv_model("DEPTHWISE_CONV_2D", form, xs, ws, stride, dil, padding, act,
                                 mult)
    check_on_cl(model, [x])


@pytest.mark.parametrize("form", FORMS8)
@pytest.mark.parametrize("op,xs,ws,mult", [
    ("CONV_2D", (1, 6, 7, 5), (21, 3, 3, 5), 1),
    ("DEPTHWISE_CONV_2D", (1, 6, 7, 21), (1, 3, 3, 21), 1),
    ("DEPTHWISE_CONV_2D", (1, 5, 4, 3), (1, 3, 3, 12), 4),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_q_conv_rounding_ties(form, op, xs, ws, mult, seed):
    """Power-of-two multipliers: exact ties pin down the vector / reference rounding."""
    model, x = qconv.qconv_model(op, form, xs, ws, mult=mult, ties=True, seed=seed)
    check_on_cl(model, [x])


def test_q_conv_int16_stays_on_cpu():
    model, _ = qconv.qconv_model("CONV_2D", "int16", (1, 5, 5, 3), (4, 3, 3, 3))
    assert "acl_cl" not in placed(model)


@pytest.mark.parametrize("op,dtype", qb.OPS_DTYPES)
@pytest.mark.parametrize("params", ["ties", "wide"])
def test_q_addsub_all_pairs(op, dtype, params):
    a, b = all_pairs(dtype)
    n = a.size - 5          # a scalar tail after the vector loop
    qa, qbb, qo = qb.qp(dtype, params)
    check_on_cl(quantized_binary(op, (n,), (n,), dtype, qa, qbb, qo), [a[:n], b[:n]])


@pytest.mark.parametrize("op,dtype", qb.OPS_DTYPES)
@pytest.mark.parametrize("sa,sb", qb.SHAPES[::2] + [((64, 3, 27), (64, 3, 1))])
def test_q_addsub_broadcast(op, dtype, sa, sb):
    rng = np.random.default_rng(7)
    qa, qbb, qo = qb.qp(dtype, "third")
    check_on_cl(quantized_binary(op, sa, sb, dtype, qa, qbb, qo),
                [qb.rounding_inputs(rng, sa, dtype, qa, qbb),
                 qb.rounding_inputs(rng, sb, dtype, qbb, qa)])


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("act", ["RELU", "RELU6"])
def test_q_add_activation(dtype, act):
    rng = np.random.default_rng(3)
    qa, qbb, qo = qb.qp(dtype, "mixed")
    model = quantized_binary("ADD", (5, 19), (5, 19), dtype, qa, qbb, qo,
                             fused_activation_function=act)
    check_on_cl(model, [qrand(rng, (5, 19), dtype), qrand(rng, (5, 19), dtype)])


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("sa,sb", [((45,), (45,)), ((64, 13), (64, 1)), ((1,), (64, 45)),
                                   ((2, 3, 4, 5, 3, 7), (1, 3, 1, 5, 1, 7)), ((), (5, 9))])
def test_q_mul(dtype, sa, sb):
    rng = np.random.default_rng(7)
    for params in ("big", "small"):
        qa, qbb, qo = qmul.qp(dtype, params)
        check_on_cl(quantized_binary("MUL", sa, sb, dtype, qa, qbb, qo),
                    [qrand(rng, sa, dtype), qrand(rng, sb, dtype)])


def test_q_add_int16_stays_on_cpu():
    model = quantized_binary("ADD", (3, 4), (3, 4), "int16", (0.001, 0), (0.002, 0), (0.003, 0))
    assert "acl_cl" not in placed(model)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("si,beta", [(0.05, 1.0), (0.013, 0.37), (0.2, 2.5)])
def test_q_softmax_every_value(dtype, si, beta):
    info = np.iinfo(dtype)
    x = np.arange(info.min, info.max + 1).astype(dtype)
    x = np.stack([x, x[::-1], np.roll(x, 77)])
    check_on_cl(softmax_model(dtype, x.shape, (si, 3), beta=beta), [x])


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("shape", [(7,), (2, 3, 5), (2, 2, 3, 33)])
def test_q_softmax_ranks(dtype, shape):
    x = qrand(np.random.default_rng(len(shape)), shape, dtype)
    check_on_cl(softmax_model(dtype, shape, (0.1, 7), beta=1.3), [x])


def test_q_softmax_uint8_free_output():
    x = qrand(np.random.default_rng(5), (4, 9), "uint8")
    check_on_cl(softmax_model("uint8", x.shape, (0.07, 120), (0.02, 128)), [x])


def test_mobilenet_v2_int8_on_acl_cl():
    """The shared MobileNetV2 int8 model on "acl_cl;cpu" equals the interpreter exactly, with
    its convolutions, ADDs, pooling and reshape on acl_cl (one input: it is a slow model on
    PoCL's CPU device)."""
    from oracle import tflite_run
    from quant_harness import assert_close_int
    from builders.shared_models import model_path, quantized_inputs
    path = model_path("mobilenet_v2_int8")     # skips when ../shared/models is absent
    sess = onert_py.Session(path, backends="acl_cl;cpu")
    on_cl = {op.type for op in sess.placement().ops_on("acl_cl")}
    assert {"Conv2D", "DepthwiseConv2D", "BinaryArithmetic"} <= on_cl, on_cl
    inputs = quantized_inputs(sess, 0)
    expected = tflite_run(path, inputs)
    for got, e in zip(sess.run(inputs), expected):
        assert_close_int(np.asarray(got), e, 0, "mobilenet_v2_int8 on acl_cl")


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_q_softmax_int16_output(dtype):
    x = qrand(np.random.default_rng(9), (3, 21), dtype)
    model = quantized_unary("SOFTMAX", x.shape, (dtype, 0.06, 5), ("int16", 1 / 32768, 0))
    check_on_cl(model, [x])


def test_q_conv_uint8_bad_bias_scale_refused():
    """The cpu kernel's checks run for acl_cl too: a uint8 bias scale that is not input scale
    * filter scale is a compile error naming it."""
    model, _ = qconv.qconv_model("CONV_2D", "uint8", (1, 5, 5, 3), (4, 3, 3, 3),
                                 bias_scale=0.5)
    with pytest.raises(onert_py.CompileError, match="bias scale"):
        onert_py.Session(model, backends="acl_cl")


def test_q_conv_deep_sums_stay_exact():
    """qconv sums the taps in float32 in chunks (exact integers below 2^24): over 1285 uint8
    channels whose running sum climbs to 630 * 127 * 255 > 2^24 and back to 0 (635 * -126 *
    255), one float32 sum of the whole row is off by 110; the output steps every 2 units."""
    from onert_py.model_builder import ModelBuilder
    from builders.quant import qdict
    rng = np.random.default_rng(11)
    xs, cout, up, down, tail = (1, 3, 5, 1285), 9, 630, 635, 20
    x = np.empty(xs, np.uint8)
    x[..., :up], x[..., up:up + down] = 255, 2                # x - zp = +127, then -126
    x[..., -tail:] = rng.integers(127, 130, (*xs[:3], tail))  # x - zp in {-1, 0, 1}
    w = np.full((cout, 1, 1, xs[3]), 255, np.uint8)
    w[..., -tail:] = rng.integers(0, 11, (cout, 1, 1, tail))
    b = ModelBuilder("tflite")
    xi = b.add_input("x", xs, "uint8", quant=qdict(0.05, 128))
    wi = b.add_const("w", w, quant=qdict(0.01, 0))
    bias = rng.integers(-50, 50, cout).astype(np.int32)
    bi = b.add_const("b", bias, quant=qdict(float(np.float32(0.05) * np.float32(0.01)), 0))
    y = b.add_tensor("y", (*xs[:3], cout), "uint8", quant=qdict(0.001, 128))
    b.add_op("CONV_2D", [xi, wi, bi], [y], padding="VALID", stride_h=1, stride_w=1)
    b.add_output(y)
    check_on_cl(b.build(), [x])
