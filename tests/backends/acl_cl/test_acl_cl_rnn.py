"""acl_cl recurrent kernels (LSTM, UnidirectionalSequenceLSTM, RNN, UnidirectionalSequenceRNN)
against consecutive invocations of one TFLite interpreter: the state (variable tensors in
device buffers of their own) carries over from run to run, and Session.reset_state brings the
first answer back. Each model runs on acl_cl alone, so the op cannot fall back to cpu."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
import rnn_harness
from builders.rnn import VARIANTS, Lstm, rnn_model, rnn_weights, seq_rnn_model
from onert_py.model_builder import ModelBuilder
from op_harness import ACCUMULATE


def run_all(model: bytes, runs) -> list[list[np.ndarray]]:
    with onert_py.Session(model, backends="acl_cl") as s:
        return [[np.array(o, copy=True) for o in s.run(xs)] for xs in runs]


def check_runs(model: bytes, runs, reset: bool = False) -> None:
    expected = rnn_harness.tflite_runs(model, runs)
    assert not np.allclose(expected[0][0], expected[1][0]), "runs do not tell state apart"
    with onert_py.Session(model, backends="acl_cl") as s:
        for k, (xs, exp) in enumerate(zip(runs, expected)):
            got = s.run(xs)
            for g, e in zip(got, exp):
                np.testing.assert_allclose(g, e, **ACCUMULATE, err_msg=f"run {k}")
        if reset:
            s.reset_state()
            np.testing.assert_allclose(s.run(runs[0])[0], expected[0][0], **ACCUMULATE,
                                       err_msg="after reset_state")


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_sequence_lstm(cl_ready, rng, variant, time_major):
    cell = Lstm(rng, 3, 5, **VARIANTS[variant])
    shape = (4, 2, 3)
    model = cell.sequence(shape, time_major=time_major, fused_activation_function="TANH")
    check_runs(model, rnn_harness.seq_runs(rng, shape, 2))


@pytest.mark.parametrize("opts", [
    {"cell_clip": 0.3}, {"proj_clip": 0.2}, {"fused_activation_function": "RELU"},
    {"fused_activation_function": "NONE"}, {"fused_activation_function": "RELU6"}])
def test_sequence_lstm_options(cl_ready, rng, opts):
    cell = Lstm(rng, 3, 5, projection="proj_clip" in opts, n_output=4, scale=1.5)
    shape = (2, 5, 3)
    model = cell.sequence(shape, **{"fused_activation_function": "TANH", **opts})
    check_runs(model, rnn_harness.seq_runs(rng, shape, 2))


@pytest.mark.parametrize("variant", ["basic", "cifg_peephole", "projection_bias"])
def test_sequence_lstm_wide(cl_ready, rng, variant):
    """19 cells (11 projected outputs): lstm_seq spreads them over the 8-lane work items of one
    work-group (a tail of 3), whose barriers order the reads and writes of the state."""
    opts = dict(VARIANTS[variant])
    if "n_output" in opts:
        opts["n_output"] = 11
    cell = Lstm(rng, 6, 19, **opts)
    shape = (3, 7, 6)
    model = cell.sequence(shape, fused_activation_function="TANH")
    check_runs(model, rnn_harness.seq_runs(rng, shape, 2))


@pytest.mark.parametrize("variant", ["basic", "layer_norm_cifg_peephole_proj"])
def test_lstm_single_step(cl_ready, rng, variant):
    cell = Lstm(rng, 4, 6, **VARIANTS[variant])
    model = cell.single(3, fused_activation_function="TANH", cell_clip=2.0)
    check_runs(model, rnn_harness.seq_runs(rng, (3, 4), 3))


@pytest.mark.parametrize("act", ["TANH", "RELU", "NONE", "RELU_N1_TO_1"])
def test_rnn(cl_ready, rng, act):
    check_runs(rnn_model(rng, rnn_weights, act), rnn_harness.seq_runs(rng, (2, 3), 3))


@pytest.mark.parametrize("time_major", [False, True])
def test_sequence_rnn(cl_ready, rng, time_major):
    shape = (3, 2, 4)          # an odd number of steps: the state ends in the ping-pong buffer
    model = seq_rnn_model(rng, rnn_weights, shape, time_major, "TANH")
    check_runs(model, rnn_harness.seq_runs(rng, shape, 2))


def test_sequence_rnn_wide(cl_ready, rng):
    """21 units: rnn_seq spreads them over 3 work items of 8 lanes (a tail of 5), whose barriers
    order the reads and writes of the state."""
    shape, units = (2, 6, 4), 21
    mb = ModelBuilder()
    x = mb.add_input("x", shape)
    h = mb.add_tensor("h", (2, units), is_variable=True)
    y = mb.add_tensor("y", (2, 6, units))
    mb.add_op("UNIDIRECTIONAL_SEQUENCE_RNN", [x, *rnn_weights(rng, mb, "", units, 4), h], [y],
              time_major=False, fused_activation_function="TANH")
    mb.add_output(y)
    check_runs(mb.build(), rnn_harness.seq_runs(rng, shape, 2))


@pytest.mark.parametrize("variant", ["basic", "projection_bias", "rnn"])
def test_per_step_launches(cl_ready, rng, monkeypatch, variant):
    """Cells wider than the device's work-group run a launch sequence per time step."""
    from onert_py.backends.acl_cl.ops.recurrent import ClRecurrent
    monkeypatch.setattr(ClRecurrent, "max_group", 0)
    shape = (3, 2, 4)
    if variant == "rnn":
        model = seq_rnn_model(rng, rnn_weights, shape, True, "TANH")
    else:
        model = Lstm(rng, 4, 5, **VARIANTS[variant]).sequence(
            shape, time_major=True, fused_activation_function="TANH")
    check_runs(model, rnn_harness.seq_runs(rng, shape, 2))


