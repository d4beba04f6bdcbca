"""Compile-time fallback: a backend that finds out while compiling that it cannot run an op
hands the op to the next backend in the list that takes it.

The scheduler asks each backend `supports(op)` with the shapes the model declares. Compiling
learns more: shape inference may find an operand shaped at run time (RESHAPE by a computed
shape, the result of a While whose loop variables grow) or of another shape than declared
(inputs resized), and a kernel's configure may refuse what it sees (validate, prepare, device
limits). Either way the op moves to the next backend after its own in the list whose
`supports` accepts it; the subgraph is lowered again (Permutes and tensor ownership follow the
new placement) and its shapes inferred again. What each backend said is kept per compiled
subgraph (`LoweredGraph.refusals`), shown by Session.placement() and explain().

What stays an error: an op that a mapping rule (op_backend_allops, op_backend, op_backend_map)
put on the backend that refuses it (CompileError naming the op, the rule and the reason), and
an op that no backend left in the list takes (UnsupportedOperationError with every reason).
"""
from __future__ import annotations

import copy

from ...errors import CompileError, UnsupportedOperationError
from ..backend import Backend
from ..ir import Graph, Operation
from .lowering import BUILTIN, LoweredGraph
from .scheduler import Assignment

Refusals = dict[int, dict[str, str]]     # op index -> backend -> why it refused while compiling


def backend_for(op: Operation, sg: int, graph: Graph, assignment: Assignment,
                order: list[str], backends: dict[str, Backend],
                refused: dict[str, str] | None) -> str:
    """The backend that runs `op` of subgraph `sg`: the scheduler's, or, where backends refused
    it while compiling (`refused`, added to here), the first backend after the scheduler's in
    `order` that has not refused it and whose `supports` accepts it."""
    if not refused:
        return assignment.backend
    if assignment.explicit:
        bid = assignment.backend
        raise CompileError(f"op #{op.index} {op.name} (subgraph {sg}) is mapped to {bid} by the "
                           f"{assignment.rule}, but {bid} cannot run it: {refused[bid]}")
    for bid in order[order.index(assignment.backend) + 1:]:
        if bid in refused:
            continue
        ok, why = backends[bid].config.supports(op, graph)
        if ok:
            return bid
        refused[bid] = why
    reasons = {**assignment.refusals, **refused}
    detail = "; ".join(f"{b}: {r}" for b, r in reasons.items())
    raise UnsupportedOperationError(
        f"op #{op.index} {op.name} ({op.type}) in subgraph {sg} is not supported by any of the "
        f"backends asked ({', '.join(order)}) once compiled: {detail}", op.type, op.index,
        reasons)


def run_time_shaped(lowered: LoweredGraph, inputs: list[int]) -> set[int]:
    """The operands of `lowered` whose shapes follow those of `inputs`, graph inputs that are
    shaped only at run time (the loop variables of a While that change shape between
    iterations): the inputs and every output of an op that reads one, transitively."""
    g = lowered.graph
    late = set(inputs)
    if late:
        for oi in lowered.exec_order:
            op = g.operations[oi]
            if any(i in late for i in op.inputs if i >= 0):
                late.update(o for o in op.outputs if o >= 0)
    return late


def refuse_after_inference(graph: Graph, lowered: LoweredGraph, backends: dict[str, Backend],
                           refusals: Refusals, late: set[int]) -> bool:
    """Ask each op's backend again, with the shapes inference found, for every op of `graph`
    (the model's subgraph) whose operands in `lowered` are shaped at run time (`dynamic`, or
    in `late`: seen as dynamic by the backend) or shaped other than declared. Refusals are
    added to `refusals`; True when there was one."""
    g = lowered.graph
    if late:
        g = copy.copy(g)
        g.operands = dict(g.operands)
        for i in late:
            g.operands[i] = g.operands[i].clone(i)
            g.operands[i].dynamic = True
    refused = False
    for oi, op in graph.operations.items():
        bid = lowered.op_backend[oi]
        if bid == BUILTIN or not _reshaped(graph, op, g, g.operations[oi]):
            continue
        ok, why = backends[bid].config.supports(g.operations[oi], g)
        if not ok:
            refusals.setdefault(oi, {})[bid] = why
            refused = True
    return refused


def _reshaped(graph: Graph, op: Operation, lowered: Graph, lowered_op: Operation) -> bool:
    """Whether an operand of the lowered op is dynamic or shaped other than the model's."""
    pairs = [*zip(op.inputs, lowered_op.inputs), *zip(op.outputs, lowered_op.outputs)]
    for declared, inferred in pairs:
        if declared < 0 or inferred < 0:
            continue
        o = lowered.operands[inferred]
        if o.dynamic or tuple(o.shape) != tuple(graph.operands[declared].shape):
            return True
    return False
