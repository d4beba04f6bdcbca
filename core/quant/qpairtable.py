"""Lookup tables for 8-bit binary ops: the result of ADD/SUB/MUL (and int8 SQUARED_DIFFERENCE)
on two 8-bit inputs depends only on the pair of input values and on which loop of TFLite's
kernel computes the element (qbinary_math.loop_kinds: scalar, elementwise vector lanes,
scalar-broadcast vector lanes). So a kernel evaluates its exact integer arithmetic once on all
65536 pairs per loop kind, and a run is one gather: out = table[kind, a, b]. Bit-identical to
evaluating the arithmetic per element (the table is built by that very code), and ~10x faster
than it on NumPy."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .qbinary_math import ELEMENTWISE, SCALAR, SCALAR_BROADCAST

KINDS = (SCALAR, ELEMENTWISE, SCALAR_BROADCAST)
U8 = np.dtype(np.uint8)


def all_values(dtype) -> np.ndarray:
    """The 256 values of an 8-bit dtype, in the order of their byte (index = value & 0xFF)."""
    return np.arange(256, dtype=np.uint8).view(np.dtype(dtype))


def build(fn: Callable[[np.ndarray, np.ndarray, int], np.ndarray], dtype,
          kinds=KINDS) -> np.ndarray:
    """table[kind, ia, ib] = fn(a, b, kind) for every pair of 8-bit values (a, b) whose bytes
    are (ia, ib); `fn` gets (256, 1) and (1, 256) arrays and returns the output values."""
    v = all_values(dtype)
    a, b = v.reshape(256, 1), v.reshape(1, 256)
    table = np.zeros((len(KINDS), 256, 256), np.dtype(dtype))
    for k in kinds:
        table[k] = np.broadcast_to(fn(a, b, k), (256, 256))
    return table.reshape(len(KINDS), 65536)


def kind_offsets(kinds: np.ndarray | None) -> np.ndarray | None:
    """Per element, the offset of its loop kind's table in the flat tables (prepare once)."""
    return None if kinds is None else kinds.astype(np.intp) * 65536


def lookup(table: np.ndarray, a: np.ndarray, b: np.ndarray, offsets: np.ndarray | None,
           out: np.ndarray) -> None:
    """out[...] = table[kind, a, b] with a, b broadcast to out's shape; `offsets` from
    kind_offsets(loop kinds), or None when every element is computed by scalar code."""
    idx = (a.view(U8).astype(np.intp) << 8) | b.view(U8)
    if offsets is None:
        np.take(table[SCALAR], np.broadcast_to(idx, out.shape), out=out)
    else:
        np.take(table.reshape(-1), idx + offsets, out=out)


class TabulatedBinary:
    """Mixin of the 8-bit binary kernels (ADD/SUB, MUL, SQUARED_DIFFERENCE): the subclass
    defines `_compute(a, b, kinds, out)` (its exact arithmetic on raw inputs, loop kinds per
    element or None), calls `tabulate` in validate and, when some elements run in vector loops,
    `set_kinds` in prepare (the kinds depend on the shapes; by default every element is
    scalar); `run` then looks results up (8-bit inputs) or computes them (int16)."""

    table: np.ndarray | None = None
    kinds: np.ndarray | None = None       # loop kind per element; None: all scalar
    offsets: np.ndarray | None = None     # kind_offsets(kinds)

    def tabulate(self, dtype, vectorized: bool) -> None:
        self.table = build(self._pair_result, dtype, KINDS if vectorized else (SCALAR,)) \
            if np.dtype(dtype).itemsize == 1 else None

    def _pair_result(self, a: np.ndarray, b: np.ndarray, kind: int) -> np.ndarray:
        shape = np.broadcast_shapes(a.shape, b.shape)
        out = np.empty(shape, self.outputs[0].dtype)
        self._compute(a, b, None if kind == SCALAR else np.full(shape, kind, np.int8), out)
        return out

    def set_kinds(self, kinds: np.ndarray | None) -> None:
        self.kinds, self.offsets = kinds, kind_offsets(kinds)

    def run(self) -> None:
        a, b, out = self.inputs[0].buffer, self.inputs[1].buffer, self.outputs[0].buffer
        if self.table is not None:
            lookup(self.table, a, b, self.offsets, out)
        else:
            self._compute(a, b, self.kinds, out)
