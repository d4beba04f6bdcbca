"""Small models for the Ray integration tests (tests/ray/): rows are samples, the model's
first dimension is the batch."""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import ModelBuilder


def add_mul_model(batch: int = 1) -> bytes:
    """Two inputs a, b of (batch, 4) and two outputs: sum = a + b + 1, prod = a * b."""
    b = ModelBuilder()
    x = b.add_input("a", (batch, 4))
    y = b.add_input("b", (batch, 4))
    s = b.add_tensor("ab", (batch, 4))
    b.add_op("ADD", [x, y], [s])
    one = b.add_const("one", np.ones((1, 4), np.float32))
    s1 = b.add_tensor("sum", (batch, 4))
    b.add_op("ADD", [s, one], [s1])
    p = b.add_tensor("prod", (batch, 4))
    b.add_op("MUL", [x, y], [p])
    b.add_output(s1)
    b.add_output(p)
    return b.build()


def conv_reshape_model(batch: int = 1) -> bytes:
    """image (batch, 6, 6, 3) -> CONV_2D (2 filters) -> RESHAPE to the constant shape
    (batch, 72) -> FULLY_CONNECTED -> logits (batch, 5). The constant shape pins the batch:
    the model cannot be resized, so it runs `batch` rows at a time."""
    rng = np.random.default_rng(7)
    b = ModelBuilder()
    x = b.add_input("image", (batch, 6, 6, 3))
    w = b.add_const("w", rng.standard_normal((2, 3, 3, 3)).astype(np.float32))
    c = b.add_tensor("conv", (batch, 6, 6, 2))
    b.add_op("CONV_2D", [x, w, -1], [c], padding="SAME")
    shape = b.add_const("shape", np.array([batch, 72], np.int32))
    r = b.add_tensor("flat", (batch, 72))
    b.add_op("RESHAPE", [c, shape], [r])
    fw = b.add_const("fw", rng.standard_normal((5, 72)).astype(np.float32))
    y = b.add_tensor("logits", (batch, 5))
    b.add_op("FULLY_CONNECTED", [r, fw, -1], [y])
    b.add_output(y)
    return b.build()
