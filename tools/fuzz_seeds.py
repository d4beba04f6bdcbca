"""Seed models for the fuzzer: models the project writes itself (no file outside the repository
is needed), plus, on demand, every .tflite/.circle file of an extra folder.

Each seed is (name, bytes). Every generated seed loads, compiles and runs on the cpu backend
(tests/test_fuzz.py checks it), so a mutant that fails does so because of the mutation.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from onert_py.model_builder import ModelBuilder

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(REPO, "tests")


def chain_model(fmt: str = "tflite") -> bytes:
    """RELU -> ADD(const, fused RELU6) -> RESHAPE(const shape) -> FULLY_CONNECTED -> SOFTMAX."""
    b = ModelBuilder(fmt)
    x = b.add_input("x", (1, 4, 4, 2))
    r = b.add_tensor("r", (1, 4, 4, 2))
    b.add_op("RELU", [x], [r])
    c = b.add_const("c", np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2))
    y = b.add_tensor("y", (1, 4, 4, 2))
    b.add_op("ADD", [r, c], [y], fused_activation_function="RELU6")
    shape = b.add_const("shape", np.array([16, 2], np.int32))
    rs = b.add_tensor("rs", (16, 2))
    b.add_op("RESHAPE", [y, shape], [rs], new_shape=[16, 2])
    w = b.add_const("w", np.ones((3, 2), np.float32))
    z = b.add_tensor("z", (16, 3))
    b.add_op("FULLY_CONNECTED", [rs, w, -1], [z])
    s = b.add_tensor("s", (16, 3))
    b.add_op("SOFTMAX", [z], [s], beta=1.0)
    b.add_output(s)
    return b.build()


def cnn_model(fmt: str = "tflite") -> bytes:
    """CONV_2D -> MAX_POOL_2D -> MEAN -> CONCATENATION with a transposed copy; two outputs."""
    b = ModelBuilder(fmt)
    x = b.add_input("x", (1, 6, 6, 3))
    w = b.add_const("w", np.ones((4, 3, 3, 3), np.float32))
    bias = b.add_const("bias", np.zeros(4, np.float32))
    c = b.add_tensor("c", (1, 6, 6, 4))
    b.add_op("CONV_2D", [x, w, bias], [c], padding="SAME", fused_activation_function="RELU")
    p = b.add_tensor("p", (1, 3, 3, 4))
    b.add_op("MAX_POOL_2D", [c], [p], padding="VALID", filter_width=2, filter_height=2,
             stride_w=2, stride_h=2)
    axes = b.add_const("axes", np.array([1, 2], np.int32))
    mean = b.add_tensor("mean", (1, 4))
    b.add_op("MEAN", [p, axes], [mean], keep_dims=False)
    perm = b.add_const("perm", np.array([1, 0], np.int32))
    tr = b.add_tensor("tr", (4, 1))
    b.add_op("TRANSPOSE", [mean, perm], [tr])
    back = b.add_tensor("back", (1, 4))
    b.add_op("RESHAPE", [tr, b.add_const("s", np.array([1, 4], np.int32))], [back])
    cat = b.add_tensor("cat", (1, 8))
    b.add_op("CONCATENATION", [back, mean], [cat], axis=1)
    b.add_output(cat)
    b.add_output(p)
    return b.build()


def dynamic_model(fmt: str = "tflite") -> bytes:
    """Shapes decided at run time: FILL(dims input) and RESHAPE(x, shape input), then
    BROADCAST_TO, TILE and GATHER with an index input."""
    b = ModelBuilder(fmt)
    dims = b.add_input("dims", (2,), "int32")
    x = b.add_input("x", (2, 3))
    idx = b.add_input("idx", (2,), "int32")
    f = b.add_tensor("f", (-1, -1))
    b.add_op("FILL", [dims, b.add_const("v", np.float32(1.5))], [f])
    t = b.add_tensor("t", (4, 6))
    b.add_op("TILE", [x, b.add_const("mult", np.array([2, 2], np.int32))], [t])
    bt = b.add_tensor("bt", (2, 2, 3))
    b.add_op("BROADCAST_TO", [x, b.add_const("bs", np.array([2, 2, 3], np.int32))], [bt])
    g = b.add_tensor("g", (2, 3))
    b.add_op("GATHER", [x, idx], [g], axis=0)
    b.add_output(f)
    b.add_output(t)
    b.add_output(bt)
    b.add_output(g)
    return b.build()


def circle_model() -> bytes:
    """Circle-only ops: INSTANCE_NORM -> BATCH_MATMUL(adjoint_lhs) -> RMS_NORM."""
    b = ModelBuilder("circle")
    x = b.add_input("x", (1, 4, 4, 2))
    n = b.add_tensor("n", (1, 4, 4, 2))
    b.add_op("INSTANCE_NORM", [x, b.add_const("g", np.ones(2, np.float32)),
                               b.add_const("be", np.zeros(2, np.float32))],
             [n], epsilon=1e-5, fused_activation_function="NONE")
    y = b.add_tensor("y", (1, 4, 2, 2))
    b.add_op("BATCH_MATMUL", [n, n], [y], adj_x=True)
    r = b.add_tensor("r", (1, 4, 2, 2))
    b.add_op("RMS_NORM", [y, b.add_const("g2", np.ones(2, np.float32))], [r], epsilon=1e-6)
    b.add_output(r)
    return b.build()


def quant_model() -> bytes:
    """uint8 CONV_2D -> AVERAGE_POOL_2D -> FULLY_CONNECTED -> SOFTMAX (per-tensor quantized)."""
    def q(scale: float, zp: int) -> dict:
        return {"scale": [scale], "zero_point": [zp]}
    rng = np.random.default_rng(0)
    b = ModelBuilder()
    x = b.add_input("x", (1, 4, 4, 2), "uint8", quant=q(1 / 128, 128))
    w = b.add_const("w", rng.integers(0, 256, (3, 3, 3, 2)).astype(np.uint8), quant=q(0.01, 127))
    bias = b.add_const("b", rng.integers(-50, 50, 3).astype(np.int32), quant=q(0.01 / 128, 0))
    c = b.add_tensor("c", (1, 4, 4, 3), "uint8", quant=q(0.05, 10))
    b.add_op("CONV_2D", [x, w, bias], [c], padding="SAME", fused_activation_function="RELU6")
    p = b.add_tensor("p", (1, 2, 2, 3), "uint8", quant=q(0.05, 10))
    b.add_op("AVERAGE_POOL_2D", [c], [p], padding="VALID", stride_h=2, stride_w=2,
             filter_height=2, filter_width=2)
    fw = b.add_const("fw", rng.integers(0, 256, (4, 12)).astype(np.uint8), quant=q(0.02, 128))
    fc = b.add_tensor("fc", (1, 4), "uint8", quant=q(0.1, 128))
    b.add_op("FULLY_CONNECTED", [p, fw, -1], [fc])
    sm = b.add_tensor("sm", (1, 4), "uint8", quant=q(1 / 256, 0))
    b.add_op("SOFTMAX", [fc], [sm], beta=1.0)
    b.add_output(sm)
    return b.build()


def _test_models() -> list[tuple[str, bytes]]:
    """The control-flow models of tests/builders/cf_models.py (If, While, nesting, CALL_ONCE)."""
    if not os.path.isdir(TESTS):
        return []
    if TESTS not in sys.path:
        sys.path.append(TESTS)
    from builders import cf_models
    return [("if", cf_models.if_model()), ("while", cf_models.while_model()),
            ("while_until", cf_models.while_until_model()),
            ("growing_while", cf_models.growing_while_model()),
            ("nested", cf_models.nested_model()), ("variable", cf_models.variable_model())]


def builtin_seeds() -> list[tuple[str, bytes]]:
    """The generated seeds, TFLite and Circle."""
    return [("chain", chain_model()), ("chain.circle", chain_model("circle")),
            ("cnn", cnn_model()), ("cnn.circle", cnn_model("circle")),
            ("dynamic", dynamic_model()), ("circle_ops.circle", circle_model()),
            ("quant", quant_model()), *_test_models()]


def folder_seeds(folder: str | None, max_bytes: int = 4 << 20) -> list[tuple[str, bytes]]:
    """Every .tflite/.circle file of `folder` up to `max_bytes` (none when it is absent)."""
    if not folder or not os.path.isdir(folder):
        return []
    out = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.endswith((".tflite", ".circle")) and os.path.getsize(path) <= max_bytes:
            with open(path, "rb") as f:
                out.append((name, f.read()))
    return out
