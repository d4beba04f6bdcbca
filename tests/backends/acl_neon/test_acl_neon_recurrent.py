"""acl_neon's recurrent kernels (native group `recurrent` + the gemm group's input projection)
against the TFLite interpreter: LSTM / UNIDIRECTIONAL_SEQUENCE_LSTM (CIFG, peephole, projection,
clips, activations), RNN / UNIDIRECTIONAL_SEQUENCE_RNN, at every ISA level, threads 1 and 2,
odd sizes. The state tensors are variables: each check runs a session several times and compares
every run with consecutive invocations of one interpreter, after a reset at each ISA level."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders.rnn import rnn_weights
from builders.shared_models import model_path
from onert_py.backends.acl_neon import native
from onert_py.model_builder import ModelBuilder
from op_harness import ACCUMULATE, assert_outputs, backend_or_skip
from rnn_harness import kernel_names, seq_runs, tflite_runs


@pytest.fixture(scope="module", autouse=True)
def neon_ready():
    backend_or_skip("acl_neon")
    for group in ("recurrent", "gemm"):
        ok, why = native.available(group)
        if not ok:
            pytest.skip(why)


def check_neon(model: bytes, runs, kernel: str, threads: int) -> None:
    """Every ISA level: after a reset, runs 1..n match the interpreter; `kernel` ran."""
    expected = tflite_runs(model, runs)
    assert not all(np.allclose(a, b) for a, b in zip(expected[0], expected[1]))
    sess = onert_py.Session(model, backends="acl_neon;cpu", config={"num_threads": threads})
    assert f"acl_neon.{kernel}" in kernel_names(sess), sorted(kernel_names(sess))
    levels = native.available_isas()
    try:
        for level in levels:
            native.set_isa(level)
            sess.reset_state()
            for k, (xs, exp) in enumerate(zip(runs, expected)):
                got = [np.array(o, copy=True) for o in sess.run(xs)]
                assert_outputs(got, exp, **ACCUMULATE, label=f"{level} run {k}")
    finally:
        native.set_isa(levels[-1])
        sess.close()


def lstm_model(rng, op: str, shape, n_cell: int, n_output: int | None = None, cifg=False,
               peephole=False, proj_bias=False, layer_norm=False, **opts) -> bytes:
    """An LSTM-family model with random constant weights and variable states; projection when
    n_output is given. `shape`: (batch, n_input) for LSTM, else the sequence's."""
    mb = ModelBuilder()
    proj = n_output is not None
    no, nc, ni = (n_output if proj else n_cell), n_cell, shape[-1]
    batch = shape[0] if op == "LSTM" or not opts.get("time_major", True) else shape[1]

    def w(name, dims, lo=-0.6, hi=0.6):
        return mb.add_const(name, rng.uniform(lo, hi, dims).astype(np.float32))
    x = mb.add_input("x", shape)
    s = [-1] * 24
    for k, g in enumerate("ifco"):
        if g == "i" and cifg:
            continue
        s[1 + k], s[5 + k], s[12 + k] = w(f"x{g}", (nc, ni)), w(f"h{g}", (nc, no)), w(g, (nc,))
        if layer_norm:
            s[20 + k] = w(f"ln{g}", (nc,), 0.5, 1.5)
    if peephole:
        for k, g in enumerate("ifo"):
            if not (g == "i" and cifg):
                s[9 + k] = w(f"p{g}", (nc,))
    if proj:
        s[16] = w("proj", (no, nc))
        if proj_bias:
            s[17] = w("proj_b", (no,))
    s[18] = mb.add_tensor("h", (batch, no), is_variable=True)
    s[19] = mb.add_tensor("c", (batch, nc), is_variable=True)
    y = mb.add_tensor("y", tuple(shape[:-1]) + (no,))
    mb.add_op(op, [x, *s[1:]], [y], **opts)
    mb.add_output(y)
    return mb.build()


