"""A backend whose kernel finds out only while compiling that it cannot run its op: float32
ADD on tensors of at most `LIMIT` elements, a limit its kernel checks in prepare (as a device
backend learns its buffer or work-group limits when it builds a kernel), while `supports`,
asked with the declared shapes before any is inferred, accepts every float32 ADD.

The compiler must hand such an op to the next backend in the list (core/compiler/fallback.py).
"""
from __future__ import annotations

import math

import numpy as np

from onert_py.core.backend import (Backend, ContextData, HostBackendContext, IConfig, Kernel,
                                   KernelRegistry)

LIMIT = 16
kernels = KernelRegistry("tinyadd")


@kernels.register("BinaryArithmetic.ADD")
class AddLayer(Kernel):
    def prepare(self) -> None:
        size = max(math.prod(t.shape) for t in (*self.inputs, *self.outputs))
        if size > LIMIT:
            raise self.fail(f"tinyadd holds at most {LIMIT} elements per tensor, this one has "
                            f"{size}")

    def run(self) -> None:
        np.add(self.inputs[0].buffer, self.inputs[1].buffer, out=self.outputs[0].buffer)


class TinyAddConfig(IConfig):
    id = "tinyadd"

    def supports(self, op, graph):
        if kernels.lookup(op) is None:
            return False, "tinyadd runs only ADD"
        if any(graph.operands[i].dtype != np.float32 for i in op.inputs):
            return False, "tinyadd runs only float32"
        if op.params.get("fused_activation_function", "NONE") != "NONE":
            return False, "tinyadd has no fused activations"
        return True, ""


class TinyAddBackend(Backend):
    def __init__(self) -> None:
        self.config = TinyAddConfig()

    def new_context(self, data: ContextData) -> HostBackendContext:
        return HostBackendContext(self, data, kernels)


def onert_backend_create() -> TinyAddBackend:
    return TinyAddBackend()


def onert_backend_destroy(backend: TinyAddBackend) -> None:
    pass
