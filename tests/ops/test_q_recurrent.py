"""Fully integer recurrent ops against the TFLite interpreter, bit-exact: SVDF with int8 input
and output, int16 state (a variable tensor), int8 weights_feature, int16 weights_time and int32
bias (TFLite's EvalIntegerSVDF).

Each test runs one session several times (the state carried over) and compares every run with
consecutive invocations of one interpreter, then resets the state and checks the first answer
again. The interpreter's integer SVDF takes only the RELU activation (and does not apply it).
"""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import ModelBuilder
import rnn_harness
from builders.quant import qdict
from op_harness import with_fallback
from rnn_harness import check_int_stateful, int8_runs


# ---- SVDF ----------------------------------------------------------------------------------------
def int_svdf_model(rng, batch, n_input, units, rank, memory, bias=True, scales=None,
                   act="RELU", wmax=(127, 32767)):
    """An integer SVDF model with random weights (|weights_feature|, |weights_time| up to
    `wmax`); `scales`: (input, input zp, feature, state, time, output, output zp), by default
    chosen so that state and output are seldom saturated."""
    filters = units * rank
    if scales is None:
        sx, sf, st = 0.04, 0.01, 0.002
        ss = sx * sf * 12.0 * np.sqrt(n_input)
        so = ss * st * 3.0e5 * np.sqrt(n_input * memory * rank)
        scales = (sx, -7, sf, ss, st, so, 4)
    sx, zx, sf, ss, st, so, zo = scales
    mb = ModelBuilder()
    x = mb.add_input("x", (batch, n_input), "int8", quant=qdict(sx, zx))
    wf = mb.add_const("wf", rng.integers(-wmax[0], wmax[0] + 1, (filters, n_input)).astype(np.int8),
                      quant=qdict(sf, 0))
    wt = mb.add_const("wt", rng.integers(-wmax[1], wmax[1] + 1, (filters, memory)).astype(np.int16),
                      quant=qdict(st, 0))
    b = (mb.add_const("b", rng.integers(-30 * wmax[1], 30 * wmax[1], (units,)).astype(np.int32),
                      quant=qdict(sx * sf, 0)) if bias else -1)
    state = mb.add_tensor("state", (batch, filters * memory), "int16", quant=qdict(ss, 0),
                          is_variable=True)
    y = mb.add_tensor("y", (batch, units), "int8", quant=qdict(so, zo))
    mb.add_op("SVDF", [x, wf, wt, b, state], [y], rank=rank, fused_activation_function=act)
    mb.add_output(y)
    return mb.build()


@pytest.mark.parametrize("batch,n_input,units,rank,memory,bias", [
    (1, 3, 2, 1, 2, True),
    (2, 5, 3, 2, 4, True),
    (3, 17, 4, 3, 3, False),
    (2, 40, 5, 2, 6, True),
    (4, 9, 2, 4, 1, True),
])
def test_svdf_int8(backend, batch, n_input, units, rank, memory, bias):
    rng = np.random.default_rng(batch * 1000 + n_input * 10 + memory)
    model = int_svdf_model(rng, batch, n_input, units, rank, memory, bias)
    runs = int8_runs(rng, (batch, n_input), max(3, memory + 2))
    check_int_stateful(model, runs, "QSvdfLayer", backends=backend)


def test_svdf_int8_rounding_ties(backend):
    """Effective scales 1/2 and 1/4 with small weights and inputs: many rescales fall on exact
    halves, negative ones included; TFLite's reference rounding takes them away from zero."""
    rng = np.random.default_rng(5)
    scales = (0.5, 3, 0.25, 0.25, 2.0 ** -10, 2.0 ** -10, -2)
    model = int_svdf_model(rng, 3, 7, 5, 2, 3, scales=scales, wmax=(3, 3))
    runs = [[rng.integers(0, 7, (3, 7)).astype(np.int8)] for _ in range(5)]
    check_int_stateful(model, runs, "QSvdfLayer", backends=backend)


def test_svdf_int8_saturation(backend):
    """A state scale so small that the int16 state saturates, and an output scale that clamps
    many outputs: both clamps as the interpreter's."""
    rng = np.random.default_rng(7)
    scales = (0.05, 0, 0.02, 1e-5, 0.001, 0.5, 0)
    model = int_svdf_model(rng, 2, 6, 3, 2, 3, scales=scales)
    check_int_stateful(model, int8_runs(rng, (2, 6), 4), "QSvdfLayer", varied=False,
                       backends=backend)


def test_svdf_int8_refuses_other_activations(backend):
    """TFLite's integer SVDF fails on any activation but RELU; so does onert_py, at compile."""
    model = int_svdf_model(np.random.default_rng(0), 1, 3, 2, 1, 2, act="NONE")
    with pytest.raises(Exception, match="(?i)relu"):
        rnn_harness.tflite_runs(model, int8_runs(np.random.default_rng(1), (1, 3), 1))
    with pytest.raises(Exception, match="RELU"):
        onert_py.Session(model, backends=with_fallback(backend))
