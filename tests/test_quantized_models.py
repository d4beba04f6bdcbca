"""Whole quantized models against the TFLite interpreter (builtin kernels).

The bound is what TFLite's own kernel sets disagree by: the largest integer difference between
LiteRT with and without XNNPACK on the same input. onert_py must stay within it (bit-exact
where TFLite's kernel sets agree). The shared int8 models skip when ../shared/models is absent;
the generated uint8 CNN always runs."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.core.backend.quantization import dequantize, quantize
from oracle import tflite_run
from builders.qmodels import uint8_cnn
from builders.shared_models import model_path, quantized_inputs
from quant_harness import qrand


def max_int_diff(a: list[np.ndarray], b: list[np.ndarray]) -> int:
    return max(int(np.abs(x.astype(np.int64) - y.astype(np.int64)).max()) for x, y in zip(a, b))


def check_against_kernel_sets(model, inputs: list[np.ndarray]) -> tuple[int, int]:
    builtin = tflite_run(model, inputs)
    xnnpack = tflite_run(model, inputs, xnnpack=True)
    bound = max_int_diff(builtin, xnnpack)
    sess = onert_py.Session(model, backends="cpu")
    ours = sess.run(inputs)
    for o, e in zip(ours, builtin):
        assert o.shape == e.shape and o.dtype == e.dtype
    ours_diff = max_int_diff(ours, builtin)
    # the bound is what TFLite's kernel sets disagree by; we are bit-exact
    assert ours_diff == 0, (f"onert_py differs from the interpreter's builtin kernels by "
                            f"{ours_diff} (TFLite's own kernel sets differ by {bound})")
    return ours_diff, bound


@pytest.mark.parametrize("name", ["mobilenet_v2_int8", "transformer_block_int8"])
def test_shared_int8_models(name):
    path = model_path(name)
    sess = onert_py.Session(path, backends="cpu")
    for seed in range(2):
        check_against_kernel_sets(path, quantized_inputs(sess, seed))


def test_generated_uint8_cnn():
    model = uint8_cnn()
    for seed in range(3):
        x = qrand(np.random.default_rng(seed), (1, 16, 16, 3), "uint8")
        check_against_kernel_sets(model, [x])


def test_uint8_cnn_float_io():
    """The same model fed float images: quantized by the session with the input's params."""
    model = uint8_cnn()
    sess = onert_py.Session(model, float_io=True)
    q = sess.inputs[0].quantization
    x = np.random.default_rng(5).uniform(-1, 1, (1, 16, 16, 3)).astype(np.float32)
    probs, logits = sess.run([x])
    assert probs.dtype == np.float32 and logits.dtype == np.float32
    xq = quantize(x, np.float32(q["scale"]), q["zero_point"], "uint8")
    ref = tflite_run(model, [xq])
    out_q = sess.outputs[0].quantization
    np.testing.assert_array_equal(probs, dequantize(ref[0], np.float32(out_q["scale"]),
                                                    out_q["zero_point"]))
