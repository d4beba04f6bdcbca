"""Tensors as backends see them: ITensor, and HostTensor backed by a NumPy array."""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from ..exec.native import set_slot
from ..ir import Operand, Quantization


class ITensor(ABC):
    """A tensor of one backend in one session."""

    def __init__(self, operand: Operand) -> None:
        self.index = operand.index
        self.name = operand.name
        self.shape: tuple[int, ...] = tuple(operand.shape)
        self.dtype: np.dtype | None = operand.dtype
        self.type_name = operand.type_name     # the schema's name ("GGML_Q4_0" has no dtype)
        self.quant: Quantization | None = operand.quant
        self.is_constant = operand.is_constant
        self.is_dynamic = operand.dynamic    # shape (and buffer) decided at run time
        self.sparsity = operand.sparsity

    @property
    @abstractmethod
    def buffer(self) -> Any:
        """The memory holding the data: an ndarray for host tensors, a device object otherwise."""

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * (self.dtype.itemsize if self.dtype else 1)

    def apply_shape(self, shape: tuple[int, ...]) -> None:
        """Give the tensor a new shape, keeping its buffer (see `resize` for one that fits)."""
        self.shape = tuple(int(d) for d in shape)

    def resize(self, shape: tuple[int, ...]) -> None:
        """Take `shape` and a buffer that holds it (used at run time for dynamic shapes)."""
        self.apply_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(#{self.index} {self.name!r} {self.shape} {self.dtype})"


class HostTensor(ITensor):
    """A tensor in host memory: a view into the backend's arena, constant data, or a user array."""

    def __init__(self, operand: Operand) -> None:
        super().__init__(operand)
        self._buffer: np.ndarray | None = None
        if operand.is_constant and (operand.dtype is not None or operand.is_block_quantized):
            self._buffer = operand.data       # GGML blocks: rows of bytes (ggml_blocks)
        self.offset: int | None = None     # position in the arena, set by the memory planner
        self.planned_shape = self.shape    # the compile-time shape the arena slot holds
        self._arena: np.ndarray | None = None
        self.version = 0                   # bumped whenever the buffer changes
        self._slot = None                  # the native slot steps read (core/exec/native.py)

    @property
    def buffer(self) -> np.ndarray:
        return self._buffer   # type: ignore[return-value]

    def set_buffer(self, array: np.ndarray | None) -> None:
        self._buffer = array
        self.version += 1
        if self._slot is not None:         # native steps bound to this tensor follow it
            set_slot(self._slot, array)

    def bind_arena(self, arena: np.ndarray, offset: int) -> None:
        """Point this tensor at `nbytes` of the arena starting at `offset`."""
        self.offset, self._arena, self.planned_shape = offset, arena, self.shape
        n = self.nbytes
        self.set_buffer(arena[offset:offset + n].view(self.dtype).reshape(self.shape))

    def allocate(self) -> None:
        """Own a private buffer (dynamic tensors, and tensors that must outlive the arena)."""
        self.set_buffer(np.zeros(self.shape, self.dtype))

    def resize(self, shape: tuple[int, ...]) -> None:
        """Take `shape` with a buffer that holds it: the arena slot when the shape is the planned
        one, else a private buffer (kept while the shape stays the same)."""
        shape = tuple(int(d) for d in shape)
        b = self._buffer
        if b is not None and b.shape == shape:
            self.shape = shape
            return
        self.shape = shape
        if self._arena is not None and shape == self.planned_shape:
            n = self.nbytes
            self.set_buffer(self._arena[self.offset:self.offset + n].view(self.dtype)
                            .reshape(shape))
        else:
            self.set_buffer(np.empty(shape, self.dtype))

    def adopt(self, array: np.ndarray) -> None:
        """Take `array` (of this tensor's dtype) as the buffer, without a copy."""
        self.shape = tuple(array.shape)
        self.set_buffer(array)

    def release(self) -> None:
        """Drop a run-time buffer after its last use; arena-placed tensors keep their slot."""
        if self._arena is None and not self.is_constant and self.is_dynamic:
            self.set_buffer(None)


def host_array(t: ITensor) -> np.ndarray:
    """The data of a tensor as a host array (device tensors give a host copy through
    `to_host_array()`; host tensors their buffer)."""
    to_host = getattr(t, "to_host_array", None)
    return to_host() if to_host is not None else t.buffer
