"""config `tracing: trace.json` writes a Chrome/Perfetto trace: one B/E pair per op run."""
from __future__ import annotations

import json
import re

import numpy as np

import onert_py
from test_session_api import inputs, small_cnn


def check_trace(doc: dict, ops_per_run: int, runs: int) -> list[dict]:
    assert set(doc) >= {"traceEvents"}
    events = doc["traceEvents"]
    threads = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M"
               and e["name"] == "thread_name"}
    spans = [e for e in events if e["ph"] in "BE"]
    assert len(spans) == 2 * ops_per_run * runs
    open_spans: dict[int, dict] = {}
    for e in spans:
        assert {"name", "ph", "ts", "pid", "tid"} <= set(e)
        assert re.fullmatch(r"\$\d+ \S+", e["name"]), e["name"]
        assert re.fullmatch(r"\d+, \w+", threads[e["tid"]])
        if e["ph"] == "B":
            assert e["tid"] not in open_spans
            open_spans[e["tid"]] = e
        else:
            b = open_spans.pop(e["tid"])
            assert b["name"] == e["name"] and b["ts"] <= e["ts"]
    assert not open_spans
    return spans


def test_trace_written_on_close(tmp_path):
    path = tmp_path / "trace.json"
    sess = onert_py.Session(small_cnn(), backends="cpu", config={"tracing": str(path)})
    for _ in range(3):
        sess.run(inputs())
    sess.close()
    spans = check_trace(json.loads(path.read_text()), ops_per_run=5 + 4, runs=3)
    names = {s["name"] for s in spans}
    assert "$0 CONV_2D" in names and any(n.endswith(" Permute") for n in names)
    conv = next(s for s in spans if s["name"] == "$0 CONV_2D" and s["ph"] == "B")
    assert conv["args"]["input0"] == "(1, 8, 8, 3)"


def test_tracing_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACING_MODE", "1")
    monkeypatch.setenv("WORKSPACE_DIR", str(tmp_path))
    with onert_py.Session(small_cnn(), backends="cpu") as sess:
        sess.run(inputs())
    check_trace(json.loads((tmp_path / "trace.json").read_text()), ops_per_run=9, runs=1)


def test_trace_of_mobilenet_v2(tmp_path):
    from test_real_models import model_path
    path = tmp_path / "mnv2.json"
    with onert_py.Session(model_path("mobilenet_v2"), config={"tracing": str(path)}) as sess:
        sess.run([np.zeros((1, 224, 224, 3), np.float32)])
    check_trace(json.loads(path.read_text()), ops_per_run=64 + 2, runs=1)
