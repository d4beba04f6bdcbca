"""Graph (one subgraph of a model) and Model (all subgraphs, plus the mapped file)."""
from __future__ import annotations

import mmap
from typing import Any

from .operand import Operand
from .operation import Operation


class Graph:
    """One subgraph: operands and operations keyed by their file indices, plus I/O lists."""

    def __init__(self, name: str, operands: dict[int, Operand] | None = None,
                 operations: dict[int, Operation] | None = None, inputs: list[int] | None = None,
                 outputs: list[int] | None = None) -> None:
        self.name = name
        self.operands: dict[int, Operand] = {} if operands is None else operands
        self.operations: dict[int, Operation] = {} if operations is None else operations
        self.inputs: list[int] = [] if inputs is None else inputs
        self.outputs: list[int] = [] if outputs is None else outputs

    def __repr__(self) -> str:
        return (f"Graph({self.name!r}, {len(self.operations)} ops, {len(self.operands)} operands, "
                f"inputs={self.inputs}, outputs={self.outputs})")

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


class Model:
    """A loaded model: subgraphs (0 is primary), where it came from (`fmt`: "tflite" or
    "circle"), the config it carries (`package_config`: an nnpackage's configs[0]) and what backs
    its constants (`keepalive`: the file mapping)."""

    def __init__(self, subgraphs: list[Graph], fmt: str, path: str | None = None,
                 description: str = "", package_config: dict[str, str] | None = None,
                 keepalive: list[Any] | None = None) -> None:
        self.subgraphs, self.fmt, self.path, self.description = subgraphs, fmt, path, description
        self.package_config: dict[str, str] = {} if package_config is None else package_config
        self.keepalive: list[Any] = [] if keepalive is None else keepalive

    def __repr__(self) -> str:
        return f"Model({self.fmt}, {len(self.subgraphs)} subgraphs, path={self.path!r})"

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
