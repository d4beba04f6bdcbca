"""acl_cl: tracing waits for the device, run-time failures name op/kernel/device, device-side
index checks, tools/opencl_check.py, and whole models on acl_cl alone and mixed with cpu."""
from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

import onert_py
from builders.shared_models import model_path
from onert_py.backends.acl_cl.backend import ClConfig
from onert_py.errors import ExecutionError
from onert_py.model_builder import single_op_model
from oracle import tflite_run
from paths import TOOLS


def _mul_relu():
    return single_op_model("MUL", [("a", (2, 8, 8, 4), "float32"), ("b", (4,), "float32")],
                           [("y", (2, 8, 8, 4), "float32")], fused_activation_function="RELU")


def _inputs(rng=np.random.default_rng(3)):
    return [rng.standard_normal((2, 8, 8, 4)).astype(np.float32),
            rng.standard_normal(4).astype(np.float32)]


def test_tracing_syncs_device_after_each_op(cl_ready, tmp_path, monkeypatch):
    calls = []
    real = ClConfig.sync
    monkeypatch.setattr(ClConfig, "sync", lambda self: (calls.append(1), real(self)))
    path = tmp_path / "trace.json"
    x = _inputs()
    with onert_py.Session(_mul_relu(), backends="acl_cl", config={"tracing": str(path)}) as s:
        got = s.run(x)[0]
        s.run(x)
    assert len(calls) == 2          # one acl_cl op, two runs: each traced op waited
    np.testing.assert_allclose(got, tflite_run(_mul_relu(), x)[0], rtol=1e-6)
    names = {e["name"] for e in json.loads(path.read_text())["traceEvents"] if e["ph"] == "B"}
    assert any("MUL" in n for n in names)


def test_enqueue_failure_names_op_kernel_and_device(cl_ready, monkeypatch):
    with onert_py.Session(_mul_relu(), backends="acl_cl") as s:
        s.run(_inputs())
        import pyopencl

        def broken(*args, **kwargs):
            raise pyopencl.RuntimeError("clEnqueueNDRangeKernel failed: OUT_OF_RESOURCES")
        monkeypatch.setattr(pyopencl, "enqueue_nd_range_kernel", broken)
        with pytest.raises(ExecutionError, match=r"op #0 MUL: kernel binary_\w+ on device "
                                                 r"'.+' on '.+'.*OUT_OF_RESOURCES"):
            s.run(_inputs())


def test_gather_index_out_of_range_fails_the_run(cl_ready):
    model = single_op_model("GATHER", [("p", (5, 3), "float32"), ("i", (4,), "int32")],
                            [("y", (4, 3), "float32")], axis=0)
    p = np.arange(15, dtype=np.float32).reshape(5, 3)
    with onert_py.Session(model, backends="acl_cl;cpu") as s:
        assert "acl_cl" in s.explain()
        ok = np.array([4, 0, 2, 2], np.int32)
        np.testing.assert_array_equal(s.run([p, ok])[0], p[ok])
        with pytest.raises(ExecutionError, match=r"GATHER.*out of range \[0, 5\)"):
            s.run([p, np.array([0, 5, 1, 1], np.int32)])
        np.testing.assert_array_equal(s.run([p, ok])[0], p[ok])     # the flag was reset


def _opencl_check():
    spec = importlib.util.spec_from_file_location(
        "opencl_check", os.path.join(TOOLS, "opencl_check.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_opencl_check_reports_choice(cl_ready, capsys):
    assert _opencl_check().main([]) == 0
    out = capsys.readouterr().out
    assert "acl_cl picks" in out and "builds kernels" in out


def test_opencl_check_builds_the_int8_programs_twice(monkeypatch):
    """pip's PoCL 3.0 on a Zen 4 EPYC builds quant.cl right from source and without kernels
    from its own kernel cache: the check's second build (a second child process) must catch
    a failure the first one did not see."""
    import subprocess
    from types import SimpleNamespace
    mod = _opencl_check()
    codes = iter([0, 1])
    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(cmd)
        return SimpleNamespace(returncode=next(codes),
                               stdout="'pthread' builds quant.cl with -DQT=char into a program "
                                      "without kernels\n")

    monkeypatch.setattr(subprocess, "run", fake_run)
    assert mod.builds_programs().endswith("into a program without kernels")
    assert len(calls) == 2 and all("--build-int8" in c for c in calls)
    codes = iter([0, 0])
    assert mod.builds_programs() == ""


def test_opencl_check_failure_names_fix(monkeypatch, capsys):
    mod = _opencl_check()
    monkeypatch.setattr(mod, "check", lambda: (False, "device X cannot build OpenCL kernels: "
                                                      "unknown target CPU"))
    monkeypatch.setattr(mod, "can_install", lambda: "not running as root (run: sudo apt-get "
                                                    "install pocl-opencl-icd)")
    assert mod.main(["--ensure"]) == 1
    out = capsys.readouterr().out
    assert "unknown target CPU" in out and "apt-get install pocl-opencl-icd" in out
    monkeypatch.setattr(mod, "can_install", lambda: "")
    monkeypatch.setattr(mod, "install", lambda: False)
    assert mod.main(["--ensure"]) == 1
    assert "installing pocl-opencl-icd failed" in capsys.readouterr().out


@pytest.mark.parametrize("name,backends,config", [
    ("mobilenet_v2", "cpu;acl_cl", {"op_backend": {"Conv2D": "acl_cl"}}),
    ("efficientnet_b0", "acl_cl", {}),
    ("transformer_block", "cpu;acl_cl", {"op_backend": {"FullyConnected": "acl_cl",
                                                        "Softmax": "acl_cl"}}),
])
def test_models_on_acl_cl_and_mixed(cl_ready, name, backends, config):
    path = model_path(name)
    with onert_py.Session(path, backends=backends, config=config) as s:
        rng = np.random.default_rng(0)
        x = [rng.random(t.shape).astype(t.dtype) for t in s.inputs]
        got = s.run(x)
        placed = s.placement().used_backends
    assert "acl_cl" in placed
    if backends == "acl_cl":
        assert "cpu" not in placed
    else:
        assert "cpu" in placed
    for a, b in zip(got, tflite_run(path, x)):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)
