"""The Session API: inputs/outputs, run by list and by name, resizing, the onert-style infer."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py import infer
from builders.small_models import small_cnn
from builders.small_models import small_cnn_inputs as inputs
from op_harness import session_internals
from oracle import tflite_run


def test_inputs_and_outputs_describe_the_model():
    sess = onert_py.Session(small_cnn(), backends="cpu")
    assert [i.name for i in sess.inputs] == ["image", "offset"]
    assert sess.inputs[0].shape == (1, 8, 8, 3) and sess.inputs[0].dtype == np.float32
    assert [o.name for o in sess.outputs] == ["scores", "mean"]
    assert sess.outputs[0].shape == (1, 5)
    assert isinstance(sess.inputs[0], onert_py.TensorInfo)


@pytest.mark.parametrize("fmt", ["tflite", "circle"])
def test_run_matches_the_interpreter(fmt):
    model = small_cnn(fmt)
    xs = inputs()
    out = onert_py.Session(model, backends="cpu").run(xs)
    ref = tflite_run(small_cnn("tflite"), xs)
    for o, r in zip(out, ref):
        np.testing.assert_allclose(o, r, rtol=1e-5, atol=1e-5)


def test_run_by_name_equals_run_by_list():
    sess = onert_py.Session(small_cnn(), backends=["cpu"])
    xs = inputs()
    by_list = sess.run(xs)
    by_name = sess.run({"offset": xs[1], "image": xs[0]})
    for a, b in zip(by_list, by_name):
        np.testing.assert_array_equal(a, b)


def test_backends_accepts_string_list_and_semicolons():
    for spec in ("cpu", ["cpu"], "cpu;", " cpu "):
        assert onert_py.Session(small_cnn(), backends=spec).backends == ["cpu"]


def test_default_backends_cover_the_model():
    sess = onert_py.Session(small_cnn())
    assert sess.backends[-1] == "cpu" and set(sess.backends) <= {"acl_neon", "cpu"}
    np.testing.assert_allclose(sess.run(inputs())[0],
                               onert_py.Session(small_cnn(), backends="cpu").run(inputs())[0],
                               rtol=1e-5, atol=1e-6)


def test_set_input_shape_resizes_batch():
    model = small_cnn()
    sess = onert_py.Session(model, backends="cpu")
    sess.set_input_shape(0, (4, 8, 8, 3))
    assert sess.inputs[0].shape == (4, 8, 8, 3)
    assert sess.outputs[0].shape == (4, 5)
    xs = inputs(batch=4)
    out = sess.run(xs)
    ref = tflite_run(model, xs)
    for o, r in zip(out, ref):
        assert o.shape == r.shape
        np.testing.assert_allclose(o, r, rtol=1e-5, atol=1e-5)
    sess.set_input_shape("image", (1, 8, 8, 3))
    assert sess.run(inputs())[0].shape == (1, 5)


def test_outputs_are_fresh_arrays_owned_by_the_caller():
    sess = onert_py.Session(small_cnn(), backends="cpu")
    a = sess.run(inputs())
    b = sess.run(inputs())
    assert a[0] is not b[0] and not np.shares_memory(a[0], b[0])
    a[0][...] = 0
    np.testing.assert_array_equal(sess.run(inputs())[0], b[0])


def test_closed_session_refuses_to_run():
    with onert_py.Session(small_cnn(), backends="cpu") as sess:
        sess.run(inputs())
    with pytest.raises(onert_py.OnertPyError, match="closed"):
        sess.run(inputs())


def test_onert_compatible_infer(tmp_path):
    path = tmp_path / "m.circle"
    path.write_bytes(small_cnn("circle"))
    s = infer.session(str(path), backends="cpu")
    info = s.get_inputs_tensorinfo()
    assert info[0].dims == [-1, 8, 8, 3] and info[0].rank == 4 and info[0].dtype == "float32"
    xs = inputs(batch=3)
    out = s.infer(xs)        # the -1 batch is taken from the array
    assert out[0].shape == (3, 5)
    ref = tflite_run(small_cnn(), xs)
    np.testing.assert_allclose(out[0], ref[0], rtol=1e-5, atol=1e-5)
    out, metrics = s.infer(xs, measure=True)
    assert set(metrics) >= {"run_time_ms"}
    assert s.get_outputs_tensorinfo()[0].dims == [3, 5]
    with pytest.raises(ValueError, match="Expected 2 input"):
        s.infer(xs[:1])


def test_explain_lists_every_op_and_permute():
    text = onert_py.Session(small_cnn(), backends="cpu").explain()
    for name in ("CONV_2D", "DEPTHWISE_CONV_2D", "MEAN", "FULLY_CONNECTED", "ADD"):
        assert name in text
    # cpu reads the 2 inputs and writes the 2 outputs in place: no Permute, 4 shared
    assert "permutes inserted: 0" in text
    assert "permutes elided (host backends share the tensor): 4" in text


def test_use_mmaped_data_false_reads_the_file(tmp_path):
    path = tmp_path / "m.tflite"
    path.write_bytes(small_cnn())
    mapped = onert_py.Session(str(path), backends="cpu")
    read = onert_py.Session(str(path), backends="cpu", config={"use_mmaped_data": False})
    assert any(type(k).__name__ == "mmap" for k in session_internals(mapped).model.keepalive)
    assert not any(type(k).__name__ == "mmap" for k in session_internals(read).model.keepalive)
    for a, b in zip(mapped.run(inputs()), read.run(inputs())):
        np.testing.assert_array_equal(a, b)
