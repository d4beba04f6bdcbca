"""A third-party backend that lives outside the package: it runs float32 ADD and nothing else.

The runtime finds it through ONERT_BACKEND_PATH (or config `backend_paths`) by its file name,
`libbackend_<id>.py`, and calls `onert_backend_create()`.
"""
from __future__ import annotations

import numpy as np

from onert_py.core.backend import (Backend, ContextData, HostBackendContext, IConfig, Kernel,
                                   KernelRegistry)

kernels = KernelRegistry("testadd")
RUNS = {"count": 0}
DESTROYED = {"count": 0}


@kernels.register("BinaryArithmetic.ADD")
class AddLayer(Kernel):
    def validate(self) -> None:
        if self.op.params.get("fused_activation_function", "NONE") != "NONE":
            raise self.fail("testadd has no fused activations")

    def run(self) -> None:
        RUNS["count"] += 1
        np.add(self.inputs[0].buffer, self.inputs[1].buffer, out=self.outputs[0].buffer)


class TestAddConfig(IConfig):
    id = "testadd"

    def supports(self, op, graph):
        if kernels.lookup(op) is None:
            return False, "testadd runs only ADD"
        if graph.operands[op.inputs[0]].dtype != np.float32:
            return False, "testadd runs only float32"
        if op.params.get("fused_activation_function", "NONE") != "NONE":
            return False, "testadd has no fused activations"
        return True, ""


class TestAddBackend(Backend):
    def __init__(self) -> None:
        self.config = TestAddConfig()

    def new_context(self, data: ContextData) -> HostBackendContext:
        return HostBackendContext(self, data, kernels)


def onert_backend_create() -> TestAddBackend:
    return TestAddBackend()


def onert_backend_destroy(backend: TestAddBackend) -> None:
    DESTROYED["count"] += 1
