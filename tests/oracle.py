"""Reference results from the TFLite interpreter, for comparing against onert_py."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from onert_py.tflite_compare import tflite_run

__all__ = ["tflite_run", "tflite_stream"]


def tflite_stream(model: bytes, runs: Sequence[Sequence[np.ndarray]]) -> list[list[np.ndarray]]:
    """The outputs of one TFLite interpreter (builtin kernels, intermediate tensors not
    preserved) invoked once per input list in `runs`, in order: state the model keeps between
    invocations (variable tensors, resource variables) carries over as in a deployed stream."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    interp = Interpreter(model_content=bytes(model), experimental_preserve_all_tensors=False,
                         experimental_op_resolver_type=(
                             OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES))
    interp.allocate_tensors()
    ins, outs = interp.get_input_details(), interp.get_output_details()
    results = []
    for inputs in runs:
        for d, x in zip(ins, inputs):
            interp.set_tensor(d["index"], x)
        interp.invoke()
        results.append([np.array(interp.get_tensor(d["index"]), copy=True) for d in outs])
    return results
