"""Random ops: RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL.

Like TFLite's kernels they hold a generator state: seeded from the op's (seed, seed2) when
either is non-zero (the same sequence in every session), from OS entropy when both are zero;
each run advances it, so two runs of one session give different values. The values are
NumPy's Philox stream, not TFLite's: shapes, dtypes and distributions match, numbers do not."""
from __future__ import annotations

import numpy as np

from .common import OpKernel, register


class RandomKernel(OpKernel):
    dtypes = None

    def make_generator(self) -> np.random.Generator:
        p = self.op.params
        seed, seed2 = int(p.get("seed", 0) or 0), int(p.get("seed2", 0) or 0)
        if seed == 0 and seed2 == 0:
            return np.random.Generator(np.random.Philox())
        key = np.array([seed % 2**64, seed2 % 2**64], np.uint64)
        return np.random.Generator(np.random.Philox(key=key))

    def check_dtype(self, t, allowed, what: str) -> None:
        if t.dtype not in [np.dtype(a) for a in allowed]:
            names = "/".join(np.dtype(a).name for a in allowed)
            raise self.fail(f"{what} must be {names}, not {t.dtype}")


@register("RandomUniform", "RandomStandardNormal")
class RandomLayer(RandomKernel):
    """input: the output shape (int32/int64); output float32, uniform in [0, 1) or N(0, 1)."""

    def validate(self) -> None:
        self.check_dtype(self.inputs[0], (np.int32, np.int64), "the shape input")
        self.check_dtype(self.outputs[0], (np.float32,), "the output")
        self.gen = self.make_generator()
        self.normal = self.op.type == "RandomStandardNormal"

    def run(self) -> None:
        out = self.out
        draw = self.gen.standard_normal if self.normal else self.gen.random
        np.copyto(out, draw(out.shape, dtype=np.float32))


@register("Multinomial")
class MultinomialLayer(RandomKernel):
    """inputs (logits float32 [batch, classes], num_samples int32 scalar): class indices
    (int32/int64 [batch, num_samples]) drawn from softmax(logits) per row."""

    def validate(self) -> None:
        self.check_dtype(self.inputs[0], (np.float32,), "logits")
        self.check_dtype(self.inputs[1], (np.int32,), "num_samples")
        self.check_dtype(self.outputs[0], (np.int32, np.int64), "the output")
        self.gen = self.make_generator()

    def run(self) -> None:
        logits, out = self.buf(0).astype(np.float64), self.out
        if logits.ndim != 2 or out.shape[0] != logits.shape[0]:
            raise ValueError(f"logits {logits.shape} do not fit output {out.shape}")
        if out.size == 0:
            return
        if logits.shape[1] == 0:
            raise ValueError("MULTINOMIAL needs at least one class")
        top = np.max(logits, axis=1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        cdf = np.cumsum(np.exp(logits - top), axis=1)
        u = self.gen.random(out.shape) * cdf[:, -1:]
        for b in range(out.shape[0]):
            idx = np.searchsorted(cdf[b], u[b], side="right")
            out[b] = np.minimum(idx, logits.shape[1] - 1)
