"""Happens-before between a subgraph's ops, for the executors that do not follow one fixed
order (Dataflow, Parallel) and for planning memory under them.

The nodes are the ops in the lowered graph's execution order, which is a topological order.
An edge runs from an earlier op to a later one when both touch one operand and at least one
of them writes it (read after write, write after read, write after write). Two kinds of hidden
state are ordered as the execution order has them, so that no executor races on them:

* operands that ops read but no op writes, that are neither constants nor subgraph inputs
  (variable tensors, which kernels may update in place): every access counts as a write;
* ops whose effects do not show in their operands (control flow, resource variables, ops
  without outputs) are chained one after the other.

Edges only go forward, so ancestor sets come out of one pass; they are bitsets in Python
ints (bit p: the op at position p).

`OpDag.of_graph` (memory planning) and `OpDag.of_steps` (the executors) build the same DAG
from the same ops: the Dataflow executor's order and the planner's idea of it cannot drift.
"""
from __future__ import annotations

import heapq
from typing import Callable, Iterable, Iterator, Sequence

# Op types with effects beyond their operands: kept in execution order relative to each other.
SEQUENCED = frozenset({"If", "While", "CallOnce", "VarHandle", "ReadVariable", "AssignVariable"})


def is_sequenced(op) -> bool:
    return op.type in SEQUENCED or not any(o >= 0 for o in op.outputs)


class OpDag:
    """Dependencies of ops given in execution order. `keys[p]` is the op's index, the
    Dataflow priority (lowest first among the ops that are ready)."""

    def __init__(self, ops: Sequence, state: set[int]) -> None:
        n = len(ops)
        self.keys = [op.index for op in ops]
        preds: list[set[int]] = [set() for _ in range(n)]
        last_write: dict[int, int] = {}
        readers: dict[int, list[int]] = {}
        self.first_write: dict[int, int] = {}     # operand -> position of its first writer
        self.uses: dict[int, int] = {}            # operand -> bitset of the ops touching it
        last_sequenced = -1
        for p, op in enumerate(ops):
            deps, bit = preds[p], 1 << p
            if is_sequenced(op):
                if last_sequenced >= 0:
                    deps.add(last_sequenced)
                last_sequenced = p
            writes = [o for o in op.outputs if o >= 0]
            for i in op.inputs:
                if i < 0:
                    continue
                self.uses[i] = self.uses.get(i, 0) | bit
                if i in state:
                    writes.append(i)
                    continue
                w = last_write.get(i)
                if w is not None:
                    deps.add(w)
                readers.setdefault(i, []).append(p)
            for o in writes:
                self.uses[o] = self.uses.get(o, 0) | bit
                w = last_write.get(o)
                if w is not None:
                    deps.add(w)
                deps.update(readers.pop(o, ()))
                last_write[o] = p
                self.first_write.setdefault(o, p)
            deps.discard(p)
        self.preds = [sorted(s) for s in preds]
        self.succs: list[list[int]] = [[] for _ in range(n)]
        for p, ps in enumerate(self.preds):
            for q in ps:
                self.succs[q].append(p)
        self._ancestors: list[int] | None = None

    @classmethod
    def of_ops(cls, ops: Sequence, inputs: Iterable[int],
               is_constant: Callable[[int], bool]) -> "OpDag":
        written = {o for op in ops for o in op.outputs if o >= 0}
        inputs = set(inputs)
        state = {i for op in ops for i in op.inputs
                 if i >= 0 and i not in written and i not in inputs and not is_constant(i)}
        return cls(ops, state)

    @classmethod
    def of_graph(cls, graph, order: Sequence[int]) -> "OpDag":
        """The DAG of a (lowered) graph's ops in `order`."""
        return cls.of_ops([graph.operations[oi] for oi in order], graph.inputs,
                          lambda i: graph.operands[i].is_constant)

    @classmethod
    def of_steps(cls, steps: Sequence, inputs: Iterable[int]) -> "OpDag":
        """The DAG of an executor's steps; `inputs` are the subgraph's input operands."""
        constant = set()
        for s in steps:
            for i, t in zip(s.kernel.op.inputs, s.kernel.inputs):
                if i >= 0 and t is not None and t.is_constant:
                    constant.add(i)
        return cls.of_ops([s.kernel.op for s in steps], inputs, constant.__contains__)

    def __len__(self) -> int:
        return len(self.keys)

    def roots(self) -> list[int]:
        return [p for p, ps in enumerate(self.preds) if not ps]

    def ready_order(self) -> Iterator[int]:
        """Positions in the Dataflow order: of the ops whose predecessors are all done, the
        one with the lowest key next. A position counts as done once the caller asks for the
        next one."""
        waiting = [len(ps) for ps in self.preds]
        keys, succs = self.keys, self.succs
        heap = [(keys[p], p) for p in self.roots()]
        heapq.heapify(heap)
        while heap:
            p = heapq.heappop(heap)[1]
            yield p
            for c in succs[p]:
                waiting[c] -= 1
                if not waiting[c]:
                    heapq.heappush(heap, (keys[c], c))

    def ancestors(self) -> list[int]:
        """Per position, the bitset of the positions that happen before it (strictly)."""
        if self._ancestors is None:
            anc: list[int] = []
            for ps in self.preds:
                a = 0
                for q in ps:
                    a |= anc[q] | (1 << q)
                anc.append(a)
            self._ancestors = anc
        return self._ancestors
