"""IF, WHILE (0, 1, many and data-dependent trip counts, growing loop variables), nested
control flow, CALL_ONCE and resource variables: against the TFLite interpreter, on one backend
and with the ops inside branches and loop bodies mapped to a second backend."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders import cf_models
from builders.shared_models import model_path
from op_harness import backend_or_skip
from oracle import tflite_run
from paths import PLUGINS
RNG = np.random.default_rng(7)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def assert_same(got: list, expected: list, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype, (g.shape, g.dtype, e.shape, e.dtype)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)


def run(model: bytes, inputs: list, **config) -> list[np.ndarray]:
    with onert_py.Session(model, config=config or None) as sess:
        return [np.array(o) for o in sess.run(inputs)]


def split_config(mapping: str) -> dict:
    """cpu and the cpu2 test backend, with `mapping` (op_backend_map) moving ops to cpu2."""
    return {"backends": ["cpu", "cpu2"], "backend_paths": [PLUGINS], "op_backend_map": mapping}


CASES = {
    "if_then": (cf_models.if_model, lambda: [np.array(True), f32(2, 3), f32(2, 3)]),
    "if_else": (cf_models.if_model, lambda: [np.array(False), f32(2, 3), f32(2, 3)]),
    "while_0": (cf_models.while_model, lambda: [np.array(0, np.int32), f32(1, 4)]),
    "while_1": (cf_models.while_model, lambda: [np.array(1, np.int32), f32(1, 4)]),
    "while_9": (cf_models.while_model, lambda: [np.array(9, np.int32), f32(1, 4)]),
    "while_until": (cf_models.while_until_model, lambda: [np.abs(f32(2, 2)) + 0.1]),
    "while_until_0": (cf_models.while_until_model, lambda: [np.full((2, 2), 30, np.float32)]),
    "growing_0": (cf_models.growing_while_model, lambda: [np.array(0, np.int32), f32(1, 2)]),
    "growing_5": (cf_models.growing_while_model, lambda: [np.array(5, np.int32), f32(1, 2)]),
    "nested_0": (cf_models.nested_model, lambda: [np.array(0, np.int32), np.abs(f32(2, 2))]),
    "nested_4": (cf_models.nested_model, lambda: [np.array(4, np.int32), np.abs(f32(2, 2))]),
}

# ops inside branches and bodies moved to cpu2: Permutes appear inside those subgraphs
SPLITS = {
    "if_then": "1:0=cpu2", "if_else": "2:1=cpu2", "while_0": "2:1=cpu2", "while_1": "2:1=cpu2",
    "while_9": "2:1=cpu2;1:0=cpu2", "while_until": "2:0=cpu2", "while_until_0": "1:0=cpu2",
    "growing_0": "2:3=cpu2", "growing_5": "2:3=cpu2;2:1=cpu2",
    "nested_0": "6:0=cpu2;4:0=cpu2", "nested_4": "6:0=cpu2;4:0=cpu2;2:2=cpu2",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_tflite(case: str) -> None:
    build, make_inputs = CASES[case]
    model, inputs = build(), make_inputs()
    assert_same(run(model, inputs), tflite_run(model, inputs))


@pytest.mark.parametrize("case", sorted(CASES))
def test_split_across_backends_gives_identical_outputs(case: str) -> None:
    build, make_inputs = CASES[case]
    model, inputs = build(), make_inputs()
    one = run(model, inputs)
    with onert_py.Session(model, config=split_config(SPLITS[case])) as sess:
        assert "cpu2" in sess.explain()
        two = [np.array(o) for o in sess.run(inputs)]
    for a, b in zip(one, two):
        assert np.array_equal(a, b)


def test_trip_counts_and_growth_follow_the_data() -> None:
    model = cf_models.growing_while_model()
    with onert_py.Session(model) as sess:
        for n in (3, 0, 6, 1):            # the same session, loop lengths up and down
            x = f32(1, 2)
            (y,) = sess.run([np.array(n, np.int32), x])
            assert y.shape == (2 ** n, 2)      # each iteration doubles the rows
            assert_same([y], tflite_run(model, [np.array(n, np.int32), x]))


def test_while_counter_output() -> None:
    model = cf_models.while_model()
    with onert_py.Session(model) as sess:
        for n in (0, 1, 13):
            x, i = sess.run([np.array(n, np.int32), f32(1, 4)])
            assert int(i) == n


@pytest.mark.parametrize("executor", ["Linear", "Dataflow", "Parallel"])
def test_variables_keep_state_across_runs_like_tflite(executor: str) -> None:
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    model = cf_models.variable_model()
    interp = Interpreter(model_content=model, experimental_op_resolver_type=(
        OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES))
    interp.allocate_tensors()
    (din,), (dout,) = interp.get_input_details(), interp.get_output_details()
    with onert_py.Session(model, config={"executor": executor}) as sess:
        for step in range(4):
            x = f32(1, 3)
            interp.set_tensor(din["index"], x)
            interp.invoke()
            expected = interp.get_tensor(dout["index"])
            (got,) = sess.run([x])
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    # a new session starts from the init subgraph again
    with onert_py.Session(model) as sess:
        x = f32(1, 3)
        np.testing.assert_allclose(sess.run([x])[0], x)


def test_explain_lists_branch_subgraphs() -> None:
    with onert_py.Session(cf_models.if_model()) as sess:
        text = sess.explain()
    assert "If" in text or "IF" in text


def test_shared_control_flow_model() -> None:
    path = model_path("control_flow")
    with onert_py.Session(path) as sess:
        for n in (0, 1, 4):
            inputs = [f32(1, 16), np.array(n, np.int32)]
            assert_same(sess.run(inputs), tflite_run(path, inputs), rtol=1e-5, atol=1e-5)


def test_keras_lstm_lowered_to_while() -> None:
    path = model_path("lstm_text")
    tokens = RNG.integers(0, 1000, (1, 64)).astype(np.int32)
    with onert_py.Session(path) as sess:
        got = sess.run([tokens])
    assert_same(got, tflite_run(path, [tokens]), rtol=1e-4, atol=1e-5)


def test_keras_lstm_split_across_backends() -> None:
    path = model_path("lstm_text")
    tokens = RNG.integers(0, 1000, (1, 64)).astype(np.int32)
    one = run(path, [tokens], backends=["cpu"])
    config = {"backends": ["cpu", "cpu2"], "backend_paths": [PLUGINS],
              "op_backend": {"FullyConnected": "cpu2", "LOGISTIC": "cpu2"}}
    two = run(path, [tokens], **config)
    for a, b in zip(one, two):
        assert np.array_equal(a, b)


def test_recursive_subgraph_is_refused() -> None:
    from onert_py.model_builder import ModelBuilder
    b = ModelBuilder()
    sg = b.add_subgraph("self")
    c, x = b.add_input("c", (), "bool"), b.add_input("x", (2,))
    y = b.add_tensor("y", (2,))
    b.add_op("IF", [c, x], [y], then_subgraph_index=sg, else_subgraph_index=sg)
    b.add_output(y)
    c1, x1 = b.add_input("c", (), "bool", subgraph=sg), b.add_input("x", (2,), subgraph=sg)
    y1 = b.add_tensor("y", (2,), subgraph=sg)
    b.add_op("IF", [c1, x1], [y1], subgraph=sg, then_subgraph_index=sg, else_subgraph_index=sg)
    b.add_output(y1, subgraph=sg)
    with pytest.raises(onert_py.CompileError, match="calls itself"):
        onert_py.Session(b.build())


@pytest.mark.parametrize("case", sorted(CASES))
def test_all_executors_agree(case: str) -> None:
    build, make_inputs = CASES[case]
    model, inputs = build(), make_inputs()
    results = {}
    for executor in ("Linear", "Dataflow", "Parallel"):
        config = dict(split_config(SPLITS[case]), executor=executor)
        with onert_py.Session(model, config=config) as sess:
            results[executor] = [[np.array(o) for o in sess.run(inputs)] for _ in range(2)]
    for executor in ("Dataflow", "Parallel"):
        for run_a, run_b in zip(results["Linear"], results[executor]):
            assert all(np.array_equal(a, b) for a, b in zip(run_a, run_b)), executor


@pytest.mark.parametrize("executor", ["Dataflow", "Parallel"])
def test_keras_lstm_under_other_executors(executor: str) -> None:
    path = model_path("lstm_text")
    tokens = RNG.integers(0, 1000, (1, 64)).astype(np.int32)
    assert all(np.array_equal(a, b) for a, b in zip(run(path, [tokens]),
                                                    run(path, [tokens], executor=executor)))


def test_while_iteration_bound() -> None:
    """config max_while_iterations: a loop may run exactly that many iterations; one that
    needs more (or never ends: x = 0 doubles to 0 forever) is an ExecutionError naming it."""
    data = cf_models.while_until_model(100.0)
    ones = np.ones((2, 2), np.float32)                 # sum 4 -> 8 ... -> 128: 5 iterations
    with onert_py.Session(data, backends="cpu", config={"max_while_iterations": 5}) as s:
        np.testing.assert_array_equal(s.run(ones)[0], ones * 32)
        with pytest.raises(onert_py.ExecutionError, match="max_while_iterations") as e:
            s.run(np.zeros((2, 2), np.float32))
        assert "WHILE" in str(e.value) and "after 5 iterations" in str(e.value)
    with onert_py.Session(data, backends="cpu", config={"max_while_iterations": 4}) as s:
        with pytest.raises(onert_py.ExecutionError, match="after 4 iterations"):
            s.run(ones)


@pytest.mark.parametrize("case", sorted(CASES))
def test_children_with_device_tensors(case: str, cl_ready) -> None:
    """acl_cl (device tensors) in the branches and bodies: child outputs the caller adopts
    come back from the device through Permute."""
    build, make_inputs = CASES[case]
    model, inputs = build(), make_inputs()
    assert_same(run(model, inputs, backends="acl_cl;cpu"), tflite_run(model, inputs), 1e-5, 1e-5)


@pytest.mark.parametrize("backends", ["cpu", "acl_neon;cpu"])
@pytest.mark.parametrize("switch", [1, 2, 3])
def test_if_and_while_inside_a_loop_whose_variables_grow(backends: str, switch: int) -> None:
    """The outer loop's x doubles in rows every iteration, so the IF and the inner WHILE of
    its body are entered at shapes they were not planned for: their outputs take the shapes
    their children give (they used to refuse them). One session, several trip counts, in an
    order that goes back and forth, against the interpreter."""
    backend_or_skip(backends.split(";")[0])
    model = cf_models.nested_model(grow=True, switch=switch)
    with onert_py.Session(model, backends=backends) as sess:
        for n in (0, 1, 3, 2, 0, 3):
            xs = [np.array(n, np.int32), np.abs(f32(2, 2)) + 0.1]
            assert_same(sess.run(xs), tflite_run(model, xs))
