"""Constant folding: DEQUANTIZE and DENSIFY of constant tensors become constants.

Models store weights compactly (float16, int8 with a scale, sparse) and expand them with a
DEQUANTIZE or DENSIFY op; TFLite's delegates treat the expanded tensor as static weights.
Folding these ops before backend assignment does the same here: the expanded weights are a
constant of the graph, so a backend that needs constant weights (acl_neon's packed GEMM,
acl_cl's device copies) takes the convolution, and no op is left to run. The values are what
the ops compute (float16 -> float32 exactly; scale * (q - zero_point) in float32; the dense
array of the sparse one), so results do not change.

An op is folded when its input is a constant (not a variable) and its output is an ordinary
intermediate tensor of static shape (not a subgraph input or output, not a variable).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...errors import CompileError
from ..backend.quantization import channel_axis, dequantize
from ..ir.sparsity import densify

F32 = np.dtype(np.float32)


class Folded(NamedTuple):
    """One folded op: its index in its subgraph, its name (DEQUANTIZE, DENSIFY), and its output
    operand, now a constant."""

    op: int
    name: str
    operand: int


def _dequantize(x, out) -> np.ndarray | None:
    if out.dtype != F32 or tuple(out.shape) != tuple(x.shape):
        return None
    if x.quant is not None:
        return dequantize(x.data, x.quant.scale, x.quant.zero_point, channel_axis(x.quant))
    if x.dtype == np.float16:
        return x.data.astype(np.float32)
    return None


def _densify(x, out, where: str) -> np.ndarray | None:
    if x.sparsity is None or out.dtype != x.dtype:
        return None
    try:
        return densify(np.asarray(x.data).reshape(-1), tuple(out.shape), x.sparsity)
    except (ValueError, IndexError) as e:
        raise CompileError(f"{where}: invalid sparse tensor: {e}") from None


def _value(op, graph, sg: int) -> np.ndarray | None:
    if op.builtin not in ("DEQUANTIZE", "DENSIFY") or len(op.inputs) != 1 or len(op.outputs) != 1:
        return None
    i, o = op.inputs[0], op.outputs[0]
    if i not in graph.operands or o not in graph.operands:
        return None
    x, out = graph.operands[i], graph.operands[o]
    if (not x.is_constant or x.is_variable or out.is_constant or out.is_variable
            or out.dtype is None or out.dynamic or any(int(d) < 0 for d in out.shape)
            or o in graph.outputs or o in graph.inputs):
        return None
    if op.builtin == "DEQUANTIZE":
        return _dequantize(x, out)
    return _densify(x, out, f"op #{op.index} DENSIFY in subgraph {sg}")


def fold_constants(model) -> dict[int, list[Folded]]:
    """Fold every foldable op of every subgraph in place (chains too: DENSIFY then DEQUANTIZE);
    returns {subgraph: [Folded]}. The folded ops leave the graph."""
    folded: dict[int, list[Folded]] = {}
    for sg, graph in enumerate(model.subgraphs):
        changed = True
        while changed:
            changed = False
            for oi in sorted(graph.operations):
                op = graph.operations[oi]
                value = _value(op, graph, sg)
                if value is None:
                    continue
                value = np.ascontiguousarray(value)
                value.flags.writeable = False
                graph.operands[op.outputs[0]].data = value
                del graph.operations[oi]
                folded.setdefault(sg, []).append(Folded(oi, op.name, op.outputs[0]))
                changed = True
    return folded
