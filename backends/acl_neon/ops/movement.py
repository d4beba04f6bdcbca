"""The base of acl_neon's data-movement kernels (transpose.py, concat.py, pad.py, slice.py,
split.py, space_depth.py, space_batch.py).

Each kernel describes its output in prepare() as NumPy views of its input and output buffers
(the views core/ops/ builds, the ones the cpu kernel copies with np.copyto); `NeonMove.copy_plan`
turns them into one native CopyPlan (byte offsets and strides, checked against the buffer sizes
once), bound to the tensors' slots as the kernel's native step. Values move unchanged, so
quantized operands are accepted where the values are copied; forms computed otherwise
(requantizing concatenation) and computed parameters are refused (cpu runs them).
"""
from __future__ import annotations

import numpy as np

from ....core.exec.native import slot_of
from ....core.ops.base import quantized_form_supports
from ....core.ops.forms import quantized
from .base import NeonMixin


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


def item_bytes(value, dtype: np.dtype) -> bytes:
    """`value` as one item of `dtype` (a fill step's bytes)."""
    return np.asarray(value).astype(dtype).reshape(()).tobytes()


class NeonMove(NeonMixin):
    """A data-movement kernel running one native CopyPlan. `const_inputs`: parameter inputs
    acl_neon needs constant (the plan is built once); computed ones leave the op to cpu.
    `quantized_form`: where the op has a quantized form with TFLite's own checks, its core base
    (core/ops' Q<Op>Base): a quantized op must pass them (core/ops/base.py
    quantized_form_supports)."""

    native_group = "movement"
    float_only = False
    const_inputs: tuple[int, ...] = ()
    quantized_form: type | None = None

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
        ok, why = quantized_form_supports(cls, op, graph)     # which quantized forms exist
        if not ok:
            return False, why
        if cls.quantized_form is not None and quantized(op, graph):
            return cls.quant_copy(op, graph)
        return True, ""

    # Where set: the quantized op moves values unchanged only when its inputs `quant_inputs`
    # picks have the output's scale and zero point (else they are requantized), else it is
    # refused so.
    requant_refusal = ""

    @classmethod
    def quant_inputs(cls, op) -> list[int]:
        return list(op.inputs)

    @classmethod
    def quant_copy(cls, op, graph) -> tuple[bool, str]:
        """Whether the quantized op moves values unchanged (else it is refused)."""
        if cls.requant_refusal and not all(cls.same_quant(graph, i, op.outputs[0])
                                           for i in cls.quant_inputs(op) if i >= 0):
            return False, cls.requant_refusal
        return True, ""

    @staticmethod
    def same_quant(graph, a: int, b: int) -> bool:
        qa, qb = graph.operands[a].quant, graph.operands[b].quant
        return qa is not None and qb is not None and \
            np.array_equal(qa.scale, qb.scale) and np.array_equal(qa.zero_point, qb.zero_point)

    def core_prepare(self) -> None:
        """The core base's prepare() (its views; its compile-time checks)."""
        super(NeonMove, self).prepare()

    def prepare(self) -> None:
        """build(); shapes that do not fit (the cpu kernel finds them in run(), e.g. while
        one input of several is being resized) leave no plan: the bound step fails the run
        with the reason, as on cpu."""
        self.plan, self.error = None, ""
        try:
            self.build()
        except ValueError as e:
            self.error = str(e)

    def build(self) -> None:
        raise NotImplementedError

    def copy_plan(self, srcs: list, dsts: list, steps: list[tuple]) -> None:
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
        self.plan = self.lib.CopyPlan([a.nbytes for a in sb], [a.nbytes for a in db], rows)

    def bind(self):
        """The plan over the source and destination tensors' slots (or a step failing with
        prepare()'s reason)."""
        if self.plan is None:
            return self.lib.error_step(self.error)
        return self.plan.bind([slot_of(t) for t in self.src_tensors],
                              [slot_of(t) for t in self.dst_tensors], self.threads)
