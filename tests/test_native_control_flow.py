"""If and While as native steps (issue 18, item 3): where a child subgraph's static run is all
native steps, If runs the chosen branch and While its whole loop in C++, so neither ends its
caller's native segment. Results must be bit-identical to step-by-step runs and match the
interpreter; a Python kernel in a child, tracing, or loop variables that grow keep the Python
form."""
from __future__ import annotations

import json
import zlib

import numpy as np
import pytest

import onert_py
from builders import cf_models
from builders.shared_models import model_path, realistic_inputs
from op_harness import backend_or_skip, session_internals
from oracle import tflite_run

BACKENDS = "acl_neon;cpu"


@pytest.fixture(autouse=True)
def neon() -> None:
    backend_or_skip("acl_neon")


def f32(*shape, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def checksum(arrays) -> list[int]:
    return [zlib.crc32(np.ascontiguousarray(a).tobytes()) for a in arrays]


def top_kernels(sess: onert_py.Session) -> dict[str, object]:
    return {s.kernel.op.name: s.kernel for s in session_internals(sess).compiled.executor.steps}


def all_native(sess: onert_py.Session) -> bool:
    return session_internals(sess).compiled.executor.all_native


CASES = {
    "if_then": (cf_models.if_model, lambda: [np.array(True), f32(2, 3), f32(2, 3, seed=1)]),
    "if_else": (cf_models.if_model, lambda: [np.array(False), f32(2, 3), f32(2, 3, seed=1)]),
    "while_until": (cf_models.while_until_model, lambda: [np.abs(f32(2, 2)) + 0.1]),
    "while_until_0": (cf_models.while_until_model,
                      lambda: [np.full((2, 2), 30, np.float32)]),     # no iteration
    "while_until_1": (cf_models.while_until_model,
                      lambda: [np.full((2, 2), 20, np.float32)]),     # one iteration
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_native_if_and_while_match_tflite_and_step_by_step(case):
    build, make = CASES[case]
    model, xs = build(), make()
    before = checksum(xs)
    want = tflite_run(model, xs)
    got = {}
    for seg in (True, False):
        with onert_py.Session(model, backends=BACKENDS, config={"native_segments": seg}) as s:
            got[seg] = [s.run(xs) for _ in range(3)]      # again: the slots were put back
            if seg:
                assert all_native(s)                      # the If/While is in the segment
                op = "IF" if case.startswith("if") else "WHILE"
                assert top_kernels(s)[op].native_step is not None
    for runs in got.values():
        for out in runs:
            for a, b in zip(out, want):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    for a, b in zip(got[True], got[False]):
        for u, v in zip(a, b):
            assert np.array_equal(u, v)
    assert checksum(xs) == before                         # the user's arrays are only read


def test_native_if_switches_branch_from_run_to_run():
    model = cf_models.if_model()
    a, b = f32(2, 3), f32(2, 3, seed=1)
    with onert_py.Session(model, backends=BACKENDS) as sess:
        for cond in (True, False, False, True):
            got = sess.run([np.array(cond), a, b])[0]
            np.testing.assert_allclose(got, a + b if cond else a * b - 1, rtol=1e-6)
        assert all_native(sess)


def test_native_while_trip_counts_from_run_to_run():
    model = cf_models.while_until_model(100.0)
    with onert_py.Session(model, backends=BACKENDS) as sess:
        for start in (30.0, 1.0, 20.0, 0.5, 0.1):
            x = np.full((2, 2), start, np.float32)
            k = 0
            while 4 * start * 2 ** k < 100:
                k += 1
            np.testing.assert_array_equal(sess.run([x])[0], x * np.float32(2 ** k))
        assert all_native(sess)


def test_native_while_stops_at_max_while_iterations():
    model = cf_models.while_until_model(100.0)
    zeros = np.zeros((2, 2), np.float32)        # 0 * 2 stays 0: the loop never ends
    with onert_py.Session(model, backends=BACKENDS,
                          config={"max_while_iterations": 50}) as sess:
        assert top_kernels(sess)["WHILE"].native_step is not None
        with pytest.raises(onert_py.ExecutionError,
                           match=r"op #0 WHILE on builtin failed.*did not end after 50 "
                                 r"iterations \(config max_while_iterations"):
            sess.run([zeros])
        ones = np.ones((2, 2), np.float32)       # the session still runs afterwards
        np.testing.assert_array_equal(sess.run([ones])[0], ones * 32)


def test_a_failure_inside_a_native_loop_names_the_childs_op():
    model = cf_models.while_until_model(100.0)
    x = np.ones((2, 2), np.float32)
    with onert_py.Session(model, backends=BACKENDS) as sess:
        sess.run([x])
        body = top_kernels(sess)["WHILE"].body
        mul = body.executor.steps[0].kernel
        assert mul.op.name == "MUL"
        mul.outputs[0].set_buffer(np.zeros(1, np.float32))     # too small for (2, 2)
        with pytest.raises(onert_py.ExecutionError,
                           match=r"op #0 WHILE on builtin failed: RuntimeError: subgraph 2 "
                                 r"op #0 MUL on acl_neon: binary output: buffer of 4 bytes"):
            sess.run([x])


def test_a_python_kernel_in_the_body_keeps_the_python_loop():
    model = cf_models.while_until_model(100.0)
    x = np.abs(f32(2, 2)) + 0.1
    with onert_py.Session(model, backends=BACKENDS,
                          config={"op_backend_map": "2:0=cpu"}) as sess:
        got = sess.run([x])[0]
        assert top_kernels(sess)["WHILE"].native_step is None
    with onert_py.Session(model, backends=BACKENDS) as sess:
        assert np.array_equal(sess.run([x])[0], got)


def test_tracing_shows_the_ops_of_every_iteration(tmp_path):
    path = tmp_path / "t.json"
    model = cf_models.while_until_model(100.0)
    x = np.full((2, 2), 1.0, np.float32)            # sum 4: five doublings reach 128
    with onert_py.Session(model, backends=BACKENDS, config={"tracing": str(path)}) as sess:
        np.testing.assert_array_equal(sess.run([x])[0], x * 32)
        assert top_kernels(sess)["WHILE"].native_step is None
    events = json.loads(path.read_text())["traceEvents"]
    names = [e["name"] for e in events if e["ph"] == "B"]
    assert names.count("$0 MUL") == 5 and names.count("$1 LESS") == 6


def test_nested_native_loops_stay_correct_across_runs():
    model = cf_models.nested_model()
    x = np.abs(f32(2, 2)) + 0.1
    with onert_py.Session(model, backends=BACKENDS) as sess:
        for n in (0, 1, 4, 2):
            xs = [np.array(n, np.int32), x]
            want = tflite_run(model, xs)
            np.testing.assert_allclose(sess.run(xs)[0], want[0], rtol=1e-6)


@pytest.mark.parametrize("name", ["control_flow", "lstm_text"])
def test_shared_control_flow_models_run_their_loops_natively(name):
    path = model_path(name)
    with onert_py.Session(path, backends=BACKENDS) as sess:
        xs = realistic_inputs(sess, 3)
        sess.run(xs)
        kernels = top_kernels(sess)
        for op in ("IF", "WHILE"):
            if op in kernels:
                assert kernels[op].native_step is not None, op
