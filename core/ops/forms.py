"""The forms of an op that select a kernel: predicates `(op, graph) -> bool` for
`KernelRegistry.register(..., when=...)`.

An op is *quantized* when its data input is an int8/uint8/int16 tensor with quantization
parameters (TFLite's quantized kernels), and *hybrid* when it takes a float32 input and int8
constant weights with a scale (the converter's dynamic-range quantization, TFLite's hybrid
kernels). Circle's GGML forms read block-quantized constants (core/quant/ggml_blocks.py):
FULLY_CONNECTED's weights (`ggml_weights`) and GATHER's params (`ggml_params`). The names of
the predicates are what `docs/ops.md` and `explain()` show."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..ir import Graph, Operation
from ..ir.operand import QUANTIZED_DTYPES

F32, I8, U8 = np.dtype(np.float32), np.dtype(np.int8), np.dtype(np.uint8)
EIGHT_BIT = frozenset({I8, U8})


def is_quantized(graph: Graph, index: int) -> bool:
    """Whether operand `index` is an int8/uint8/int16 tensor with quantization parameters."""
    return index >= 0 and graph.operands[index].is_quantized


def quantized(op: Operation, graph: Graph) -> bool:
    """The op's first input is a quantized tensor."""
    return bool(op.inputs) and is_quantized(graph, op.inputs[0])


def quantized_input(index: int) -> Callable[[Operation, Graph], bool]:
    """The op's input `index` is a quantized tensor (TRANSPOSE_CONV's data is input 2)."""
    def pred(op: Operation, graph: Graph) -> bool:
        return len(op.inputs) > index and is_quantized(graph, op.inputs[index])
    pred.__name__ = f"quantized_input_{index}"
    return pred


def is_8bit_quantized(o) -> bool:
    """Whether operand (or tensor) `o` is int8/uint8 with (at least one) scale."""
    return o.dtype in EIGHT_BIT and o.quant is not None and len(o.quant.scale) > 0


def quantized_8bit(op: Operation, graph: Graph) -> bool:
    """The op's first input is an int8/uint8 tensor with (at least one) scale."""
    return bool(op.inputs) and op.inputs[0] >= 0 and is_8bit_quantized(
        graph.operands[op.inputs[0]])


def hybrid(op: Operation, graph: Graph, weights: int = 1) -> bool:
    """Float32 input 0 and an int8 constant with a scale at input `weights`."""
    if len(op.inputs) <= weights or op.inputs[0] < 0 or op.inputs[weights] < 0:
        return False
    x, w = graph.operands[op.inputs[0]], graph.operands[op.inputs[weights]]
    return x.dtype == F32 and w.dtype == I8 and w.is_constant and w.quant is not None


def hybrid_weights(index: int) -> Callable[[Operation, Graph], bool]:
    """`hybrid` with the int8 weights at input `index` (the recurrent ops' first weights)."""
    if index == 1:
        return hybrid

    def pred(op: Operation, graph: Graph) -> bool:
        return hybrid(op, graph, index)
    pred.__name__ = f"hybrid_weights_{index}"
    return pred


def int8_table(op: Operation, graph: Graph) -> bool:
    """EMBEDDING_LOOKUP's hybrid form: an int8 table (input 1) with quantization parameters."""
    return (len(op.inputs) > 1 and op.inputs[1] >= 0
            and graph.operands[op.inputs[1]].dtype == I8
            and graph.operands[op.inputs[1]].quant is not None)


def _block_input(op: Operation, graph: Graph, index: int) -> bool:
    return (len(op.inputs) > index and op.inputs[index] >= 0
            and graph.operands[op.inputs[index]].is_block_quantized)


def ggml_weights(op: Operation, graph: Graph) -> bool:
    """FULLY_CONNECTED's weights (input 1) are GGML blocks."""
    return _block_input(op, graph, 1)


def ggml_params(op: Operation, graph: Graph) -> bool:
    """GATHER's params (input 0) are GGML blocks."""
    return _block_input(op, graph, 0)


__all__ = ["QUANTIZED_DTYPES", "is_quantized", "is_8bit_quantized", "quantized", "quantized_input",
           "quantized_8bit", "hybrid", "hybrid_weights", "int8_table", "ggml_weights",
           "ggml_params"]
