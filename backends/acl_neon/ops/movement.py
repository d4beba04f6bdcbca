"""Data movement on acl_neon: TRANSPOSE, CONCATENATION, PAD / PADV2, DEPTH_TO_SPACE,
SPACE_TO_DEPTH (more in movement_slice / movement_gather).

Each kernel describes its output in prepare() as NumPy views of its input and output buffers
(the same views the cpu kernel copies with np.copyto); `NeonMove.plan` turns them into one
native CopyPlan (byte offsets and strides, checked against the buffer sizes once), and run()
is one native call on the tensors' current buffers. Values move unchanged, so quantized
operands are accepted where the cpu kernel copies them; forms the cpu computes otherwise
(requantizing concatenation) and computed parameters stay on cpu.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import quantized
from ...cpu.ops import kernels as cpu_kernels
from ...cpu.ops.concat import ConcatLayer
from ...cpu.ops.pad import PadLayer
from ...cpu.ops.space_depth import DepthToSpaceLayer, SpaceToDepthLayer
from ...cpu.ops.transpose import TransposeLayer
from .base import NeonMixin, register


def _addr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _elem(itemsize: int) -> int:
    return next(e for e in (8, 4, 2, 1) if itemsize % e == 0)


def copy_steps(si: int, di: int, sbase: np.ndarray, src: np.ndarray, dbase: np.ndarray,
               dst: np.ndarray) -> list[tuple]:
    """The CopyPlan step copying view `src` of sbase (source si) to view `dst` of dbase."""
    if src.shape != dst.shape or src.dtype.itemsize != dst.dtype.itemsize:
        raise ValueError(f"copy of {src.shape} {src.dtype} into {dst.shape} {dst.dtype}")
    e = _elem(dst.itemsize)
    shape, ss, ds = list(dst.shape), list(src.strides), list(dst.strides)
    if dst.itemsize > e:      # items of other sizes (complex128): whole items as e-byte parts
        shape.append(dst.itemsize // e)
        ss.append(e)
        ds.append(e)
    return [(si, di, _addr(src) - _addr(sbase), _addr(dst) - _addr(dbase), shape, ss, ds, e,
             b"")]


def fill_steps(di: int, value: bytes, dbase: np.ndarray, dst: np.ndarray) -> list[tuple]:
    """CopyPlan steps writing the item `value` (dst.itemsize bytes) into view `dst`."""
    e = _elem(dst.itemsize)
    off = _addr(dst) - _addr(dbase)
    return [(-1, di, 0, off + j * e, list(dst.shape), list(dst.strides), list(dst.strides), e,
             value[j * e:(j + 1) * e]) for j in range(dst.itemsize // e)]


class NeonMove(NeonMixin):
    """A data-movement kernel running one native CopyPlan. `const_inputs`: parameter inputs
    acl_neon needs constant (the plan is built once); computed ones leave the op to cpu."""

    native_group = "movement"
    float_only = False
    const_inputs: tuple[int, ...] = ()

    @classmethod
    def supports(cls, op, graph):
        for i in cls.const_inputs:
            if i < len(op.inputs) and op.inputs[i] >= 0 and \
                    not graph.operands[op.inputs[i]].is_constant:
                return False, (f"acl_neon {op.type} needs constant parameters (input {i} is "
                               f"computed)")
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        q = cpu_kernels.match(op, graph)
        if q is not None and q.when is quantized:   # the cpu's quantized form decides which
            ok, why = q.cls.supports(op, graph)     # quantized forms exist
            if not ok:
                return False, why.replace("cpu", "acl_neon", 1)
            return cls.quant_copy(op, graph)
        return True, ""

    # Where set: the quantized op moves values unchanged only when its inputs `quant_inputs`
    # picks have the output's scale and zero point (cpu requantizes), else it is refused so.
    requant_refusal = ""

    @classmethod
    def quant_inputs(cls, op) -> list[int]:
        return list(op.inputs)

    @classmethod
    def quant_copy(cls, op, graph) -> tuple[bool, str]:
        """Whether the quantized op moves values unchanged (else cpu computes it)."""
        if cls.requant_refusal and not all(cls.same_quant(graph, i, op.outputs[0])
                                           for i in cls.quant_inputs(op) if i >= 0):
            return False, cls.requant_refusal
        return True, ""

    @staticmethod
    def same_quant(graph, a: int, b: int) -> bool:
        qa, qb = graph.operands[a].quant, graph.operands[b].quant
        return qa is not None and qb is not None and \
            np.array_equal(qa.scale, qb.scale) and np.array_equal(qa.zero_point, qb.zero_point)

    def cpu_prepare(self) -> None:
        """The cpu kernel's prepare() (its views; its compile-time checks)."""
        super(NeonMove, self).prepare()

    def prepare(self) -> None:
        """build(); shapes that do not fit (the cpu kernel finds them in run(), e.g. while
        one input of several is being resized) fail the run, as on cpu."""
        self.copy, self.error = None, ""
        try:
            self.build()
        except ValueError as e:
            self.error = str(e)

    def build(self) -> None:
        raise NotImplementedError

    def plan(self, srcs: list, dsts: list, steps: list[tuple]) -> None:
        """Build the CopyPlan: `srcs`/`dsts` are tensors, `steps` lists (src position or None
        for a fill, dst position, source view or fill bytes, dst view) over the tensors'
        current buffers. ValueError when a view does not fit."""
        self.src_tensors, self.dst_tensors = srcs, dsts
        sb = [t.buffer for t in srcs]
        db = [t.buffer for t in dsts]
        rows: list[tuple] = []
        for si, di, src, dst in steps:
            if si is None:
                rows += fill_steps(di, src, db[di], dst)
            else:
                rows += copy_steps(si, di, sb[si], src, db[di], dst)
        self.copy = self.lib.CopyPlan([a.nbytes for a in sb], [a.nbytes for a in db], rows)

    def run(self) -> None:
        if self.copy is None:
            raise ValueError(self.error)
        self.copy.run([t.buffer for t in self.src_tensors],
                      [t.buffer for t in self.dst_tensors], self.threads)


