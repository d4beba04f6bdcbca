"""Scale-dependent parameters of the fully integer LSTM, computed as TFLite's Prepare
(lstm.cc / unidirectional_sequence_lstm.cc PopulateQuantizedLstmParams8x8_16) computes them:
effective scales in float32 arithmetic (the power-of-two factors in double, as std::pow(2, int)
makes them), then QuantizeMultiplier; quantized clips truncated toward zero; layer-norm
variance guards max(1, int32(10000 * scale))."""
from __future__ import annotations

import numpy as np

from .....core.quant.qlstm_math import quantize_multiplier
from .....core.quant.qlut_math import checked_log2

F32 = np.float32
GATES = "ifco"


def fmul(a, b) -> np.float32:
    return F32(F32(a) * F32(b))


def fdiv(a, b) -> np.float32:
    return F32(F32(a) / F32(b))


class IntLstmParams:
    """Multipliers (a, b) per gate for the input and recurrent matmuls and the peepholes,
    layer-norm multipliers and guards, hidden and projection multipliers, clips."""

    def __init__(self, kernel, gates: str, layer_norm: bool, peephole: bool, projection: bool,
                 inter_quant: list) -> None:
        k = kernel
        sc = k.scale
        x, h_state, c_state, y = k.slot(0), k.slot(18), k.slot(19), k.outputs[0]
        inter = [F32(2.0 ** -12)] * 4
        if layer_norm:
            inter = [F32(q.scale[0]) for q in inter_quant[:4]]
        inter.append(F32(inter_quant[4].scale[0]))
        self.hidden_zp = int(inter_quant[4].zero_point[0])
        ok, cs = checked_log2(sc(c_state))
        if not ok:
            raise k.fail(f"integer LSTM needs a power-of-two cell state scale, got {sc(c_state)}")
        if not -15 <= cs <= -9:
            raise k.fail(f"integer LSTM cell state scale 2^{cs} is outside 2^-15 .. 2^-9 (TFLite "
                         "evaluates tanh of the cell state only there)")
        self.cell_scale = cs
        sx, sh = F32(sc(x)), F32(sc(h_state))
        self.gate_in, self.gate_rec, self.peep, self.ln = {}, {}, {}, {}
        for g in gates:
            n = GATES.index(g)
            gi = inter[n]
            self.gate_in[g] = quantize_multiplier(fdiv(fmul(sc(k.slot(1 + n)), sx), gi))
            self.gate_rec[g] = quantize_multiplier(fdiv(fmul(sc(k.slot(5 + n)), sh), gi))
            if peephole and g != "c":
                w = k.slot(9 + "ifo".index(g))
                self.peep[g] = quantize_multiplier(F32(2.0 ** cs * float(F32(sc(w)))
                                                       / float(gi)))
            if layer_norm:
                ln_scale = F32(sc(k.slot(20 + n)))
                a, b = quantize_multiplier(ln_scale)
                self.ln[g] = (a, b, max(1, int(fmul(10000, ln_scale))))
        self.hidden = quantize_multiplier(F32(2.0 ** -15 / float(inter[4]) * 2.0 ** -15))
        self.proj = None
        if projection:
            self.proj = quantize_multiplier(fdiv(fmul(sc(k.slot(16)), inter[4]), sh))
        p = k.op.params
        cell_clip, proj_clip = float(p.get("cell_clip", 0.0) or 0.0), \
            float(p.get("proj_clip", 0.0) or 0.0)
        self.cell_clip = 0
        if cell_clip > 0:
            self.cell_clip = int(np.clip(fdiv(cell_clip, sc(c_state)), -32768.0, 32767.0))
        self.proj_clip = 0
        if proj_clip > 0:
            v = int(np.clip(fdiv(proj_clip, sc(y)), -128.0, 127.0))
            self.proj_clip = ((v + 128) & 0xFF) - 128              # static_cast<int8_t>
        self.input_zp, self.state_zp = k.zero_point(x), k.zero_point(h_state)


__all__ = ["IntLstmParams"]
