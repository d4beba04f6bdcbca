"""`onert-run` / `python -m onert_py`, run as a subprocess: the table, dumps and loads (npz and
onert_run's h5 layout), the TFLite comparison, explain, and the exit codes (0 ok, 1 a run
failed, 2 bad arguments, model, config or input files)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from onert_py.model_builder import ModelBuilder

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "examples", "mini_cnn.tflite")
SCRIPT = os.path.join(os.path.dirname(sys.executable),
                      "onert-run.exe" if os.name == "nt" else "onert-run")


def cli(*args: str, script: bool = False, env: dict | None = None,
        cwd: str | None = None) -> subprocess.CompletedProcess:
    cmd = [SCRIPT] if script else [sys.executable, "-m", "onert_py"]
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True,
                          timeout=120, env=full_env, cwd=cwd)


def one_error_line(r: subprocess.CompletedProcess, *words: str) -> str:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("onert-run: error: "), r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    for w in words:
        assert w in lines[-1], lines[-1]
    return lines[-1]


# ---------------------------------------------------------------- success paths
def test_run_prints_table():
    r = cli(MODEL, "--num-runs", "3", "--warmup-runs", "1", "--mem-poll", "--backends", "cpu")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for word in ("backends : cpu", "'image' (1, 64, 64, 3) float32", "model load",
                 "compile", "session creation", "first run", "steady state (3 runs, after 1 "
                 "warmup)", "mean", "median", "p90", "min", "max", "peak RSS (getrusage)",
                 "peak RSS during runs (polled)"):
        assert word in out, f"{word!r} missing from:\n{out}"
    assert "\r" not in r.stderr      # no progress bar when stderr is not a TTY


def test_console_script_and_help():
    assert os.path.exists(SCRIPT), f"console script not installed next to {sys.executable}"
    r = cli(MODEL, "--no-progress", script=True)
    assert r.returncode == 0, r.stderr
    assert "first run" in r.stdout
    h = cli("--help")
    assert h.returncode == 0
    for opt in ("--backends", "--load", "--dump", "--shape-run", "--compare-tflite",
                "--trace", "--explain", "--mem-poll", "--verbose", "exit codes"):
        assert opt in h.stdout


@pytest.mark.parametrize("ext", ["npz", "h5"])
def test_dump_then_load_round_trip(tmp_path, ext):
    first = tmp_path / f"out1.{ext}"
    inp = tmp_path / f"in.{ext}"
    r = cli(MODEL, "--seed", "7", "--dump", first, "--dump-input", inp)
    assert r.returncode == 0, r.stderr
    second = tmp_path / f"out2.{ext}"
    r = cli(MODEL, "--load", inp, "--dump", second)
    assert r.returncode == 0, r.stderr
    assert f"inputs   : {inp}" in r.stdout
    if ext == "npz":
        a, b = np.load(first), np.load(second)
        assert a.files == b.files == ["0"]
        np.testing.assert_array_equal(a["0"], b["0"])
        assert a["0"].shape == (1, 10) and a["0"].dtype == np.float32
    else:
        h5py = pytest.importorskip("h5py")
        with h5py.File(first, "r") as f, h5py.File(second, "r") as g, h5py.File(inp, "r") as i:
            assert list(f.keys()) == ["value"] and list(f["value"].keys()) == ["0"]
            assert list(i["value"].keys()) == ["0"] and i["value"]["0"].shape == (1, 64, 64, 3)
            assert f["value"]["0"].dtype == np.float32 and f["value"]["0"].shape == (1, 10)
            np.testing.assert_array_equal(f["value"]["0"][()], g["value"]["0"][()])


def test_load_npz_by_input_name_and_h5_written_by_hand(tmp_path):
    x = np.random.default_rng(1).uniform(0, 1, (1, 64, 64, 3)).astype(np.float32)
    np.savez(tmp_path / "named.npz", image=x)
    r1 = cli(MODEL, "--load", tmp_path / "named.npz", "--dump", tmp_path / "o1.npz")
    assert r1.returncode == 0, r1.stderr
    h5py = pytest.importorskip("h5py")
    with h5py.File(tmp_path / "in.h5", "w") as f:       # as onert_run's tools write it
        f.create_group("value").create_dataset("0", data=x)
    r2 = cli(MODEL, "--load", tmp_path / "in.h5", "--dump", tmp_path / "o2.npz")
    assert r2.returncode == 0, r2.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "o1.npz")["0"],
                                  np.load(tmp_path / "o2.npz")["0"])


def test_compare_tflite():
    pytest.importorskip("ai_edge_litert")
    r = cli(MODEL, "--compare-tflite", "--shape-run", "[0,[2,64,64,3]]")
    assert r.returncode == 0, r.stderr
    assert "comparison with TFLite" in r.stdout
    line = next(ln for ln in r.stdout.splitlines() if "probabilities" in ln and "e-" in ln)
    fields = line.split()
    assert "(2, 10)" in line
    assert float(fields[-2]) < 1e-5 and float(fields[-1]) < 1e-3, line


def test_shape_run_colon_form():
    r = cli(MODEL, "--shape-run", "0:3,64,64,3")
    assert r.returncode == 0, r.stderr
    assert "'probabilities' (3, 10)" in r.stdout


def test_explain():
    r = cli(MODEL, "--explain")
    assert r.returncode == 0, r.stderr
    assert "CONV_2D" in r.stdout and "SOFTMAX" in r.stdout and "permutes elided" in r.stdout


def test_trace_is_honest(tmp_path):
    trace = tmp_path / "trace.json"
    r = cli(MODEL, "--trace", trace)
    assert r.returncode == 0, r.stderr
    if trace.exists():
        assert "trace written to" in r.stdout
    else:
        assert "warning: no trace was written" in r.stderr


# ---------------------------------------------------------------- exit code 2
def test_missing_model(tmp_path):
    r = cli(tmp_path / "nope.tflite")
    assert r.returncode == 2
    one_error_line(r, "ModelLoadError", "no such file")


def test_corrupt_model(tmp_path):
    bad = tmp_path / "bad.tflite"
    with open(MODEL, "rb") as f:
        bad.write_bytes(f.read()[:300])
    r = cli(bad)
    assert r.returncode == 2
    one_error_line(r, "ModelLoadError")


def test_unknown_backend():
    r = cli(MODEL, "--backends", "nosuch")
    assert r.returncode == 2
    one_error_line(r, "BackendNotAvailableError", "nosuch")


def test_malformed_yaml(tmp_path):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("backends: [cpu\n  x: :\n")
    r = cli(MODEL, "--config", cfg)
    assert r.returncode == 2
    one_error_line(r, "ConfigError", "malformed YAML")


@pytest.mark.parametrize("ext", ["npz", "h5"])
def test_input_file_with_wrong_shape(tmp_path, ext):
    x = np.zeros((1, 32, 32, 3), np.float32)
    path = tmp_path / f"w.{ext}"
    if ext == "npz":
        np.savez(path, **{"0": x})
    else:
        h5py = pytest.importorskip("h5py")
        with h5py.File(path, "w") as f:
            f.create_group("value").create_dataset("0", data=x)
    r = cli(MODEL, "--load", path)
    assert r.returncode == 2
    one_error_line(r, "(1, 32, 32, 3)", "(1, 64, 64, 3)")


@pytest.mark.parametrize("args, words", [
    (["--load", "missing.npz"], ["no such file"]),
    (["--load", "in.txt"], ["unknown file type"]),
    (["--shape-run", "[0,[1,2"], ["--shape-run"]),
    (["--num-runs", "0"], ["--num-runs"]),
])
def test_bad_arguments(tmp_path, args, words):
    r = cli(MODEL, *args, cwd=tmp_path)
    assert r.returncode == 2
    one_error_line(r, *words)


def test_corrupt_input_file(tmp_path):
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    r = cli(MODEL, "--load", tmp_path / "junk.npz")
    assert r.returncode == 2
    one_error_line(r, "cannot read")


def test_verbose_shows_traceback(tmp_path):
    r = cli(tmp_path / "nope.tflite", "--verbose")
    assert r.returncode == 2
    assert "Traceback (most recent call last)" in r.stderr
    assert r.stderr.rstrip().splitlines()[-1].startswith("onert-run: error: ModelLoadError")


# ---------------------------------------------------------------- exit code 1
BOOM_BACKEND = textwrap.dedent('''
    """A backend whose only kernel (float32 ADD) fails when it runs."""
    from onert_py.core.backend import Backend, HostBackendContext, IConfig, Kernel, KernelRegistry

    kernels = KernelRegistry("boom")

    @kernels.register("BinaryArithmetic.ADD")
    class BoomAdd(Kernel):
        def run(self):
            raise RuntimeError("boom: this kernel always fails")

    class BoomConfig(IConfig):
        id = "boom"
        def supports(self, op, graph):
            return (True, "") if kernels.lookup(op) is not None else (False, "boom runs ADD")

    class BoomBackend(Backend):
        def __init__(self):
            self.config = BoomConfig()
        def new_context(self, data):
            return HostBackendContext(self, data, kernels)

    def onert_backend_create():
        return BoomBackend()

    def onert_backend_destroy(backend):
        pass
''')


def test_run_failure_exit_1(tmp_path):
    (tmp_path / "libbackend_boom.py").write_text(BOOM_BACKEND)
    b = ModelBuilder()
    x = b.add_input("x", (2, 3))
    y = b.add_input("y", (2, 3))
    z = b.add_tensor("z", (2, 3))
    b.add_op("ADD", [x, y], [z])
    b.add_output(z)
    model = tmp_path / "add.tflite"
    model.write_bytes(b.build())
    ok = cli(model, "--backends", "cpu")
    assert ok.returncode == 0, ok.stderr
    r = cli(model, "--backends", "boom", env={"ONERT_BACKEND_PATH": str(tmp_path)})
    assert r.returncode == 1, r.stderr
    one_error_line(r, "ExecutionError", "boom: this kernel always fails")


# ---------------------------------------------------------------- helpers, in process
def test_compare_flags_shape_and_dtype_mismatch(capsys):
    from onert_py.cli import compare
    a = np.zeros((1, 10), np.float32)
    assert compare([a], [a + 1e-3], ["p"]) is True
    assert "1.0000e-03" in capsys.readouterr().out
    assert compare([a], [np.zeros((1, 9), np.float32)], ["p"]) is False
    assert compare([a], [a.astype(np.float64)], ["p"]) is False
    assert compare([a], [a, a], ["p"]) is False
    nan = np.array([np.nan, 1.0], np.float32)
    assert compare([nan], [nan.copy()], ["n"]) is True
    assert "0.0000e+00" in capsys.readouterr().out.splitlines()[-1]


def test_parse_shape_run_forms():
    from onert_py.cli import CliError, parse_shape_run
    want = {0: (1, 224, 224, 3), 1: (2, 3)}
    assert parse_shape_run(["[0,[1,224,224,3],1,[2,3]]"]) == want
    assert parse_shape_run(["[[0,[1,224,224,3]],[1,[2,3]]]"]) == want
    assert parse_shape_run(["0:1,224,224,3;1:2,3"]) == want
    assert parse_shape_run(["0:1,224,224,3", "1:2,3"]) == want
    for bad in ("[0]", "0", "0:a,b", "[0,[-1]]"):
        with pytest.raises(CliError):
            parse_shape_run([bad])
