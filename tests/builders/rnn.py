"""Recurrent models with random float32 weights: the LSTM family (single step, sequence,
bidirectional; CIFG, peephole, projection, layer norm) and the RNN family, whose weight slots
a callable fills (float here, int8 in the hybrid tests)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from onert_py.model_builder import ModelBuilder


class Lstm:
    """Builds LSTM-family models with random weights."""

    def __init__(self, rng, n_input: int, n_cell: int, n_output: int | None = None,
                 cifg=False, peephole=False, projection=False, proj_bias=False,
                 layer_norm=False, scale=0.5):
        self.rng, self.ni, self.nc = rng, n_input, n_cell
        self.no = n_output if projection else n_cell
        self.cifg, self.peep, self.proj, self.pbias, self.ln = (cifg, peephole, projection,
                                                                proj_bias, layer_norm)
        self.scale = scale

    def w(self, mb, name, shape):
        """A weight matrix or peephole vector (float here; int8 in test_ops_hybrid_rnn)."""
        return self.bias(mb, name, shape)

    def bias(self, mb, name, shape):
        return mb.add_const(name, self.rng.uniform(-self.scale, self.scale, shape)
                            .astype(np.float32))

    def slots(self, mb, p: str, n_input: int | None = None) -> list[int]:
        """Slots 1-17 of one direction (index 0 of the list unused)."""
        ni, nc, no = n_input or self.ni, self.nc, self.no
        s = [-1] * 18
        for k, g in enumerate("ifco"):
            if g == "i" and self.cifg:
                continue
            s[1 + k] = self.w(mb, f"{p}x_{g}", (nc, ni))
            s[5 + k] = self.w(mb, f"{p}h_{g}", (nc, no))
            s[12 + k] = self.bias(mb, f"{p}b_{g}", (nc,))
        if self.peep:
            for k, g in enumerate("ifo"):
                if not (g == "i" and self.cifg):
                    s[9 + k] = self.w(mb, f"{p}peep_{g}", (nc,))
        if self.proj:
            s[16] = self.w(mb, f"{p}proj", (no, nc))
            if self.pbias:
                s[17] = self.bias(mb, f"{p}proj_b", (no,))
        return s

    def ln_slots(self, mb) -> list[int]:
        if not self.ln:
            return [-1] * 4
        return [-1 if (g == "i" and self.cifg) else
                mb.add_const(f"ln_{g}", self.rng.uniform(0.5, 1.5, (self.nc,)).astype(np.float32))
                for g in "ifco"]

    def state(self, mb, name, batch, n):
        return mb.add_tensor(name, (batch, n), is_variable=True)

    def single(self, batch: int, layer_norm_inputs: bool = True, **opts) -> bytes:
        mb = ModelBuilder()
        x = mb.add_input("x", (batch, self.ni))
        s = self.slots(mb, "")
        h = self.state(mb, "h", batch, self.no)
        c = self.state(mb, "c", batch, self.nc)
        ins = [x, *s[1:], h, c] + (self.ln_slots(mb) if layer_norm_inputs else [])
        y = mb.add_tensor("y", (batch, self.no))
        mb.add_op("LSTM", ins, [y], **opts)
        mb.add_output(y)
        return mb.build()

    def sequence(self, shape: tuple, **opts) -> bytes:
        mb = ModelBuilder()
        x = mb.add_input("x", shape)
        batch = shape[1] if opts.get("time_major") else shape[0]
        s = self.slots(mb, "")
        h = self.state(mb, "h", batch, self.no)
        c = self.state(mb, "c", batch, self.nc)
        y = mb.add_tensor("y", shape[:2] + (self.no,))
        mb.add_op("UNIDIRECTIONAL_SEQUENCE_LSTM", [x, *s[1:], h, c, *self.ln_slots(mb)], [y],
                  **opts)
        mb.add_output(y)
        return mb.build()

    def bidirectional(self, shape: tuple, merge: bool, aux: str = "none", **opts) -> bytes:
        """aux: "none", "cross" (aux input feeds the backward direction) or "weights"."""
        mb = ModelBuilder()
        x = mb.add_input("x", shape)
        a = mb.add_input("aux", shape[:2] + (3,)) if aux != "none" else -1
        batch = shape[1] if opts.get("time_major", True) else shape[0]
        fw = self.slots(mb, "fw_")
        bw = self.slots(mb, "bw_", 3 if aux == "cross" else None)
        states = [self.state(mb, f"s{k}", batch, n)
                  for k, n in enumerate((self.no, self.nc, self.no, self.nc))]
        aux_w = [-1] * 8
        if aux == "weights":
            aux_w = [-1 if (g == "i" and self.cifg) else self.w(mb, f"{d}aux_{g}", (self.nc, 3))
                     for d in "fb" for g in "ifco"]
        ins = [x, *fw[1:], *bw[1:], *states, a, *aux_w]
        outs = shape[:2] + (2 * self.no,) if merge else shape[:2] + (self.no,)
        ys = [mb.add_tensor(f"y{k}", outs) for k in range(1 if merge else 2)]
        mb.add_op("BIDIRECTIONAL_SEQUENCE_LSTM", ins, ys, merge_outputs=merge, **opts)
        for y in ys:
            mb.add_output(y)
        return mb.build()


VARIANTS = {
    "basic": {},
    "cifg": {"cifg": True},
    "peephole": {"peephole": True},
    "cifg_peephole": {"cifg": True, "peephole": True},
    "projection": {"projection": True, "n_output": 3},
    "projection_bias": {"projection": True, "proj_bias": True, "n_output": 6},
    "layer_norm": {"layer_norm": True},
    "layer_norm_cifg_peephole_proj": {"layer_norm": True, "cifg": True, "peephole": True,
                                      "projection": True, "proj_bias": True, "n_output": 4},
}


# ---- RNN family and SVDF ---------------------------------------------------------------------
def rnn_weights(rng, mb, p, units, n_input):
    return [mb.add_const(f"{p}{n}", rng.uniform(-0.6, 0.6, shape).astype(np.float32))
            for n, shape in (("w", (units, n_input)), ("r", (units, units)), ("b", (units,)))]


Slots = Callable[..., list]     # (rng, builder, name prefix, units, n_input) -> [w, r, bias]


def rnn_model(rng, slots: Slots, act: str, **options) -> bytes:
    """RNN over a (2, 3) input with 5 units and a variable state; weights from `slots`."""
    mb = ModelBuilder()
    x = mb.add_input("x", (2, 3))
    h = mb.add_tensor("h", (2, 5), is_variable=True)
    y = mb.add_tensor("y", (2, 5))
    mb.add_op("RNN", [x, *slots(rng, mb, "", 5, 3), h], [y], fused_activation_function=act,
              **options)
    mb.add_output(y)
    return mb.build()


def seq_rnn_model(rng, slots: Slots, shape, time_major: bool, act: str, **options) -> bytes:
    """UNIDIRECTIONAL_SEQUENCE_RNN over `shape` with 5 units and a variable state."""
    batch = shape[1] if time_major else shape[0]
    mb = ModelBuilder()
    x = mb.add_input("x", shape)
    h = mb.add_tensor("h", (batch, 5), is_variable=True)
    y = mb.add_tensor("y", tuple(shape[:2]) + (5,))
    mb.add_op("UNIDIRECTIONAL_SEQUENCE_RNN", [x, *slots(rng, mb, "", 5, shape[2]), h], [y],
              time_major=time_major, fused_activation_function=act, **options)
    mb.add_output(y)
    return mb.build()
