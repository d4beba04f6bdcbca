"""Graph (one subgraph of a model) and Model (all subgraphs, plus the mapped file)."""
from __future__ import annotations

import mmap
from dataclasses import dataclass, field
from typing import Any

from .operand import Operand
from .operation import Operation


@dataclass
class Graph:
    """One subgraph: operands and operations keyed by their file indices, plus I/O lists."""

    name: str
    operands: dict[int, Operand] = field(default_factory=dict)
    operations: dict[int, Operation] = field(default_factory=dict)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)

    def producers(self) -> dict[int, int]:
        """operand index -> index of the operation that writes it."""
        return {o: op.index for op in self.operations.values() for o in op.outputs if o >= 0}

    def consumers(self) -> dict[int, list[int]]:
        """operand index -> indices of the operations that read it (in index order)."""
        uses: dict[int, list[int]] = {}
        for op in self.operations.values():
            for i in op.inputs:
                if i >= 0 and op.index not in uses.setdefault(i, []):
                    uses[i].append(op.index)
        return uses

    def new_operand_index(self) -> int:
        return max(self.operands, default=-1) + 1

    def new_operation_index(self) -> int:
        return max(self.operations, default=-1) + 1


@dataclass
class Model:
    """A loaded model: subgraphs (0 is primary), where it came from, and config it carries."""

    subgraphs: list[Graph]
    fmt: str                                   # "tflite" or "circle"
    path: str | None = None
    description: str = ""
    package_config: dict[str, str] = field(default_factory=dict)   # nnpackage configs[0]
    keepalive: list[Any] = field(default_factory=list)              # mmap backing constants

    @property
    def primary(self) -> Graph:
        return self.subgraphs[0]

    def close(self) -> int:
        """Drop the subgraphs and the buffers backing their constants, and unmap the file now
        where nothing else views it (a mapping still viewed, e.g. by a constant array the caller
        kept, is unmapped by Python once the last view goes). Returns how many stay open."""
        maps = [k for k in self.keepalive if isinstance(k, mmap.mmap)]
        self.keepalive.clear()
        self.subgraphs = []
        still_open = 0
        for m in maps:
            try:
                m.close()
            except BufferError:
                still_open += 1
        return still_open
