"""The base of acl_neon kernels: the op's shared validation, a native run.

An acl_neon kernel subclasses the core base of its op (core/ops' `<Op>Base`, which the cpu
kernel subclasses too), so configure() validates exactly what every backend validates (dtypes,
ranks, parameters: bad parameters never reach native code), and prepare()/run() call its
native group. `native_group` names the module it needs;
`supports()` refuses the op with the reason when that module (or one named in `also_needs`)
is not built. Dynamic tensors are refused: kernels size their native plans in prepare().
"""
from __future__ import annotations

import math

import numpy as np

from ....core.backend import KernelRegistry
from ....core.exec.native import run_step, slot_of
from ....core.ir import Graph, Operation
from ....core.ops.forms import EIGHT_BIT
from .. import native

kernels = KernelRegistry("acl_neon")
register = kernels.register

F32 = np.dtype(np.float32)
CLAMP_RANGES = {"NONE": (-math.inf, math.inf), "RELU": (0.0, math.inf), "RELU6": (0.0, 6.0),
                "RELU_N1_TO_1": (-1.0, 1.0)}


def clamp_range(name: str | None) -> tuple[float, float]:
    """(lo, hi) of a fused clamp activation as the native epilogues apply it; anything else
    (TANH, SIGN_BIT: ignored by TFLite's convolution and pooling kernels, as by cpu's
    clamp_activation) clamps nothing."""
    return CLAMP_RANGES.get(name or "NONE", CLAMP_RANGES["NONE"])


def size(shape) -> int:
    """The element count of `shape` (1 for a scalar)."""
    return int(np.prod(shape, dtype=np.int64))


def float_io(op: Operation, graph: Graph, name: str,
             const_axis: bool = False) -> tuple[bool, str]:
    """A non-empty float32 input 0 (and, with `const_axis`, a constant axis input 1): what the
    `eltwise` group's row kernels (Softmax, Reduce, ArgMinMax) take."""
    x = graph.operands[op.inputs[0]]
    if x.dtype != F32:
        return False, f"acl_neon {name} takes float32 only"
    if size(x.shape) == 0:
        return False, f"acl_neon {name} has no kernel for empty tensors"
    if const_axis and (len(op.inputs) <= 1 or op.inputs[1] < 0 or
                       not graph.operands[op.inputs[1]].is_constant):
        return False, f"acl_neon {name} needs a constant axis input"
    return True, ""


class NeonMixin:
    """Mixed in before the core base: `class <Op>Layer(NeonMixin, <Op>Base)`. prepare() builds
    a native plan; bind() binds it to the tensors' slots as the kernel's native step
    (core/exec/native.py), by default input `plan_input` to output 0 (`plan_operands` names
    others); run() runs that step."""

    backend_id = "acl_neon"    # names this backend in the core base's refusals
    native_group = "core"
    also_needs: tuple[str, ...] = ()     # other native groups the kernel calls
    float_only = True          # refuse quantized operands unless the class says otherwise
    plan_input = 0

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        for group in (cls.native_group, *cls.also_needs):
            ok, why = native.available(group)
            if not ok:
                return False, why
        for i in (*op.inputs, *op.outputs):
            if i >= 0 and graph.operands[i].dynamic:
                return False, "acl_neon does not run ops with dynamic-shaped tensors"
        ok, why = super().supports(op, graph)
        if not ok:
            return False, why
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

    def plan_operands(self) -> list:
        """The tensors the plan's step reads and writes, in its bind() order."""
        return [self.inputs[self.plan_input], self.outputs[0]]

    def bind(self):
        return self.plan.bind(*(slot_of(t) for t in self.plan_operands()), self.threads)

    def run(self) -> None:
        run_step(self.native_step)


class QuantNeon(NeonMixin):
    """Base of the quantized acl_neon kernels: 8-bit activations only (int16 falls back)."""

    native_group = "quant"
    float_only = False

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        x = graph.operands[op.inputs[0]]
        if x.dtype not in EIGHT_BIT:
            return False, f"acl_neon has no {x.dtype} quantized {op.type} kernel"
        return True, ""
