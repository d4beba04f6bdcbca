"""Cross-op fusion: a backend proposes groups of its own ops that one kernel of it computes; the
compiler checks each proposal and replaces the group by one operation.

After lowering and static shape inference (compiler._plan), each backend that runs ops of the
subgraph is asked for its `IConfig.fusions(graph, ops)` (FusionProposal: ops in execution
order, the fused op's type and params, why). A proposal is taken only if
  - its ops exist, are distinct, all run on that backend and are in no other group;
  - every tensor an op of the group writes, except the last op's output, is *inner*: read only
    by ops of the group, not a graph output, not a variable;
  - every tensor it reads or writes has a static shape (not shaped at run time).
The group then becomes one Operation of the proposed type, at the last op's place in the
execution order, with a new op index past the model's (like a Permute's): its inputs are the
group's external inputs in the order the ops read them (weights included), its output the
last op's output, its params the backend's plus `fused_ops` (the original Operations, in
order), `fused_operands` (inner operand index -> Operand: shapes for the kernel) and `covers`
(the ops as text, for trace events). The inner operands leave the graph: no backend allocates
them. `LoweredGraph.fused` records each group (FusedGroup) for explain() and placement().

Config `fuse: false` skips all of this (the ops run one by one, for debugging and bisecting).
"""
from __future__ import annotations

from typing import NamedTuple

from ..backend import Backend, FusionProposal
from ..ir import Operation, Params
from .lowering import BUILTIN, LoweredGraph


class FusedGroup(NamedTuple):
    """One fusion the compiler made: op `index` of `type` on `backend` covers `ops` (index,
    builtin name), in execution order; `why` is the backend's."""

    index: int
    backend: str
    type: str
    ops: tuple[tuple[int, str], ...]
    why: str

    def covers(self) -> str:
        return " + ".join(f"#{i} {name}" for i, name in self.ops)

    def describe(self) -> str:
        return f"fused: {self.covers()} -> {self.backend} {self.type}: {self.why}"


def fuse(lowered: LoweredGraph, backends: dict[str, Backend],
         late: frozenset[int] | set[int] = frozenset()) -> None:
    """Ask every backend of `lowered` (builtin apart) for its fusions and apply those that pass
    the checks; `late`: operands shaped at run time that are not marked dynamic (a While's
    varying loop variables)."""
    taken: set[int] = set()
    for bid in dict.fromkeys(lowered.op_backend[oi] for oi in lowered.exec_order):
        if bid == BUILTIN:
            continue
        propose = getattr(backends[bid].config, "fusions", None)    # (a plug-in's own config)
        for proposal in propose(lowered.graph, lowered.ops_of(bid)) if propose else ():
            if _acceptable(lowered, bid, proposal, taken, late):
                taken.update(proposal.ops)
                _replace(lowered, bid, proposal)


def _acceptable(lowered: LoweredGraph, bid: str, p: FusionProposal, taken: set[int],
                late: frozenset[int] | set[int]) -> bool:
    """Whether proposal `p` of backend `bid` passes the checks of the module docstring."""
    g = lowered.graph
    ops = list(p.ops)
    if len(ops) < 2 or len(set(ops)) != len(ops) or taken.intersection(ops):
        return False
    if any(oi not in g.operations or lowered.op_backend.get(oi) != bid for oi in ops):
        return False
    at = [lowered.exec_order.index(oi) for oi in ops]
    if at != sorted(at):
        return False
    last = g.operations[ops[-1]]
    if len([o for o in last.outputs if o >= 0]) != 1:
        return False
    consumers = g.consumers()
    group = set(ops)
    for oi in ops:
        op = g.operations[oi]
        for i in (*op.inputs, *op.outputs):
            if i >= 0 and (g.operands[i].dynamic or i in late or
                           any(d < 0 for d in g.operands[i].shape)):
                return False
        if oi == last.index:
            continue
        for o in op.outputs:
            if o < 0:
                continue
            operand = g.operands[o]
            if o in g.outputs or operand.is_variable or \
                    not set(consumers.get(o, ())) <= group:
                return False
    return True


def _replace(lowered: LoweredGraph, bid: str, p: FusionProposal) -> None:
    """Put the fused op of `p` in place of its ops; record the group in `lowered.fused`."""
    g = lowered.graph
    members = [g.operations[oi] for oi in p.ops]
    out = next(o for o in members[-1].outputs if o >= 0)
    inner = {o for op in members for o in op.outputs if o >= 0 and o != out}
    inputs: list[int] = []
    for op in members:
        inputs += [i for i in op.inputs if i >= 0 and i not in inner and i not in inputs]
    index = g.new_operation_index()
    group = FusedGroup(index, bid, p.type, tuple((op.index, op.name) for op in members), p.why)
    params = {**p.params, "fused_ops": tuple(members),
              "fused_operands": {o: g.operands[o] for o in inner}, "covers": group.covers()}
    g.operations[index] = Operation(index, p.type, p.type, inputs, [out], Params(params))
    for op in members:
        del g.operations[op.index]
        del lowered.op_backend[op.index]
    for o in inner:
        del g.operands[o]
        lowered.home.pop(o, None)
    lowered.op_backend[index] = bid
    at = lowered.exec_order.index(members[-1].index)
    lowered.exec_order[at] = index
    lowered.exec_order[:] = [oi for oi in lowered.exec_order if oi in g.operations]
    lowered.fused[index] = group
