"""Quantized FULLY_CONNECTED (int8 per-tensor and per-channel, uint8 with weight zero points,
int16x8 on the ruy path and on the reference int64-bias path) against the interpreter,
bit-exact. Scales are chosen so that real multipliers of 0.25/0.5 produce rounding ties."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import ModelBuilder
from builders.qfc import DT_ZPS, GRID, REALS, case_8bit, fc_model, make_case
from builders.quant import qdict
from op_harness import with_fallback
from quant_harness import check_qop

import onert_py.backends.cpu.ops.quant.qfully_connected  # noqa: F401  (registers the kernel)


@pytest.mark.parametrize("dt,zps", DT_ZPS)
@pytest.mark.parametrize("shape", GRID, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("real", REALS)
def test_q_fc_8bit(backend, dt, zps, shape, real):
    model, x = case_8bit(dt, zps, shape, real)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("shape", GRID, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("real", REALS)
def test_q_fc_int8_per_channel(backend, shape, real):
    rng = np.random.default_rng(7)
    x, w, ws, b, ys = make_case(rng, "int8", *shape, real, (2, 0, -1), per_channel=True)
    model = fc_model(x.shape, "int8", 2, w, ws, 0, b, (shape[0], shape[2]), "int8", ys, -1)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("dt", ["int8", "uint8", "int16"])
@pytest.mark.parametrize("act", ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"])
def test_q_fc_activation_no_bias_full_range(backend, dt, act):
    rng = np.random.default_rng(3)
    zps = (0, 0, 0) if dt == "int16" else ((4, 0, -7) if dt == "int8" else (130, 125, 128))
    x, w, ws, _, _ = make_case(rng, dt, 5, 300, 21, 1.0, zps, bias=None, small=False)
    if dt == "int16":
        x = rng.integers(-32768, 32767, x.shape, endpoint=True).astype(np.int16)
    ys = 0.05 if dt != "int16" else 0.002
    model = fc_model(x.shape, dt, zps[0], w, ws, zps[1], None, (5, 21), dt, ys, zps[2],
                     fused_activation_function=act)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("bias", [None, "int32", "int64"])
@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("real", REALS)
def test_q_fc_int16(backend, bias, per_channel, real):
    """int32/no bias: the ruy path (vector rounding); int64 bias: the reference path (double)."""
    rng = np.random.default_rng(11)
    x, w, ws, b, ys = make_case(rng, "int16", 4, 16, 64, real, (0, 0, 0), per_channel, bias)
    x = (x * 10).astype(np.int16)
    ys = ys * 10
    model = fc_model(x.shape, "int16", 0, w, ws, 0, b, (4, 64), "int16", ys, 0)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("bias", [None, "int64"])
def test_q_fc_int16_weight_zero_point(backend, bias):
    """A non-zero int8 weight zero point sends int16 to the reference kernel."""
    rng = np.random.default_rng(5)
    x, w, ws, b, ys = make_case(rng, "int16", 3, 16, 19, 0.37, (0, 3, 0), bias=bias)
    model = fc_model(x.shape, "int16", 0, w, ws, 3, b, (3, 19), "int16", ys, 0)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("keep", [False, True])
def test_q_fc_keep_num_dims_3d(backend, keep):
    rng = np.random.default_rng(9)
    x, w, ws, b, ys = make_case(rng, "int8", 6, 24, 10, 0.37, (1, 0, 2))
    x3 = x.reshape(2, 3, 24)
    yshape = (2, 3, 10) if keep else (6, 10)
    model = fc_model(x3.shape, "int8", 1, w, ws, 0, b, yshape, "int8", ys, 2, keep_num_dims=keep)
    check_qop(model, [x3], backend)


def test_q_fc_non_constant_weights(backend):
    rng = np.random.default_rng(13)
    x, w, ws, b, ys = make_case(rng, "int8", 4, 40, 19, 0.37, (-5, 0, 3))
    model = fc_model(x.shape, "int8", -5, w, ws, 0, b, (4, 19), "int8", ys, 3, w_const=False)
    check_qop(model, [x, w], backend)


def test_q_fc_refuses_unsupported(backend):
    rng = np.random.default_rng(1)
    x, w, ws, b, ys = make_case(rng, "int8", 2, 8, 4, 0.5, (0, 0, 0))
    # TANH is not a quantized FULLY_CONNECTED activation (TFLite's Prepare refuses it too)
    bad = fc_model(x.shape, "int8", 0, w, ws, 0, b, (2, 4), "int8", ys, 0,
                   fused_activation_function="TANH")
    with pytest.raises(onert_py.CompileError, match="TANH"):
        onert_py.Session(bad, backends=with_fallback(backend))
    # uint8 with per-channel weights (TFLite: per-channel needs int8/int16 activations)
    wu = (w.astype(np.int16) + 128).astype(np.uint8)
    bad = fc_model(x.shape, "uint8", 128, wu, [0.01, 0.02, 0.03, 0.04], 0, None, (2, 4),
                   "uint8", ys, 128)
    with pytest.raises(onert_py.CompileError, match="per-channel"):
        onert_py.Session(bad, backends=with_fallback(backend))
    # weights without quantization parameters
    b2 = ModelBuilder()
    xi = b2.add_input("x", (2, 8), "int8", quant=qdict(0.05, 0))
    wi = b2.add_const("w", w)
    yi = b2.add_tensor("y", (2, 4), "int8", quant=qdict(ys, 0))
    b2.add_op("FULLY_CONNECTED", [xi, wi, -1], [yi])
    b2.add_output(yi)
    with pytest.raises(onert_py.CompileError):
        onert_py.Session(b2.build(), backends=with_fallback(backend))
