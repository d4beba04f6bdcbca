"""The reference for Circle's GGML block-quantized forms, a plain loop over blocks written from
GGML's published definitions and nothing of onert_py (core/quant/ggml_blocks.py is what it
checks): the block layouts of ggml-common.h (block_q4_0, block_q4_1, block_q8_0, block_q8_1),
dequantize_row_q4_0/_q4_1/_q8_0 of ggml-quants.c (Q8_1 read as d * q), and the CPU matrix
product of ggml_mul_mat: the float activations quantized per block by the NEON quantize_row_q8_0 /
quantize_row_q8_1 of ggml-cpu (what onert runs on device: halves round to even) into the
weights' vec_dot_type (Q8_1 for Q4_1, Q8_0 otherwise), then ggml_vec_dot_q4_0_q8_0 /
_q4_1_q8_1 / _q8_0_q8_0 per block. Shared by tests/ops/test_ggml.py and
the acl_neon ISA tests."""
from __future__ import annotations

import struct

import numpy as np

from builders.ggml import LAYOUT

F32 = np.float32


def half(data: bytes, offset: int) -> float:
    """The fp16 at `offset`, as a float."""
    return struct.unpack_from("<e", data, offset)[0]


def block_ints(type_name: str, blk: bytes) -> list[int]:
    """The 32 stored values of one block, in value order: 4-bit ones 0..15 (value j is the low
    nibble of byte j, value j + 16 its high nibble), 8-bit ones signed."""
    qs = blk[LAYOUT[type_name][1]:]
    if type_name in ("GGML_Q4_0", "GGML_Q4_1"):
        return [b & 0x0F for b in qs] + [b >> 4 for b in qs]
    return list(struct.unpack(f"<{len(qs)}b", qs))


def dequantize_block(type_name: str, blk: bytes) -> list[float]:
    """dequantize_row_*: d * (q - 8), d * q + m, d * q, each rounded once to float32."""
    d, q = half(blk, 0), block_ints(type_name, blk)
    if type_name == "GGML_Q4_0":
        return [float(F32((v - 8) * d)) for v in q]
    if type_name == "GGML_Q4_1":
        m = half(blk, 2)
        return [float(F32(v * d + m)) for v in q]           # exact in double, one rounding
    return [float(F32(v * d)) for v in q]


def blocks_of(type_name: str, row: bytes) -> list[bytes]:
    size = LAYOUT[type_name][0]
    return [row[i:i + size] for i in range(0, len(row), size)]


def quantize_q8(x: list[float], with_sum: bool) -> tuple[list[int], float, float]:
    """NEON quantize_row_q8_0 / _q8_1 of one block of float32 values: (q, d, s) with d and
    s the fp16 values the block stores (s = d * sum(q), 0 without `with_sum`)."""
    amax = max(abs(v) for v in x)
    d = F32(amax) / F32(127)
    inv = F32(1) / d if d else F32(0)
    q = []
    for v in x:
        t = float(F32(v) * inv)
        q.append(round(t))                   # vcvtnq_s32_f32: to nearest, halves to even
    s = float(np.float16(F32(sum(q)) * d)) if with_sum else 0.0
    return q, float(np.float16(d)), s


def fully_connected(type_name: str, weights: np.ndarray, x2d: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(y, magnitude) [rows, units] in float64: GGML's product of weight rows of blocks
    `weights` (uint8 [units, row bytes]) with float32 rows `x2d`, and the sum of the absolute
    values of its terms (the scale of float rounding differences)."""
    rows, units = x2d.shape[0], weights.shape[0]
    y, mag = np.zeros((rows, units)), np.zeros((rows, units))
    for m in range(rows):
        xs = [float(v) for v in x2d[m]]
        acts = [quantize_q8(xs[i:i + 32], type_name == "GGML_Q4_1")
                for i in range(0, len(xs), 32)]
        for n in range(units):
            for blk, (xq, dx, sx) in zip(blocks_of(type_name, bytes(weights[n])), acts):
                q = block_ints(type_name, blk)
                if type_name == "GGML_Q4_0":
                    q = [v - 8 for v in q]
                sumi = sum(a * b for a, b in zip(q, xq))
                terms = [sumi * half(blk, 0) * dx]
                if type_name == "GGML_Q4_1":
                    terms.append(half(blk, 2) * sx)
                y[m, n] += sum(terms)
                mag[m, n] += sum(abs(t) for t in terms)
    return y, mag


def gather_rows(type_name: str, params: np.ndarray, rows: list[int]) -> np.ndarray:
    """float32 [len(rows), depth]: rows of blocks `params` (uint8 [n, row bytes]) dequantized."""
    out = [[v for blk in blocks_of(type_name, bytes(params[r]))
            for v in dequantize_block(type_name, blk)] for r in rows]
    return np.asarray(out, F32)


ACTIVATIONS = {"NONE": lambda v: v, "RELU": lambda v: np.maximum(v, 0),
               "RELU6": lambda v: np.clip(v, 0, 6), "RELU_N1_TO_1": lambda v: np.clip(v, -1, 1)}


def check_fully_connected(got: np.ndarray, type_name: str, weights: np.ndarray,
                          x: np.ndarray, bias: np.ndarray | None, act: str = "NONE") -> None:
    """`got` equals the reference within float rounding: 1e-5 of the terms' magnitude."""
    depth = weights.shape[1] // LAYOUT[type_name][0] * 32
    want, mag = fully_connected(type_name, weights, x.reshape(-1, depth))
    if bias is not None:
        want = want + bias
        mag = mag + np.abs(bias)
    want = ACTIVATIONS[act](want).reshape(got.shape)
    err = np.abs(got.astype(np.float64) - want)
    bound = 1e-5 * mag.reshape(got.shape) + 1e-6
    assert got.dtype == np.float32
    assert (err <= bound).all(), (f"{type_name}: largest error {err.max():.3g} (bound "
                                  f"{bound.reshape(-1)[err.argmax()]:.3g})")
