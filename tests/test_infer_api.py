"""onert_py.infer, the `onert` package's API: tensorinfo, -1 dims fixed from the first inputs,
infer(..., measure=True) metrics, OnertError where onert raises it and ValueError for a wrong
input count or shape. (The Session API itself: test_session_api.py.)"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import onert_py
import onert_py.tensorinfo as tensorinfo_module
from onert_py import infer
from onert_py.errors import OnertError, as_onert_error
from onert_py.model_builder import single_op_model
from builders.small_models import small_cnn
from builders.small_models import small_cnn_inputs as inputs
from oracle import tflite_run

METRICS = {"prepare_time_ms", "input_time_ms", "run_time_ms", "output_time_ms"}


@pytest.fixture
def cnn_path(tmp_path) -> str:
    """small_cnn: inputs image (-1, 8, 8, 3) and offset (1, 5), outputs scores and mean."""
    path = tmp_path / "cnn.tflite"
    path.write_bytes(small_cnn())
    return str(path)


def test_tensorinfo_is_a_module_with_onerts_class():
    t = tensorinfo_module.tensorinfo()           # onert.tensorinfo(): a fresh one
    assert (t.dtype, t.rank, t.dims) == ("float32", 0, [])
    t.dims = [2, 3, 4]
    assert t.rank == 3
    t.rank = 2
    assert t.dims == [2, 3]
    t.rank = 4
    assert t.dims == [2, 3, 0, 0]
    t.dtype = np.int8
    assert t.dtype == "int8"
    with pytest.raises(ValueError, match="not a numpy dtype"):
        t.dtype = "float99"
    assert infer.tensorinfo is tensorinfo_module.tensorinfo
    assert onert_py.tensorinfo is tensorinfo_module and onert_py.TensorInfo is \
        tensorinfo_module.TensorInfo
    assert tensorinfo_module.tensorinfo("int32", 2, [1, 5]) == \
        tensorinfo_module.tensorinfo("int32", dims=[1, 5])
    assert tensorinfo_module.num_elems(tensorinfo_module.tensorinfo(dims=[2, 3, 4])) == 24


def test_minus_one_dims_are_fixed_from_the_first_inputs(cnn_path):
    s = infer.session(cnn_path, backends="cpu")
    assert [i.dims for i in s.get_inputs_tensorinfo()] == [[-1, 8, 8, 3], [1, 5]]
    assert [i.dtype for i in s.get_inputs_tensorinfo()] == ["float32", "float32"]
    xs = inputs(batch=3)
    out = s.infer(xs)
    assert [i.dims for i in s.get_inputs_tensorinfo()] == [[3, 8, 8, 3], [1, 5]]
    assert [o.dims for o in s.get_outputs_tensorinfo()] == [[3, 5], [3, 8]]
    for got, want in zip(out, tflite_run(small_cnn(), xs)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    xs = inputs(batch=2)                 # a later call with another batch runs too
    assert s.infer(xs)[0].shape == (2, 5)
    assert s.outputs[0].shape == (2, 5) and s.inputs[0] is xs[0]


def test_measure_gives_the_four_metrics(cnn_path):
    s = infer.session(cnn_path, backends="cpu")
    xs = inputs(batch=2)
    first, metrics = s.infer(xs, measure=True)
    assert set(metrics) == METRICS
    assert all(type(v) is float and v >= 0 for v in metrics.values())
    assert metrics["prepare_time_ms"] > 0 and metrics["run_time_ms"] > 0
    again, metrics = s.infer(xs, measure=True)
    assert set(metrics) == METRICS and metrics["prepare_time_ms"] == 0.0
    plain = s.infer(xs)
    assert isinstance(plain, list)
    for a, b, c in zip(first, again, plain):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_metrics_keys_are_those_of_the_onert_package(cnn_path):
    onert = pytest.importorskip("onert")
    xs = inputs(batch=1)
    theirs = onert.infer.session(cnn_path, backends="cpu").infer(xs, measure=True)[1]
    ours = infer.session(cnn_path, backends="cpu").infer(xs, measure=True)[1]
    assert set(ours) == set(theirs)


def test_other_dtypes_are_converted_and_the_arrays_left_alone(cnn_path):
    s = infer.session(cnn_path, backends="cpu")
    xs = inputs()
    doubles = [x.astype(np.float64) for x in xs]
    keep = [d.copy() for d in doubles]
    for got, want in zip(s.infer(doubles), s.infer(xs)):
        np.testing.assert_array_equal(got, want)
    for d, k in zip(doubles, keep):
        assert d.dtype == np.float64 and np.array_equal(d, k)


def test_neg_run_wrong_input_count_or_shape_is_a_value_error(cnn_path):
    s = infer.session(cnn_path, backends="cpu")
    xs = inputs()
    with pytest.raises(ValueError, match=r"Expected 2 input\(s\), but received 1\.") as e:
        s.infer(xs[:1])
    assert not isinstance(e.value, OnertError)
    with warnings.catch_warnings(record=True) as caught:     # onert's warning, first call
        warnings.simplefilter("always")
        with pytest.raises(onert_py.InputError, match="must have rank 4"):
            s.infer([xs[0][0], xs[1]])                   # rank 3 for a rank-4 input
        with pytest.raises(onert_py.InputError, match=r"does not fit the model's \(-1, 8, 8, 3\)"):
            s.infer([np.zeros((1, 8, 8, 4), np.float32), xs[1]])   # a dim the model fixes
    assert len(caught) == 2 and all("differs from model's expected shape" in str(w.message)
                                    for w in caught)
    with pytest.raises(onert_py.InputError, match="cannot be converted to float32"):
        s.infer([xs[0], [["x"] * 5]])
    assert s.infer(xs)[0].shape == (1, 5)        # still usable


def test_neg_load_onert_error_where_onert_raises_it(tmp_path, cnn_path):
    with pytest.raises(OnertError) as e:
        infer.session(str(tmp_path / "missing.tflite"))
    assert isinstance(e.value, onert_py.ModelLoadError) and isinstance(e.value, RuntimeError)
    assert "no such file" in str(e.value)
    with pytest.raises(OnertError) as e:
        infer.session(cnn_path, backends="nosuch")
    assert isinstance(e.value, onert_py.BackendNotAvailableError) and "nosuch" in e.value.reasons


def test_neg_run_failure_is_an_onert_error(tmp_path):
    path = tmp_path / "gather.tflite"
    path.write_bytes(single_op_model("GATHER", [("p", (4,), "float32"), ("i", (2,), "int32")],
                                     [("y", (2,), "float32")], axis=0))
    s = infer.session(str(path))
    params = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(s.infer([params, np.array([3, 1], np.int32)])[0], [3, 1])
    with pytest.raises(OnertError, match="out of range") as e:
        s.infer([params, np.array([0, 9], np.int32)])
    assert isinstance(e.value, onert_py.ExecutionError) and not isinstance(e.value, ValueError)


def test_as_onert_error_keeps_class_message_and_attributes():
    error = onert_py.UnsupportedOperationError("op #3 FOO: no backend", "Foo", 3, {"cpu": "no"})
    wrapped = as_onert_error(error)
    assert isinstance(wrapped, OnertError) and isinstance(wrapped, onert_py.CompileError)
    assert isinstance(wrapped, onert_py.UnsupportedOperationError)
    assert (str(wrapped), wrapped.op_index, wrapped.reasons) == (str(error), 3, {"cpu": "no"})
    assert type(as_onert_error(onert_py.UnsupportedOperationError("x"))) is type(wrapped)
    assert as_onert_error(wrapped) is wrapped
