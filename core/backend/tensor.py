"""Tensors as backends see them: ITensor, and HostTensor backed by a NumPy array."""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from ..ir import Operand, Quantization


class ITensor(ABC):
    """A tensor of one backend in one session."""

    def __init__(self, operand: Operand) -> None:
        self.index = operand.index
        self.name = operand.name
        self.shape: tuple[int, ...] = tuple(operand.shape)
        self.dtype: np.dtype | None = operand.dtype
        self.quant: Quantization | None = operand.quant
        self.is_constant = operand.is_constant
        self.is_dynamic = False
        self.sparsity = operand.sparsity

    @property
    @abstractmethod
    def buffer(self) -> Any:
        """The memory holding the data: an ndarray for host tensors, a device object otherwise."""

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * (self.dtype.itemsize if self.dtype else 1)

    def apply_shape(self, shape: tuple[int, ...]) -> None:
        """Give the tensor a new shape (dynamic tensors re-allocate on their next use)."""
        self.shape = tuple(int(d) for d in shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(#{self.index} {self.name!r} {self.shape} {self.dtype})"


class HostTensor(ITensor):
    """A tensor in host memory: a view into the backend's arena, constant data, or a user array."""

    def __init__(self, operand: Operand) -> None:
        super().__init__(operand)
        self._buffer: np.ndarray | None = None
        if operand.is_constant and operand.dtype is not None:
            self._buffer = operand.data
        self.offset: int | None = None     # position in the arena, set by the memory planner

    @property
    def buffer(self) -> np.ndarray:
        return self._buffer   # type: ignore[return-value]

    def set_buffer(self, array: np.ndarray) -> None:
        self._buffer = array

    def bind_arena(self, arena: np.ndarray, offset: int) -> None:
        """Point this tensor at `nbytes` of the arena starting at `offset`."""
        self.offset = offset
        n = self.nbytes
        self._buffer = arena[offset:offset + n].view(self.dtype).reshape(self.shape)

    def allocate(self) -> None:
        """Own a private buffer (dynamic tensors, and tensors that must outlive the arena)."""
        self._buffer = np.zeros(self.shape, self.dtype)
