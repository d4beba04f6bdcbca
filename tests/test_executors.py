"""The Linear, Dataflow and Parallel executors give the same answers; Parallel really runs two
backends' ops at once, plans memory for any order the DAG allows, and reports failures."""
from __future__ import annotations

import gc
import json
from importlib import resources

import numpy as np
import pytest

import onert_py
from onert_py.core.backend import memory_planner
from onert_py.core.backend.host_context import HostBackendContext
from onert_py.core.backend.op_dag import OpDag
from onert_py.core.compiler.backend_manager import manager
from onert_py.model_builder import ModelBuilder
from builders.small_models import small_cnn
from builders.small_models import small_cnn_inputs as small_inputs
from op_harness import session_internals
from oracle import tflite_run
from paths import PLUGINS
EXECUTORS = ("Linear", "Dataflow", "Parallel")
RNG = np.random.default_rng(11)


def session(model, executor: str, **cfg) -> onert_py.Session:
    cfg.setdefault("backends", ["cpu"])       # these tests plan cpu's memory
    return onert_py.Session(model, config={"executor": executor, "backend_paths": [PLUGINS],
                                           **cfg})


def run_all(model, xs, runs: int = 1, **cfg) -> dict[str, list[np.ndarray]]:
    """Outputs of every executor (the last of `runs` runs, each checked against the first)."""
    out = {}
    for ex in EXECUTORS:
        with session(model, ex, **cfg) as sess:
            first = sess.run(xs)
            for _ in range(runs - 1):
                again = sess.run(xs)
                assert all(np.array_equal(a, b) for a, b in zip(first, again)), ex
            out[ex] = first
    return out


def assert_identical(outs: dict[str, list[np.ndarray]], reference=None) -> None:
    for ex, got in outs.items():
        assert len(got) == len(outs["Linear"])
        for a, b in zip(got, outs["Linear"]):
            assert np.array_equal(a, b), ex
    if reference is not None:
        for a, r in zip(outs["Linear"], reference):
            np.testing.assert_allclose(a, r, rtol=1e-5, atol=1e-5)


def two_branches(depth: int = 3, width: int = 64) -> tuple[bytes, list[list[int]]]:
    """x -> branch A (ADD, MUL, ... `depth` ops) and branch B alike -> ADD -> y.
    Ops 0..depth-1 are branch A, depth..2*depth-1 branch B, 2*depth the join. Returns the
    model and the operand indices of each branch's outputs."""
    b = ModelBuilder()
    x = b.add_input("x", (1, width))
    ends, made = [], []
    for name in "ab":
        t, mine = x, []
        for k in range(depth):
            c = b.add_const(f"{name}c{k}", RNG.standard_normal((1, width)).astype(np.float32))
            o = b.add_tensor(f"{name}{k}", (1, width))
            b.add_op("ADD" if k % 2 == 0 else "MUL", [t, c], [o])
            t = o
            mine.append(o)
        ends.append(t)
        made.append(mine)
    y = b.add_tensor("y", (1, width))
    b.add_op("ADD", ends, [y])
    b.add_output(y)
    return b.build(), made


def mini_cnn_path() -> str:
    return str(resources.files("onert_py.examples").joinpath("mini_cnn.tflite"))


def test_config_lists_the_three_executors():
    from onert_py import config
    from onert_py.core.exec import EXECUTORS as names, executor_class
    assert config.EXECUTORS == EXECUTORS == tuple(names)
    assert [executor_class(n).__name__ for n in EXECUTORS] == [
        "LinearExecutor", "DataflowExecutor", "ParallelExecutor"]
    assert config.resolve(env={"EXECUTOR": "Parallel"}).executor == "Parallel"


def test_bundled_model_same_everywhere():
    path = mini_cnn_path()
    with onert_py.Session(path) as sess:
        xs = [RNG.standard_normal(i.shape).astype(i.dtype) for i in sess.inputs]
    assert_identical(run_all(path, xs, runs=3), tflite_run(path, xs))


@pytest.mark.parametrize("backends", [["cpu"], ["cpu", "cpu2"]])
def test_generated_cnn_same_everywhere(backends):
    model, xs = small_cnn(), small_inputs()
    cfg = {"backends": backends, "op_backend": {"Conv2D": "cpu2", "MEAN": "cpu2"}
           if "cpu2" in backends else {}}
    assert_identical(run_all(model, xs, runs=3, **cfg), tflite_run(model, xs))


