"""Fully integer LSTM (TFLite's 8x8_16 form) against the TFLite interpreter, bit-exact:
UNIDIRECTIONAL_SEQUENCE_LSTM and LSTM with int8 input/output and output state, int16 cell state
(both variable tensors), int8 weights, int32 biases, int16 peephole weights and layer-norm
coefficients, and 5 intermediates carrying the gate scales and the hidden scale/zero point.

Each test runs one session three times (the state carried over) and compares every run with
consecutive invocations of one interpreter, then resets the state and checks the first run again.
"""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
import onert_py.backends.cpu.ops.quant.qlstm  # noqa: F401  (registers the kernels)
from onert_py.model_builder import ModelBuilder
from builders.quant import qdict
from op_harness import with_fallback
from rnn_harness import check_int_stateful, int8_runs


class IntLstm:
    """Builds integer LSTM models with random int8 weights. Scales are chosen so that gate
    pre-activations spread over a few units (sigmoid/tanh neither flat nor saturated)."""

    def __init__(self, rng, n_input, n_cell, n_output=None, cifg=False, peephole=False,
                 layer_norm=False, projection=False, proj_bias=False, cell_scale=-11,
                 sx=0.05, zx=-3, s_out=1.0 / 128, z_out=2, s_hidden=1.0 / 128, z_hidden=0,
                 gate_spread=1.5):
        self.rng, self.ni, self.nc = rng, n_input, n_cell
        self.no = n_output if projection else n_cell
        self.cifg, self.peep, self.ln, self.proj, self.pbias = (cifg, peephole, layer_norm,
                                                                projection, proj_bias)
        self.cell_scale, self.sx, self.zx = cell_scale, sx, zx
        if not projection:            # the output is the hidden state itself
            s_out, z_out = s_hidden, z_hidden
        self.s_out, self.z_out, self.s_hidden, self.z_hidden = s_out, z_out, s_hidden, z_hidden
        self.sw = gate_spread / (sx * 5400.0 * np.sqrt(n_input))
        self.sr = gate_spread / (s_out * 5400.0 * np.sqrt(self.no))

    def i8(self, mb, name, shape, scale):
        return mb.add_const(name, self.rng.integers(-127, 128, shape).astype(np.int8),
                            quant=qdict(scale, 0))

    def inputs(self, mb, x, batch) -> tuple[list[int], list[int]]:
        """The 24 input slots (after x) and the 5 intermediates."""
        nc, rng = self.nc, self.rng
        s = [x] + [-1] * 23
        gate_scale = [2.0 ** -12] * 4
        if self.ln:
            gate_scale = [float(v) for v in rng.uniform(0.6, 1.6, 4) * 2.0 ** -12]
        for k, g in enumerate("ifco"):
            if g == "i" and self.cifg:
                continue
            s[1 + k] = self.i8(mb, f"x_{g}", (nc, self.ni), self.sw)
            s[5 + k] = self.i8(mb, f"h_{g}", (nc, self.no), self.sr)
            if self.ln:
                ln_scale = 2.0 ** -10 * float(rng.uniform(0.8, 1.2))
                s[20 + k] = mb.add_const(f"ln_{g}", rng.integers(600, 1500, nc).astype(np.int16),
                                         quant=qdict(ln_scale, 0))
                bias = rng.integers(-300, 300, nc) * 4
                s[12 + k] = mb.add_const(f"b_{g}", bias.astype(np.int32),
                                         quant=qdict(ln_scale * 2.0 ** -10, 0))
            else:
                bias = rng.integers(-3000, 3000, nc)
                s[12 + k] = mb.add_const(f"b_{g}", bias.astype(np.int32),
                                         quant=qdict(self.sx * self.sw, 0))
        if self.peep:
            for k, g in enumerate("ifo"):
                if not (g == "i" and self.cifg):
                    s[9 + k] = mb.add_const(f"peep_{g}", rng.integers(-20000, 20000, nc)
                                            .astype(np.int16), quant=qdict(2.0 ** -16, 0))
        if self.proj:
            s[16] = self.i8(mb, "proj", (self.no, nc),
                            1.2 / (self.s_hidden * 5400.0 * np.sqrt(nc)) * self.s_out * 40)
            if self.pbias:
                s[17] = mb.add_const("proj_b", rng.integers(-2000, 2000, self.no).astype(np.int32),
                                     quant=qdict(1e-5, 0))
        s[18] = mb.add_tensor("h_state", (batch, self.no), "int8",
                              quant=qdict(self.s_out, self.z_out), is_variable=True)
        s[19] = mb.add_tensor("c_state", (batch, nc), "int16",
                              quant=qdict(2.0 ** self.cell_scale, 0), is_variable=True)
        inter = [mb.add_tensor(f"gate_{g}", (1,), "int16", quant=qdict(sc, 0))
                 for g, sc in zip("ifco", gate_scale)]
        inter.append(mb.add_tensor("hidden", (1,), "int8",
                                   quant=qdict(self.s_hidden, self.z_hidden)))
        return s[1:], inter

    def sequence(self, shape, time_major=False, **opts) -> bytes:
        mb = ModelBuilder()
        x = mb.add_input("x", shape, "int8", quant=qdict(self.sx, self.zx))
        batch = shape[1] if time_major else shape[0]
        s, inter = self.inputs(mb, x, batch)
        y = mb.add_tensor("y", tuple(shape[:2]) + (self.no,), "int8",
                          quant=qdict(self.s_out, self.z_out))
        mb.add_op("UNIDIRECTIONAL_SEQUENCE_LSTM", [x, *s], [y], intermediates=inter,
                  time_major=time_major, fused_activation_function="TANH", **opts)
        mb.add_output(y)
        return mb.build()

    def single(self, batch, **opts) -> bytes:
        mb = ModelBuilder()
        x = mb.add_input("x", (batch, self.ni), "int8", quant=qdict(self.sx, self.zx))
        s, inter = self.inputs(mb, x, batch)
        y = mb.add_tensor("y", (batch, self.no), "int8", quant=qdict(self.s_out, self.z_out))
        mb.add_op("LSTM", [x, *s], [y], intermediates=inter, fused_activation_function="TANH",
                  **opts)
        mb.add_output(y)
        return mb.build()


