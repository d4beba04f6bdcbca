"""Tensor descriptions: `TensorInfo`, what a Session user needs to know about a model input or
output, and `tensorinfo`, the `onert` package's own description (dtype name, rank, dims) that
the onert-compatible API (onert_py.infer) hands out.

`onert.tensorinfo()` in the `onert` package makes a fresh tensorinfo; `tensorinfo()` here does
the same (`from onert_py.tensorinfo import tensorinfo`, or `onert_py.infer.tensorinfo`).
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence

import numpy as np


class TensorInfo(NamedTuple):
    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    quantization: dict | None = None      # {"scale", "zero_point"[, "quantized_dimension"]}

    def __repr__(self) -> str:
        q = f", quantization={self.quantization}" if self.quantization else ""
        return f"TensorInfo(name={self.name!r}, shape={self.shape}, dtype={self.dtype}{q})"


class tensorinfo:  # noqa: N801 - the onert package's spelling
    """onert's tensorinfo: `dtype`, the numpy name of the element type ("float32", "int8", ...);
    `rank`; `dims`, one size per dimension, -1 where the model leaves it unknown.

    As in onert's binding: setting `dims` sets `rank` to its length; setting `rank` cuts `dims`
    or pads them with 0. `dtype` takes a name or anything numpy reads as a dtype, and keeps the
    name; an unknown one is a ValueError."""

    __slots__ = ("_dtype", "_dims")

    def __init__(self, dtype: Any = "float32", rank: int | None = None,
                 dims: Sequence[int] | None = None) -> None:
        self.dtype = dtype
        self.dims = list(dims or [])
        if rank is not None:
            self.rank = rank

    @property
    def dtype(self) -> str:
        return self._dtype

    @dtype.setter
    def dtype(self, value: Any) -> None:
        try:
            self._dtype = np.dtype(value).name
        except TypeError:
            raise ValueError(f"tensorinfo dtype {value!r} is not a numpy dtype (onert's are "
                             f"float32, int32, uint8, bool, int64, int8, int16)") from None

    @property
    def rank(self) -> int:
        return len(self._dims)

    @rank.setter
    def rank(self, value: int) -> None:
        value = int(value)
        if value < 0:
            raise ValueError(f"tensorinfo rank must be >= 0, got {value}")
        self._dims = (self._dims + [0] * value)[:value]

    @property
    def dims(self) -> list[int]:
        return list(self._dims)

    @dims.setter
    def dims(self, value: Sequence[int]) -> None:
        self._dims = [int(d) for d in value]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, tensorinfo):
            return NotImplemented
        return (self.dtype, self.dims) == (other.dtype, other.dims)

    __hash__ = None      # mutable, as onert's

    def __repr__(self) -> str:
        return f"tensorinfo(dtype={self.dtype!r}, rank={self.rank}, dims={self.dims})"


def num_elems(info: tensorinfo) -> int:
    """The element count of `info` (onert's common.basesession.num_elems): the product of its
    dims, which must all be known."""
    return math.prod(info.dims)


__all__ = ["TensorInfo", "tensorinfo", "num_elems"]
