"""Shape rules of the Circle-only builtins (InstanceNorm and RmsNorm keep the input shape and
are covered by shape_inference's `_same`)."""
from __future__ import annotations

import numpy as np

from .shape_inference import rule


@rule("RoPE")
def _rope(op, shapes, v):
    return [shapes[0]]


@rule("GRU")
def _gru(op, shapes, v):
    """The last hidden state, shaped like the state input (5); a declared output shape holding
    the same number of elements (e.g. (1, 1, H) for a (1, H) state) is kept."""
    state = tuple(shapes[5])
    declared = tuple(v.declared(op.outputs[0]))
    if int(np.prod(declared)) == int(np.prod(state)) and all(d >= 0 for d in declared):
        return [declared]
    return [state]
