"""Operands: the tensors of a graph, with shape, dtype, quantization and constant data."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .dtypes import BLOCK_TYPES

QUANTIZED_DTYPES = frozenset(np.dtype(t) for t in (np.int8, np.uint8, np.int16))


class Quantization(NamedTuple):
    """Affine quantization: real = scale * (q - zero_point), per tensor or per channel on `axis`."""

    scale: np.ndarray
    zero_point: np.ndarray
    axis: int = 0

    @property
    def per_channel(self) -> bool:
        return self.scale.size > 1

    def as_dict(self) -> dict:
        if self.per_channel:
            return {"scale": self.scale.tolist(), "zero_point": self.zero_point.tolist(),
                    "quantized_dimension": self.axis}
        return {"scale": float(self.scale[0]), "zero_point": int(self.zero_point[0])}


class Operand:
    """One tensor of a graph. `index` is the tensor's index in the model file's subgraph.

    `data`: constant data, a read-only view of the model file; `sparsity`: SparsityParameters
    for DENSIFY inputs; `dynamic`: shape known only at run time (set by the compiler)."""

    def __init__(self, index: int, name: str, shape: tuple[int, ...], dtype: np.dtype | None,
                 type_name: str = "FLOAT32", quant: Quantization | None = None,
                 data: np.ndarray | None = None, shape_signature: tuple[int, ...] | None = None,
                 is_variable: bool = False, sparsity: object | None = None,
                 extra: dict | None = None, dynamic: bool = False) -> None:
        self.index, self.name, self.shape, self.dtype = index, name, shape, dtype
        self.type_name, self.quant, self.data = type_name, quant, data
        self.shape_signature, self.is_variable, self.sparsity = shape_signature, is_variable, sparsity
        self.extra = {} if extra is None else extra
        self.dynamic = dynamic

    def __repr__(self) -> str:
        return (f"Operand(#{self.index} {self.name!r} {self.shape} {self.type_name}"
                + (" const" if self.data is not None else "") + ")")

    @property
    def is_constant(self) -> bool:
        return self.data is not None

    @property
    def is_quantized(self) -> bool:
        """An int8/uint8/int16 tensor with a scale and zero point (not a plain integer one)."""
        return self.quant is not None and self.dtype in QUANTIZED_DTYPES

    @property
    def is_block_quantized(self) -> bool:
        """A GGML block-quantized constant (type GGML_Q4_0 .. GGML_Q8_1): `data` holds its
        blocks as bytes, one row of blocks per last-axis row (core/quant/ggml_blocks.py)."""
        return self.type_name in BLOCK_TYPES

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= max(d, 0)
        return n

    def clone(self, index: int, name: str | None = None) -> "Operand":
        """A copy of this operand's description under another index (constant data shared)."""
        return Operand(index, name or self.name, self.shape, self.dtype, self.type_name, self.quant,
                       self.data, self.shape_signature, self.is_variable, self.sparsity,
                       dict(self.extra), self.dynamic)
