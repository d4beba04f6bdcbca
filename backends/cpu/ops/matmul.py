"""FULLY_CONNECTED and BATCH_MATMUL: np.matmul into the output buffer, weights read transposed
in place (no copy)."""
from __future__ import annotations

import numpy as np

from .common import CpuKernel, activation, register


@register("FullyConnected")
class FullyConnectedLayer(CpuKernel):
    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(w.shape) != 2:
            raise self.fail(f"weights must be 2-D, got {w.shape}")
        k = w.shape[1]
        n = int(np.prod(x.shape))
        if k == 0 or n % k:
            raise self.fail(f"input {x.shape} cannot be flattened to rows of {k}")
        if self.op.params.get("weights_format", "DEFAULT") != "DEFAULT":
            raise self.fail("shuffled weights formats are not supported")
        self.act = activation(self.op.params.fused_activation_function)

    def prepare(self) -> None:
        w = self.buf(1)
        self.x2d = self.buf(0).reshape(-1, w.shape[1])
        self.wt = w.T
        self.bias = self.buf(2)
        self.y2d = self.out.reshape(self.x2d.shape[0], w.shape[0])

    def run(self) -> None:
        np.matmul(self.x2d, self.wt, out=self.y2d)
        if self.bias is not None:
            self.y2d += self.bias
        if self.act is not None:
            self.act(self.y2d)


@register("BatchMatMul")
class BatchMatMulLayer(CpuKernel):
    def validate(self) -> None:
        a, b = self.inputs[0], self.inputs[1]
        if len(a.shape) < 2 or len(b.shape) < 2:
            raise self.fail(f"operands must be at least 2-D, got {a.shape} and {b.shape}")

    def prepare(self) -> None:
        a, b = self.buf(0), self.buf(1)
        self.a = np.swapaxes(a, -1, -2) if self.op.params.get("adj_x", False) else a
        self.b = np.swapaxes(b, -1, -2) if self.op.params.get("adj_y", False) else b

    def run(self) -> None:
        np.matmul(self.a, self.b, out=self.out)