# output-state zero point 0 throughout (see test_nonzero_output_state_zero_point); the hidden
# zero point (intermediate 4) is exercised where a projection follows it
VARIANTS = {
    "basic": {},
    "cifg": {"cifg": True},
    "peephole": {"peephole": True},
    "layer_norm": {"layer_norm": True},
    "projection": {"projection": True, "n_output": 3},
    "projection_bias_hidden_zp": {"projection": True, "proj_bias": True, "n_output": 5,
                                  "z_hidden": 5},
    "peephole_projection": {"peephole": True, "projection": True, "n_output": 4},
    "all": {"layer_norm": True, "cifg": True, "peephole": True, "projection": True,
            "proj_bias": True, "n_output": 4, "z_hidden": -4},
    "layer_norm_peephole_scale_13": {"layer_norm": True, "peephole": True, "cell_scale": -13},
}


def cell_for(rng, n_input, n_cell, variant):
    opts = {"z_out": 0, **VARIANTS[variant]}
    return IntLstm(rng, n_input, n_cell, **opts)


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_unidirectional_sequence_lstm_int8(backend, variant, time_major):
    """Peephole with a projection (n_output < n_cell) covers TFLite's use of n_output as the
    peephole vector size, which differs between time-major (one flat span over the batch)
    and batch-major (row by row) sequences."""
    rng = np.random.default_rng(sorted(VARIANTS).index(variant) * 2 + time_major)
    cell = cell_for(rng, 5, 6, variant)
    shape = (4, 3, 5) if time_major else (3, 4, 5)
    model = cell.sequence(shape, time_major=time_major)
    check_int_stateful(model, int8_runs(rng, shape), "QUnidirectionalSequenceLstmLayer",
                       backends=backend)


@pytest.mark.parametrize("variant", ["basic", "cifg", "layer_norm", "peephole_projection",
                                     "all"])
def test_lstm_int8(backend, variant):
    rng = np.random.default_rng(100 + sorted(VARIANTS).index(variant))
    cell = cell_for(rng, 7, 8, variant)
    model = cell.single(3)
    check_int_stateful(model, int8_runs(rng, (3, 7)), "QLstmLayer", backends=backend)


@pytest.mark.parametrize("projection", [False, True])
def test_unidirectional_sequence_lstm_int8_clips(backend, projection):
    """cell_clip and proj_clip, quantized by truncation as TFLite's Prepare does."""
    rng = np.random.default_rng(7 + projection)
    extra = {"projection": True, "n_output": 4} if projection else {}
    cell = IntLstm(rng, 6, 8, z_out=0, gate_spread=3.0, **extra)
    model = cell.sequence((2, 5, 6), cell_clip=0.37, proj_clip=0.13 if projection else 0.0)
    check_int_stateful(model, int8_runs(rng, (2, 5, 6)), "QUnidirectionalSequenceLstmLayer",
                       backends=backend)


def test_unidirectional_sequence_lstm_int8_larger(backend):
    """Wider layers (float32 BLAS accumulation stays exact) with layer norm and projection."""
    rng = np.random.default_rng(11)
    cell = IntLstm(rng, 40, 32, n_output=24, layer_norm=True, projection=True, proj_bias=True,
                   z_out=0, z_hidden=3)
    model = cell.sequence((6, 2, 40), time_major=True)
    check_int_stateful(model, int8_runs(rng, (6, 2, 40)), "QUnidirectionalSequenceLstmLayer",
                       backends=backend)


def test_nonzero_output_state_zero_point(backend):
    """TFLite starts (and resets) int8 variable tensors at their zero point."""
    rng = np.random.default_rng(3)
    cell = IntLstm(rng, 5, 6, z_hidden=3)
    model = cell.sequence((2, 4, 5))
    check_int_stateful(model, int8_runs(rng, (2, 4, 5)), "QUnidirectionalSequenceLstmLayer",
                       backends=backend)


def refusing_model(cell_scale=-11, n_inter=5) -> bytes:
    """A model onert_py must refuse: a cell scale outside 2^-15..2^-9, or 12 intermediates."""
    cell = IntLstm(np.random.default_rng(0), 3, 4, z_out=0, cell_scale=cell_scale)
    mb = ModelBuilder()
    x = mb.add_input("x", (2, 3), "int8", quant=qdict(cell.sx, cell.zx))
    s, inter = cell.inputs(mb, x, 2)
    inter += [mb.add_tensor(f"extra{k}", (1,), "int8", quant=qdict(0.01, 0))
              for k in range(n_inter - 5)]
    y = mb.add_tensor("y", (2, 4), "int8", quant=qdict(cell.s_out, cell.z_out))
    mb.add_op("LSTM", [x, *s], [y], intermediates=inter)
    mb.add_output(y)
    return mb.build()


@pytest.mark.parametrize("kwargs,match", [
    ({"cell_scale": -7}, "cell state scale"),
    ({"n_inter": 12}, "8x8_8"),
])
def test_int8_lstm_refusals(backend, kwargs, match):
    with pytest.raises(Exception, match=match):
        onert_py.Session(refusing_model(**kwargs), backends=with_fallback(backend))
