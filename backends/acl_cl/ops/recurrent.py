"""LSTM, UnidirectionalSequenceLSTM, RNN and UnidirectionalSequenceRNN (float32, constant
weights) as OpenCL kernels (cl/recurrent.cl), one launch sequence per time step.

The op is checked by its core base class (core/ops/lstm.py, rnn.py) run as a "shadow" on host
views (validate(), then load() gathers the weights), so acl_cl accepts exactly the forms the
cpu kernel accepts. The state inputs are variable tensors: they have device buffers of their
own (ClContext), a run starts from their values and leaves the final state in them; a state
input that is not a variable is copied into a private buffer first and left unchanged, as the
cpu kernel does."""
from __future__ import annotations

import numpy as np

from ....core.ops.lstm import LstmBase, UnidirectionalSequenceLstmBase
from ....core.ops.recurrent import ACTIVATIONS
from ....core.ops.rnn import RnnBase, UnidirectionalSequenceRnnBase
from .common import F32, ClKernel, register
from .quant_common import host_shadow


class ClRecurrent(ClKernel):
    """Base: every tensor float32 (no hybrid int8 weights), weights constant, sequences of rank
    3 for the sequence forms. `base_class`: the op's core class, validated as the shadow."""

    base_class: type
    sequence = False

    @classmethod
    def check_params(cls, op, graph):
        for pos, i in enumerate(op.inputs):
            if pos != 0 and i >= 0 and pos not in cls.base_class.state_slots and \
                    not graph.operands[i].is_constant:
                return False, (f"acl_cl {op.type} needs constant weights (input {pos} is "
                               f"computed)")
        act = op.params.get("fused_activation_function", "NONE")
        if act not in ACTIVATIONS:
            return False, f"acl_cl {op.type} has no fused activation {act}"
        return True, ""

    def validate(self) -> None:
        self.shadow = host_shadow(self, self.base_class)
        self.code = ACTIVATIONS.index(self.shadow.act)      # recurrent.cl's code: the index
        x = self.inputs[0]
        want = 3 if self.sequence else 2
        if len(x.shape) != want:
            raise self.fail(f"input must have rank {want}, not {len(x.shape)}")

    def steps(self) -> tuple[int, int, int, int]:
        """(time steps, batch, row stride of a batch, element step between time steps) of the
        input, by time_major (sequence forms) or one step (single forms)."""
        x = self.inputs[0]
        if not self.sequence:
            return 1, x.shape[0], x.shape[1], 0
        d0, d1, ni = x.shape
        if self.op.params.get("time_major", True):      # (time, batch, n)
            return d0, d1, ni, d1 * ni
        return d1, d0, d1 * ni, ni                      # (batch, time, n)

    def state(self, slot: int):
        """The buffer the kernels update for state input `slot`: the variable tensor's own, or
        a private copy made at the start of each run."""
        t = self.inputs[slot]
        var = self.ctx.data.graph.operands[self.op.inputs[slot]].is_variable
        if var:
            return t.buffer
        buf = self.rt.buffer(t.nbytes)
        self.private.append(buf)
        self.copy(t.buffer, buf, t.nbytes)
        return buf

    max_group: int | None = None     # a lower work-group limit (tests: the per-step path)

    def group_limit(self, knl) -> int:
        """The largest work-group of `knl` on this device (the one-launch sequence kernels
        run a batch row per work-group; larger cells take a launch sequence per step)."""
        limit = knl.get_work_group_info(self.rt.cl.kernel_work_group_info.WORK_GROUP_SIZE,
                                        self.rt.dev)
        return limit if self.max_group is None else min(limit, self.max_group)

    def f32(self, a) -> object:
        return self.const_buffer(np.ascontiguousarray(a, F32).reshape(-1))


def gates4(a: np.ndarray, cifg: bool, nc: int) -> np.ndarray:
    """Gate-major (4 * nc, ...) rows from gather_lstm's gates along axis 0 (i zero if CIFG)."""
    if cifg:
        a = np.concatenate([np.zeros((nc,) + a.shape[1:], F32), a])
    return np.ascontiguousarray(a, F32)


def lanes(a, n: int, padded: int) -> np.ndarray:
    """`a` with axis 0 (blocks of n rows) padded with zero rows to blocks of `padded`."""
    a = np.asarray(a, F32).reshape(-1, n, *np.shape(a)[1:])
    out = np.zeros((a.shape[0], padded) + a.shape[2:], F32)
    out[:, :n] = a
    return out.reshape(-1, *a.shape[2:])


