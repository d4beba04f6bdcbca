"""Hybrid (dynamic-range quantized) recurrent ops against the TFLite interpreter: float32 input
and state, int8 weight matrices (and peephole / projection / aux weights) with a per-tensor
scale; biases and layer-norm coefficients float32. LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM,
BIDIRECTIONAL_SEQUENCE_LSTM, RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN, with
asymmetric_quantize_inputs true and false. Each test runs one session several times (state
carried over) and compares every run with consecutive invocations of one interpreter, then
resets the state and checks the first answer again.

Tolerance: the kernels repeat TFLite's integer arithmetic exactly; what can differ is float32
rounding (the order of the gate sums, exp in the sigmoid/tanh). But the recurrent state is
re-quantized to int8 at every step, so a last-bit difference in h can move one quantized value
by one step (1/127 of the row's range), which then propagates through later steps. The
comparison therefore uses rtol 1e-4 with atol 2e-4 (one int8 rounding step of a unit-range row
times a weight of ~0.5 and a gate derivative <= 1 stays well under 1e-2; in practice the flips
are rare and the observed differences are ~1e-6).
"""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
import onert_py.backends.cpu.ops.hybrid_lstm  # noqa: F401  (the kernels under test)
import onert_py.backends.cpu.ops.hybrid_rnn  # noqa: F401
from onert_py.model_builder import ModelBuilder
import rnn_harness
from builders.rnn import Lstm, rnn_model, seq_rnn_model
from op_harness import assert_outputs, with_fallback
from rnn_harness import tflite_runs

TOL = {"rtol": 1e-4, "atol": 2e-4}


def check_stateful(model: bytes, runs, backend: str, expected=None) -> None:
    rnn_harness.check_stateful(
        model, runs, lambda got, exp, label: assert_outputs(got, exp, **TOL, label=label),
        expected=expected, picked=lambda names: any(k.startswith("cpu.Hybrid") for k in names),
        backends=backend)


def qconst(mb, rng, name, shape, scale=0.5):
    """An int8 constant with a per-tensor scale holding a random [-scale, scale] matrix."""
    w = rng.uniform(-scale, scale, shape)
    s = float(np.abs(w).max() / 127)
    q = np.clip(np.round(w / s), -127, 127).astype(np.int8)
    return mb.add_const(name, q, quant={"scale": s, "zero_point": 0})


def fconst(mb, rng, name, shape, low=-0.5, high=0.5):
    return mb.add_const(name, rng.uniform(low, high, shape).astype(np.float32))


def seq_runs(rng, shape, n=3, aux_shape=None):
    return rnn_harness.seq_runs(rng, shape, n, aux_shape)


# ---- LSTM family ---------------------------------------------------------------------------------
class HybridLstm(Lstm):
    """builders.rnn's Lstm with int8 weight matrices and peepholes (per-tensor scales) beside
    float biases and layer-norm weights: the form the hybrid kernels take."""

    def __init__(self, rng, ni, nc, no=None, **flags):
        super().__init__(rng, ni, nc, no, **flags)

    def w(self, mb, name, shape):
        return qconst(mb, self.rng, name, shape, self.scale)


VARIANTS = {
    "basic": {},
    "cifg": {"cifg": True},
    "peephole": {"peephole": True},
    "projection_bias": {"projection": True, "proj_bias": True, "no": 3},
    "layer_norm": {"layer_norm": True},
    "all": {"layer_norm": True, "cifg": True, "peephole": True, "projection": True,
            "proj_bias": True, "no": 4},
}


@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_lstm(backend, rng, variant, asym):
    model = HybridLstm(rng, 4, 6, **VARIANTS[variant]).single(
        3, fused_activation_function="TANH", cell_clip=3.0, asymmetric_quantize_inputs=asym)
    check_stateful(model, seq_runs(rng, (3, 4)), backend)


@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("variant", ["basic", "peephole", "all"])
def test_unidirectional_sequence_lstm(backend, rng, variant, time_major, asym):
    shape = (4, 2, 3)
    model = HybridLstm(rng, 3, 5, **VARIANTS[variant]).sequence(
        shape, time_major=time_major, fused_activation_function="TANH",
        asymmetric_quantize_inputs=asym)
    check_stateful(model, seq_runs(rng, shape), backend)


@pytest.mark.parametrize("opts", [{"proj_clip": 0.2}, {"fused_activation_function": "RELU"},
                                  {"fused_activation_function": "NONE"}])
def test_unidirectional_sequence_lstm_options(backend, rng, opts):
    shape = (2, 5, 3)
    cell = HybridLstm(rng, 3, 5, no=4, projection="proj_clip" in opts)
    model = cell.sequence(shape, **{"fused_activation_function": "TANH",
                                    "asymmetric_quantize_inputs": True, **opts})
    check_stateful(model, seq_runs(rng, shape), backend)


@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("aux", ["none", "cross", "weights"])
@pytest.mark.parametrize("merge", [False, True])
def test_bidirectional_sequence_lstm(backend, rng, merge, aux, asym):
    shape = (4, 2, 3)
    model = HybridLstm(rng, 3, 4, peephole=True).bidirectional(
        shape, merge, aux, time_major=True, fused_activation_function="TANH",
        asymmetric_quantize_inputs=asym)
    check_stateful(model, seq_runs(rng, shape, aux_shape=None if aux == "none" else
                                   shape[:2] + (3,)), backend)


def test_bidirectional_sequence_lstm_batch_major_projection(backend, rng):
    shape = (2, 3, 3)
    model = HybridLstm(rng, 3, 5, no=2, cifg=True, projection=True, proj_bias=True) \
        .bidirectional(shape, False, time_major=False, fused_activation_function="TANH",
                       asymmetric_quantize_inputs=True)
    check_stateful(model, seq_runs(rng, shape), backend)


