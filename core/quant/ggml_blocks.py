"""GGML's block quantization as Circle stores it (TensorType GGML_Q4_0, GGML_Q4_1, GGML_Q8_0,
GGML_Q8_1), and the arithmetic of GGML's CPU matrix product on it.

A block-quantized tensor has a logical shape (FULLY_CONNECTED weights [units, depth], GATHER
params [rows, ..., depth]) whose last dimension is a multiple of 32; its buffer holds, for each
row along the last axis, depth / 32 blocks of 32 values, little-endian, as GGML's
ggml-common.h lays out block_q4_0 ... block_q8_1:

| type | bytes | fields | value j |
|---|---|---|---|
| Q4_0 | 18 | d (fp16), qs[16] (two 4-bit values a byte) | d * (q_j - 8) |
| Q4_1 | 20 | d, m (fp16), qs[16] | d * q_j + m |
| Q8_0 | 34 | d, qs[32] (int8) | d * q_j |
| Q8_1 | 36 | d, s (fp16, d * sum(qs): not read back), qs[32] | d * q_j |

4-bit values: byte j of qs holds value j in its low nibble and value j + 16 in its high nibble
(GGML's dequantize_row_q4_0/_q4_1). Dequantized values are exact products rounded once to
float32, as GGML's dequantize_row_* computes them (GGML has no dequantize_row_q8_1: Q8_1 is the
format it quantizes activations into; its values read as d * q here).

GGML's matrix product of block weights with float32 activations (ggml_compute_forward_mul_mat,
what onert's cpu backend runs for FULLY_CONNECTED) first quantizes each 32-value block of the
activations into the weights' `vec_dot_type` (Q8_0 for Q4_0 and Q8_0 weights, Q8_1 for Q4_1;
`ACTIVATIONS` below), then sums per block the exact integer dot product of the two blocks'
values times both scales:

    Q4_0, Q8_0, Q8_1:  sum_b  d_w[b] * d_x[b] * sum_j q_w[b, j] * q_x[b, j]     (Q4_0: q_w - 8)
    Q4_1:              sum_b  d_w[b] * d_x[b] * sum_j q_w[b, j] * q_x[b, j]  +  m_w[b] * s_x[b]

The scales are the fp16 values the blocks store. The activations are quantized as GGML's NEON
quantize_row_q8_0 / _q8_1 does on the devices onert runs LLMs on (`quantize_activations`):
d = max|x| / 127, q = x * (1 / d) rounded to nearest with halves to even (vcvtnq), Q8_1 adds
s = d * sum(q). GGML's scalar quantize_row_q8_0_ref rounds halves away from zero instead, and
its AVX2 version multiplies by 127 / max|x|: on those builds an activation exactly halfway
between two steps may land one step away. GGML has no product for Q8_1 weights; they take
Q8_0 activations here, as Q8_0 weights do (the same values: d and q do not depend on s).
`quantize` is GGML's reference quantizer of each format (quantize_row_*_ref, what its quantize
tool writes), for writing models.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

QK = 32                         # values per block, every format here
F16 = np.dtype("<f2")
F32 = np.dtype(np.float32)


@dataclass(frozen=True)
class BlockFormat:
    """One GGML block format: its Circle type name, bytes per block, bits per value, and the
    second fp16 field after the scale ("m": Q4_1's minimum, "s": Q8_1's d * sum(q), or None)."""

    name: str
    block_bytes: int
    bits: int
    second: str | None = None

    @property
    def header(self) -> int:
        """Bytes before the values: one or two fp16 fields."""
        return 4 if self.second else 2


FORMATS: dict[str, BlockFormat] = {f.name: f for f in (
    BlockFormat("GGML_Q4_0", 18, 4),
    BlockFormat("GGML_Q4_1", 20, 4, "m"),
    BlockFormat("GGML_Q8_0", 34, 8),
    BlockFormat("GGML_Q8_1", 36, 8, "s"),
)}

#: weight format -> the format GGML quantizes the float activations into (its vec_dot_type)
ACTIVATIONS = {"GGML_Q4_0": "GGML_Q8_0", "GGML_Q4_1": "GGML_Q8_1", "GGML_Q8_0": "GGML_Q8_0",
               "GGML_Q8_1": "GGML_Q8_0"}


def block_format(type_name: str) -> BlockFormat:
    """The format of a GGML type name ("GGML_Q4_0"); KeyError naming the valid ones."""
    try:
        return FORMATS[type_name]
    except KeyError:
        raise KeyError(f"{type_name!r} is not a GGML block type; valid: "
                       f"{', '.join(FORMATS)}") from None


def shape_problem(fmt: BlockFormat, shape: tuple[int, ...]) -> str | None:
    """Why `shape` cannot be a tensor of `fmt` (None when it can): blocks run along the last
    dimension, which must hold whole blocks."""
    if not shape:
        return f"a {fmt.name} tensor needs at least one dimension (blocks run along the last)"
    if shape[-1] % QK:
        return (f"its last dimension {shape[-1]} is not a multiple of {QK}, the values per "
                f"{fmt.name} block")
    return None


def row_bytes(fmt: BlockFormat, depth: int) -> int:
    """Bytes of one row of `depth` values (depth a multiple of 32)."""
    return depth // QK * fmt.block_bytes


def nbytes(fmt: BlockFormat, shape: tuple[int, ...]) -> int:
    """Bytes of the whole tensor of logical `shape` (shape_problem(shape) is None)."""
    rows = int(np.prod(shape[:-1], dtype=object)) if len(shape) > 1 else 1
    return rows * row_bytes(fmt, shape[-1])


def fields(fmt: BlockFormat, raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The fields of rows of blocks `raw` (uint8 [..., row_bytes]): (q [..., blocks, 32] as
    int16, the stored value of GGML's order, 0..15 for the 4-bit formats; d [..., blocks]
    float32; the second field [..., blocks] float32 or None)."""
    raw = np.asarray(raw, np.uint8)
    blocks = raw.reshape(*raw.shape[:-1], raw.shape[-1] // fmt.block_bytes, fmt.block_bytes)
    halves = np.ascontiguousarray(blocks[..., :fmt.header]).view(F16).astype(F32)
    qs = blocks[..., fmt.header:]
    if fmt.bits == 4:
        q = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.int16)
    else:
        q = np.ascontiguousarray(qs).view(np.int8).astype(np.int16)
    return q, halves[..., 0], halves[..., 1] if fmt.second else None


