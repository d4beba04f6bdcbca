"""acl_cl backend: availability and its reasons, device choice, program cache, build errors,
host <-> device copies, and whole models against the interpreter."""
from __future__ import annotations

import gc
from types import SimpleNamespace

import numpy as np
import pytest

import onert_py
from builders.shared_models import model_path
from onert_py.backends.acl_cl import device as cl_device
from onert_py.backends.acl_cl import program_cache
from onert_py.backends.acl_cl.backend import ClConfig
from onert_py.core.compiler.backend_manager import manager
from onert_py.errors import BackendNotAvailableError, CompileError
from onert_py.model_builder import single_op_model
from oracle import tflite_run


def _cl_or_skip():
    cfg = ClConfig()
    if not cfg.initialize():
        pytest.skip(cfg.unavailable_reason)
    return cfg


def _add_model(shape=(2, 3, 4)) -> bytes:
    return single_op_model("ADD", [("a", shape, "float32"), ("b", shape, "float32")],
                           [("y", shape, "float32")])


# ---- device choice (fake platforms: no OpenCL needed) ----------------------------------
class _Fake:
    device_type = SimpleNamespace(GPU=4, ACCELERATOR=8, CPU=2)

    def __init__(self, platforms):
        self.platforms = platforms

    def get_platforms(self):
        return self.platforms


def _platform(name, version, devices):
    p = SimpleNamespace(name=name, version=version, vendor=name)
    devs = [SimpleNamespace(name=n, type=t, platform=p) for n, t in devices]
    p.get_devices = lambda: devs
    return p


def test_default_device_prefers_gpu_then_newest_pocl(monkeypatch):
    monkeypatch.setattr(cl_device, "probe", lambda cl, d: "")
    old = _platform("Portable Computing Language", "OpenCL 3.0 PoCL 3.0-rc2", [("cpu-a", 2)])
    new = _platform("Portable Computing Language", "OpenCL 3.0 PoCL 3.1", [("cpu-b", 2)])
    gpu = _platform("Vendor GPU", "OpenCL 1.2", [("gpu0", 4)])
    for order in ([old, new], [new, old]):
        assert cl_device.select_device(_Fake(order)).name == "cpu-b"
    assert cl_device.select_device(_Fake([old, new, gpu])).name == "gpu0"
    assert cl_device.select_device(_Fake([old, gpu]), {"device": "cpu"}).name == "cpu-a"
    assert cl_device.select_device(_Fake([old, new]), {"platform": 0}).name == "cpu-a"


def test_device_that_cannot_build_is_skipped_with_reason(monkeypatch):
    monkeypatch.setattr(cl_device, "probe",
                        lambda cl, d: "" if d.name == "ok" else f"{d.name}: unknown target CPU")
    p = _platform("Portable Computing Language", "PoCL 3.0", [("bad", 2), ("ok", 2)])
    assert cl_device.select_device(_Fake([p])).name == "ok"
    with pytest.raises(LookupError, match="bad: unknown target CPU.*apt-get install pocl-opencl-icd"):
        cl_device.select_device(_Fake([p]), {"device": "bad"})
    with pytest.raises(LookupError, match=r"opencl.device 'tpu9' matches no OpenCL device; "
                                          r"devices: 0: 'bad'"):
        cl_device.select_device(_Fake([p]), {"device": "tpu9"})
    with pytest.raises(LookupError, match="no OpenCL platform"):
        cl_device.select_device(SimpleNamespace(get_platforms=lambda: 1 / 0))


# ---- no OpenCL at all ---------------------------------------------------------------------
@pytest.fixture
def no_opencl(monkeypatch):
    gc.collect()
    if manager.users("acl_cl"):
        pytest.skip("acl_cl is held by another live session")

    def missing():
        raise ImportError('pyopencl is not installed; install it with pip install "onert_py[cl]"')
    monkeypatch.setattr(cl_device, "import_cl", missing)
    monkeypatch.setattr("onert_py.backends.acl_cl.backend.import_cl", missing)


def test_unavailable_reason_names_install_command(no_opencl):
    cfg = ClConfig()
    assert not cfg.initialize()
    assert 'pip install "onert_py[cl]"' in cfg.unavailable_reason


def test_fallback_to_cpu_explains_why(no_opencl):
    model = _add_model()
    with onert_py.Session(model, backends="acl_cl;cpu") as s:
        assert s.backends == ["cpu"]
        text = s.explain()
        assert "acl_cl" in text and 'onert_py[cl]' in text
    with pytest.raises(BackendNotAvailableError, match=r"acl_cl.*onert_py\[cl\]"):
        onert_py.Session(model, backends="acl_cl").run([np.zeros((2, 3, 4), np.float32)] * 2)


