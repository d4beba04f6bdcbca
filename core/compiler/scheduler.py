"""Backend assignment (onert's ManualScheduler): every op gets one backend.

Order of rules, later ones overriding: the backends' preference order (first one whose
`supports(op)` accepts), `op_backend_allops`, `op_backend` per op type, `op_backend_map` per op
index. An explicit rule to a backend that cannot run the op is a CompileError, never a silent
fallback (also when the backend finds out only while compiling: core/compiler/fallback.py).
Control flow (If/While/CallOnce), resource variables and Permute always go to builtin.
"""
from __future__ import annotations


from ...errors import CompileError, UnsupportedOperationError
from ..backend import Backend
from ..ir import Graph, Model, Operation

BUILTIN_OPS = {"If", "While", "CallOnce", "Permute", "VarHandle", "ReadVariable",
               "AssignVariable"}


class Assignment:
    """Where one op runs: `backend`, the `rule` that chose it ("default order", "fallback", "op
    type rule", ...), `refusals` (backend -> why it refused) and `explicit` (named by a mapping
    rule: never moved elsewhere)."""

    def __init__(self, backend: str, rule: str, refusals: dict[str, str] | None = None,
                 explicit: bool = False) -> None:
        self.backend, self.rule, self.explicit = backend, rule, explicit
        self.refusals: dict[str, str] = {} if refusals is None else refusals

    def __repr__(self) -> str:
        return f"Assignment({self.backend!r}, {self.rule!r})"


class Rules:
    """The user's mapping rules, already validated against op names and backend ids: `allops`,
    `by_type` (IR type or builtin name -> backend), `by_index` ((subgraph, op) -> backend)."""

    def __init__(self, allops: str | None = None, by_type: dict[str, str] | None = None,
                 by_index: dict[tuple[int, int], str] | None = None) -> None:
        self.allops = allops
        self.by_type: dict[str, str] = {} if by_type is None else by_type
        self.by_index: dict[tuple[int, int], str] = {} if by_index is None else by_index


def _explicit(op: Operation, sg: int, rules: Rules) -> tuple[str, str] | None:
    if (sg, op.index) in rules.by_index:
        return rules.by_index[(sg, op.index)], f"op index rule ({sg}:{op.index})"
    for key in (op.builtin, op.subtype, op.type):
        if key and key in rules.by_type:
            return rules.by_type[key], f"op type rule ({key})"
    if op.custom_code and f"CUSTOM({op.custom_code})" in rules.by_type:
        return rules.by_type[f"CUSTOM({op.custom_code})"], "op type rule"
    if rules.allops:
        return rules.allops, "all-ops rule"
    return None


def assign(model: Model, backends: dict[str, Backend], order: list[str],
           rules: Rules) -> dict[tuple[int, int], Assignment]:
    """(subgraph, op index) -> Assignment, for every op of every subgraph."""
    out: dict[tuple[int, int], Assignment] = {}
    for sg, graph in enumerate(model.subgraphs):
        for op in graph.operations.values():
            out[(sg, op.index)] = _assign_one(op, sg, graph, backends, order, rules)
    return out


def _assign_one(op: Operation, sg: int, graph: Graph, backends: dict[str, Backend],
                order: list[str], rules: Rules) -> Assignment:
    if op.type in BUILTIN_OPS:
        return Assignment("builtin", "control flow, variables and Permute run on builtin")
    explicit = _explicit(op, sg, rules)
    if explicit is not None:
        bid, rule = explicit
        if bid not in backends:
            raise CompileError(f"op #{op.index} {op.name} (subgraph {sg}) is mapped to backend "
                               f"{bid!r} by the {rule}, but that backend is not loaded; loaded: "
                               f"{', '.join(order)}")
        ok, why = backends[bid].config.supports(op, graph)
        if not ok:
            raise CompileError(f"op #{op.index} {op.name} (subgraph {sg}) is mapped to {bid} by "
                               f"the {rule}, but {bid} cannot run it: {why}")
        return Assignment(bid, rule, explicit=True)
    refusals: dict[str, str] = {}
    for bid in order:
        ok, why = backends[bid].config.supports(op, graph)
        if ok:
            rule = "default order" if not refusals else "fallback"
            return Assignment(bid, rule, refusals)
        refusals[bid] = why
    dtypes = sorted({str(graph.operands[i].type_name) for i in op.inputs if i >= 0})
    detail = "; ".join(f"{b}: {r}" for b, r in refusals.items())
    raise UnsupportedOperationError(
        f"op #{op.index} {op.name} ({op.type}, inputs {'/'.join(dtypes) or 'none'}) in subgraph "
        f"{sg} is not supported by any of the backends asked ({', '.join(order)}): {detail}",
        op.type, op.index, refusals)
