"""Hybrid (dynamic-range quantized) models: float32 activations, int8 constant weights with a
per-tensor or per-channel scale. The hybrid kernels (backends/cpu/ops/hybrid.py) are compared
with the TFLite interpreter through a Session (the cpu registry's `select` picks the hybrid
kernel when the weights are int8); float16 weights through DEQUANTIZE too."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.backends.cpu.ops.hybrid_base import quantize_rows
from onert_py.model_builder import ModelBuilder
from builders.single_op import conv_out
from op_harness import check_op, rand, run_onert
from oracle import tflite_run
from quant_harness import compile_error

# Hybrid kernels do TFLite's integer arithmetic exactly; only the final float rescale and the
# bias add can round differently.
HYBRID = {"rtol": 1e-4, "atol": 1e-4}


def check_hybrid(model: bytes, inputs: list[np.ndarray], backend: str) -> None:
    want = tflite_run(model, inputs)
    got = run_onert(model, inputs, backend)   # a Session: the registry picks the hybrid kernel
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, **HYBRID)


def int8_weights(rng, shape, axis, per_channel):
    w = rand(rng, shape, low=-1, high=1)
    if per_channel:
        red = tuple(a for a in range(len(shape)) if a != axis)
        scale = np.abs(w).max(axis=red) / 127
        q = np.round(w / np.expand_dims(scale, red)).astype(np.int8)
        quant = {"scale": scale.astype(np.float32).tolist(), "zero_point": [0] * scale.size,
                 "quantized_dimension": axis}
    else:
        scale = float(np.abs(w).max() / 127)
        q = np.round(w / scale).astype(np.int8)
        quant = {"scale": scale, "zero_point": 0}
    return q, quant


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("x_shape,units,bias", [((3, 10), 6, True), ((2, 4, 8), 5, False)])
def test_fully_connected(backend, per_channel, asym, x_shape, units, bias):
    rng = np.random.default_rng(10)
    k = x_shape[-1]
    q, quant = int8_weights(rng, (units, k), 0, per_channel)
    b = ModelBuilder("tflite")
    x = b.add_input("x", x_shape, "float32")
    w = b.add_const("w", q, quant=quant)
    bi = b.add_const("b", rand(rng, (units,))) if bias else -1
    rows = int(np.prod(x_shape)) // k
    y = b.add_tensor("y", (rows, units), "float32")
    b.add_op("FULLY_CONNECTED", [x, w, bi], [y], asymmetric_quantize_inputs=asym,
             fused_activation_function="RELU" if bias else "NONE")
    b.add_output(y)
    xs = rand(rng, x_shape, low=-3, high=2)
    xs.reshape(-1, k)[0] = 0          # an all-zero row takes the scale-1 path
    check_hybrid(b.build(), [xs], backend)


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("padding,stride", [("SAME", 1), ("VALID", 2)])
def test_conv2d(backend, per_channel, padding, stride):
    rng = np.random.default_rng(11)
    q, quant = int8_weights(rng, (4, 3, 3, 3), 0, per_channel)
    b = ModelBuilder("tflite")
    x = b.add_input("x", (2, 7, 6, 3), "float32")
    w = b.add_const("w", q, quant=quant)
    bi = b.add_const("b", rand(rng, (4,)))
    oh = (7 + stride - 1) // stride if padding == "SAME" else (7 - 3 + stride) // stride
    ow = (6 + stride - 1) // stride if padding == "SAME" else (6 - 3 + stride) // stride
    y = b.add_tensor("y", (2, oh, ow, 4), "float32")
    b.add_op("CONV_2D", [x, w, bi], [y], padding=padding, stride_h=stride, stride_w=stride)
    b.add_output(y)
    check_hybrid(b.build(), [rand(rng, (2, 7, 6, 3), low=-1, high=3)], backend)


def hybrid_conv_model(rng, xs, ws, per_channel, padding="SAME", stride=1):
    """A hybrid CONV_2D on input NHWC `xs` with int8 OHWI weights `ws` and a float bias."""
    q, quant = int8_weights(rng, ws, 0, per_channel)
    b = ModelBuilder("tflite")
    x = b.add_input("x", xs, "float32")
    w = b.add_const("w", q, quant=quant)
    bi = b.add_const("b", rand(rng, (ws[0],)))
    y = b.add_tensor("y", (xs[0], conv_out(xs[1], ws[1], stride, 1, padding),
                           conv_out(xs[2], ws[2], stride, 1, padding), ws[0]), "float32")
    b.add_op("CONV_2D", [x, w, bi], [y], padding=padding, stride_h=stride, stride_w=stride,
             fused_activation_function="RELU6")
    b.add_output(y)
    return b.build()


@pytest.mark.parametrize("xs,ws,padding,stride", [
    ((2, 7, 6, 6), (4, 3, 3, 3), "SAME", 1),
    ((1, 9, 8, 8), (8, 3, 3, 2), "VALID", 2),
    ((1, 6, 5, 12), (12, 1, 1, 3), "SAME", 1),
])
def test_conv2d_grouped(backend, xs, ws, padding, stride):
    """TFLite runs a grouped hybrid CONV_2D on reference_ops::HybridConvPerChannel."""
    rng = np.random.default_rng(12)
    model = hybrid_conv_model(rng, xs, ws, True, padding, stride)
    check_hybrid(model, [rand(rng, xs, low=-1, high=3)], backend)


def test_conv2d_grouped_per_tensor_refused(backend):
    """A per-tensor filter scale: the interpreter's Prepare refuses a grouped hybrid CONV_2D."""
    rng = np.random.default_rng(13)
    model = hybrid_conv_model(rng, (1, 5, 5, 4), (4, 3, 3, 2), False)
    with pytest.raises(Exception):
        tflite_run(model, [rand(rng, (1, 5, 5, 4))])
    assert "needs a filter scale per output channel" in compile_error(model, backend)


