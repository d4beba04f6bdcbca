"""Threads: one Session shared by many threads is safe (runs are serialised by its lock, on
every executor, also while other threads resize it or close it); many Sessions on one model
in parallel give identical answers; backends are destroyed once the last user is gone.
Rules: docs/robustness.md."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from onert_py import Session
from onert_py.core.compiler import manager
from onert_py.errors import SessionClosedError
from builders.cf_models import nested_model
from builders.small_models import conv_add_relu_model, small_cnn
from paths import PLUGINS
EXECUTORS = ["Linear", "Dataflow", "Parallel"]
THREADS, RUNS = 8, 50


def cnn_case(seed: int, batch: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((batch, 8, 8, 3)).astype(np.float32),
            rng.standard_normal((1, 5)).astype(np.float32)]


def in_threads(work, n: int = THREADS) -> list:
    """Run work(k) in n threads started together; return their results (re-raising errors)."""
    barrier = threading.Barrier(n)

    def start(k: int):
        barrier.wait()
        return work(k)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(start, range(n)))


def two_backend_session(executor: str) -> Session:
    """small_cnn with the depthwise conv and the fully connected op on a second host backend,
    so that the Parallel executor has two workers and real Permutes in between."""
    return Session(small_cnn(), config={"executor": executor, "backend_paths": [PLUGINS],
                                        "backends": ["cpu", "cpu2"],
                                        "op_backend_map": {1: "cpu2", 3: "cpu2"}})


@pytest.mark.parametrize("executor", EXECUTORS)
def test_one_session_many_threads(executor):
    with two_backend_session(executor) as sess:
        cases = [cnn_case(k) for k in range(THREADS)]
        want = [sess.run(c) for c in cases]              # single-threaded answers

        def work(k: int) -> int:
            for r in range(RUNS):
                j = (k + r) % THREADS                     # every thread walks through all inputs
                got = sess.run(cases[j])
                for g, w in zip(got, want[j], strict=True):
                    assert np.array_equal(g, w), (executor, k, r)
            return RUNS

        assert sum(in_threads(work)) == THREADS * RUNS


def test_threads_resizing_one_session():
    """Threads with different batch sizes: every run resizes the session under its lock."""
    with Session(small_cnn(), backends="cpu") as sess:
        batches = [1, 2, 3, 2]
        cases = [cnn_case(10 + k, batches[k % len(batches)]) for k in range(THREADS)]
        want = [sess.run(c) for c in cases]

        def work(k: int) -> None:
            for r in range(20):
                j = (k + r) % THREADS
                for g, w in zip(sess.run(cases[j]), want[j], strict=True):
                    assert g.shape == w.shape and np.array_equal(g, w)

        in_threads(work)


def test_close_while_other_threads_run():
    """A close() racing with runs: each run either completes correctly or is refused with
    SessionClosedError; nothing else happens, and close() waits for the run in progress."""
    sess = Session(small_cnn(), backends="cpu")
    xs = cnn_case(0)
    want = sess.run(xs)
    started = threading.Event()

    def work(k: int) -> tuple[int, int]:
        ok = refused = 0
        while True:
            if k == 0 and ok == 5:
                started.wait()
                sess.close()
            try:
                got = sess.run(xs)
            except SessionClosedError:
                refused += 1
                return ok, refused
            for g, w in zip(got, want):
                assert np.array_equal(g, w)
            ok += 1
            started.set()

    results = in_threads(work, 4)
    assert all(refused == 1 for _, refused in results)
    assert sess.closed


@pytest.mark.parametrize("executor", EXECUTORS)
def test_many_sessions_on_one_model(tmp_path, executor):
    """One session per thread on the same model file (control flow compiled lazily in each):
    every thread gets the single-threaded answers."""
    path = tmp_path / "nested.tflite"
    path.write_bytes(nested_model())
    cases = [[np.int32(k % 4), np.full((2, 2), 0.5 + k, np.float32)] for k in range(THREADS)]
    with Session(str(path), backends="cpu", config={"executor": executor}) as ref:
        want = [ref.run(c) for c in cases]

    def work(k: int) -> None:
        with Session(str(path), backends="cpu", config={"executor": executor}) as sess:
            for r in range(10):
                j = (k + r) % THREADS
                for g, w in zip(sess.run(cases[j]), want[j], strict=True):
                    assert np.array_equal(g, w)

    in_threads(work)


def test_backend_destroyed_when_the_last_threaded_session_closes(monkeypatch):
    """Sessions created and closed in parallel threads: every loaded instance of a plug-in
    backend is destroyed exactly once, and no users remain."""
    monkeypatch.setenv("ONERT_BACKEND_PATH", PLUGINS)
    model = conv_add_relu_model()
    x = np.random.default_rng(3).standard_normal((1, 6, 6, 3)).astype(np.float32)
    want = Session(model, backends="cpu").run([x])[0]
    modules = {}
    lock = threading.Lock()

    def work(k: int) -> None:
        for _ in range(5):
            with Session(model, backends="testadd;cpu") as sess:
                with lock:
                    m = manager.module_of("testadd")
                    modules[id(m)] = m
                np.testing.assert_allclose(sess.run([x])[0], want, rtol=1e-6, atol=1e-6)

    in_threads(work, 6)
    assert manager.users("testadd") == 0 and manager.module_of("testadd") is None
    assert modules and all(m.DESTROYED["count"] == 1 for m in modules.values())
