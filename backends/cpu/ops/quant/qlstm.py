"""LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM, fully integer (TFLite's 8x8_16 form): int8 input,
output and output state, int16 cell state (variable tensors), int8 input/recurrent/projection
weights, int16 peephole weights and layer-norm coefficients, int32 biases, and 5 intermediates
(the 4 gates' int16 scales, used with layer norm only, and the hidden state's int8 scale/zp).

Matches lstm_eval.cc EvalInteger8x8_16 / LstmStepInteger8x8_16 as the interpreter runs it on x86:
every tensor_utils call of that path is the portable (reference) code there.
  * Prepare: see core/ops/lstm.py (tensor types, IntLstmParams: effective scales, clips);
    effective biases (load() here) = gate bias (without layer norm) + (-input zp) * weight row
    sums, (-output state zp) * recurrent row sums, and projection bias + (-hidden zp) *
    projection row sums, all int32 (wrapping).
  * Gate: int32 acc = effective bias + int8 dot product; MultiplyByQuantizedMultiplier (the
    scalar reference rounding: halves away from zero); the input part saturated to int16, then
    the recurrent part added and saturated again; peephole: int16 weight * cell state rescaled
    and added with saturation (over n_batch * n_output elements of the flat buffers, as TFLite
    passes n_output as the vector size); layer norm (PortableApplyLayerNorm, bias applied there);
    sigmoid (Q3.12 -> Q0.15) or, for the cell gate, tanh of Q3.12 (gemmlowp int16 FixedPoint).
  * Cell: f * c >> 15 and i * g >> (30 + cell scale) (RoundingDivideByPOT, int16 wrap), CIFG
    uses 32767 - f for i; saturating int16 add; optional clip.
  * Hidden: tanh(cell) with 15 + cell scale integer bits, times o, rescaled by 2^-30 / hidden
    scale, plus the hidden zero point, clamped to int8; then the projection (+ output state zp,
    clamp, optional clip) or the hidden values as they are.
The state starts from the variable tensors as the session holds them: TFLite resets an int8
variable tensor to its zero point, so outputs agree with a nonzero output-state zero point only
once the session does the same.
The fused activation option is ignored (the integer kernel always uses tanh), as in TFLite.
Batch-major sequences run batch by batch (n_batch = 1), which matters only for the peephole
span. The 8x8_8 form (12 intermediates) is refused.
The float form: backends/cpu/ops/lstm.py; the hybrid form: backends/cpu/ops/hybrid_lstm.py."""
from __future__ import annotations

import numpy as np

from .....core.ops.lstm import GATES, QLstmBase, QUnidirectionalSequenceLstmBase
from .....core.quant.qfixed import sigmoid16, tanh16, wrap16
from .....core.quant.qlstm_math import clip16, int_matmul, layer_norm, mbqm, rdbp, wrap32
from .base import I8, I16, quantized, register

I64 = np.int64