def rnn_model(rng, op: str, shape, units: int, act: str, **opts) -> bytes:
    mb = ModelBuilder()
    batch = shape[0] if op == "RNN" or not opts.get("time_major", True) else shape[1]
    x = mb.add_input("x", shape)
    ws = rnn_weights(rng, mb, "", units, shape[-1])
    h = mb.add_tensor("h", (batch, units), is_variable=True)
    y = mb.add_tensor("y", tuple(shape[:-1]) + (units,))
    mb.add_op(op, [x, *ws, h], [y], fused_activation_function=act, **opts)
    mb.add_output(y)
    return mb.build()


SEQ = "UNIDIRECTIONAL_SEQUENCE_LSTM"
LSTM_CASES = {
    "basic_time_major": dict(n_cell=19, time_major=True, fused_activation_function="TANH"),
    "basic_batch_major": dict(n_cell=19, time_major=False, fused_activation_function="TANH"),
    "cifg_peephole_clip": dict(n_cell=37, cifg=True, peephole=True, cell_clip=0.4,
                               time_major=True, fused_activation_function="TANH"),
    "projection_bias_clip": dict(n_cell=21, n_output=11, proj_bias=True, peephole=True,
                                 proj_clip=0.3, time_major=False,
                                 fused_activation_function="RELU"),
    "projection_act_none": dict(n_cell=8, n_output=3, time_major=True,
                                fused_activation_function="NONE"),
    "relu6": dict(n_cell=70, time_major=True, fused_activation_function="RELU6"),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", list(LSTM_CASES))
def test_sequence_lstm(rng, case, threads):
    opts = dict(LSTM_CASES[case])
    shape = (4, 3, 5)
    check_neon(lstm_model(rng, SEQ, shape, **opts), seq_runs(rng, shape, 2),
               "UnidirectionalSequenceLstmLayer", threads)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("variant", [dict(), dict(cifg=True, peephole=True, n_output=6,
                                                  proj_bias=True)])
def test_lstm_single_step(rng, variant, threads):
    shape = (3, 7)
    model = lstm_model(rng, "LSTM", shape, 9, fused_activation_function="TANH", cell_clip=2.0,
                       **variant)
    check_neon(model, seq_runs(rng, shape, 3), "LstmLayer", threads)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("act", ["TANH", "RELU", "NONE", "RELU_N1_TO_1"])
def test_rnn(rng, act, threads):
    shape = (3, 6)
    check_neon(rnn_model(rng, "RNN", shape, 23, act), seq_runs(rng, shape, 3), "RnnLayer",
               threads)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("time_major", [False, True])
def test_sequence_rnn(rng, time_major, threads):
    shape = (5, 3, 4)
    model = rnn_model(rng, "UNIDIRECTIONAL_SEQUENCE_RNN", shape, 17, "TANH",
                      time_major=time_major)
    check_neon(model, seq_runs(rng, shape, 2), "UnidirectionalSequenceRnnLayer", threads)


def test_layer_norm_lstm_stays_on_cpu(rng):
    shape = (2, 3, 4)
    model = lstm_model(rng, SEQ, shape, 5, layer_norm=True, time_major=True,
                       fused_activation_function="TANH")
    sess = onert_py.Session(model, backends="acl_neon;cpu")
    assert "acl_neon LSTM has no layer-norm form" in sess.explain()
    runs = seq_runs(rng, shape, 2)
    for xs, exp in zip(runs, tflite_runs(model, runs)):
        assert_outputs([np.array(o, copy=True) for o in sess.run(xs)], exp, **ACCUMULATE)


def test_lstm_text_fused_on_acl_neon():
    with open(model_path("lstm_text_fused"), "rb") as f:
        model = f.read()
    sess = onert_py.Session(model, backends="acl_neon;cpu")
    assert "acl_neon.UnidirectionalSequenceLstmLayer" in kernel_names(sess)
    info = sess.inputs[0]
    rng = np.random.default_rng(1)
    runs = [[rng.integers(0, 32, info.shape).astype(info.dtype)] for _ in range(2)]
    for k, (xs, exp) in enumerate(zip(runs, tflite_runs(model, runs))):
        assert_outputs([np.array(o, copy=True) for o in sess.run(xs)], exp, **ACCUMULATE,
                       label=f"run {k}")
