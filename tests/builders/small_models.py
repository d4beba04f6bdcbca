"""Small float models the session, executor and plugin tests share, and their inputs."""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import ModelBuilder


def small_cnn(fmt: str = "tflite", batch: int = 1) -> bytes:
    """conv -> depthwise -> mean -> fully connected, two inputs added at the end."""
    rng = np.random.default_rng(0)
    b = ModelBuilder(fmt=fmt)
    x = b.add_input("image", (batch, 8, 8, 3), "float32", shape_signature=(-1, 8, 8, 3))
    w = b.add_const("w", rng.standard_normal((8, 3, 3, 3)).astype(np.float32))
    c = b.add_tensor("conv", (batch, 4, 4, 8), "float32", shape_signature=(-1, 4, 4, 8))
    cb = b.add_const("cb", rng.standard_normal(8).astype(np.float32))
    b.add_op("CONV_2D", [x, w, cb], [c], padding="SAME", stride_h=2, stride_w=2,
             fused_activation_function="RELU6")
    dw = b.add_const("dw", rng.standard_normal((1, 3, 3, 8)).astype(np.float32))
    d = b.add_tensor("dw_out", (batch, 4, 4, 8), "float32", shape_signature=(-1, 4, 4, 8))
    db = b.add_const("db", rng.standard_normal(8).astype(np.float32))
    b.add_op("DEPTHWISE_CONV_2D", [c, dw, db], [d], padding="SAME", depth_multiplier=1)
    axes = b.add_const("axes", np.array([1, 2], np.int32))
    m = b.add_tensor("mean", (batch, 8), "float32", shape_signature=(-1, 8))
    b.add_op("MEAN", [d, axes], [m], keep_dims=False)
    fw = b.add_const("fw", rng.standard_normal((5, 8)).astype(np.float32))
    fb = b.add_const("fb", rng.standard_normal(5).astype(np.float32))
    f = b.add_tensor("logits", (batch, 5), "float32", shape_signature=(-1, 5))
    b.add_op("FULLY_CONNECTED", [m, fw, fb], [f])
    bias = b.add_input("offset", (1, 5), "float32")
    y = b.add_tensor("scores", (batch, 5), "float32", shape_signature=(-1, 5))
    b.add_op("ADD", [f, bias], [y])
    b.add_output(y)
    b.add_output(m)
    return b.build()


def small_cnn_inputs(batch: int = 1) -> list[np.ndarray]:
    """An image batch and the offset input of small_cnn."""
    rng = np.random.default_rng(1)
    return [rng.standard_normal((batch, 8, 8, 3)).astype(np.float32),
            rng.standard_normal((1, 5)).astype(np.float32)]


def conv_add_relu() -> tuple[bytes, dict[str, int]]:
    """x -> CONV_2D -> ADD(k) -> RELU -> y, and the tensor indices by name."""
    rng = np.random.default_rng(1)
    b = ModelBuilder()
    t = {"x": b.add_input("x", (1, 6, 6, 3), "float32")}
    w = b.add_const("w", rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    bias = b.add_const("bias", rng.standard_normal(4).astype(np.float32))
    t["conv"] = b.add_tensor("conv", (1, 6, 6, 4), "float32")
    b.add_op("CONV_2D", [t["x"], w, bias], [t["conv"]], padding="SAME")
    k = b.add_const("k", rng.standard_normal((1, 1, 1, 4)).astype(np.float32))
    t["sum"] = b.add_tensor("sum", (1, 6, 6, 4), "float32")
    b.add_op("ADD", [t["conv"], k], [t["sum"]])
    t["y"] = b.add_tensor("y", (1, 6, 6, 4), "float32")
    b.add_op("RELU", [t["sum"]], [t["y"]])
    b.add_output(t["y"])
    return b.build(), t


def conv_add_relu_model() -> bytes:
    """x -> CONV_2D -> ADD(k) -> RELU -> y (float32; the plugin backend testadd takes the ADD)."""
    return conv_add_relu()[0]


def relu_add_model() -> bytes:
    """x -> RELU -> ADD(c) -> y and x -> MUL(x2) -> z: the first op could run in place on x."""
    b = ModelBuilder()
    x = b.add_input("x", (2, 3))
    x2 = b.add_input("x2", (2, 3))
    r = b.add_tensor("r", (2, 3))
    b.add_op("RELU", [x], [r])
    c = b.add_const("c", np.full((2, 3), 0.5, np.float32))
    y = b.add_tensor("y", (2, 3))
    b.add_op("ADD", [r, c], [y])
    z = b.add_tensor("z", (2, 3))
    b.add_op("MUL", [x, x2], [z])
    b.add_output(y)
    b.add_output(z)
    return b.build()


def relu_add_reference(x: np.ndarray, x2: np.ndarray) -> list[np.ndarray]:
    """relu_add_model's outputs, computed with NumPy."""
    return [np.maximum(x, 0) + np.float32(0.5), x * x2]


def check_relu_add(outs: list[np.ndarray], xs: list[np.ndarray]) -> None:
    """`outs` are relu_add_model's outputs for inputs `xs`."""
    for got, want in zip(outs, relu_add_reference(*[np.array(x) for x in xs]), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def computed_reshape_model(shape: tuple[int, int] = (2, 6)) -> bytes:
    """x -> RESHAPE(x, target) -> MUL(2) -> ADD(x') -> y, with the target shape an input, and
    the reshaped tensors declared with one static shape (no -1): the model file claims a
    static shape, shape inference finds them shaped at run time."""
    b = ModelBuilder()
    x = b.add_input("x", shape)
    target = b.add_input("target", (2,), "int32")
    declared = shape[::-1]
    t, m, y = (b.add_tensor(name, declared) for name in ("t", "m", "y"))
    b.add_op("RESHAPE", [x, target], [t])
    b.add_op("MUL", [t, b.add_const("two", np.float32(2))], [m])
    b.add_op("ADD", [m, m], [y])
    b.add_output(y)
    return b.build()
