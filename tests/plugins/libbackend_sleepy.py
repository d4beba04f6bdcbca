"""A test backend whose float32 ADD sleeps before it adds, so that a test can see two
backends' ops run at the same time under the Parallel executor (time.sleep releases the GIL).

`libbackend_sleepy2.py` loads this file under a second id. `SLEEP_S` sets the nap and
`FAIL["on"]` makes every ADD raise, for error-propagation tests; both are reached through
`manager.module_of(<id>)` while a session holds the backend.
"""
from __future__ import annotations

import time

import numpy as np

from onert_py.core.backend import (Backend, ContextData, HostBackendContext, IConfig, Kernel,
                                   KernelRegistry)

SLEEP_S = {"s": 0.05}
FAIL = {"on": False}
kernels = KernelRegistry("sleepy")


@kernels.register("BinaryArithmetic.ADD")
class SleepyAdd(Kernel):
    def validate(self) -> None:
        if self.op.params.get("fused_activation_function", "NONE") != "NONE":
            raise self.fail("sleepy has no fused activations")

    def run(self) -> None:
        time.sleep(SLEEP_S["s"])
        if FAIL["on"]:
            raise RuntimeError("sleepy ADD failed on purpose")
        np.add(self.inputs[0].buffer, self.inputs[1].buffer, out=self.outputs[0].buffer)


class SleepyConfig(IConfig):
    def __init__(self, backend_id: str) -> None:
        self.id = backend_id

    def supports(self, op, graph):
        if kernels.lookup(op) is None:
            return False, f"{self.id} runs only ADD"
        if any(graph.operands[i].dtype != np.float32 for i in op.inputs if i >= 0):
            return False, f"{self.id} runs only float32"
        if op.params.get("fused_activation_function", "NONE") != "NONE":
            return False, f"{self.id} has no fused activations"
        return True, ""


class SleepyBackend(Backend):
    def __init__(self, backend_id: str = "sleepy") -> None:
        self.config = SleepyConfig(backend_id)

    def new_context(self, data: ContextData) -> HostBackendContext:
        return HostBackendContext(self, data, kernels)


def onert_backend_create() -> SleepyBackend:
    return SleepyBackend()


def onert_backend_destroy(backend: SleepyBackend) -> None:
    pass