# ---- RNN family ----------------------------------------------------------------------------------
def rnn_slots(rng, mb, p, units, n_input):
    return [qconst(mb, rng, f"{p}w", (units, n_input), 0.6),
            qconst(mb, rng, f"{p}r", (units, units), 0.6), fconst(mb, rng, f"{p}b", (units,))]


@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("act", ["TANH", "RELU", "NONE"])
def test_rnn(backend, rng, act, asym):
    model = rnn_model(rng, rnn_slots, act, asymmetric_quantize_inputs=asym)
    check_stateful(model, seq_runs(rng, (2, 3), n=4), backend)


@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("time_major", [False, True])
def test_unidirectional_sequence_rnn(backend, rng, time_major, asym):
    shape = (3, 2, 4)
    model = seq_rnn_model(rng, rnn_slots, shape, time_major, "TANH",
                          asymmetric_quantize_inputs=asym)
    check_stateful(model, seq_runs(rng, shape), backend)


def rnn_arrays(rng, units, n_input):
    """(int8 weights, quant), (int8 recurrent weights, quant), float bias of one RNN."""
    def q(shape):
        w = rng.uniform(-0.6, 0.6, shape)
        sc = float(np.abs(w).max() / 127)
        return (np.clip(np.round(w / sc), -127, 127).astype(np.int8),
                {"scale": sc, "zero_point": 0})
    return q((units, n_input)), q((units, units)), rng.uniform(-0.5, 0.5, units).astype(np.float32)


def add_rnn(mb, p, arrays):
    (w, wq), (r, rq), b = arrays
    return [mb.add_const(f"{p}w", w, quant=wq), mb.add_const(f"{p}r", r, quant=rq),
            mb.add_const(f"{p}b", b)]


def uni_rnn_model(arrays, shape, asym):
    units = arrays[2].size
    mb = ModelBuilder()
    x = mb.add_input("x", shape)
    h = mb.add_tensor("h", (shape[1], units), is_variable=True)
    y = mb.add_tensor("y", shape[:2] + (units,))
    mb.add_op("UNIDIRECTIONAL_SEQUENCE_RNN", [x, *add_rnn(mb, "", arrays), h], [y],
              time_major=True, fused_activation_function="TANH", asymmetric_quantize_inputs=asym)
    mb.add_output(y)
    return mb.build()


@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("cross", [False, True])
@pytest.mark.parametrize("merge", [False, True])
def test_bidirectional_sequence_rnn(backend, rng, merge, cross, asym):
    """The interpreter's hybrid BIDIRECTIONAL_SEQUENCE_RNN gives answers far from the
    dequantized float RNN (0.3 off where quantization explains 0.004) and sometimes crashes, so
    the expected outputs come from its hybrid UNIDIRECTIONAL_SEQUENCE_RNN: the forward direction
    on the input, the backward one on the time-reversed input (or aux input, `cross`)."""
    shape = (3, 2, 4)                      # time major
    fw_a, bw_a = rnn_arrays(rng, 4, 4), rnn_arrays(rng, 3, 4)
    mb = ModelBuilder()
    x = mb.add_input("x", shape)
    a = mb.add_input("aux", shape) if cross else -1
    hf = mb.add_tensor("hf", (2, 4), is_variable=True)
    hb = mb.add_tensor("hb", (2, 3), is_variable=True)
    outs = [shape[:2] + (7,)] if merge else [shape[:2] + (4,), shape[:2] + (3,)]
    ys = [mb.add_tensor(f"y{k}", o) for k, o in enumerate(outs)]
    mb.add_op("BIDIRECTIONAL_SEQUENCE_RNN",
              [x, *add_rnn(mb, "fw_", fw_a), hf, *add_rnn(mb, "bw_", bw_a), hb, a, -1, -1], ys,
              time_major=True, merge_outputs=merge, fused_activation_function="TANH",
              asymmetric_quantize_inputs=asym)
    for y in ys:
        mb.add_output(y)
    runs = seq_runs(rng, shape, aux_shape=shape if cross else None)
    fw = tflite_runs(uni_rnn_model(fw_a, shape, asym), [[xs[0]] for xs in runs])
    bw = tflite_runs(uni_rnn_model(bw_a, shape, asym), [[xs[-1][::-1].copy()] for xs in runs])
    expected = []
    for (f,), (b,) in zip(fw, bw):
        b = b[::-1]
        expected.append([np.concatenate([f, b], axis=-1)] if merge else [f, b])
    check_stateful(mb.build(), runs, backend, expected=expected)


def test_per_channel_recurrent_weights_refused(backend):
    """LSTM/RNN hybrid kernels take one scale per weight tensor: per-channel is a compile error."""
    rng = np.random.default_rng(0)
    mb = ModelBuilder()
    x = mb.add_input("x", (1, 3))
    w = qconst(mb, rng, "w", (4, 3))
    q = rng.integers(-127, 128, (4, 4)).astype(np.int8)
    r = mb.add_const("r", q, quant={"scale": [0.01] * 4, "zero_point": [0] * 4,
                                    "quantized_dimension": 0})
    b = fconst(mb, rng, "b", (4,))
    h = mb.add_tensor("h", (1, 4), is_variable=True)
    y = mb.add_tensor("y", (1, 4))
    mb.add_op("RNN", [x, w, r, b, h], [y], fused_activation_function="TANH")
    mb.add_output(y)
    with pytest.raises(onert_py.CompileError, match="per-tensor scale"):
        onert_py.Session(mb.build(), backends=with_fallback(backend))
