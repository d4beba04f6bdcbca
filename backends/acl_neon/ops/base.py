"""The base of acl_neon kernels: the cpu kernel's validation, a native run.

An acl_neon kernel subclasses the cpu kernel of its op, so configure() validates exactly what
cpu validates (dtypes, ranks, parameters: bad parameters never reach native code), and
overrides prepare()/run() to call its native group. `native_group` names the module it needs;
`supports()` refuses the op with the reason when that module is not built. Dynamic tensors are
refused: kernels size their native plans in prepare().
"""
from __future__ import annotations

from ....core.backend import KernelRegistry
from ....core.ir import Graph, Operation
from .. import native

kernels = KernelRegistry("acl_neon")
register = kernels.register


class NeonMixin:
    """Mixed in before the cpu kernel class: `class X(NeonMixin, CpuX)`."""

    native_group = "core"
    float_only = True          # refuse quantized operands unless the class says otherwise

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = native.available(cls.native_group)
        if not ok:
            return False, why
        for i in (*op.inputs, *op.outputs):
            if i >= 0 and graph.operands[i].dynamic:
                return False, "acl_neon does not run ops with dynamic-shaped tensors"
        ok, why = super().supports(op, graph)
        if not ok:
            return False, why.replace("cpu", "acl_neon", 1)
        if cls.float_only and any(i >= 0 and graph.operands[i].is_quantized
                                  for i in (*op.inputs, *op.outputs)):
            return False, f"acl_neon has no quantized {op.type} kernel"
        return True, ""

    @property
    def lib(self):
        return native.module(self.native_group)

    @property
    def threads(self) -> int:
        return getattr(self.ctx, "threads", 1)