@pytest.mark.parametrize("split", ["one backend", "branch per backend", "interleaved"])
def test_two_branches_same_everywhere(split):
    depth = 4
    model, _ = two_branches(depth)
    ops = 2 * depth + 1
    if split == "one backend":
        cfg = {"backends": ["cpu"]}
    elif split == "branch per backend":
        cfg = {"backends": ["cpu", "cpu2"], "op_backend_map": {i: "cpu2" for i in range(depth)}}
    else:
        cfg = {"backends": ["cpu", "cpu2"], "op_backend_map": {i: "cpu2" for i in range(0, ops, 2)}}
    xs = [RNG.standard_normal((1, 64)).astype(np.float32)]
    assert_identical(run_all(model, xs, runs=20, **cfg), tflite_run(model, xs))


def dynamic_branches() -> bytes:
    """reshape(x, shape input) is dynamic; two ops read it, then their results are added."""
    b = ModelBuilder()
    x = b.add_input("x", (2, 6))
    shape = b.add_input("shape", (2,), "int32")
    t, u, v, y = (b.add_tensor(n, (-1, -1)) for n in "tuvy")
    b.add_op("RESHAPE", [x, shape], [t])
    b.add_op("MUL", [t, b.add_const("k", np.float32(2))], [u])
    b.add_op("ADD", [t, b.add_const("j", np.float32(1))], [v])
    b.add_op("ADD", [u, v], [y])
    b.add_output(y)
    return b.build()


@pytest.mark.parametrize("executor", EXECUTORS[1:])
def test_dynamic_tensors_same_answers_and_released(executor):
    model = dynamic_branches()
    data = RNG.standard_normal((2, 6)).astype(np.float32)
    with session(model, executor, backends=["cpu", "cpu2"], op_backend_map={1: "cpu2"}) as sess:
        for target in ([3, 4], [12, 1], [3, 4]):
            xs = [data, np.array(target, np.int32)]
            (got,) = sess.run(xs)
            assert got.shape == tuple(target)
            np.testing.assert_array_equal(got, tflite_run(model, xs)[0])
        compiled = session_internals(sess).compiled
        g = compiled.lowered.graph
        inner = [ctx.tensor_registry.get_native_itensor(i)
                 for ctx in compiled.contexts.values() for i in ctx.data.operands
                 if g.operands[i].dynamic and i not in g.outputs]
        assert len(inner) >= 3 and all(t.buffer is None for t in inner)


def test_dataflow_runs_the_ready_op_with_the_lowest_index(tmp_path):
    model, _ = two_branches(depth=4)
    cfg = {"backends": ["cpu", "cpu2"], "op_backend_map": {i: "cpu2" for i in range(0, 9, 2)}}
    path = tmp_path / "trace.json"
    with session(model, "Dataflow", tracing=str(path), **cfg) as sess:
        compiled = session_internals(sess).compiled
        g, linear = compiled.lowered.graph, compiled.lowered.exec_order
        spans = {b: ctx.lifetimes() for b, ctx in compiled.contexts.items()}
        sess.run([RNG.standard_normal((1, 64)).astype(np.float32)])
    events = json.loads(path.read_text())["traceEvents"]
    ran = [int(e["name"].split()[0][1:]) for e in events if e["ph"] == "B"]
    written, want = set(g.inputs) | {i for i, o in g.operands.items() if o.is_constant}, []
    while len(want) < len(g.operations):
        oi = min(i for i, op in g.operations.items() if i not in want
                 and all(t in written for t in op.inputs if t >= 0))
        want.append(oi)
        written.update(g.operations[oi].outputs)
    assert ran == want and ran != linear          # Permutes wait until nothing else is ready
    position, producer = {oi: p for p, oi in enumerate(ran)}, g.producers()
    for lifetimes in spans.values():              # memory is planned for that order
        for operand, (first, last) in lifetimes.items():
            if operand in producer:
                assert first == position[producer[operand]]
            readers = [position[oi] for oi in ran if operand in g.operations[oi].inputs]
            if readers and operand not in g.outputs:
                assert last == max(readers)


# ---- memory planning when the order is not Linear's -------------------------------------

