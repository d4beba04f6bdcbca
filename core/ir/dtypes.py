"""Tensor element types: the schema's TensorType codes and their NumPy dtypes.

Circle adds negative codes; of those, GGML's block-quantized types (GGML_Q4_0 .. GGML_Q8_1) are
read: their tensors have a logical shape and hold blocks of 32 values
(core/quant/ggml_blocks.py), so NumPy has no dtype for them."""
from __future__ import annotations

import numpy as np

# TensorType code -> (schema name, numpy dtype or None when NumPy has no such type)
TENSOR_TYPES: dict[int, tuple[str, np.dtype | None]] = {
    -5: ("GGML_Q8_1", None),               # Circle only: GGML blocks of 32 values
    -4: ("GGML_Q8_0", None),
    -3: ("GGML_Q4_1", None),
    -2: ("GGML_Q4_0", None),
    0: ("FLOAT32", np.dtype(np.float32)),
    1: ("FLOAT16", np.dtype(np.float16)),
    2: ("INT32", np.dtype(np.int32)),
    3: ("UINT8", np.dtype(np.uint8)),
    4: ("INT64", np.dtype(np.int64)),
    5: ("STRING", None),
    6: ("BOOL", np.dtype(np.bool_)),
    7: ("INT16", np.dtype(np.int16)),
    8: ("COMPLEX64", np.dtype(np.complex64)),
    9: ("INT8", np.dtype(np.int8)),
    10: ("FLOAT64", np.dtype(np.float64)),
    11: ("COMPLEX128", np.dtype(np.complex128)),
    12: ("UINT64", np.dtype(np.uint64)),
    13: ("RESOURCE", np.dtype(np.int32)),   # a resource handle: an int32 id, as in TFLite
    14: ("VARIANT", None),
    15: ("UINT32", np.dtype(np.uint32)),
    16: ("UINT16", np.dtype(np.uint16)),
    17: ("INT4", None),
    18: ("BFLOAT16", None),
}

#: The block-quantized (GGML) type names: constants of whole 32-value blocks, Circle only.
BLOCK_TYPES = frozenset({"GGML_Q4_0", "GGML_Q4_1", "GGML_Q8_0", "GGML_Q8_1"})


def type_name(code: int) -> str:
    """The schema's name of a TensorType code ("FLOAT32"), or "UNKNOWN(<code>)"."""
    entry = TENSOR_TYPES.get(code)
    return entry[0] if entry else f"UNKNOWN({code})"


def numpy_dtype(code: int) -> np.dtype | None:
    """The NumPy dtype of a TensorType code, None for types NumPy cannot hold."""
    entry = TENSOR_TYPES.get(code)
    return entry[1] if entry else None
