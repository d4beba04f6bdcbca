"""Circle's GRU (builtin code -5; luci-interpreter's PALGRU.h semantics): operand shapes and the
options it accepts. Kernel: backends/cpu/ops/gru.py."""
from __future__ import annotations

import numpy as np

from .base import OpKernel


class GruBase(OpKernel):
    """Inputs: x (T, 1, I), W_x (3H, I), b_x (3H), W_h (3H, H), b_h (3H), state h0 (1, H) -- in
    the schema's names input, hidden_hidden, hidden_hidden_bias, hidden_input,
    hidden_input_bias, state. The output is the last h (the state's shape). Like
    luci-interpreter, axis 0 is always time (time_major is not consulted); return_sequences
    and fused activations are refused."""

    def validate(self) -> None:
        ins = self.inputs
        x, wx, wh, st = ins[0], ins[1], ins[3], ins[5]
        if len(x.shape) != 3:
            raise self.fail(f"input must be 3-D (time, batch, features), got {x.shape}")
        batch = x.shape[1]
        if len(wx.shape) != 2 or len(wh.shape) != 2 or wx.shape[0] != wh.shape[0] \
                or wx.shape[0] % 3:
            raise self.fail(f"weights {wx.shape} and {wh.shape} must be (3H, I) and (3H, H)")
        hidden = wx.shape[0] // 3
        if wh.shape[1] != hidden or wx.shape[1] != x.shape[2]:
            raise self.fail(f"weights {wx.shape}, {wh.shape} do not fit input {x.shape} with "
                            f"hidden size {hidden}")
        if int(np.prod(st.shape)) != hidden * batch:
            raise self.fail(f"state {st.shape} does not hold batch {batch} x {hidden}")
        for i in (2, 4):
            if ins[i] is not None and int(np.prod(ins[i].shape)) != 3 * hidden:
                raise self.fail(f"bias {ins[i].shape} must have {3 * hidden} elements")
        if self.op.params.get("return_sequences", False):
            raise self.fail("GRU with return_sequences is not supported")
        if self.op.params.get("fused_activation_function", "NONE") not in ("NONE", None):
            raise self.fail("GRU with a fused activation is not supported")


__all__ = ["GruBase"]
