"""Long runs stay flat and sessions give back what they take (tools/long_run.py, with small
counts; `python tools/long_run.py` runs the full 10,000 runs and 1,000 cycles). These assert
resources (bytes, descriptors, backend users), never time."""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from onert_py.core.compiler import manager

ROOT = Path(__file__).resolve().parents[1]


def _long_run():
    spec = importlib.util.spec_from_file_location("long_run", ROOT / "tools" / "long_run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("long_run", module)       # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


long_run = _long_run()


def test_memory_flat_over_repeated_runs():
    r = long_run.long_run(runs=300, warmup=50, interval=50)
    assert r.runs == 300 and len(r.samples) == 7
    assert r.rss_warm > 0
    assert r.rss_max_growth < 4 << 20           # a leak of a single output per run is 6 KiB
    assert r.traced_max_growth < 256 << 10      # Python objects: bounded, not per run


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_create_close_cycles_leave_nothing_open():
    c = long_run.cycle(sessions=100, backends="cpu")
    assert c.sessions == 100 and c.backends == ["cpu"]
    assert c.fd_delta == 0
    assert c.users_after == c.users_before
    assert manager.users("cpu") == c.users_before["cpu"]


def test_cycle_with_a_model_path(tmp_path):
    path = tmp_path / "m.tflite"
    path.write_bytes(long_run.default_model())
    c = long_run.cycle(str(path), sessions=20, backends=["cpu"])
    assert c.fd_delta in (0, None) and c.users_after == c.users_before
    assert os.path.exists(path)                 # a given model is never deleted


def test_cli_prints_the_figures(capsys):
    assert long_run.main(["--runs", "20", "--warmup", "5", "--interval", "10",
                          "--cycles", "5", "--backends", "cpu"]) == 0
    out = capsys.readouterr().out
    for words in ("runs: 20", "max growth after warm-up", "tracemalloc", "sessions cycled: 5",
                  "open fds before", "backend users"):
        assert words in out


def _report():
    spec = importlib.util.spec_from_file_location("hardening_report",
                                                  ROOT / "tools" / "hardening_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hardening_report_prints_every_figure(capsys, monkeypatch):
    report = _report()
    real = report.load_tool
    monkeypatch.setattr(report, "load_tool", lambda name: None if name == "fuzz" else real(name))
    assert report.main(["--fuzz-seconds", "1", "--runs", "40", "--warmup", "5",
                        "--cycles", "5", "--backends", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "tools/fuzz.py (with fuzz(seconds, seed)) is missing" in out
    assert "long run: 40 runs" in out and "max RSS growth" in out
    assert "sessions cycled: 5 on ['cpu'], fd delta 0" in out