@pytest.mark.parametrize("mult", [1, 2])
def test_depthwise_conv2d(backend, mult):
    rng = np.random.default_rng(12)
    c = 3
    q, quant = int8_weights(rng, (1, 3, 3, c * mult), 3, True)
    b = ModelBuilder("tflite")
    x = b.add_input("x", (1, 5, 5, c), "float32")
    w = b.add_const("w", q, quant=quant)
    bi = b.add_const("b", rand(rng, (c * mult,)))
    y = b.add_tensor("y", (1, 5, 5, c * mult), "float32")
    b.add_op("DEPTHWISE_CONV_2D", [x, w, bi], [y], padding="SAME", depth_multiplier=mult)
    b.add_output(y)
    check_hybrid(b.build(), [rand(rng, (1, 5, 5, c), low=-1, high=3)], backend)


@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("adj_y", [False, True])
def test_batch_matmul(backend, asym, adj_y):
    rng = np.random.default_rng(13)
    q, quant = int8_weights(rng, (6, 4) if adj_y else (4, 6), 0, False)
    b = ModelBuilder("tflite")
    x = b.add_input("x", (2, 3, 4), "float32")
    w = b.add_const("w", q, quant=quant)
    y = b.add_tensor("y", (2, 3, 6), "float32")
    b.add_op("BATCH_MATMUL", [x, w], [y], adj_y=adj_y, asymmetric_quantize_inputs=asym)
    b.add_output(y)
    check_hybrid(b.build(), [rand(rng, (2, 3, 4), low=-2, high=1)], backend)


def test_embedding_lookup(backend):
    rng = np.random.default_rng(14)
    q, quant = int8_weights(rng, (5, 3, 2), 0, False)
    b = ModelBuilder("tflite")
    ids = b.add_input("ids", (4,), "int32")
    w = b.add_const("w", q, quant=quant)
    y = b.add_tensor("y", (4, 3, 2), "float32")
    b.add_op("EMBEDDING_LOOKUP", [ids, w], [y])
    b.add_output(y)
    check_hybrid(b.build(), [np.array([3, 0, 4, 3], np.int32)], backend)


@pytest.mark.parametrize("asym", [False, True])
def test_quantize_rows_round_trip(asym):
    """Quantized rows dequantize back within half a step."""
    rng = np.random.default_rng(15)
    x = rand(rng, (4, 9), low=-2, high=3)
    q, s, zp = quantize_rows(x, asym)
    back = (q - zp[:, None]) * s[:, None]
    assert np.all(np.abs(back - x) <= s[:, None] * 0.5 + 1e-6)
    assert q.min() >= (-128 if asym else -127) and q.max() <= 127


def test_float16_weights_fully_connected(backend):
    """Float16 weights through DEQUANTIZE (the converter's float16 quantization)."""
    rng = np.random.default_rng(16)
    w16 = rand(rng, (5, 8)).astype(np.float16)
    b = ModelBuilder("tflite")
    x = b.add_input("x", (3, 8), "float32")
    wq = b.add_const("w16", w16)
    wf = b.add_tensor("w", (5, 8), "float32")
    b.add_op("DEQUANTIZE", [wq], [wf])
    y = b.add_tensor("y", (3, 5), "float32")
    b.add_op("FULLY_CONNECTED", [x, wf, b.add_const("b", rand(rng, (5,)))], [y])
    b.add_output(y)
    check_op(b.build(), [rand(rng, (3, 8))], backend, rtol=1e-4, atol=1e-5)
