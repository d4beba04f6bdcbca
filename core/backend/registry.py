"""ITensorRegistry: the tensors of one backend in one session."""
from __future__ import annotations

from typing import Iterator

from .tensor import ITensor


class TensorRegistry:
    """Native tensors (owned by this backend) and migrant ones (owned elsewhere, used here)."""

    def __init__(self, backend_id: str) -> None:
        self.backend_id = backend_id
        self._native: dict[int, ITensor] = {}
        self._migrant: dict[int, ITensor] = {}

    def set_native_tensor(self, index: int, tensor: ITensor) -> None:
        assert index not in self._native, f"tensor {index} registered twice"
        self._native[index] = tensor

    def set_migrant_tensor(self, index: int, tensor: ITensor) -> None:
        self._migrant[index] = tensor

    def get_native_itensor(self, index: int) -> ITensor | None:
        return self._native.get(index)

    def get_itensor(self, index: int) -> ITensor | None:
        return self._native.get(index) or self._migrant.get(index)

    def native_tensors(self) -> Iterator[ITensor]:
        return iter(self._native.values())

    def __contains__(self, index: int) -> bool:
        return index in self._native or index in self._migrant

    def __len__(self) -> int:
        return len(self._native)