class ClLstm(ClRecurrent):
    def setup(self) -> None:
        w = self.shadow.load()
        steps, batch, xb, xt = self.steps()
        nc, no, cifg = w.n_cell, w.n_output, w.cifg
        ni = self.inputs[0].shape[-1]
        y = self.outputs[0]
        yb, yt = (xb // ni * no, xt // ni * no)
        self.private: list = []
        h, c = self.state(18), self.state(19)
        peep = np.zeros((3, nc), F32)
        if w.peephole is not None:
            for k, p in enumerate(w.peephole):
                if p is not None:
                    peep[k] = p
        proj = w.proj is not None
        m = self.rt.buffer(batch * nc * 4) if proj else h
        self.private.append(m)
        bias, pp = self.f32(gates4(w.bias, cifg, nc)), self.f32(peep)
        pbias = self.f32(np.zeros(no, F32) if w.proj_bias is None else w.proj_bias)
        self.bufs = [bias, pp, pbias]
        cell_clip, proj_clip = (np.float32(v) for v in self.shadow.clips())
        i32 = np.int32
        knl = self.kernel("recurrent.cl", "lstm_seq")
        ncp, nop = -(-nc // 8) * 8, -(-no // 8) * 8
        size = max(ncp, nop) // 8              # lstm_seq's work-group: a batch row
        if w.ln is None and size <= self.group_limit(knl):     # the whole sequence in one launch
            wxt = self.f32(lanes(gates4(w.wx.T, cifg, nc), nc, ncp).T)
            wht = self.f32(lanes(gates4(w.wh if w.diagonal else w.wh.T, cifg, nc), nc, ncp).T)
            projt = self.f32(lanes(w.proj.T, no, nop).T) if proj else pbias
            seq = [self.f32(lanes(gates4(w.bias, cifg, nc), nc, ncp)),
                   self.f32(lanes(peep.reshape(-1), nc, ncp)), self.f32(lanes(np.asarray(
                       np.zeros(no, F32) if w.proj_bias is None else w.proj_bias), no, nop))]
            self.bufs += [wxt, wht, projt, *seq]
            self.launch(knl, (batch * size,), (size,), self.inputs[0].buffer, i32(steps),
                        i32(xt), i32(xb), h, c, wxt, wht, seq[0], seq[1], m, projt, seq[2],
                        i32(proj), i32(w.proj_bias is not None), proj_clip, y.buffer, i32(yt),
                        i32(yb), i32(ni), i32(no), i32(nc), i32(ncp), i32(nop), i32(cifg),
                        i32(w.diagonal), i32(w.peephole is not None), i32(self.code),
                        cell_clip)
            return
        # layer norm (or a work-group too large): 2 or 3 launches per time step
        ln = np.zeros(4 * nc, F32) if w.ln is None else gates4(w.ln, cifg, nc)
        wx = self.f32(gates4(w.wx.T, cifg, nc))
        wh = self.f32(gates4(w.wh if w.diagonal else w.wh.T, cifg, nc))
        lnb, projt = self.f32(ln), self.f32(w.proj.T) if proj else pbias
        gates = self.rt.buffer(4 * batch * nc * 4)
        self.bufs += [wx, wh, lnb, projt]
        self.private.append(gates)
        for s in range(steps):      # a kernel object per launch: arguments are set once
            gk = self.kernel("recurrent.cl", "lstm_gates")
            self.launch(gk, (batch * 4 * nc,), None, self.inputs[0].buffer, i32(s * xt),
                        i32(xb), h, c, wx, wh, bias, pp, gates, i32(ni), i32(no), i32(nc),
                        i32(w.diagonal), i32(w.ln is not None), i32(w.peephole is not None),
                        i32(batch * 4 * nc))
            ck = self.kernel("recurrent.cl", "lstm_cell")
            self.launch(ck, (batch,), None, gates, c, lnb, bias, pp, m,
                        i32(nc if proj else no), y.buffer, i32(s * yt), i32(yb), i32(nc),
                        i32(cifg), i32(w.ln is not None), i32(w.peephole is not None),
                        i32(self.code), cell_clip, i32(not proj), i32(batch))
            if proj:
                pk = self.kernel("recurrent.cl", "lstm_project")
                self.launch(pk, (batch * no,), None, m, projt, pbias,
                            i32(w.proj_bias is not None), proj_clip, h, y.buffer, i32(s * yt),
                            i32(yb), i32(nc), i32(no), i32(batch * no))


class ClRnn(ClRecurrent):
    def setup(self) -> None:
        wx, wh, bias = self.shadow.load()
        steps, batch, xb, xt = self.steps()
        ni = self.inputs[0].shape[-1]
        units = self.outputs[0].shape[-1]
        yb, yt = xb // ni * units, xt // ni * units
        self.private: list = []
        h = self.state(4)
        i32, n = np.int32, batch * units
        knl = self.kernel("recurrent.cl", "rnn_seq")
        up = -(-units // 8) * 8
        if up // 8 <= self.group_limit(knl):       # the whole sequence in one launch, a work-group per row
            self.bufs = [self.f32(lanes(a, units, up).T) for a in (wx, wh, bias)]
            wxt, wht, bt = self.bufs          # [ni][up], [units][up], [up]
            self.launch(knl, (batch * up // 8,), (up // 8,), self.inputs[0].buffer, i32(steps),
                        i32(xt), i32(xb), h, wxt, wht, bt, self.outputs[0].buffer, i32(yt),
                        i32(yb), i32(ni), i32(units), i32(up), i32(self.code))
            return
        wx, wh, bias = (self.f32(a) for a in (wx, wh, bias))
        self.bufs = [wx, wh, bias]
        other = self.rt.buffer(batch * units * 4)
        self.private.append(other)
        for s in range(steps):
            hin, hout = (h, other) if s % 2 == 0 else (other, h)
            self.launch(self.kernel("recurrent.cl", "rnn_step"), (n,), None,
                        self.inputs[0].buffer, i32(s * xt), i32(xb), hin, hout, wx, wh, bias,
                        self.outputs[0].buffer, i32(s * yt), i32(yb), i32(ni), i32(units),
                        i32(self.code), i32(n))
        if steps % 2:
            self.copy(other, h, n * 4)


@register("LSTM")
class LstmLayer(ClLstm):
    base_class = LstmBase


@register("UnidirectionalSequenceLSTM")
class UnidirectionalSequenceLstmLayer(ClLstm):
    base_class = UnidirectionalSequenceLstmBase
    sequence = True


@register("RNN")
class RnnLayer(ClRnn):
    base_class = RnnBase


@register("UnidirectionalSequenceRNN")
class UnidirectionalSequenceRnnLayer(ClRnn):
    base_class = UnidirectionalSequenceRnnBase
    sequence = True
