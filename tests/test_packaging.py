"""The built wheel holds the one import name `onert_py` with every subpackage and data file,
and runs a model when installed in a fresh virtual environment."""
from __future__ import annotations

import os
import site
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "-q", "-w", str(out), ROOT], capture_output=True, text=True)
    if proc.returncode != 0 and "No module named" in proc.stderr and "setuptools" in proc.stderr:
        pytest.skip("setuptools is not installed in this environment")
    assert proc.returncode == 0, proc.stderr
    (path,) = [p for p in os.listdir(out) if p.endswith(".whl")]
    return str(out / path)


def test_wheel_contents(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"onert_py"}
    for required in ("onert_py/core/loader/flatbuffer_loader.py", "onert_py/builtin/permute.py",
                     "onert_py/backends/cpu/libbackend_cpu.py", "onert_py/config/default.yaml",
                     "onert_py/examples/mini_cnn.tflite"):
        assert required in names


def test_wheel_installs_and_runs_in_a_fresh_venv(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel],
                   check=True)
    # dependencies come from the test environment's site-packages, not from the network
    (sp,) = [p for p in (venv / "lib").glob("python*/site-packages")]
    (sp / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    code = ("import onert_py, os, numpy as np;"
            "from importlib import resources;"
            "p = resources.files('onert_py.examples') / 'mini_cnn.tflite';"
            "s = onert_py.Session(str(p), backends='cpu');"
            "out = s.run([np.zeros((1, 64, 64, 3), np.float32)]);"
            "print(onert_py.__file__); print(round(float(out[0].sum()), 4))")
    proc = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    where, total = proc.stdout.split()
    assert str(venv) in where              # the installed copy, not the source tree
    assert total == "1.0"