# ---- on a real device ------------------------------------------------------------------------
def test_configured_device_missing_is_compile_error():
    _cl_or_skip()
    with pytest.raises(CompileError, match="opencl.device 'no-such-device' matches no"):
        onert_py.Session(_add_model(), backends="acl_cl",
                         config={"opencl": {"device": "no-such-device"}}).run(
            [np.zeros((2, 3, 4), np.float32)] * 2)


def test_program_cache_on_disk(tmp_path):
    cfg = _cl_or_skip()
    from onert_py.backends.acl_cl.runtime import ClRuntime
    before = dict(program_cache.stats)
    rt = ClRuntime(cfg.cl, cfg.default_device, str(tmp_path))
    rt.program("elementwise.cl")
    assert program_cache.stats["source"] == before.get("source", 0) + 1
    files = list(tmp_path.glob("*.bin"))
    assert len(files) == 1
    rt.program("elementwise.cl")                  # same runtime: from memory
    assert program_cache.stats["memory"] == before.get("memory", 0) + 1
    ClRuntime(cfg.cl, cfg.default_device, str(tmp_path)).program("elementwise.cl")
    assert program_cache.stats["disk"] == before.get("disk", 0) + 1
    assert program_cache.stats["source"] == before.get("source", 0) + 1
    files[0].write_bytes(files[0].read_bytes()[:-10] + b"corrupted!")
    ClRuntime(cfg.cl, cfg.default_device, str(tmp_path)).program("elementwise.cl")
    assert program_cache.stats["corrupt"] == before.get("corrupt", 0) + 1
    assert program_cache.stats["source"] == before.get("source", 0) + 2


def test_second_session_loads_binaries(tmp_path):
    _cl_or_skip()
    config = {"opencl": {"cache_dir": str(tmp_path)}}
    x = [np.ones((2, 3, 4), np.float32)] * 2
    with onert_py.Session(_add_model(), backends="acl_cl", config=config) as s:
        s.run(x)
    gc.collect()
    before = dict(program_cache.stats)
    with onert_py.Session(_add_model(), backends="acl_cl", config=config) as s:
        np.testing.assert_array_equal(s.run(x)[0], 2 * x[0])
    if manager.users("acl_cl") == 0:      # no other session kept the programs in memory
        assert program_cache.stats["disk"] > before.get("disk", 0)
    assert program_cache.stats["source"] == before.get("source", 0)


def test_build_failure_shows_log(tmp_path, monkeypatch):
    _cl_or_skip()
    monkeypatch.setattr(program_cache, "read_source",
                        lambda name: "__kernel void binary_flat(__global float *a) { oops; }\n")
    with pytest.raises(CompileError, match=r"(?s)op #0 ADD: kernel binary_flat.*oops"):
        onert_py.Session(_add_model(), backends="acl_cl",
                         config={"opencl": {"cache_dir": str(tmp_path)}}).run(
            [np.zeros((2, 3, 4), np.float32)] * 2)


def test_permute_between_cpu_and_device():
    _cl_or_skip()
    model = single_op_model("MUL", [("a", (1, 4, 4, 3), "float32"), ("b", (3,), "float32")],
                            [("y", (1, 4, 4, 3), "float32")], fused_activation_function="RELU")
    rng = np.random.default_rng(1)
    x = [rng.standard_normal((1, 4, 4, 3)).astype(np.float32),
         rng.standard_normal(3).astype(np.float32)]
    with onert_py.Session(model, backends="acl_cl") as s:
        got = s.run(x)[0]
        assert "acl_cl" in s.explain()
    np.testing.assert_allclose(got, tflite_run(model, x)[0], rtol=1e-6)


@pytest.mark.parametrize("name,backends", [("mobilenet_v2", "acl_cl"),
                                           ("efficientnet_b0", "acl_cl;cpu"),
                                           ("transformer_block", "acl_cl")])
def test_models_match_interpreter(name, backends):
    _cl_or_skip()
    path = model_path(name)
    with onert_py.Session(path, backends=backends) as s:
        rng = np.random.default_rng(0)
        x = [rng.random(t.shape).astype(t.dtype) for t in s.inputs]
        got = s.run(x)
        text = s.explain()
    assert " cpu " not in text.split("permutes inserted")[0] or backends != "acl_cl"
    for a, b in zip(got, tflite_run(path, x)):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)


def test_sources_expand_includes():
    """`#include "x.cl"` is replaced by the file (the program hash covers the header)."""
    for name in ("data.cl", "elementwise.cl", "indexing.cl", "quant.cl"):
        src = program_cache.read_source(name)
        assert not program_cache.INCLUDE.search(src) and "inline int bcast_offsets(" in src, name
    with pytest.raises(CompileError, match="includes itself"):
        program_cache.read_source("meta6.cl", frozenset({"meta6.cl"}))
