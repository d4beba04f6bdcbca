"""Shape rule of CUSTOM ops (every backend's): the registration's shape_fn / infer_shapes when
it has one; otherwise the model's declared output shapes, unless an output's shape_signature
holds -1 or an input's shape may differ from what the model declares (-1 in its signature, or
another shape than its signature): then the outputs are dynamic and a function kernel's result
decides them (onert_py.custom_ops)."""
from __future__ import annotations

from ...custom_ops import lookup_custom_op
from .shape_inference import Dynamic, rule


def _open(sig) -> bool:
    return sig is not None and any(int(d) < 0 for d in sig)


@rule("Custom")
def _custom_rule(op, shapes, v):
    entry = lookup_custom_op(op.custom_code)
    fn = entry.infer_shapes() if entry is not None else None
    if fn is not None:
        return fn(op, shapes, v)
    graph = getattr(v, "graph", None)       # compile time only: the run-time values have none
    if graph is None:
        raise Dynamic(f"custom op {op.custom_code!r} has no shape rule; its kernel must size "
                      f"its outputs (shape_from_run) or be registered with a shape_fn")
    for k, i in enumerate(op.inputs):
        operand = graph.operands[i] if i >= 0 else None
        if operand is None or operand.is_constant:
            continue
        sig = operand.shape_signature
        if _open(sig) or (sig is not None and tuple(sig) != tuple(shapes[k])):
            raise Dynamic(f"input {k} of custom op {op.custom_code!r} may change shape")
    outs = []
    for o in op.outputs:
        if o < 0:
            outs.append(())
            continue
        if _open(graph.operands[o].shape_signature):
            raise Dynamic(f"the model leaves custom op {op.custom_code!r}'s output shapes open")
        outs.append(v.declared(o))
    return outs