def test_conflict_rule_follows_the_dag():
    def op(index, inputs, outputs, type_="Add"):
        return type("Op", (), {"index": index, "type": type_, "inputs": inputs,
                               "outputs": outputs})()
    # op0 x->a1, op1 a1->a2, op2 x->b1, op3 b1->b2, op4 a2,b2->y; 9 is never written (a variable)
    ops = [op(0, [0], [1]), op(1, [1, 9], [2]), op(2, [0], [3]), op(3, [3, 9], [4]),
           op(4, [2, 4], [5])]
    dag = OpDag.of_ops(ops, inputs=[0], is_constant=lambda i: False)
    assert dag.preds == [[], [0], [], [1, 2], [1, 3]]     # op3 after op1: both touch variable 9
    anc = dag.ancestors()
    assert anc[4] == 0b1111 and anc[3] == 0b0111 and anc[2] == 0
    conflicts = memory_planner.dag_conflicts(anc, dag.uses, dag.first_write, {5})
    req = {i: memory_planner.Request(i, 64, 0, 0) for i in range(1, 6)}
    assert conflicts(req[1], req[3])          # a1 and b1: the branches may run in any order
    assert not conflicts(req[1], req[4])      # b2 is written by op3, after op1 (the variable)
    assert not conflicts(req[1], req[5]) and not conflicts(req[3], req[5])
    assert conflicts(req[2], req[5])          # op4 reads a2 and writes y: never in place
    assert conflicts(req[2], req[4])          # both read by op4
    linear = memory_planner.Request(1, 64, 0, 1), memory_planner.Request(3, 64, 2, 3)
    assert not memory_planner._overlaps(*linear)   # what Linear's interval rule would allow
    for plan in (memory_planner.plan_wic, memory_planner.plan_first_fit):
        offsets, _ = plan(list(req.values()), conflicts)
        assert offsets[1] != offsets[3] and offsets[2] != offsets[4]


def test_planned_tensors_start_on_cache_lines():
    for size in (0, 1, 100, 1 << 20):
        a = memory_planner.arena(size)
        assert a.ctypes.data % memory_planner.ALIGN == 0 and a.nbytes == max(size, 1)
    for planner in memory_planner.PLANNERS:
        with session(small_cnn(), "Linear", memory_planner=planner) as sess:
            sess.run(small_inputs())
            compiled = session_internals(sess).compiled
            addrs = [t.buffer.ctypes.data for ctx in compiled.contexts.values()
                     for t in (ctx.tensor_registry.get_native_itensor(i)
                               for i in ctx.data.operands)
                     if t is not None and getattr(t, "offset", None) is not None]
            assert addrs and all(a % memory_planner.ALIGN == 0 for a in addrs)


def test_dag_of_steps_matches_dag_of_graph():
    for model, cfg in ((small_cnn(), {"backends": ["cpu", "cpu2"], "op_backend": {"Conv2D": "cpu2"}}),
                       (two_branches()[0], {})):
        with session(model, "Dataflow", **cfg) as sess:
            compiled = session_internals(sess).compiled
            low = compiled.lowered
            want = OpDag.of_graph(low.graph, low.exec_order)
            got = compiled.executor.dag
            assert got.preds == want.preds and got.keys == want.keys


def offsets(sess, operands):
    reg = session_internals(sess).compiled.contexts["cpu"].tensor_registry
    return [reg.get_native_itensor(i).offset for i in operands]


def test_parallel_plan_keeps_apart_what_may_be_live_together():
    model, (a, b) = two_branches(depth=3)
    with session(model, "Linear") as sess:
        lin = dict(zip(a + b, offsets(sess, a + b)))
    assert {lin[i] for i in a[:2]} & {lin[i] for i in b[:2]}, \
        "Linear's plan should share a slot between the branches' first tensors"
    xs = [RNG.standard_normal((1, 64)).astype(np.float32)]
    want = tflite_run(model, xs)[0]
    for ex in ("Parallel", "Dataflow"):
        with session(model, ex) as sess:
            got = dict(zip(a + b, offsets(sess, a + b)))
            for _ in range(50):
                np.testing.assert_allclose(sess.run(xs)[0], want, rtol=1e-6, atol=1e-6)
        if ex == "Parallel":
            assert len({got[i] for i in a[:2] + b[:2]}) == 4


