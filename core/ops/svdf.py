"""SVDF (TFLite's svdf.cc): operand slots, the rank option, and the fully integer form's
Prepare (tensor types, shapes and the two effective scales).

Kernels: float backends/cpu/ops/svdf.py; hybrid backends/cpu/ops/hybrid_svdf.py; quantized
backends/cpu/ops/quant/qsvdf.py.
"""
from __future__ import annotations

import numpy as np

from ..quant import qmath
from .quant_base import I8, I16, QuantOpKernel
from .recurrent import RecurrentBase

I32 = np.dtype(np.int32)


class SvdfBase(RecurrentBase):
    """inputs (x (batch, n_input), weights_feature (filters, n_input), weights_time
    (filters, memory), bias (units,) optional, state (batch, filters * memory)); rank option,
    units = filters / rank. validate() sets `rank` and `memory`, after `check_weights`."""

    state_slots = (4,)
    required = (0, 1, 2, 4)
    max_inputs = 5

    def validate(self) -> None:
        super().validate()
        self.check_weights()
        self.rank = int(self.op.params.rank)
        filters, memory = self.inputs[2].shape
        if self.rank <= 0 or filters % self.rank:
            raise self.fail(f"{filters} filters do not divide into rank {self.rank}")
        self.memory = memory

    def check_weights(self) -> None:
        """A form's checks of the tensors before the weights' shapes are read (the integer
        form's types and ranks); none for the float form."""


class QSvdfBase(SvdfBase, QuantOpKernel):
    """The fully integer SVDF: int8 input and output, int16 state (a variable tensor), int8
    weights_feature, int16 weights_time, optional int32 bias; output (batch, units) int8.

    As TFLite's Prepare: effective_scale_1 = input scale * weights_feature scale / state scale
    and effective_scale_2 = state scale * weights_time scale / output scale, computed in double
    from the float32 scales in that order, then QuantizeMultiplier (`m1, s1`, `m2, s2`).
    TFLite accepts only the RELU fused activation here (and does not apply it); other
    activations make the interpreter fail, so they are refused."""

    dtypes = frozenset({I8})

    @classmethod
    def supports(cls, op, graph):
        return QuantOpKernel.supports.__func__(cls, op, graph)

    def check_weights(self) -> None:
        wf, wt, bias, state = (self.slot(i) for i in range(1, 5))
        for t, dt, what in ((wf, I8, "weights_feature"), (wt, I16, "weights_time"),
                            (state, I16, "state"), (self.outputs[0], I8, "output")):
            if t.dtype != dt or t.quant is None:
                raise self.fail(f"integer SVDF needs a quantized {dt} {what}, got {t.dtype}"
                                + ("" if t.quant is not None else " without scale"))
        if bias is not None and bias.dtype != I32:
            raise self.fail(f"integer SVDF needs an int32 bias, got {bias.dtype}")
        if len(wf.shape) != 2 or len(wt.shape) != 2 or wt.shape[0] != wf.shape[0]:
            raise self.fail(f"weights_feature {wf.shape} and weights_time {wt.shape} must be "
                            "2-D with the same number of filters")

    def validate(self) -> None:
        if self.op.params.get("fused_activation_function", "NONE") != "RELU":
            raise self.fail("TFLite's integer SVDF supports only the RELU fused activation "
                            f"(got {self.op.params.get('fused_activation_function')})")
        super().validate()
        x, wf, wt, bias, state = (self.slot(i) for i in range(5))
        y = self.outputs[0]
        self.filters = wt.shape[0]
        self.units = self.filters // self.rank
        if bias is not None and tuple(bias.shape) != (self.units,):
            raise self.fail(f"bias shape {bias.shape} is not ({self.units},)")
        s = self.scale
        e1 = float(s(x)) * float(s(wf)) / float(s(state))
        e2 = float(s(state)) * float(s(wt)) / float(s(y))
        self.m1, self.s1 = (int(v) for v in qmath.quantize_multiplier(e1))
        self.m2, self.s2 = (int(v) for v in qmath.quantize_multiplier(e2))
        self.x_zp, self.y_zp = self.zero_point(x), self.zero_point(y)


__all__ = ["SvdfBase", "QSvdfBase"]
