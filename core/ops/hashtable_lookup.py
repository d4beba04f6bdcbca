"""HASHTABLE_LOOKUP (TFLite's hashtable_lookup.cc): inputs lookup int32[N], keys int32[K],
values [K, ...] (any dtype, moved unchanged); outputs values [N, ...] (the row of each found
key, zeros for a miss) and hits uint8[N] (1 found, 0 missed). Static shapes are checked at
configure, run-time ones once per change (prepare)."""
from __future__ import annotations

import numpy as np

from ...errors import ExecutionError
from .movement import MoveKernel

I32, U8 = np.dtype(np.int32), np.dtype(np.uint8)


class HashtableLookupBase(MoveKernel):
    data = 2

    def validate(self) -> None:
        if len(self.inputs) != 3 or any(t is None for t in self.inputs):
            raise self.fail(f"takes 3 inputs (lookup, keys, values), got {len(self.inputs)}")
        if len(self.outputs) != 2:
            raise self.fail(f"has 2 outputs (values, hits), got {len(self.outputs)}")
        look, keys, values = self.inputs
        out, hits = self.outputs
        for name, t in (("lookup", look), ("keys", keys)):
            if t.dtype != I32:
                raise self.fail(f"{name} must be int32, not {t.dtype}")
            if not t.is_dynamic and len(t.shape) != 1:
                raise self.fail(f"{name} must be 1-D, not of shape {tuple(t.shape)}")
        if hits.dtype != U8:
            raise self.fail(f"hits must be uint8, not {hits.dtype}")
        if out.dtype != values.dtype:
            raise self.fail(f"output has dtype {out.dtype}, the values {values.dtype}")
        if not self.dynamic:
            why = self.misfit()
            if why:
                raise self.fail(why)

    def misfit(self) -> str | None:
        """What is wrong with the tensors' shapes (values rows vs keys, outputs vs lookups)."""
        look, keys, values = (tuple(t.shape) for t in self.inputs)
        out, hits = (tuple(t.shape) for t in self.outputs)
        n, k = (look[0] if look else 0), (keys[0] if keys else 0)
        if len(values) < 1 or values[0] != k:
            return f"values {values} must have one row per key ({k} keys)"
        if out != (n, *values[1:]):
            return f"output shape {out} is not {(n, *values[1:])}"
        if hits != (n,):
            return f"hits shape {hits} is not ({n},)"
        return None

    def prepare(self) -> None:
        """Run-time shapes (static ones were checked by validate): checked once per change."""
        why = self.misfit() if self.dynamic else None
        if why:
            raise ExecutionError(f"op #{self.op.index} {self.op.name}: {why}")


__all__ = ["HashtableLookupBase"]