def dequantize(fmt: BlockFormat, raw: np.ndarray) -> np.ndarray:
    """float32 [..., depth] of rows of blocks `raw` (uint8 [..., row_bytes]), as GGML's
    dequantize_row_* (module doc)."""
    q, d, second = fields(fmt, raw)
    if fmt.name == "GGML_Q4_0":
        q = q - 8
    values = q.astype(F32) * d[..., None]           # exact: a 4- or 8-bit int times an fp16
    if fmt.second == "m":
        values += second[..., None]
    return values.reshape(*values.shape[:-2], values.shape[-2] * QK)


def _round_half_away(v: np.ndarray) -> np.ndarray:
    """C's roundf, exactly (adding 0.5 first would round 0.49999997 up)."""
    t = np.trunc(v)
    return t + np.where(np.abs(v - t) >= 0.5, np.sign(v), 0).astype(v.dtype)


def _blocks_of(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, F32)
    return x.reshape(*x.shape[:-1], x.shape[-1] // QK, QK)


def _scale(amax: np.ndarray, steps: float) -> tuple[np.ndarray, np.ndarray]:
    """(d, 1 / d or 0) of blocks whose largest magnitude is `amax`, in float32."""
    d = (amax / np.float32(steps)).astype(F32)
    return d, np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)


def _q8_fields(fmt: BlockFormat, x: np.ndarray, rounding
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    x = _blocks_of(x)
    d, inv = _scale(np.abs(x).max(axis=-1), 127)
    q = rounding(x * inv[..., None])
    second = (q.sum(axis=-1).astype(F32) * d).astype(F16).astype(F32) if fmt.second else None
    return q.astype(np.int16), d.astype(F16).astype(F32), second


def quantize_activations(fmt: BlockFormat, x: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """float32 rows `x` [..., depth] quantized into Q8_0 or Q8_1 (`fmt`) as GGML's NEON
    quantizer does for its matrix product (module doc): (q [..., blocks, 32] int16, d, s or
    None), d and s the fp16 values as float32."""
    return _q8_fields(fmt, x, np.rint)


def quantize_fields(fmt: BlockFormat, x: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """GGML's reference quantizer (quantize_row_*_ref) of float32 rows `x` [..., depth] into
    `fmt`'s fields, as `fields` returns them (d and the second field rounded to fp16)."""
    if fmt.bits == 8:
        return _q8_fields(fmt, x, _round_half_away)
    x = _blocks_of(x)
    if fmt.name == "GGML_Q4_0":
        at = np.argmax(np.abs(x), axis=-1)[..., None]           # the first largest |x|
        d, inv = _scale(np.take_along_axis(x, at, axis=-1)[..., 0], -8)
        q = np.minimum(15, np.trunc(x * inv[..., None] + np.float32(8.5)))
        return q.astype(np.int16), d.astype(F16).astype(F32), None
    lo = x.min(axis=-1)
    d, inv = _scale(x.max(axis=-1) - lo, 15)
    q = np.minimum(15, np.trunc((x - lo[..., None]) * inv[..., None] + np.float32(0.5)))
    return q.astype(np.int16), d.astype(F16).astype(F32), lo.astype(F16).astype(F32)


def quantize(fmt: BlockFormat, x: np.ndarray) -> np.ndarray:
    """float32 rows `x` [..., depth] (depth a multiple of 32) as `fmt` blocks: uint8
    [..., row_bytes], GGML's reference quantizer's bytes."""
    q, d, second = quantize_fields(fmt, x)
    halves = [d] if second is None else [d, second]
    head = np.stack(halves, axis=-1).astype(F16).view(np.uint8)
    if fmt.bits == 4:
        body = (q[..., :QK // 2] | (q[..., QK // 2:] << 4)).astype(np.uint8)
    else:
        body = q.astype(np.int8).view(np.uint8)
    blocks = np.concatenate([head, body], axis=-1)
    return np.ascontiguousarray(blocks.reshape(*blocks.shape[:-2],
                                               blocks.shape[-2] * blocks.shape[-1]))


__all__ = ["QK", "BlockFormat", "FORMATS", "ACTIVATIONS", "block_format", "shape_problem",
           "row_bytes", "nbytes", "fields", "dequantize", "quantize_activations",
           "quantize_fields", "quantize"]
