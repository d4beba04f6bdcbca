"""Quantized RELU family, LEAKY_RELU, PRELU, ABS and NEG against the interpreter, bit-exact:
every 8-bit value (lengths with vector tails), every int16 value, scale ratios below and above
one with rounding ties, negative alphas, broadcast alphas, and the refusals."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.errors import OnertPyError
from onert_py.model_builder import ModelBuilder, single_op_model
from op_harness import run_onert
from builders.quant import qdict, qspec
from quant_harness import check_qop, qrand

RELUS = ["RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1"]
# (input scale, zp), (output scale, zp) for int8; uint8 shifts zero points by 128, int16 divides
# scales by 64 and keeps only zero-point-0 cases (the interpreter refuses others)
UNARY_PARAMS = {
    "mixed": ((0.05, -3), (0.03, 5)),
    "half": ((0.0625, 0), (0.125, 0)),            # ratio 1/2
    "quarter": ((0.0625, 0), (0.25, 0)),          # ratio 1/4: ties in the final shift
    "same": ((0.02, 0), (0.02, 0)),
    "up": ((0.1, 3), (0.013, -100)),              # ratio > 1
    "zp_only": ((0.05, -3), (0.05, 5)),
    "third": ((0.03, 0), (0.08, 0)),
}
INT16_OK = [k for k, (qi, qo) in sorted(UNARY_PARAMS.items()) if qi[1] == qo[1] == 0]


def combos(dtypes, names):
    """(dtype, params) pairs, int16 only with the zero-point-0 parameter sets."""
    return [(d, n) for d in dtypes for n in names if d != "int16" or n in INT16_OK]


def params_for(dtype, name):
    qi, qo = UNARY_PARAMS[name]
    if dtype == "uint8":
        return [(s, int(np.clip(z + 128, 0, 255))) for s, z in (qi, qo)]
    if dtype == "int16":
        return [(s / 64, z) for s, z in (qi, qo)]
    return [qi, qo]


def every_value(dtype):
    """Every value of the dtype, repeated to a length with a tail for 8/16-lane loops."""
    info = np.iinfo(dtype)
    v = np.arange(info.min, info.max + 1)
    return np.resize(v, 3 * v.size - 5).astype(dtype)


def unary(op, x, dtype, qi, qo, **options):
    return single_op_model(op, [qspec("x", x.shape, dtype, *qi)],
                           [qspec("y", x.shape, dtype, *qo)], **options)


def refused(backend, model, inputs, match):
    with pytest.raises(OnertPyError, match=match):
        run_onert(model, inputs, backend)


@pytest.mark.parametrize("op", RELUS)
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("params", sorted(UNARY_PARAMS))
def test_relu_8bit(backend, op, dtype, params):
    qi, qo = params_for(dtype, params)
    x = every_value(dtype)
    check_qop(unary(op, x, dtype, qi, qo), [x], backend)


@pytest.mark.parametrize("op", ["RELU", "RELU6"])
@pytest.mark.parametrize("params", ["half", "quarter", "same", "third"])
def test_relu_int16(backend, op, params):
    qi, qo = params_for("int16", params)
    x = every_value("int16")
    check_qop(unary(op, x, "int16", qi, qo), [x], backend)


def test_relu6_int16_float32_multiplier(backend):
    """Scales whose ratio rounds differently in float32 and float64: TFLite divides in
    float32."""
    x = every_value("int16")
    check_qop(unary("RELU6", x, "int16", (3e-08, 0), (8e-08, 0)), [x], backend)


@pytest.mark.parametrize("op,why", [("RELU_N1_TO_1", "int16"), ("RELU_0_TO_1", "int16"),
                                    ("RELU", "zero points")])
def test_relu_int16_refusals(backend, op, why):
    qi, qo = ((0.001, 3), (0.001, 0)) if why == "zero points" else ((0.001, 0), (0.001, 0))
    x = np.zeros(4, np.int16)
    refused(backend, unary(op, x, "int16", qi, qo), [x], why)


ALPHAS = [0.2, 0.25, -0.5, -0.25, 1.7, -1.3, -3.0, 0.0]


@pytest.mark.parametrize("dtype,params", combos(["int8", "uint8", "int16"],
                                                ["mixed", "half", "same", "up", "third"]))
@pytest.mark.parametrize("alpha", ALPHAS)
def test_leaky_relu(backend, dtype, params, alpha):
    qi, qo = params_for(dtype, params)
    x = every_value(dtype)
    check_qop(unary("LEAKY_RELU", x, dtype, qi, qo, alpha=alpha), [x], backend)


def test_leaky_relu_random_params(backend):
    rng = np.random.default_rng(3)
    for dtype in ("int8", "uint8"):
        off = 128 if dtype == "uint8" else 0
        x = every_value(dtype)
        for _ in range(6):
            qi = (float(rng.uniform(0.01, 0.1)), int(rng.integers(-20, 20)) + off)
            qo = (float(rng.uniform(0.01, 0.1)), int(rng.integers(-20, 20)) + off)
            alpha = float(rng.uniform(-1.5, 1.5))
            check_qop(unary("LEAKY_RELU", x, dtype, qi, qo, alpha=alpha), [x], backend)


def test_leaky_relu_int16_zero_points_refused(backend):
    x = np.zeros(4, np.int16)
    model = unary("LEAKY_RELU", x, "int16", (0.001, 2), (0.001, 0), alpha=0.2)
    refused(backend, model, [x], "zero")


PRELU_PARAMS = [((0.05, -3), (0.01, 4), (0.03, 5)), ((0.0625, 0), (0.0078125, 0), (0.0625, 0)),
                ((0.0625, 2), (0.015625, -10), (0.03125, -1)),
                ((0.1, 0), (0.02, -128), (0.013, 3)), ((0.02, 1), (0.05, 3), (0.01, 0))]
PRELU_SHAPES = [((763,), (763,)), ((5, 7, 3), (3,)), ((5, 7, 3), (7, 1)),
                ((2, 3, 4, 5, 6), (1, 1, 1, 6)), ((2, 1, 4, 5, 6, 3), (3,)), ((4, 6), (1,))]


def prelu_model(sx, sa, dtype, qx, qa, qo, alpha=None):
    b = ModelBuilder()
    x = b.add_input("x", sx, dtype, quant=qdict(*qx))
    a = (b.add_input("alpha", sa, dtype, quant=qdict(*qa)) if alpha is None
         else b.add_const("alpha", alpha, quant=qdict(*qa)))
    y = b.add_tensor("y", sx, dtype, qdict(*qo))
    b.add_op("PRELU", [x, a], [y])
    b.add_output(y)
    return b.build()


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("params", range(len(PRELU_PARAMS)))
@pytest.mark.parametrize("sx,sa", PRELU_SHAPES)
def test_prelu(backend, dtype, params, sx, sa):
    rng = np.random.default_rng(2)
    off = 128 if dtype == "uint8" else 0
    qx, qa, qo = ((s, int(np.clip(z + off, 0, 255)) if off else z)
                  for s, z in PRELU_PARAMS[params])
    info = np.iinfo(dtype)
    x = np.resize(np.arange(info.min, info.max + 1), sx).astype(dtype)
    alpha = qrand(rng, sa, dtype)
    check_qop(prelu_model(sx, sa, dtype, qx, qa, qo), [x, alpha], backend)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_prelu_constant_alpha(backend, dtype):
    rng = np.random.default_rng(4)
    off = 128 if dtype == "uint8" else 0
    qx, qa, qo = ((s, z + off) for s, z in PRELU_PARAMS[2])
    alpha = qrand(rng, (1, 1, 8), dtype)
    x = qrand(rng, (3, 5, 8), dtype)
    check_qop(prelu_model(x.shape, alpha.shape, dtype, qx, qa, qo, alpha=alpha), [x], backend)


def test_prelu_int16_refused(backend):
    """The interpreter's int16 PRELU reads its alpha as int8 bytes: refused, not reproduced."""
    model = prelu_model((8,), (8,), "int16", (0.001, 0), (0.0001, 0), (0.001, 0))
    refused(backend, model, [np.zeros(8, np.int16)] * 2, "PRELU")


