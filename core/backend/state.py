"""Resetting the state a session carries between runs: the variable tensors (the recurrent
state of RNN/LSTM/SVDF ops), as TFLite's ResetVariableTensors does."""
from __future__ import annotations

from typing import Iterable

import numpy as np


def fill_initial(buf: np.ndarray, operand) -> None:
    """A variable tensor's initial value: the model's constant data; otherwise zeros, or the
    zero point of an int8 tensor with quantization (TFLite's ResetVariableTensor)."""
    if operand.is_constant:
        buf[...] = np.asarray(operand.data).reshape(buf.shape)
    elif operand.quant is not None and operand.dtype == np.int8:
        buf[...] = int(operand.quant.zero_point[0])
    else:
        buf[...] = 0


def reset_variables(compiled_subgraphs: Iterable) -> int:
    """Set every variable tensor of every compiled subgraph (objects with `contexts`, whose
    values have `tensor_registry` and `data.graph`) back to its initial value: the constant
    data the model gives it, or zeros (see fill_initial). Returns how many were reset."""
    count = 0
    for compiled in compiled_subgraphs:
        for ctx in compiled.contexts.values():
            registry = getattr(ctx, "tensor_registry", None)
            graph = getattr(getattr(ctx, "data", None), "graph", None)
            if registry is None or graph is None:
                continue
            for t in registry.native_tensors():
                operand = graph.operands[t.index] if t.index in graph.operands else None
                if operand is None or not operand.is_variable:
                    continue
                buf = t.buffer
                if not isinstance(buf, np.ndarray):         # a device tensor resets itself
                    reset = getattr(t, "reset_variable", None)
                    if reset is not None:
                        reset()
                        count += 1
                    continue
                fill_initial(buf, operand)
                count += 1
    return count
