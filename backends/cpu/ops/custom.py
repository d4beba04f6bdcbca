"""CUSTOM ops on cpu: the kernel registered for the op's custom code (onert_py.custom_ops)
runs it. `CustomLayer` is the dispatcher the backend's registry knows; it configures the
registered Kernel subclass, or `FunctionKernel` around a registered function, and takes over its
run/prepare. An op whose custom code has no kernel is refused at compile time, naming the code
and how to register one.

The op's shape rule is the core's (core/compiler/shape_rules_custom.py).
"""
from __future__ import annotations

import numpy as np

from ....core.backend import Kernel
from ....custom_ops import lookup_custom_op
from ....errors import ExecutionError
from .common import register


def _how_to_register(code: str) -> str:
    return (f"register a kernel before creating the Session: "
            f"onert_py.register_custom_op({code!r}, fn) with fn(inputs, options) -> outputs, "
            f"or a onert_py.custom_ops.Kernel subclass")


@register("Custom")
class CustomLayer(Kernel):
    """Dispatches to the kernel registered for the op's custom code."""

    @classmethod
    def supports(cls, op, graph) -> tuple[bool, str]:
        entry = lookup_custom_op(op.custom_code)
        if entry is None:
            return False, (f"custom op {op.custom_code!r} (op #{op.index}) has no kernel; "
                           f"{_how_to_register(op.custom_code)}")
        check = None if entry.is_function else getattr(entry.kernel, "supports", None)
        if check is not None:
            ok, why = check(op, graph)
            if not ok:
                return False, f"custom op {op.custom_code!r}: {why}"
        for i in (*op.inputs, *op.outputs):
            if i >= 0 and graph.operands[i].dtype is None:
                return False, (f"custom op {op.custom_code!r}: cpu cannot hold "
                               f"{graph.operands[i].type_name} tensors")
        return True, ""

    def configure(self, op, inputs, outputs, ctx=None) -> None:
        self.op, self.inputs, self.outputs, self.ctx = op, inputs, outputs, ctx
        entry = lookup_custom_op(op.custom_code)
        if entry is None:
            raise self.fail(f"custom op {op.custom_code!r} has no kernel any more; "
                            f"{_how_to_register(op.custom_code)}")
        impl = FunctionKernel(entry.kernel) if entry.is_function else entry.kernel()
        impl.configure(op, inputs, outputs, ctx)
        self.impl = impl
        self.shape_from_run = impl.shape_from_run
        self.prepare = impl.prepare          # type: ignore[method-assign]
        self.run = impl.run                  # type: ignore[method-assign]

    def __repr__(self) -> str:
        return f"CustomLayer({self.op!r} -> {getattr(self, 'impl', None)!r})"


class FunctionKernel(Kernel):
    """Runs `fn(inputs, options)` and copies its results into the outputs: a dynamic output
    takes the result's shape, a static one must already have it (dtypes always must match)."""

    shape_from_run = True

    def __init__(self, fn) -> None:
        self.fn = fn

    def validate(self) -> None:
        self.options = bytes(self.op.params.get("custom_options", b"") or b"")
        self.name = f"custom op {self.op.custom_code!r} (op #{self.op.index})"

    def run(self) -> None:
        arrays = []
        for t in self.inputs:
            if t is None or t.buffer is None:
                arrays.append(None)
                continue
            a = t.buffer.view()
            a.flags.writeable = False
            arrays.append(a)
        result = self.fn(arrays, self.options)
        if isinstance(result, (list, tuple)):
            results = list(result)
        else:
            results = [result]
        outs = [t for t in self.outputs if t is not None]
        if len(results) != len(outs):
            raise ExecutionError(f"{self.name}: the kernel returned {len(results)} array(s), "
                                 f"the op has {len(outs)} output(s)")
        for k, (t, r) in enumerate(zip(outs, results)):
            a = np.asarray(r)
            if a.dtype != t.dtype:
                raise ExecutionError(f"{self.name}: output {k} must be {t.dtype}, the kernel "
                                     f"returned {a.dtype}")
            if t.is_dynamic:
                t.resize(a.shape)
            elif tuple(a.shape) != tuple(t.shape):
                raise ExecutionError(f"{self.name}: output {k} has the static shape "
                                     f"{tuple(t.shape)}, the kernel returned {a.shape}; "
                                     f"leave the output's shape open (-1 in its shape_signature) "
                                     f"or register the op with a shape_fn")
            np.copyto(t.buffer, a)

    def __repr__(self) -> str:
        return f"FunctionKernel({getattr(self.fn, '__name__', self.fn)!r})"


from . import (  # noqa: E402  (bundled kernels register on import)
    detection_postprocess, mediapipe, mediapipe_landmarks)

BUNDLED = (mediapipe, mediapipe_landmarks, detection_postprocess)
