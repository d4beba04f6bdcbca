"""One registry key, several quantized kernel classes chosen by the input's dtype.

The quantized registry holds one class per op key; where the 8-bit and int16 forms of an op are
different algorithms (and live in different modules), the registered class is a `ByDtype`
subclass that configures the right implementation and runs it (as CustomLayer delegates)."""
from __future__ import annotations

from .base import QuantKernel


class ByDtype(QuantKernel):
    """Delegates to `impls[input dtype]` (a QuantKernel class)."""

    impls: dict = {}

    def __init_subclass__(cls, **kw) -> None:
        super().__init_subclass__(**kw)
        cls.dtypes = frozenset(cls.impls)

    @classmethod
    def supports(cls, op, graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        dtype = graph.operands[op.inputs[0]].dtype
        return cls.impls[dtype].supports(op, graph)

    def configure(self, op, inputs, outputs, ctx=None) -> None:
        self.op, self.inputs, self.outputs, self.ctx = op, inputs, outputs, ctx
        cls = self.impls.get(inputs[0].dtype)
        if cls is None:
            raise self.fail(f"quantized {op.type} has no {inputs[0].dtype} kernel")
        impl = cls()
        impl.configure(op, inputs, outputs, ctx)
        self.impl = impl
        self.prepare = impl.prepare          # type: ignore[method-assign]
        self.run = impl.run                  # type: ignore[method-assign]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.op!r} -> {getattr(self, 'impl', None)!r})"
