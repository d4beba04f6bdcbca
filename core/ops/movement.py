"""The bases of the data-movement ops' kernels (core/ops/reshape.py, slice.py, split.py, ...):
`MoveKernel` (any dtype, quantized ones included: values move unchanged) with the checks of
index parameters and output dtypes, and `DataKernel` (numeric data, not quantized: the
scatter, segment and lookup ops that compute with the values).

Parameter inputs (axes, begin/size, paddings, ...) that are constants are read once at
configure; computed ones are read in every run, since they may change while shapes stay the
same."""
from __future__ import annotations

import numpy as np

from ..compiler.shape_rules_indexing import ints
from .base import ANY, NUMERIC, OpKernel


def copy_checked(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src, refusing to broadcast (a shape mismatch is a bug, not a broadcast)."""
    if dst.shape != src.shape:
        raise ValueError(f"computed a result of shape {src.shape} for an output of shape "
                         f"{dst.shape}")
    np.copyto(dst, src)


class MoveKernel(OpKernel):
    """Data movement: any dtype, quantized ones included (values move unchanged). `data` is
    the input whose dtype decides support."""

    dtypes = ANY
    quantized = True
    data = 0
    index_inputs: tuple[int, ...] = ()     # parameter inputs that must be int32/int64

    def validate(self) -> None:
        """The default check: index parameters are int32/int64, outputs have the data's dtype."""
        self.check_index_dtype(*self.index_inputs)
        self.check_same_dtype(self.data)

    def const(self, i: int) -> np.ndarray | None:
        """Input i's data when it is a constant, else None (read it in run())."""
        t = self.inputs[i] if i < len(self.inputs) else None
        return t.buffer if t is not None and t.is_constant else None

    def scalar(self, i: int) -> int:
        """Input i's first element as an int (a scalar or one-element parameter)."""
        return int(self.inputs[i].buffer.reshape(-1)[0])

    def static(self, i: int) -> bool:
        """Whether input i's shape is known at configure time."""
        t = self.inputs[i]
        return t is not None and not t.is_dynamic

    def check_index_dtype(self, *inputs: int, allowed=(np.int32, np.int64)) -> None:
        for i in inputs:
            t = self.inputs[i]
            if t is not None and t.dtype not in [np.dtype(a) for a in allowed]:
                names = "/".join(np.dtype(a).name for a in allowed)
                raise self.fail(f"input {i} must be {names}, not {t.dtype}")

    def check_same_dtype(self, a: int, *outputs: int) -> None:
        for o in outputs or range(len(self.outputs)):
            if self.outputs[o].dtype != self.inputs[a].dtype:
                raise self.fail(f"output {o} has dtype {self.outputs[o].dtype}, the input "
                                f"{self.inputs[a].dtype}")


class DataKernel(MoveKernel):
    """A kernel whose data input `data` decides support: its dtype must be in `dtypes`
    (None: any), quantized ones only when `quantized`."""

    dtypes = NUMERIC
    quantized = False


__all__ = ["MoveKernel", "DataKernel", "copy_checked", "ints"]