@pytest.mark.parametrize("dtype,params", combos(["int8", "int16"], sorted(UNARY_PARAMS)))
def test_abs(backend, dtype, params):
    qi, qo = params_for(dtype, params)
    x = every_value(dtype)
    check_qop(unary("ABS", x, dtype, qi, qo), [x], backend)


def test_abs_refusals(backend):
    refused(backend, unary("ABS", np.zeros(4, np.uint8), "uint8", (0.05, 128), (0.05, 128)),
            [np.zeros(4, np.uint8)], "uint8")
    for zps in ((3, 0), (0, 3)):
        model = unary("ABS", np.zeros(4, np.int16), "int16", (0.001, zps[0]), (0.001, zps[1]))
        refused(backend, model, [np.zeros(4, np.int16)], "zero points")


@pytest.mark.parametrize("dtype", ["int8", "int16"])
@pytest.mark.parametrize("params", ["mixed", "up", "zp_only"])
def test_neg(backend, dtype, params):
    """NEG negates the stored integers (wrapping), whatever the parameters."""
    qi, qo = UNARY_PARAMS[params]
    x = every_value(dtype)
    check_qop(unary("NEG", x, dtype, qi, qo), [x], backend)


def test_neg_uint8_refused(backend):
    x = np.zeros(4, np.uint8)
    refused(backend, unary("NEG", x, "uint8", (0.05, 128), (0.05, 128)), [x], "uint8")