def concat_views(srcs: list, out: np.ndarray, axis: int) -> list[tuple]:
    """(input position, input array, the output slice it fills) per input of a concatenation
    along `axis`; ValueError when the inputs do not fill the output exactly."""
    views, start = [], 0
    lead = (slice(None),) * axis
    for k, src in enumerate(srcs):
        n = src.shape[axis] if src.ndim else 1
        views.append((k, src, out[lead + (slice(start, start + n),)]))
        start += n
    if start != (out.shape[axis] if out.ndim else 1):
        raise ValueError(f"inputs fill {start} of the output's {out.shape[axis]} along axis "
                         f"{axis}")
    return views


def item_bytes(value, dtype: np.dtype) -> bytes:
    return np.asarray(value).astype(dtype).reshape(()).tobytes()


@register("Transpose")
class NeonTranspose(NeonMove, TransposeLayer):
    const_inputs = (1,)

    def build(self) -> None:
        x, out = self.buf(0), self.out
        self.plan([self.inputs[0]], [self.outputs[0]], [(0, 0, x.transpose(self.perm), out)])


@register("Concat")
class NeonConcat(NeonMove, ConcatLayer):
    quantized = True      # the quantized forms are sorted out in quant_copy
    requant_refusal = ("acl_neon requantizes uint8 CONCATENATION inputs only (quant_concat); "
                       "int8/int16 inputs with other parameters run on cpu")

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok and op.params.get("fused_activation_function") not in (None, "NONE"):
            return False, "acl_neon CONCATENATION has no fused activation"
        return ok, why

    def build(self) -> None:
        srcs = [t.buffer for t in self.inputs]
        steps = [(k, 0, src, dst) for k, src, dst in concat_views(srcs, self.out, self.axis)]
        self.plan(list(self.inputs), [self.outputs[0]], steps)


@register("Pad", "PadV2")
class NeonPad(NeonMove, PadLayer):
    """The border is filled (the constant, or a copy from a computed constant_values with
    zero strides), the interior copied."""

    const_inputs = (1,)
    requant_refusal = ("acl_neon pads quantized tensors only when the input (and "
                       "constant_values) have the output's scale and zero point")

    @classmethod
    def quant_inputs(cls, op) -> list[int]:
        return [op.inputs[0]] + list(op.inputs[2:3])

    def prepare(self) -> None:
        PadLayer.prepare(self)      # checks the paddings against the shapes (compile error)
        super().prepare()

    def build(self) -> None:
        x, out = self.buf(0), self.out
        y = self.outputs[0]
        value = self.value
        if len(self.inputs) <= 2 and y.quant is not None and out.dtype.kind in "iu":
            value = int(y.quant.zero_point[0])      # PAD: the output's zero point
        srcs = [self.inputs[0]]
        if value is None:           # computed constant_values: copied in every run
            srcs.append(self.inputs[2])
            vsrc = self.buf(2).reshape(-1)[:1]
        steps = [(0, 0, x, self.interior)]
        inner: tuple = ()
        for d, (a, b) in enumerate(self.pads.tolist()):
            for part in (slice(0, a), slice(a + x.shape[d], out.shape[d])):
                region = out[inner + (part,)]
                if region.size == 0:
                    continue
                if value is None:
                    src = np.lib.stride_tricks.as_strided(vsrc, region.shape,
                                                          (0,) * region.ndim)
                    steps.append((1, 0, src, region))
                else:
                    steps.append((None, 0, item_bytes(value, out.dtype), region))
            inner += (slice(a, a + x.shape[d]),)
        self.plan(srcs, [y], steps)


class NeonBlockMove(NeonMove):
    """DEPTH_TO_SPACE / SPACE_TO_DEPTH: the cpu kernel's views (self.src, self.dst)."""

    def build(self) -> None:
        self.cpu_prepare()
        self.plan([self.inputs[0]], [self.outputs[0]], [(0, 0, self.src, self.dst)])


@register("DepthToSpace")
class NeonDepthToSpace(NeonBlockMove, DepthToSpaceLayer):
    pass


@register("SpaceToDepth")
class NeonSpaceToDepth(NeonBlockMove, SpaceToDepthLayer):
    pass
