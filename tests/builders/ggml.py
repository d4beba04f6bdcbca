"""Circle models with GGML block-quantized constants: FULLY_CONNECTED weights and GATHER params,
and random blocks to fill them (raw random values, random fp16 scales: not made by onert_py's
quantizer)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from onert_py.model_builder import ModelBuilder

TYPES = ("GGML_Q4_0", "GGML_Q4_1", "GGML_Q8_0", "GGML_Q8_1")
# type -> (bytes per 32-value block, bytes of its fp16 fields)
LAYOUT = {"GGML_Q4_0": (18, 2), "GGML_Q4_1": (20, 4), "GGML_Q8_0": (34, 2),
          "GGML_Q8_1": (36, 4)}


def random_blocks(type_name: str, shape: Sequence[int], rng: np.random.Generator) -> np.ndarray:
    """Blocks of a tensor of logical `shape`: uint8 [*shape[:-1], row bytes], random value
    bytes (every nibble, int8 -128 included), scales of either sign in [1/64, 1/8], Q4_1
    minimums in [-1, 1], Q8_1 sums random (GGML does not read them back)."""
    size, head = LAYOUT[type_name]
    rows, nb = int(np.prod(shape[:-1], dtype=np.int64)), shape[-1] // 32
    blocks = rng.integers(0, 256, (rows, nb, size), dtype=np.uint8)
    d = rng.uniform(1 / 64, 1 / 8, (rows, nb)) * rng.choice([-1.0, 1.0], (rows, nb))
    halves = [d] + ([rng.uniform(-1, 1, (rows, nb))] if head == 4 else [])
    blocks[..., :head] = np.stack(halves, -1).astype("<f2").view(np.uint8)
    return blocks.reshape(*shape[:-1], nb * size)


def fc_model(type_name: str, blocks: np.ndarray, units: int, depth: int,
             x_shape: Sequence[int], y_shape: Sequence[int], bias: np.ndarray | None = None,
             **options: Any) -> bytes:
    """x (float32 input) -> FULLY_CONNECTED with weights [units, depth] of `type_name` blocks."""
    b = ModelBuilder("circle")
    x = b.add_input("x", tuple(x_shape), "float32")
    w = b.add_blocks("w", blocks, type_name, (units, depth))
    bias_idx = -1 if bias is None else b.add_const("bias", np.asarray(bias, np.float32))
    y = b.add_tensor("y", tuple(y_shape), "float32")
    b.add_op("FULLY_CONNECTED", [x, w, bias_idx], [y], **options)
    b.add_output(y)
    return b.build()


def gather_model(type_name: str, blocks: np.ndarray, params_shape: Sequence[int],
                 indices_shape: Sequence[int], y_shape: Sequence[int],
                 index_dtype: str = "int32", **options: Any) -> bytes:
    """indices (graph input) -> GATHER of params [params_shape] of `type_name` blocks."""
    b = ModelBuilder("circle")
    p = b.add_blocks("params", blocks, type_name, tuple(params_shape))
    i = b.add_input("indices", tuple(indices_shape), index_dtype)
    y = b.add_tensor("y", tuple(y_shape), "float32")
    b.add_op("GATHER", [p, i], [y], **options)
    b.add_output(y)
    return b.build()
