"""The base of acl_neon kernels: the cpu kernel's validation, a native run.

An acl_neon kernel subclasses the cpu kernel of its op, so configure() validates exactly what
cpu validates (dtypes, ranks, parameters: bad parameters never reach native code), and
overrides prepare()/run() to call its native group. `native_group` names the module it needs;
`supports()` refuses the op with the reason when that module (or one named in `also_needs`)
is not built. Dynamic tensors are refused: kernels size their native plans in prepare().
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ....core.backend import KernelRegistry
from ....core.ir import Graph, Operation
from ....core.ops.base import conv_padding
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


def float_io(op: Operation, graph: Graph, name: str, const_axis: bool = False) -> tuple[bool, str]:
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


class ConvGeometry(NamedTuple):
    n: int
    h: int
    w: int
    c: int
    oh: int
    ow: int
    kh: int
    kw: int
    sh: int
    sw: int
    dh: int
    dw: int
    pt: int
    pl: int


def conv_geometry(params, xs, k_hw, ys, dilated: bool = True) -> ConvGeometry:
    """The geometry of a 2-D NHWC window op: input shape `xs`, window (kh, kw), output shape
    `ys`, the params' strides (and dilations unless `dilated` is False), SAME/VALID padding."""
    n, h, w, c = (int(v) for v in xs)
    kh, kw = (int(v) for v in k_hw)
    oh, ow = int(ys[1]), int(ys[2])
    sh, sw = params.stride_h, params.stride_w
    dh, dw = (params.dilation_h_factor, params.dilation_w_factor) if dilated else (1, 1)
    pt, _, pl, _ = conv_padding(params.padding, h, w, kh, kw, sh, sw, dh, dw, oh, ow)
    return ConvGeometry(n, h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl)


class NeonMixin:
    """Mixed in before the cpu kernel class: `class X(NeonMixin, CpuX)`. The default run() is
    one call of the native plan built in prepare(), input `plan_input` to output 0."""

    backend_id = "acl_neon"    # names this backend in the cpu kernel's refusals
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

    def run(self) -> None:
        self.plan.run(self.inputs[self.plan_input].buffer, self.outputs[0].buffer, self.threads)
