"""Placement: which backend runs each op of a compiled session, the Permutes inserted where
data crosses backends, the crossings shared without one, and the groups of ops a backend runs
as one fused op (Session.placement()). A snapshot: frozen, it does not follow later
recompilation (set_input_shape, set_input_type) or child subgraphs compiled by later runs."""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

PERMUTE = "Permute"
COMPILE_FALLBACK = "fallback while compiling"    # the rule of an op a backend refused then


@dataclass(frozen=True)
class OpPlacement:
    """One op of the model and the backend that runs it."""

    index: int                    # the op's index in its subgraph (the model's numbering)
    type: str                     # onert IR type: "Conv2D", "BinaryArithmetic", "If", ...
    name: str                     # the model's op name: "CONV_2D", "ADD", "CUSTOM(<code>)"
    backend: str                  # the backend id that runs it ("builtin" for control flow)
    # why that one: "default order", "fallback", "op type rule (...)", COMPILE_FALLBACK
    rule: str
    # the backends before it in the preference order that refused the op -> their reasons
    # (when compiling too: tensors shaped at run time, a kernel's configure)
    refusals: Mapping[str, str] = field(default_factory=dict, hash=False)
    fused_into: int | None = None   # the fused op that runs it (FusedPlacement.index), if any


@dataclass(frozen=True)
class FusedPlacement:
    """Ops a backend runs as one op of its own (config `fuse`; core/compiler/fusion.py): the
    fused op `index` (past the model's ops, like a Permute's) of `type` covers `ops`."""

    index: int
    type: str                     # the fused op's type: "InvertedResidual"
    backend: str
    ops: tuple[int, ...]          # the model's ops it covers, in execution order
    why: str                      # the backend's reason: what stays out of memory
    text: str                     # "fused: #3 CONV_2D + ... -> acl_neon InvertedResidual: why"


@dataclass(frozen=True)
class PermutePlacement:
    """A Permute the compiler inserted: tensor `operand` copied from one backend to another (or
    to/from `builtin`, which owns the session's inputs and outputs) as tensor `output`."""

    index: int                    # the Permute's op index (after the model's own ops)
    operand: int                  # the tensor read
    output: int                   # the copy written
    from_backend: str
    to_backend: str


@dataclass(frozen=True)
class SharedTensor:
    """A crossing between two host-memory backends without a Permute: backend `user` reads or
    writes tensor `operand` of backend `owner` itself (one buffer). `owner` "builtin" with an
    output operand: the op writes straight into the user's output array."""

    operand: int
    owner: str
    user: str


@dataclass(frozen=True)
class SubgraphPlacement:
    """The placement of one compiled subgraph: its ops in execution order (Permutes apart)."""

    index: int                                    # 0: the primary subgraph
    input_shapes: tuple[tuple[int, ...], ...]     # the shapes it was compiled for
    ops: tuple[OpPlacement, ...]
    permutes: tuple[PermutePlacement, ...]
    shared: tuple[SharedTensor, ...] = ()        # crossings elided (no Permute)
    fused: tuple[FusedPlacement, ...] = ()       # groups of ops run as one

    @property
    def op_backend(self) -> dict[int, str]:
        """op index -> backend id."""
        return {op.index: op.backend for op in self.ops}

    @property
    def used_backends(self) -> frozenset[str]:
        """The backends that run at least one of its ops."""
        return frozenset(op.backend for op in self.ops)

    def backend_of(self, index: int) -> str:
        """The backend of op `index`; KeyError naming the valid indices otherwise."""
        for op in self.ops:
            if op.index == index:
                return op.backend
        raise KeyError(f"subgraph {self.index} has no op {index}; its ops: "
                       f"{sorted(op.index for op in self.ops)}")

    def ops_on(self, backend: str) -> tuple[OpPlacement, ...]:
        """Its ops that `backend` runs."""
        return tuple(op for op in self.ops if op.backend == backend)


@dataclass(frozen=True)
class Placement:
    """A session's placement: the primary subgraph, and every control-flow child subgraph
    compiled so far (children are compiled when first needed, per input-shape signature). The
    properties and methods of SubgraphPlacement answer for the primary subgraph here too."""

    backends: tuple[str, ...]                    # the backends that loaded, in preference order
    not_loaded: Mapping[str, str] = field(hash=False)   # requested backends that did not -> why
    primary: SubgraphPlacement
    children: tuple[SubgraphPlacement, ...]      # by subgraph index, then input shapes

    @property
    def ops(self) -> tuple[OpPlacement, ...]:
        return self.primary.ops

    @property
    def permutes(self) -> tuple[PermutePlacement, ...]:
        return self.primary.permutes

    @property
    def shared(self) -> tuple[SharedTensor, ...]:
        return self.primary.shared

    @property
    def fused(self) -> tuple[FusedPlacement, ...]:
        return self.primary.fused

    @property
    def op_backend(self) -> dict[int, str]:
        return self.primary.op_backend

    @property
    def used_backends(self) -> frozenset[str]:
        return self.primary.used_backends

    def backend_of(self, index: int) -> str:
        return self.primary.backend_of(index)

    def ops_on(self, backend: str) -> tuple[OpPlacement, ...]:
        return self.primary.ops_on(backend)


def placement_of(compiler, compiled) -> Placement:
    """The Placement of a session's Compiler and its compiled primary subgraph."""
    children = sorted(compiler.children.items(), key=lambda kv: (kv[0][0], repr(kv[0][1])))
    return Placement(tuple(compiler.order), MappingProxyType(dict(compiler.failures)),
                     subgraph_placement(compiler, compiled),
                     tuple(subgraph_placement(compiler, child) for _, child in children))


def subgraph_placement(compiler, compiled) -> SubgraphPlacement:
    lowered = compiled.lowered
    g = lowered.graph
    ops, permutes, fused = [], [], []
    for oi in lowered.exec_order:
        op = g.operations[oi]
        if op.type == PERMUTE:
            permutes.append(PermutePlacement(oi, op.inputs[0], op.outputs[0],
                                             op.params.get("from"), op.params.get("to")))
            continue
        group = lowered.fused.get(oi)
        if group is not None:
            fused.append(FusedPlacement(oi, group.type, group.backend,
                                        tuple(i for i, _ in group.ops), group.why,
                                        group.describe()))
        for member in op.params.fused_ops if group is not None else (op,):
            a = compiler.assignment[(compiled.index, member.index)]
            late = lowered.refusals.get(member.index)   # refused it while compiling
            ops.append(OpPlacement(member.index, member.type, member.name,
                                   lowered.op_backend[oi], COMPILE_FALLBACK if late else a.rule,
                                   MappingProxyType({**a.refusals, **(late or {})}),
                                   None if group is None else oi))
    shapes = tuple(tuple(g.operands[i].shape) for i in g.inputs)
    shared = tuple(SharedTensor(*x) for x in lowered.shared)
    return SubgraphPlacement(compiled.index, shapes, tuple(ops), tuple(permutes), shared,
                             tuple(fused))
