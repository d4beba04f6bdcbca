"""L2Normalization, LocalResponseNormalization, InstanceNorm (float32; semantics of
core/ops/norm.py and backends/cpu/ops/norm.py). ResizeBilinear (resize.py) and TransposeConv
(transpose_conv.py) run kernels of norm.cl too."""
from __future__ import annotations

import numpy as np

from .common import ClKernel, check_act, clamp_of, register


@register("L2Normalization")
class L2NormalizationLayer(ClKernel):
    check_params = classmethod(lambda cls, op, g: check_act(op))

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        cols = x.shape[-1] if x.shape else 1
        rows = x.size // max(cols, 1)
        lo, hi = clamp_of(self.op)
        if x.size:
            self.launch(self.kernel("norm.cl", "l2norm_rows"), (rows,), None, x.buffer,
                        y.buffer, np.int32(cols), lo, hi, np.int32(rows))


@register("LocalResponseNormalization")
class LocalResponseNormalizationLayer(ClKernel):
    @classmethod
    def check_params(cls, op, graph):
        if len(graph.operands[op.inputs[0]].shape) != 4:
            return False, "acl_cl LocalResponseNormalization needs a 4-D input"
        return True, ""

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        p = self.op.params
        c = x.shape[-1]
        radius = min(max(int(p.get("radius", 5)), 0), c)
        if x.size:
            self.launch(self.kernel("norm.cl", "lrn"), (x.size,), None, x.buffer, y.buffer,
                        np.int32(c), np.int32(radius), np.float32(p.get("bias", 1.0)),
                        np.float32(p.get("alpha", 1.0)), np.float32(p.get("beta", 0.5)),
                        np.int32(x.size))


@register("InstanceNorm")
class InstanceNormLayer(ClKernel):
    @classmethod
    def check_params(cls, op, graph):
        if len(graph.operands[op.inputs[0]].shape) < 3:
            return False, "acl_cl InstanceNorm needs an input of rank >= 3 (N, ..., C)"
        for pos in (1, 2):
            if len(op.inputs) > pos and op.inputs[pos] >= 0 and \
                    not graph.operands[op.inputs[pos]].is_constant:
                return False, f"acl_cl InstanceNorm needs a constant input {pos}"
        return check_act(op)

    def vector(self, pos: int, default: float):
        t = self.tin(pos)
        c = self.inputs[0].shape[-1]
        v = np.full(1, default, np.float32) if t is None else \
            np.asarray(t.data, np.float32).reshape(-1)
        if v.size not in (1, c):
            raise self.fail(f"input {pos} has {v.size} elements, expected 1 or {c}")
        return self.const_buffer(v), np.int32(v.size == c and c != 1)

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        c = x.shape[-1]
        s = int(np.prod(x.shape[1:-1], dtype=np.int64))
        (self.gamma, gstep), (self.beta, bstep) = self.vector(1, 1.0), self.vector(2, 0.0)
        lo, hi = clamp_of(self.op)
        n = x.shape[0] * c
        if x.size:
            self.launch(self.kernel("norm.cl", "instance_norm"), (n,), None, x.buffer,
                        y.buffer, self.gamma, self.beta, np.int32(s), np.int32(c), gstep,
                        bstep, np.float32(self.op.params.epsilon), lo, hi, np.int32(n))