@register("LSTM", when=quantized)
class QLstmLayer(QLstmBase):
    """One integer LSTM step: input (batch, n_input) -> output (batch, n_output)."""

    def load(self):
        """Weights gathered per gate kind, and the effective biases (int64 arrays)."""
        p = self.p

        def arr(i):
            return np.asarray(self.buf(i)).astype(I64)

        w_in, w_rec, b_in, b_rec = [], [], [], []
        for g in self.gates:
            n = GATES.index(g)
            wi, wr = arr(1 + n), arr(5 + n)
            bias = np.zeros(self.nc, I64) if self.layer_norm else arr(12 + n)
            w_in.append(wi)
            w_rec.append(wr)
            b_in.append(wrap32(bias + wrap32(wi.sum(axis=1) * -p.input_zp)))
            b_rec.append(wrap32(wr.sum(axis=1) * -p.state_zp))
        w = {"in": np.ascontiguousarray(np.concatenate(w_in).T),
             "rec": np.ascontiguousarray(np.concatenate(w_rec).T),
             "b_in": np.concatenate(b_in), "b_rec": np.concatenate(b_rec)}
        w["peep"] = {g: arr(9 + "ifo".index(g)) for g in p.peep}
        w["ln"] = {g: (arr(20 + GATES.index(g)), arr(12 + GATES.index(g))) for g in p.ln}
        if self.projection:
            wp = arr(16)
            pb = np.zeros(self.no, I64) if self.slot(17) is None else arr(17)
            w["proj"] = np.ascontiguousarray(wp.T)
            w["b_proj"] = wrap32(pb + wrap32(wp.sum(axis=1) * -p.hidden_zp))
        return w

    def multipliers(self, table) -> tuple[np.ndarray, np.ndarray]:
        """Per-column (a, b) arrays over the concatenated gates."""
        a = np.repeat([table[g][0] for g in self.gates], self.nc).astype(I64)
        b = np.repeat([table[g][1] for g in self.gates], self.nc).astype(I64)
        return a, b

    def prepare(self) -> None:
        super().prepare()
        self.m_in = self.multipliers(self.p.gate_in)
        self.m_rec = self.multipliers(self.p.gate_rec)

    def peephole_add(self, gate: np.ndarray, g: str, c: np.ndarray, w) -> np.ndarray:
        """VectorBatchVectorCwiseProductAccumulate with vector size n_output over the flat
        (batch, n_cell) buffers (per batch row when the sequence runs batch by batch)."""
        a, b = self.p.peep[g]
        weights = w["peep"][g][:self.no]
        if self.batch_major:
            out = gate.copy()
            prod = mbqm(c[:, :self.no] * weights, a, b)
            out[:, :self.no] = clip16(prod + gate[:, :self.no])
            return out
        flat, cflat = gate.reshape(-1).copy(), c.reshape(-1)
        span = gate.shape[0] * self.no
        prod = mbqm(cflat[:span] * np.tile(weights, gate.shape[0]), a, b)
        flat[:span] = clip16(prod + flat[:span])
        return flat.reshape(gate.shape)

    def activate(self, pre: np.ndarray, g: str, c: np.ndarray, w) -> np.ndarray:
        if g in self.p.peep:
            pre = self.peephole_add(pre, g, c, w)
        if g in self.p.ln:
            coef, bias = w["ln"][g]
            pre = layer_norm(pre, coef, bias, *self.p.ln[g])
        return tanh16(pre, 3) if g == "c" else sigmoid16(pre)

    def sequence(self, x: np.ndarray) -> np.ndarray:
        """Run over x (time, batch, n_input) int8; update the state; return the int8 outputs."""
        w = self.weights if self.weights is not None else self.load()
        p, nc = self.p, self.nc
        steps, batch = x.shape[:2]
        h = np.asarray(self.state(18)).reshape(batch, self.no).astype(I64)
        c = np.asarray(self.state(19)).reshape(batch, nc).astype(I64)
        xin = x.reshape(steps * batch, self.ni).astype(I64)
        acc = wrap32(int_matmul(xin, w["in"], float(self.ni) * 128 * 128) + w["b_in"])
        gin = clip16(mbqm(acc, *self.m_in)).reshape(steps, batch, -1)
        out = np.empty((steps, batch, self.no), I64)
        hid_a, hid_b = p.hidden
        for t in range(steps):
            acc = wrap32(int_matmul(h, w["rec"], float(self.no) * 128 * 256) + w["b_rec"])
            pre = clip16(mbqm(acc, *self.m_rec) + gin[t])
            cols = {g: pre[:, k * nc:(k + 1) * nc] for k, g in enumerate(self.gates)}
            f = self.activate(cols["f"], "f", c, w)
            gg = self.activate(cols["c"], "c", c, w)
            i = wrap16(32767 - f) if self.cifg else self.activate(cols["i"], "i", c, w)
            c = clip16(wrap16(rdbp(f * c, 15)) + wrap16(rdbp(i * gg, 30 + p.cell_scale)))
            if p.cell_clip > 0:
                c = np.clip(c, -p.cell_clip, p.cell_clip)
            o = self.activate(cols["o"], "o", c, w)
            hidden = mbqm(o * tanh16(c, 15 + p.cell_scale), hid_a, hid_b) + p.hidden_zp
            hidden = np.clip(hidden, -128, 127)
            if self.projection:
                acc = wrap32(int_matmul(hidden, w["proj"], float(nc) * 128 * 128) + w["b_proj"])
                h = np.clip(mbqm(acc, *p.proj) + p.state_zp, -128, 127)
                if p.proj_clip > 0:
                    h = np.clip(h, -p.proj_clip, p.proj_clip)
            else:
                h = hidden
            out[t] = h
        self.save(18, h.astype(I8))
        self.save(19, c.astype(I16))
        return out

    def run(self) -> None:
        np.copyto(self.out, self.sequence(np.asarray(self.buf(0))[None])[0], casting="unsafe")


@register("UnidirectionalSequenceLSTM", when=quantized)
class QUnidirectionalSequenceLstmLayer(QLstmLayer, QUnidirectionalSequenceLstmBase):
    """An integer LSTM over a sequence (time-major, or batch-major run batch by batch)."""

    def run(self) -> None:
        np.copyto(self.seq(self.out), self.sequence(self.seq(np.asarray(self.buf(0)))),
                  casting="unsafe")


__all__ = ["QLstmLayer", "QUnidirectionalSequenceLstmLayer"]
