"""TensorInfo: what a user needs to know about a model input or output."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


class TensorInfo(NamedTuple):
    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    quantization: dict | None = None      # {"scale", "zero_point"[, "quantized_dimension"]}

    def __repr__(self) -> str:
        q = f", quantization={self.quantization}" if self.quantization else ""
        return f"TensorInfo(name={self.name!r}, shape={self.shape}, dtype={self.dtype}{q})"
