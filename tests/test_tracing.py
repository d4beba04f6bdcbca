"""config `tracing: trace.json` writes a Chrome/Perfetto trace: one B/E pair per op run."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import onert_py
from builders.small_models import small_cnn
from builders.small_models import small_cnn_inputs as inputs


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
    # cpu reads the inputs and writes the outputs in place: 5 ops, no Permute
    spans = check_trace(json.loads(path.read_text()), ops_per_run=5, runs=3)
    names = {s["name"] for s in spans}
    assert "$0 CONV_2D" in names and not any(n.endswith(" Permute") for n in names)
    conv = next(s for s in spans if s["name"] == "$0 CONV_2D" and s["ph"] == "B")
    assert conv["args"]["input0"] == "(1, 8, 8, 3)"


def test_tracing_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACING_MODE", "1")
    monkeypatch.setenv("WORKSPACE_DIR", str(tmp_path))
    with onert_py.Session(small_cnn(), backends="cpu") as sess:
        sess.run(inputs())
    check_trace(json.loads((tmp_path / "trace.json").read_text()), ops_per_run=5, runs=1)


def test_trace_of_mobilenet_v2(tmp_path):
    from builders.shared_models import model_path
    path = tmp_path / "mnv2.json"
    with onert_py.Session(model_path("mobilenet_v2"), config={"tracing": str(path)}) as sess:
        sess.run([np.zeros((1, 224, 224, 3), np.float32)])
    # the default backends: acl_neon runs every op in one native segment, which still
    # traces one event per op; input and output are shared, not Permuted. Its first seven
    # inverted-residual blocks (ops 1-23) run fused, the first with the stem (op 0): one
    # event each, whose args list the ops it covers; every model op is in exactly one event
    spans = check_trace(json.loads(path.read_text()), ops_per_run=64 - 24 + 7, runs=1)
    covered = []
    for e in spans:
        if e["ph"] != "B":
            continue
        if e["name"].endswith(" InvertedResidual"):
            covered += [int(m) for m in re.findall(r"#(\d+) ", e["args"]["covers"])]
        else:
            covered.append(int(e["name"][1:].split()[0]))
    assert sorted(covered) == list(range(64))


@pytest.mark.parametrize("executor", ["Linear", "Dataflow", "Parallel"])
def test_control_flow_ops_are_events_enclosing_their_subgraphs(tmp_path, executor):
    from builders import cf_models
    path = tmp_path / "cf.json"
    config = {"tracing": str(path), "executor": executor}
    with onert_py.Session(cf_models.nested_model(), config=config) as sess:
        sess.run([np.array(3, np.int32), np.ones((2, 2), np.float32)])
        summary = sess.trace_summary()
    doc = json.loads(path.read_text())
    threads = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M"
               and e["name"] == "thread_name"}
    begins = [e for e in doc["traceEvents"] if e["ph"] == "B"]
    ends = {(e["tid"], e["name"], e["ts"]) for e in doc["traceEvents"] if e["ph"] == "E"}
    whiles = [e for e in begins if e["name"].endswith(" WHILE")]
    ifs = [e for e in begins if e["name"].endswith(" IF")]
    assert whiles and len(ifs) == 3                 # the outer body runs 3 times
    assert {threads[e["tid"]] for e in whiles} == {"0, builtin", "3, builtin"}
    outer = next(e for e in whiles if threads[e["tid"]] == "0, builtin")
    outer_end = max(ts for tid, name, ts in ends if tid == outer["tid"] and name == outer["name"])
    inner_ops = [e for e in begins if threads[e["tid"]].startswith(("2,", "6,"))]
    assert inner_ops and all(outer["ts"] <= e["ts"] <= outer_end for e in inner_ops)
    # the summary counts self time: one row per op type and per backend, shares add up
    assert "| op type | count | total ms | mean ms | share |" in summary
    assert "| backend |" in summary
    type_table = summary.split("\n\n")[0]       # the op-type table, then the backend table
    type_rows = [line for line in type_table.splitlines() if line.startswith("| ")
                 and not line.startswith("| op type")]
    assert any(r.startswith("| IF | 3 |") for r in type_rows), summary
    shares = [float(r.split("|")[5].strip().rstrip("%")) for r in type_rows]
    assert abs(sum(shares) - 100.0) < 0.6
    # self time: the outer WHILE's children (everything else) are not counted in its row
    total = sum(float(r.split("|")[3]) for r in type_rows)
    loops = sum(float(r.split("|")[3]) for r in type_rows if r.startswith("| WHILE |"))
    outer_ms = (outer_end - outer["ts"]) / 1e3
    assert loops < outer_ms and total <= outer_ms * 1.5 + 1.0
    assert (tmp_path / "cf.summary.md").read_text() == summary


def test_trace_summary_needs_tracing():
    with onert_py.Session(small_cnn()) as sess:
        try:
            sess.trace_summary()
        except onert_py.OnertPyError as e:
            assert "tracing" in str(e)
        else:
            raise AssertionError("trace_summary() without tracing should say tracing is off")
