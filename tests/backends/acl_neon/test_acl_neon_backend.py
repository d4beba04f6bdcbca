"""The acl_neon backend as a whole: loading, the instruction-set choice, threads, its C++
kernel tests, and what happens where the native extension could not be built."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import single_op_model

from op_harness import backend_or_skip, session_internals
from paths import REPO_ROOT

ROOT = Path(REPO_ROOT)
RESHAPE = single_op_model("RESHAPE", [("x", (2, 3, 4), "float32")], [("y", (6, 4), "float32")],
                          options={"new_shape": [6, 4]})


@pytest.fixture(scope="module")
def native():
    backend_or_skip("acl_neon")
    from onert_py.backends.acl_neon import native
    return native


def test_runs_on_acl_neon(native):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with onert_py.Session(RESHAPE, backends="acl_neon") as sess:
        assert "acl_neon" in sess.explain()
        np.testing.assert_array_equal(sess.run([x])[0], x.reshape(6, 4))


def test_isa_levels(native):
    levels = native.available_isas()
    assert levels[0] in ("baseline", "neon")
    assert native.detected_isa() == levels[-1]
    with pytest.raises(ValueError, match="not usable"):
        native.set_isa("sse9")
    try:
        for level in levels:
            native.set_isa(level)
            assert native.active_isa() == level
    finally:
        native.set_isa(levels[-1])


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_threads_from_config(native, threads):
    config = {} if threads is None else {"num_threads": threads}
    with onert_py.Session(RESHAPE, backends="acl_neon", config=config) as sess:
        ctx = session_internals(sess).compiled.contexts["acl_neon"]
        assert ctx.threads == (threads or native.hardware_threads())


UNBUILT = """
import sys
sys.modules["onert_py.backends.acl_neon._core"] = None     # as if the build had been skipped
import onert_py
from onert_py.model_builder import single_op_model
m = single_op_model("RELU", [("x", (4,), "float32")], [("y", (4,), "float32")])
s = onert_py.Session(m, backends="acl_neon;cpu")
print("EXPLAIN", s.explain().replace("\\n", " | "))
try:
    onert_py.Session(m, backends="acl_neon")
except onert_py.BackendNotAvailableError as e:
    print("ALONE", type(e).__name__, e)
"""


def test_without_the_extension_falls_back_with_the_reason():
    out = subprocess.run([sys.executable, "-c", UNBUILT], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    explain = next(l for l in out.stdout.splitlines() if l.startswith("EXPLAIN"))
    alone = next(l for l in out.stdout.splitlines() if l.startswith("ALONE"))
    assert "native module _core is not built" in explain and "cpu" in explain
    assert "native module _core is not built" in alone and "pip install" in alone


@pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler on this machine")
def test_build_without_a_compiler_succeeds_without_the_extension(tmp_path):
    env = dict(os.environ, CC=str(tmp_path / "no-cc"), CXX=str(tmp_path / "no-cxx"),
               ONERT_NATIVE_ONLY="core")
    out = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-lib",
                          str(tmp_path / "lib"), "--build-temp", str(tmp_path / "tmp")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert not list((tmp_path / "lib").rglob("*.so"))
    assert "_core" in out.stderr      # the skipped extension is named in the warning


@pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler on this machine")
def test_cpp_kernel_tests_pass():
    """The C++ tests of every kernel group, at every ISA level of this CPU (the aarch64 run
    under qemu is `make native-test-aarch64`, in CI)."""
    out = subprocess.run([sys.executable, "tools/native_tests.py"], cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert " 0 failed checks" in out.stdout


@pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler on this machine")
def test_every_kernel_group_is_built(native):
    """With a compiler here, a group whose module did not build is a build failure, not a
    backend that quietly hands its ops to cpu."""
    csrc = ROOT / "backends" / "acl_neon" / "csrc"
    groups = sorted(p.name for p in csrc.iterdir()
                    if p.is_dir() and p.name not in ("common", "tests"))
    assert "core" in groups
    missing = {g: why for g in groups for ok, why in [native.available(g)] if not ok}
    assert not missing, missing


def _blas_threads() -> int:
    from threadpoolctl import threadpool_info
    return max(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")


def test_blas_single_threaded_beside_native_pool(native):
    """acl_neon (its own thread pool) sharing a session with cpu: cpu's BLAS runs one thread (two pools
    spinning on the same cores made mixed models several times slower); a cpu-only session
    gets its num_threads back, a session without num_threads the library default."""
    from builders.single_op import unary_model
    from onert_py.model_builder import ModelBuilder
    if os.cpu_count() < 2:
        pytest.skip("one core: nothing to limit")
    b = ModelBuilder()
    x = b.add_input("x", (2, 8))
    h = b.add_tensor("h", (2, 4))
    b.add_op("FULLY_CONNECTED", [x, b.add_const("w", np.ones((4, 8), np.float32)), -1], [h])
    y = b.add_tensor("y", (2, 4))
    b.add_op("COS", [h], [y])                  # acl_neon has no COS: it runs on cpu
    b.add_output(y)
    mixed = b.build()
    x = np.ones((2, 8), np.float32)
    with onert_py.Session(mixed, backends="acl_neon;cpu", config={"num_threads": 2}) as s:
        assert "cpu" in s.explain() and "acl_neon" in s.explain()
        s.run(x)
        assert _blas_threads() == 1
    cpu_only = unary_model("COS", (2, 3))
    with onert_py.Session(cpu_only, backends="cpu", config={"num_threads": 2}) as s:
        s.run(np.ones((2, 3), np.float32))
        assert _blas_threads() == 2
    with onert_py.Session(cpu_only, backends="cpu") as s:
        s.run(np.ones((2, 3), np.float32))
        from onert_py.session import _blas_threads as recorded
        assert _blas_threads() == recorded["default"]      # what BLAS had before any limit
    b = ModelBuilder()                         # every kernel native: no BLAS call to limit
    x = b.add_input("x", (2, 8))
    h = b.add_tensor("h", (2, 4))
    b.add_op("FULLY_CONNECTED", [x, b.add_const("w", np.ones((4, 8), np.float32)), -1], [h])
    b.add_output(h)
    with onert_py.Session(b.build(), backends="acl_neon;cpu", config={"num_threads": 1}) as s:
        assert s.run(np.ones((2, 8), np.float32))[0].tolist() == [[8.0] * 4] * 2
        assert _blas_threads() == recorded["default"]      # left as it was, not set to 1


def test_op_modules_table_names_every_registration():
    """ops.MODULES (what the backend imports on demand, op type by op type) lists exactly the
    modules that register kernels for each op type."""
    import importlib
    import pkgutil
    from onert_py.backends.acl_neon import ops
    for info in pkgutil.iter_modules(ops.__path__):          # every module, listed or not
        importlib.import_module(f"{ops.__name__}.{info.name}")
    found: dict[str, set[str]] = {}
    for r in ops.load_all().registrations():
        found.setdefault(r.key.split(".")[0], set()).add(r.cls.__module__.rsplit(".", 1)[1])
    assert found == {k: set(v) for k, v in ops.MODULES.items()}
