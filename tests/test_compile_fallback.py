"""Compile-time fallback (core/compiler/fallback.py): a backend that finds out while compiling
that it cannot run an op (its tensors turn out shaped at run time, its kernel refuses in
configure) hands the op to the next backend in the list, and the session matches the TFLite
interpreter on every backend list. An explicit mapping to the refusing backend stays a
CompileError naming op and reason; an op no listed backend takes an UnsupportedOperationError."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.placement import COMPILE_FALLBACK

from builders import cf_models
from builders.shared_models import model_path, realistic_inputs
from builders.single_op import binary_model
from builders.small_models import computed_reshape_model
from op_harness import assert_outputs, backend_or_skip
from oracle import tflite_run
from paths import PLUGINS

LISTS = ["cpu", "acl_neon;cpu", "acl_cl;cpu", "acl_cl;acl_neon;cpu"]
STATIC_ONLY = ("acl_cl", "acl_neon")       # backends that refuse tensors shaped at run time
RNG = np.random.default_rng(11)


@pytest.fixture(params=LISTS)
def backends(request) -> str:
    """Each backend list in turn; skipped where one of its backends cannot load here."""
    for bid in request.param.split(";"):
        backend_or_skip(bid)
    return request.param


@pytest.fixture
def plugins(monkeypatch):
    """The test plugin backends on the backend path (tinyadd: ADD of at most 16 elements)."""
    monkeypatch.setenv("ONERT_BACKEND_PATH", PLUGINS)


def run_and_compare(model, runs: list[list[np.ndarray]], backends: str,
                    rtol: float = 1e-5, atol: float = 1e-6) -> onert_py.Placement:
    """Each input list run by one session on `backends`, compared with the interpreter."""
    with onert_py.Session(model, backends=backends) as sess:
        for inputs in runs:
            assert_outputs(sess.run(inputs), tflite_run(model, inputs), rtol, atol, backends)
        return sess.placement()


def assert_moved_off_static_backends(ops, indices: set[int], backends: str) -> None:
    """The ops `indices` run on none of STATIC_ONLY; each listed one before it said why."""
    for op in ops:
        if op.index not in indices:
            continue
        assert op.backend not in STATIC_ONLY, (op, backends)
        before = backends.split(";")[:backends.split(";").index(op.backend)]
        for bid in before:
            assert bid in op.refusals, (op, bid)
        if before:
            assert op.rule in (COMPILE_FALLBACK, "fallback"), op


def test_ops_on_tensors_shaped_at_run_time(backends):
    """RESHAPE by a computed shape into tensors declared static: the scheduler gives MUL and
    ADD to the first backend; shape inference finds their tensors shaped at run time, which
    acl_cl and acl_neon refuse, so both move on (acl_cl used to fail the compile with
    "tensor ... is shaped at run time")."""
    model = computed_reshape_model()
    x = RNG.standard_normal((2, 6)).astype(np.float32)
    runs = [[x, np.array(t, np.int32)] for t in ((6, 2), (3, 4), (12, 1))]
    p = run_and_compare(model, runs, backends)
    assert_moved_off_static_backends(p.ops, {0, 1, 2}, backends)
    if backends.startswith("acl_cl"):
        mul = p.ops[1]
        assert mul.rule == COMPILE_FALLBACK and "shaped at run time" in mul.refusals["acl_cl"]


def test_while_whose_loop_variable_grows(backends):
    """The loop variable is declared (1, 2) in the body and doubles its rows every iteration:
    the body's ops on it, and the MUL after the loop, run on a backend that takes run-time
    shapes."""
    model = cf_models.growing_while_model(signature=False, scale=True)
    runs = [[np.array(n, np.int32), RNG.standard_normal((1, 2)).astype(np.float32)]
            for n in (3, 0, 1)]
    p = run_and_compare(model, runs, backends)
    assert_moved_off_static_backends(p.ops, {1}, backends)
    (body,) = [c for c in p.children if c.index == 2]
    assert_moved_off_static_backends(body.ops, {2, 3}, backends)


def test_control_flow_inside_a_growing_loop(backends):
    """An IF on the growing loop variable, an inner WHILE in its then-branch: the ops of every
    subgraph that the growing variable reaches leave the static-shape backends. (Runs stop at
    n = 1: an IF or WHILE inside a child entered with other shapes than planned gives outputs
    of its planned shapes, on every backend: builtin/control_flow.py.)"""
    model = cf_models.nested_model(grow=True, switch=1)
    x = np.abs(RNG.standard_normal((2, 2))).astype(np.float32)
    p = run_and_compare(model, [[np.array(n, np.int32), x] for n in (1, 0)], backends)
    reached = {2: {3}, 4: {0}, 5: {0, 1}, 6: {0}}    # subgraph -> ops: CONCAT, ADD, SUM+LESS, MUL
    for child in p.children:
        assert_moved_off_static_backends(child.ops, reached.get(child.index, set()), backends)
    assert {c.index for c in p.children} >= set(reached)


@pytest.mark.parametrize("name", ["lstm_text", "control_flow"])
def test_shared_control_flow_models(backends, name):
    """The Keras LSTM lowered to WHILE and the tf.cond/tf.while_loop model."""
    path = model_path(name)
    with onert_py.Session(path, backends=backends) as sess:
        inputs = realistic_inputs(sess, seed=3)
    runs = [inputs] if name == "lstm_text" else [[inputs[0], np.array(n, np.int32)]
                                                 for n in (0, 4)]
    run_and_compare(path, runs, backends, rtol=1e-4, atol=1e-5)


def test_kernel_that_refuses_in_configure(plugins):
    """tinyadd's supports takes every float32 ADD; its kernel refuses more than 16 elements in
    prepare. A small ADD stays on it; a large one moves to cpu, the kernel's words kept."""
    small, large = binary_model("ADD", (2, 3), (2, 3)), binary_model("ADD", (8, 8), (8, 8))
    p = run_and_compare(small, [[RNG.standard_normal((2, 3)).astype(np.float32)] * 2],
                        "tinyadd;cpu")
    assert p.op_backend == {0: "tinyadd"}
    p = run_and_compare(large, [[RNG.standard_normal((8, 8)).astype(np.float32)] * 2],
                        "tinyadd;cpu")
    (add,) = p.ops
    assert (add.backend, add.rule) == ("cpu", COMPILE_FALLBACK)
    why = add.refusals["tinyadd"]
    assert "tinyadd holds at most 16 elements per tensor, this one has 64" in why