def test_reset_state_restores_initial_state(cl_ready, rng):
    """Needs core/backend/state.py to reset device-side variables (ClTensor.reset_variable)."""
    cell = Lstm(rng, 3, 4, peephole=True)
    model = cell.sequence((3, 2, 3), time_major=True, fused_activation_function="TANH")
    check_runs(model, rnn_harness.seq_runs(rng, (3, 2, 3), 2), reset=True)


def test_non_variable_state_is_read_not_written(cl_ready, rng):
    """A state input that is a constant (not a variable) starts every run afresh (TFLite
    refuses this form; the cpu backend is the reference)."""
    mb = ModelBuilder()
    x = mb.add_input("x", (2, 3))
    w = rnn_weights(rng, mb, "", 4, 3)
    h = mb.add_const("h0", rng.uniform(-1, 1, (2, 4)).astype(np.float32))
    y = mb.add_tensor("y", (2, 4))
    mb.add_op("RNN", [x, *w, h], [y], fused_activation_function="TANH")
    mb.add_output(y)
    model = mb.build()
    xs = [rng.uniform(-1, 1, (2, 3)).astype(np.float32)]
    first, second = run_all(model, [xs, xs])
    with onert_py.Session(model, backends="cpu") as s:
        np.testing.assert_allclose(first[0], s.run(xs)[0], **ACCUMULATE)
    np.testing.assert_array_equal(first[0], second[0])


def test_refusals_name_the_reason(cl_ready, rng):
    mb = ModelBuilder()
    x = mb.add_input("x", (2, 3))
    wx = mb.add_input("wx", (4, 3))          # computed weights
    wh, b = rnn_weights(rng, mb, "", 4, 3)[1:]
    h = mb.add_tensor("h", (2, 4), is_variable=True)
    y = mb.add_tensor("y", (2, 4))
    mb.add_op("RNN", [x, wx, wh, b, h], [y], fused_activation_function="TANH")
    mb.add_output(y)
    with pytest.raises(onert_py.CompileError, match="constant weights"):
        onert_py.Session(mb.build(), backends="acl_cl")
    bidi = Lstm(rng, 3, 4).bidirectional((2, 2, 3), True, time_major=True,
                                         fused_activation_function="TANH")
    with pytest.raises(onert_py.CompileError, match="BidirectionalSequenceLSTM"):
        onert_py.Session(bidi, backends="acl_cl")
