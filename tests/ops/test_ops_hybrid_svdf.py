"""Hybrid (dynamic-range quantized) SVDF against the TFLite interpreter: float32 input, state and
output, int8 weights_feature and weights_time with a per-tensor scale, float32 bias; with
asymmetric_quantize_inputs true and false, and the activations the op takes.

Each test runs one session several times (the state carried over) and compares every run with
consecutive invocations of one interpreter, then resets the state and checks the first answer.

Tolerance: the int8 input quantization and the integer feature products are TFLite's exactly
(the state itself stays float32, so nothing is re-quantized from a computed value); what can
differ is float32 summation order in the state x weights_time products and the rank sum, hence
ACCUMULATE (rtol 1e-4, atol 1e-5).
"""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import ModelBuilder
import rnn_harness
from op_harness import ACCUMULATE, assert_outputs


def check_stateful(model: bytes, runs, backend: str) -> None:
    rnn_harness.check_stateful(
        model, runs, lambda got, exp, label: assert_outputs(got, exp, **ACCUMULATE, label=label),
        picked=lambda names: "cpu.HybridSvdfLayer" in names, distinct=False, backends=backend)


def qweights(mb, rng, name, shape, scale):
    q = rng.integers(-127, 128, shape).astype(np.int8)
    return mb.add_const(name, q, quant={"scale": [float(scale)], "zero_point": [0]})


def hybrid_svdf_model(rng, batch, n_input, units, rank, memory, act, asym, bias=True):
    filters = units * rank
    mb = ModelBuilder()
    x = mb.add_input("x", (batch, n_input))
    wf = qweights(mb, rng, "wf", (filters, n_input), 0.6 / 127)
    wt = qweights(mb, rng, "wt", (filters, memory), 0.8 / 127)
    b = mb.add_const("b", rng.uniform(-0.5, 0.5, units).astype(np.float32)) if bias else -1
    state = mb.add_tensor("state", (batch, filters * memory), is_variable=True)
    y = mb.add_tensor("y", (batch, units))
    mb.add_op("SVDF", [x, wf, wt, b, state], [y], rank=rank, fused_activation_function=act,
              asymmetric_quantize_inputs=asym)
    mb.add_output(y)
    return mb.build()


def float_runs(rng, shape, n, shift=0.0):
    return [[(rng.uniform(-1, 1, shape) + shift).astype(np.float32)] for _ in range(n)]


@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("act", ["NONE", "RELU", "TANH", "RELU6", "RELU_N1_TO_1"])
def test_hybrid_svdf_activations(backend, act, asym):
    rng = np.random.default_rng(11)
    model = hybrid_svdf_model(rng, 2, 5, 3, 2, 4, act, asym)
    check_stateful(model, float_runs(rng, (2, 5), 5, shift=0.3), backend)


@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("batch,n_input,units,rank,memory,bias", [
    (1, 3, 2, 1, 2, True),
    (3, 17, 4, 3, 3, False),
    (2, 40, 5, 2, 6, True),
    (4, 9, 2, 4, 1, True),
])
def test_hybrid_svdf_shapes(backend, batch, n_input, units, rank, memory, bias, asym):
    rng = np.random.default_rng(batch * 100 + n_input)
    model = hybrid_svdf_model(rng, batch, n_input, units, rank, memory, "NONE", asym, bias)
    check_stateful(model, float_runs(rng, (batch, n_input), max(3, memory + 2)), backend)


@pytest.mark.parametrize("asym", [False, True])
def test_hybrid_svdf_zero_inputs(backend, asym):
    """An all-zero input (TFLite skips the feature product) and a batch with one zero row
    (quantized with scale 1) between ordinary runs."""
    rng = np.random.default_rng(12)
    model = hybrid_svdf_model(rng, 2, 6, 3, 2, 3, "NONE", asym)
    runs = float_runs(rng, (2, 6), 4)
    runs[1][0][:] = 0
    runs[2][0][1] = 0
    check_stateful(model, runs, backend)
