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

    def __init__(self, steps: list[Step], subgraph_index: int = 0) -> None:
        self.steps = steps
        self.subgraph_index = subgraph_index
        self._live = [s for s in steps if s.kernel.run is not None]
        self._runs = [s.kernel.run for s in self._live]

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