def test_kernel_refusal_inside_a_branch(plugins):
    """The same inside the then-branch of an IF (a child subgraph built again)."""
    model = cf_models.if_model(shape=(4, 8))
    a, b = (RNG.standard_normal((4, 8)).astype(np.float32) for _ in range(2))
    p = run_and_compare(model, [[np.array(True), a, b], [np.array(False), a, b]],
                        "tinyadd;cpu")
    (then,) = [c for c in p.children if c.index == 1]
    assert then.ops[0].backend == "cpu" and "tinyadd" in then.ops[0].refusals


def test_neg_compile_explicit_mapping_to_a_backend_refusing_at_compile_time(plugins):
    model = binary_model("ADD", (8, 8), (8, 8))
    with pytest.raises(onert_py.CompileError, match=r"op #0 ADD \(subgraph 0\) is mapped to "
                       r"tinyadd by the op type rule \(ADD\), but tinyadd cannot run it: .*"
                       r"at most 16 elements"):
        onert_py.Session(model, backends="tinyadd;cpu", config={"op_backend": {"ADD": "tinyadd"}})


def test_neg_compile_explicit_mapping_to_acl_cl_of_a_run_time_shape():
    backend_or_skip("acl_cl")
    with pytest.raises(onert_py.CompileError, match=r"op #1 MUL \(subgraph 0\) is mapped to "
                       r"acl_cl by the op index rule \(0:1\), but acl_cl cannot run it: .*"
                       r"shaped at run time") as e:
        onert_py.Session(computed_reshape_model(), backends="acl_cl;cpu",
                         config={"op_backend_map": {1: "acl_cl"}})
    assert not isinstance(e.value, onert_py.UnsupportedOperationError)


def test_neg_compile_no_listed_backend_takes_it():
    """acl_neon takes the RESHAPE by its declared shapes and refuses it once its output turns
    out shaped at run time; acl_cl refuses a computed shape; no cpu behind them."""
    for bid in ("acl_neon", "acl_cl"):
        backend_or_skip(bid)
    with pytest.raises(onert_py.UnsupportedOperationError, match=r"op #0 RESHAPE") as e:
        onert_py.Session(computed_reshape_model(), backends="acl_neon;acl_cl")
    assert e.value.op_type == "Reshape" and e.value.op_index == 0
    assert set(e.value.reasons) == {"acl_neon", "acl_cl"}
    assert "dynamic" in e.value.reasons["acl_neon"]


def test_neg_compile_kernel_refusal_on_the_last_backend_is_its_own_error(plugins):
    """Nothing to hand over to: the kernel's CompileError as it was."""
    with pytest.raises(onert_py.CompileError, match=r"op #0 ADD: tinyadd holds at most") as e:
        onert_py.Session(binary_model("ADD", (8, 8), (8, 8)), backends="tinyadd")
    assert not isinstance(e.value, onert_py.UnsupportedOperationError)
