"""A quantized model's inputs and outputs given and taken as float32 (Session(float_io=True),
set_input_type / set_output_type): builtin Permutes quantize and dequantize with the model's
parameters, as onert does for a float I/O type; TensorInfo exposes scale and zero point."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.core.backend.quantization import dequantize, quantize
from onert_py.model_builder import ModelBuilder
from oracle import tflite_run
from builders.quant import qdict

S_IN, Z_IN, S_OUT, Z_OUT = 0.05, -3, 0.1, 4


def requant_model(dtype: str = "int8") -> bytes:
    """x (quantized) -> QUANTIZE (requantize to other params) -> RESHAPE -> y (quantized)."""
    b = ModelBuilder()
    x = b.add_input("x", (2, 6), dtype, quant=qdict(S_IN, Z_IN))
    t = b.add_tensor("t", (2, 6), dtype, quant=qdict(S_OUT, Z_OUT))
    y = b.add_tensor("y", (3, 4), dtype, quant=qdict(S_OUT, Z_OUT))
    b.add_op("QUANTIZE", [x], [t])
    b.add_op("RESHAPE", [t, b.add_const("shape", np.array([3, 4], np.int32))], [y])
    b.add_output(y)
    return b.build()


def test_info_exposes_scale_and_zero_point():
    sess = onert_py.Session(requant_model())
    assert sess.inputs[0].dtype == np.int8
    assert sess.inputs[0].quantization == {"scale": pytest.approx(S_IN), "zero_point": Z_IN}
    assert sess.outputs[0].quantization == {"scale": pytest.approx(S_OUT), "zero_point": Z_OUT}


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_float_io_matches_quantized_run(dtype):
    model = requant_model(dtype)
    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, (2, 6)).astype(np.float32)
    x_before = x.copy()
    sess = onert_py.Session(model, float_io=True)
    assert sess.inputs[0].dtype == np.float32 and sess.outputs[0].dtype == np.float32
    assert sess.inputs[0].quantization["zero_point"] == Z_IN     # the model's parameters
    (y,) = sess.run([x])
    np.testing.assert_array_equal(x, x_before)                   # the user's array untouched
    xq = quantize(x, np.float32(S_IN), Z_IN, dtype)
    (ref,) = tflite_run(model, [xq])
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, dequantize(ref, np.float32(S_OUT), Z_OUT))


def test_set_types_one_side_and_back():
    model = requant_model()
    sess = onert_py.Session(model)
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(2, 6)
    xq = quantize(x, np.float32(S_IN), Z_IN, "int8")
    sess.set_output_type(0, np.float32)
    (y,) = sess.run([xq])                    # int8 in, float out
    assert y.dtype == np.float32
    sess.set_input_type("x", "float32")
    (y2,) = sess.run([x])                    # float in, float out
    np.testing.assert_array_equal(y, y2)
    sess.set_output_type(0, "int8")
    sess.set_input_type(0, np.int8)
    (yq,) = sess.run([xq])
    assert yq.dtype == np.int8
    np.testing.assert_array_equal(yq, tflite_run(model, [xq])[0])


def test_bad_io_type_is_refused():
    sess = onert_py.Session(requant_model())
    with pytest.raises(onert_py.InputError, match="int8 or float32"):
        sess.set_input_type(0, np.float64)
    with pytest.raises(onert_py.InputError, match="out of range"):
        sess.set_output_type(3, np.float32)
    with pytest.raises(onert_py.InputError, match="expected dtype int8"):
        sess.run([np.zeros((2, 6), np.float32)])


def test_float_io_leaves_float_models_alone():
    b = ModelBuilder()
    x = b.add_input("x", (4,), "float32")
    y = b.add_tensor("y", (4,), "float32")
    b.add_op("RELU", [x], [y])
    b.add_output(y)
    sess = onert_py.Session(b.build(), float_io=True)
    (y,) = sess.run([np.array([-1, 2, -3, 4], np.float32)])
    np.testing.assert_array_equal(y, [0, 2, 0, 4])
