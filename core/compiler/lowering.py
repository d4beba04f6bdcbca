"""Lowering: split a subgraph across backends and insert Permute where an operand crosses.

Every non-constant operand gets a home backend (its producer's; builtin for subgraph inputs).
An op reading an operand homed elsewhere reads a Permute'd copy instead; every subgraph output
is copied by a Permute into a builtin IO tensor that wraps the user's output array. Constants
are not permuted: each backend that reads one makes its own tensor of it.

No Permute where nothing changes: between two backends whose tensors live in host memory
(`host`: IConfig.host_memory; same dtype, NHWC layout and quantization, since the operand is
the same), the reader uses the owner's tensor itself, one buffer with one lifetime, recorded
in `LoweredGraph.shared` (onert's migrant tensors). With `share_outputs` (the session's
primary subgraph, whose output arrays are bound before each run), a graph output produced on
a host backend is written straight into the user's output array: its operand is homed on
builtin (the IO tensor) and its producer shares it. Permute stays where a value is converted
(float I/O of a quantized model) or crosses to or from a device backend.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import CompileError
from ..ir import Graph, Operation, Params

BUILTIN = "builtin"


class LoweredGraph:
    """A subgraph lowered for its backends:

    - `graph`: a copy of the subgraph with Permutes added;
    - `op_backend`: op index -> backend id; `home`: non-constant operand -> owning backend id;
    - `exec_order`: op indices in execution order; `permutes`: the Permute ops added;
    - `shared`: (operand, owning backend, backend using the owner's tensor), the crossings
      without a Permute;
    - `refusals`: op index -> backend -> why it refused the op while compiling
      (compiler/fallback.py);
    - `fused`: fused op index -> the group of ops it replaced (compiler/fusion.py: FusedGroup).
    """

    def __init__(self, graph: Graph, op_backend: dict[int, str], home: dict[int, str],
                 exec_order: list[int], permutes: list[int] | None = None,
                 shared: list[tuple[int, str, str]] | None = None,
                 refusals: dict[int, dict[str, str]] | None = None,
                 fused: dict[int, Any] | None = None) -> None:
        self.graph, self.op_backend, self.home, self.exec_order = graph, op_backend, home, exec_order
        self.permutes: list[int] = [] if permutes is None else permutes
        self.shared: list[tuple[int, str, str]] = [] if shared is None else shared
        self.refusals: dict[int, dict[str, str]] = {} if refusals is None else refusals
        self.fused: dict[int, Any] = {} if fused is None else fused

    def operands_of(self, backend_id: str) -> set[int]:
        """Operands the backend owns: those homed there plus the constants its ops read."""
        g = self.graph
        owned = {o for o, b in self.home.items() if b == backend_id}
        for oi, b in self.op_backend.items():
            if b == backend_id:
                owned.update(i for i in g.operations[oi].inputs
                             if i >= 0 and g.operands[i].is_constant)
        return owned

    def ops_of(self, backend_id: str) -> list[int]:
        return [oi for oi in self.exec_order if self.op_backend[oi] == backend_id]


def copy_graph(graph: Graph) -> Graph:
    g = Graph(graph.name, inputs=list(graph.inputs), outputs=list(graph.outputs))
    g.operands = {i: o.clone(i) for i, o in graph.operands.items()}
    g.operations = {i: Operation(op.index, op.type, op.builtin, list(op.inputs), list(op.outputs),
                                 op.params, op.subtype, op.custom_code, op.version,
                                 list(op.intermediates))
                    for i, op in graph.operations.items()}
    return g


def lower(graph: Graph, op_backend: dict[int, str], sg_index: int = 0,
          io_float: frozenset[int] = frozenset(), host: frozenset[str] = frozenset(),
          share_outputs: bool = False) -> LoweredGraph:
    """`io_float`: quantized graph inputs/outputs the user passes and receives as float32; a
    builtin Permute quantizes such an input and dequantizes such an output (onert's float I/O
    type of a quantized model). `host`: the backends whose tensors are host memory (crossings
    between two of them share the tensor); `share_outputs`: graph outputs produced on such a
    backend are written into the IO tensor directly."""
    g = copy_graph(graph)
    op_backend = dict(op_backend)
    home: dict[int, str] = {i: BUILTIN for i in g.inputs}
    converts: list[int] = [_float_input(g, i, op_backend, home)
                           for i in g.inputs if i in io_float]
    for op in g.operations.values():
        for o in op.outputs:
            if o >= 0:
                home[o] = op_backend[op.index]
    for op in g.operations.values():      # variables and never-written operands: first reader's
        for i in op.inputs:
            if i >= 0 and i not in home and not g.operands[i].is_constant:
                home[i] = op_backend[op.index]
    lowered = LoweredGraph(g, op_backend, home, [])
    host = frozenset(host) | {BUILTIN} if host else frozenset()
    producer = {o: op_backend[op.index] for op in g.operations.values() for o in op.outputs
                if o >= 0}
    direct_out = set()       # graph outputs written straight into the IO tensor
    shared_made: set[tuple[int, str]] = set()
    if share_outputs:
        for k, o in enumerate(g.outputs):
            if (o >= 0 and o not in g.inputs and g.outputs.count(o) == 1
                    and graph.outputs[k] not in io_float and producer.get(o) in host
                    and producer[o] != BUILTIN and not g.operands[o].is_constant
                    and not g.operands[o].is_variable and g.operands[o].dtype is not None
                    and g.operands[o].dtype.kind != "O"):
                direct_out.add(o)
                home[o] = BUILTIN
                lowered.shared.append((o, BUILTIN, producer[o]))
                shared_made.add((o, producer[o]))

    def add_permute(src: int, dst_backend: str) -> int:
        dst = g.new_operand_index()
        g.operands[dst] = g.operands[src].clone(dst)
        g.operands[dst].data = None
        home[dst] = dst_backend
        pi = g.new_operation_index()
        g.operations[pi] = Operation(pi, "Permute", "PERMUTE", [src], [dst],
                                     Params({"from": home.get(src, "const"), "to": dst_backend}))
        op_backend[pi] = BUILTIN
        lowered.permutes.append(pi)
        return pi

    written = set(g.inputs) | {i for i, o in g.operands.items() if o.is_constant}
    produced = g.producers()
    written |= {i for i in home if i not in produced and i not in g.inputs}
    made: dict[tuple[int, str], int] = {}
    order: list[int] = list(converts)
    written.update(g.operations[pi].outputs[0] for pi in converts)
    lowered.permutes.extend(converts)
    for oi in sorted(graph.operations):
        op = g.operations[oi]
        b = op_backend[oi]
        for k, i in enumerate(op.inputs):
            if i < 0:
                continue
            if i not in written:
                raise CompileError(f"subgraph {sg_index} op #{oi} {op.name} reads tensor #{i} "
                                   f"before any op writes it (the graph has a cycle or is "
                                   f"out of order)")
            if g.operands[i].is_constant or b == BUILTIN or home[i] == b:
                continue
            if home[i] in host and b in host:       # one buffer: no Permute
                if (i, b) not in shared_made:
                    shared_made.add((i, b))
                    lowered.shared.append((i, home[i], b))
                continue
            if (i, b) not in made:
                pi = add_permute(i, b)
                made[(i, b)] = pi
                order.append(pi)
            op.inputs[k] = g.operations[made[(i, b)]].outputs[0]
        order.append(oi)
        written.update(o for o in op.outputs if o >= 0)
    for k, o in enumerate(g.outputs):
        if o in direct_out:
            continue
        pi = add_permute(o, BUILTIN)
        g.outputs[k] = g.operations[pi].outputs[0]
        if graph.outputs[k] in io_float:
            _as_float(g.operands[g.outputs[k]])
        order.append(pi)
    lowered.exec_order = order
    return lowered


def _as_float(operand) -> None:
    operand.dtype, operand.type_name, operand.quant = np.dtype(np.float32), "FLOAT32", None


def _float_input(g: Graph, i: int, op_backend: dict[int, str], home: dict[int, str]) -> int:
    """Make graph input `i` float32; its readers read a quantized copy written by a builtin
    Permute (returned), homed on builtin like the input."""
    q = g.new_operand_index()
    g.operands[q] = g.operands[i].clone(q)
    g.operands[q].data = None
    _as_float(g.operands[i])
    for op in g.operations.values():
        op.inputs = [q if x == i else x for x in op.inputs]
    g.outputs = [q if x == i else x for x in g.outputs]
    pi = g.new_operation_index()
    g.operations[pi] = Operation(pi, "Permute", "PERMUTE", [i], [q],
                                 Params({"from": BUILTIN, "to": BUILTIN}))
    op_backend[pi] = BUILTIN
    home[q] = BUILTIN
    return pi