def test_linear_plan_would_corrupt_parallel(monkeypatch):
    """The model above does catch a wrong plan: with Linear's interval rule the single cpu
    worker runs b0 (queued with a0) before a1 reads a0, and b0 overwrites a0's slot."""
    monkeypatch.setattr(HostBackendContext, "parallel_conflicts",
                        lambda self: memory_planner._overlaps)
    model, _ = two_branches(depth=3)
    xs = [RNG.standard_normal((1, 64)).astype(np.float32)]
    with session(model, "Parallel") as sess:
        got = sess.run(xs)[0]
    assert not np.allclose(got, tflite_run(model, xs)[0], rtol=1e-6, atol=1e-6)


# ---- Parallel: overlap, failures, threads -------------------------------------------------

def sleepy_model() -> bytes:
    """x + c0 (op 0) and x + c1 (op 1) are independent; op 2 adds them."""
    b = ModelBuilder()
    x = b.add_input("x", (1, 8))
    p, q, y = b.add_tensor("p", (1, 8)), b.add_tensor("q", (1, 8)), b.add_tensor("y", (1, 8))
    b.add_op("ADD", [x, b.add_const("c0", np.full((1, 8), 1, np.float32))], [p])
    b.add_op("ADD", [x, b.add_const("c1", np.full((1, 8), 2, np.float32))], [q])
    b.add_op("ADD", [p, q], [y])
    b.add_output(y)
    return b.build()


SLEEPY = {"backends": ["cpu", "sleepy", "sleepy2"],
          "op_backend_map": {0: "sleepy", 1: "sleepy2", 2: "cpu"}}


def spans_by_thread(path) -> dict[str, list[tuple[float, float, str]]]:
    doc = json.loads(path.read_text())
    names = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    out: dict[str, list] = {}
    open_: dict[int, dict] = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "B":
            open_[e["tid"]] = e
        elif e["ph"] == "E":
            b = open_.pop(e["tid"])
            out.setdefault(names[e["tid"]], []).append((b["ts"], e["ts"], e["name"]))
    return out


def overlapping(spans, one: str, other: str) -> bool:
    return any(s0 < e1 and s1 < e0 for s0, e0, _ in spans.get(one, [])
               for s1, e1, _ in spans.get(other, []))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_parallel_runs_two_backends_at_once(tmp_path, executor):
    path = tmp_path / "trace.json"
    xs = [np.arange(8, dtype=np.float32).reshape(1, 8)]
    with session(sleepy_model(), executor, tracing=str(path), **SLEEPY) as sess:
        for _ in range(3):
            np.testing.assert_array_equal(sess.run(xs)[0], 2 * xs[0] + 3)
    spans = spans_by_thread(path)
    assert [n for _, _, n in spans["0, sleepy"]] == ["$0 ADD"] * 3
    assert [n for _, _, n in spans["0, sleepy2"]] == ["$1 ADD"] * 3
    # a sequential executor cannot produce overlapping spans; Parallel must
    assert overlapping(spans, "0, sleepy", "0, sleepy2") == (executor == "Parallel")


@pytest.mark.parametrize("executor", EXECUTORS[1:])
def test_failing_kernel_raises_and_the_session_runs_again(executor):
    xs = [np.ones((1, 8), np.float32)]
    with session(sleepy_model(), executor, **SLEEPY) as sess:
        fail = manager.module_of("sleepy2").FAIL
        fail["on"] = True
        try:
            with pytest.raises(onert_py.ExecutionError, match=r"op #1 ADD on sleepy2 failed: "
                               r"RuntimeError: sleepy ADD failed on purpose"):
                sess.run(xs)
        finally:
            fail["on"] = False
        for _ in range(2):
            np.testing.assert_array_equal(sess.run(xs)[0], np.full((1, 8), 5, np.float32))


def test_parallel_workers_are_daemons_and_stop_with_the_session():
    with session(sleepy_model(), "Parallel", **SLEEPY) as sess:
        executor = session_internals(sess).compiled.executor
        assert executor.workers == []            # started by the first run
        sess.run([np.ones((1, 8), np.float32)])
        threads = executor.workers
        assert len(threads) == 4 and all(t.daemon and t.is_alive() for t in threads)
        executor.close()
        assert not any(t.is_alive() for t in threads)
        sess.run([np.ones((1, 8), np.float32)])  # a run after close starts new workers
        threads = executor.workers
    del sess, executor
    gc.collect()
    for t in threads:                            # collected executor: its workers end
        t.join(timeout=10)
        assert not t.is_alive()
