"""Executors: run a compiled subgraph's kernels (Linear: fixed topological order)."""
from __future__ import annotations

from dataclasses import dataclass

from ...errors import ExecutionError, OnertPyError
from ..backend import Kernel


@dataclass
class Step:
    op_index: int
    backend: str
    kernel: Kernel


class LinearExecutor:
    """Runs the steps in the lowered graph's execution order; kernels folded at compile are skipped."""

    name = "Linear"

    def __init__(self, steps: list[Step], subgraph_index: int = 0, tracer=None) -> None:
        self.steps = steps
        self.subgraph_index = subgraph_index
        self.tracer = tracer
        self._live = [s for s in steps if s.kernel.run is not None]
        self._runs = [s.kernel.run for s in self._live]
        if tracer is not None:
            self.execute = self._execute_traced

    def _execute_traced(self) -> None:
        tracer, sg = self.tracer, self.subgraph_index
        for step in self._live:
            op = step.kernel.op
            args = {f"input{k}": str(tuple(t.shape)) for k, t in enumerate(step.kernel.inputs)
                    if t is not None}
            start = tracer.now_us()
            try:
                step.kernel.run()
            except OnertPyError:
                raise
            except Exception as e:
                raise ExecutionError(f"subgraph {sg} op #{op.index} {op.name} on "
                                     f"{step.backend} failed: {type(e).__name__}: {e}") from e
            name = "Permute" if op.type == "Permute" else op.name
            tracer.span(f"${op.index} {name}", f"{sg}, {step.backend}", start, tracer.now_us(),
                        args)

    def execute(self) -> None:
        i = 0
        try:
            for run in self._runs:
                run()
                i += 1
        except OnertPyError:
            raise
        except Exception as e:
            step = self._live[i]
            op = step.kernel.op
            raise ExecutionError(f"subgraph {self.subgraph_index} op #{op.index} {op.name} on "
                                 f"{step.backend} failed: {type(e).__name__}: {e}") from e
