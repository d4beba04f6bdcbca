"""Flat compilation (issue 17): a shape-only pass over a subgraph and the control-flow children
it needs, then the children built bottom-up (each before the subgraph that calls it), then the
subgraph; never one subgraph's build inside another's. Also: the compiler is handed io_float
(never mutated from outside) and backends find it as ContextData.compiler."""
from __future__ import annotations

import importlib.resources
import os
import inspect

import numpy as np
import pytest

import onert_py
from builders import cf_models
from builders.quant import qdict
from onert_py.core.backend import ContextData
from onert_py.core.compiler import compiler as compiler_mod
from onert_py.model_builder import ModelBuilder
from op_harness import session_internals
from paths import REPO_ROOT


def log_of(sess: onert_py.Session) -> list[tuple[int, tuple, int]]:
    return list(session_internals(sess).compiler.compile_log)


@pytest.fixture
def phases(monkeypatch) -> list[tuple[str, int]]:
    """("infer", subgraph) for each shape inference, ("build", subgraph) for each build of
    contexts, kernels and executor, in the order they happen."""
    events: list[tuple[str, int]] = []
    infer, generate = compiler_mod.infer_shapes, compiler_mod.Compiler._generate

    def traced_infer(graph, order, input_shapes, sg_index=0, control_flow=None):
        events.append(("infer", sg_index))
        return infer(graph, order, input_shapes, sg_index, control_flow)

    def traced_generate(self, sg, lowered, io_float):
        events.append(("build", sg))
        return generate(self, sg, lowered, io_float)

    monkeypatch.setattr(compiler_mod, "infer_shapes", traced_infer)
    monkeypatch.setattr(compiler_mod.Compiler, "_generate", traced_generate)
    return events


# ---- models ---------------------------------------------------------------------------------

def dynamic_if_model() -> bytes:
    """IF whose data input is shaped at run time (RESHAPE by an input): shape inference does
    not enter the branches, the If kernel asks for them (else, then) when configured."""
    b = ModelBuilder()
    then, other = b.add_subgraph("then"), b.add_subgraph("else")
    c, x = b.add_input("c", (), "bool"), b.add_input("x", (2, 3))
    shape = b.add_input("shape", (2,), "int32")
    r, y = b.add_tensor("r", (3, 2)), b.add_tensor("y", (3, 2))
    b.add_op("RESHAPE", [x, shape], [r])
    b.add_op("IF", [c, r], [y], then_subgraph_index=then, else_subgraph_index=other)
    b.add_output(y)
    for sg, op in ((then, "ADD"), (other, "MUL")):
        a, o = b.add_input("a", (3, 2), subgraph=sg), b.add_tensor("o", (3, 2), subgraph=sg)
        b.add_op(op, [a, a], [o], subgraph=sg)
        b.add_output(o, subgraph=sg)
    return b.build()


def if_chain(calls: dict[int, tuple[int, int]], n: int) -> bytes:
    """Subgraphs 0..n-1, each (c, x) -> y: subgraph k with an entry in `calls` is
    y = IF(c, then=calls[k][0], else=calls[k][1]); the others y = x + x."""
    b = ModelBuilder()
    for k in range(1, n):
        b.add_subgraph(f"s{k}")
    for k in range(n):
        c, x = b.add_input("c", (), "bool", subgraph=k), b.add_input("x", (2,), subgraph=k)
        y = b.add_tensor("y", (2,), subgraph=k)
        if k in calls:
            b.add_op("IF", [c, c, x], [y], subgraph=k, then_subgraph_index=calls[k][0],
                     else_subgraph_index=calls[k][1])
        else:
            b.add_op("ADD", [x, x], [y], subgraph=k)
        b.add_output(y, subgraph=k)
    return b.build()


def dynamic_self_call_model() -> bytes:
    """Subgraph 1 calls itself through an IF whose data input is shaped at run time: found
    when planning the children the If kernel asks for, not in shape inference."""
    b = ModelBuilder()
    sg = b.add_subgraph("self")
    for k in (0, 1):
        c, x = b.add_input("c", (), "bool", subgraph=k), b.add_input("x", (2,), subgraph=k)
        shape = b.add_tensor("shape", (1,), "int32", subgraph=k)
        r, y = b.add_tensor("r", (2,), subgraph=k), b.add_tensor("y", (2,), subgraph=k)
        b.add_op("SHAPE", [x], [shape], subgraph=k)
        b.add_op("RESHAPE", [x, shape], [r], subgraph=k)
        b.add_op("IF", [c, c, r], [y], subgraph=k, then_subgraph_index=sg,
                 else_subgraph_index=sg)
        b.add_output(y, subgraph=k)
    return b.build()


def int8_model() -> bytes:
    """x (int8) -> QUANTIZE to other parameters -> y (int8)."""
    b = ModelBuilder()
    x = b.add_input("x", (2, 6), "int8", quant=qdict(0.05, -3))
    y = b.add_tensor("y", (2, 6), "int8", quant=qdict(0.1, 4))
    b.add_op("QUANTIZE", [x], [y])
    b.add_output(y)
    return b.build()


# ---- order ----------------------------------------------------------------------------------

def test_nested_children_are_built_bottom_up_after_one_shape_pass(phases) -> None:
    # 0: While(cond 1, body 2); 2: If(then 3, else 4); 3: While(cond 5, body 6)
    sess = onert_py.Session(cf_models.nested_model(), backends="cpu")
    infers = [sg for what, sg in phases if what == "infer"]
    builds = [sg for what, sg in phases if what == "build"]
    assert sorted(infers) == list(range(7))
    assert phases == [("infer", sg) for sg in infers] + [("build", sg) for sg in builds]
    assert builds == [1, 5, 6, 3, 4, 2, 0]          # post-order: every child before its caller
    log = log_of(sess)
    assert [(sg, depth) for sg, _, depth in log] == [(sg, 0) for sg in builds]
    assert log[-1] == (0, ((), (2, 2)), 0)
    children = session_internals(sess).compiler.children
    assert list(children) == [(sg, shapes) for sg, shapes, _ in log[:-1]]
    out = sess.run([np.int32(4), np.ones((2, 2), np.float32)])[0]
    # i = 0, 1: then (x doubled while sum(x) < 50: 1 -> 16, then stays); i = 2, 3: else (+1)
    np.testing.assert_array_equal(out, np.full((2, 2), 18, np.float32))
    sess.close()


def test_children_the_kernels_ask_for_are_built_first(phases) -> None:
    """If with a dynamic input: its branches come from the kernel's request order (else,
    then), still built before subgraph 0 and not inside its build."""
    sess = onert_py.Session(dynamic_if_model(), backends="cpu")
    assert [sg for what, sg in phases if what == "infer"] == [0, 2, 1]
    assert [(sg, depth) for sg, _, depth in log_of(sess)] == [(2, 0), (1, 0), (0, 0)]
    c, x = np.array(True), np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(sess.run([c, x, np.array([3, 2], np.int32)])[0],
                                  2 * x.reshape(3, 2))
    sess.close()


def test_call_once_child_is_built_first() -> None:
    sess = onert_py.Session(cf_models.variable_model(), backends="cpu")
    assert [(sg, shapes, depth) for sg, shapes, depth in log_of(sess)] == [
        (1, (), 0), (0, ((1, 3),), 0)]
    x = np.ones((1, 3), np.float32)
    sess.run([x])
    np.testing.assert_array_equal(sess.run([x])[0], 2 * x)
    sess.close()


def test_new_shapes_compile_flat_and_reuse_the_cache(phases) -> None:
    sess = onert_py.Session(cf_models.nested_model(), backends="cpu")
    compiler = session_internals(sess).compiler
    built = len(log_of(sess))
    then_2x2 = compiler.children[(3, ((2, 2),))]
    assert compiler.subgraph(3, [(2, 2)]) is then_2x2          # cached: nothing built
    assert len(log_of(sess)) == built
    del phases[:]
    then_4x2 = compiler.subgraph(3, [(4, 2)])                  # then-branch for new shapes
    assert then_4x2 is compiler.children[(3, ((4, 2),))] and then_4x2 is not then_2x2
    assert phases == [("infer", 3), ("infer", 5), ("infer", 6),
                      ("build", 5), ("build", 6), ("build", 3)]
    assert log_of(sess)[built:] == [(5, ((4, 2),), 0), (6, ((4, 2),), 0), (3, ((4, 2),), 0)]
    del phases[:]
    sess.set_input_shape(1, (4, 2))      # primary for new shapes: reuses 3, 5, 6 at (4, 2)
    assert [sg for what, sg in phases if what == "build"] == [1, 4, 2, 0]
    out = sess.run([np.int32(4), np.ones((4, 2), np.float32)])[0]
    np.testing.assert_array_equal(out, np.full((4, 2), 10, np.float32))   # 1 -> 8, + 1 + 1
    sess.close()


# ---- recursion ------------------------------------------------------------------------------

@pytest.mark.parametrize("calls, n, chain", [
    ({0: (1, 1), 1: (1, 1)}, 2, "1 -> 1"),
    ({0: (1, 1), 1: (2, 2), 2: (1, 1)}, 3, "1 -> 2 -> 1"),
    ({0: (1, 1), 1: (0, 0)}, 2, "1 -> 0 -> 1"),
    ({0: (1, 1), 1: (2, 3), 3: (1, 2)}, 4, "1 -> 3 -> 1"),
])
def test_recursion_is_refused_before_anything_is_built(phases, calls, n, chain) -> None:
    with pytest.raises(onert_py.CompileError) as e:
        onert_py.Session(if_chain(calls, n), backends="cpu")
    assert str(e.value) == (f"subgraph 1 calls itself ({chain}); recursive control flow "
                            f"is not supported")
    assert [what for what, _ in phases] == ["infer"] * len(phases)   # the shape pass found it


def test_recursion_through_a_kernel_request_is_refused(phases) -> None:
    with pytest.raises(onert_py.CompileError,
                       match=r"^subgraph 1 calls itself \(1 -> 1\); recursive control flow is "
                             r"not supported$"):
        onert_py.Session(dynamic_self_call_model(), backends="cpu")
    assert phases == [("infer", 0), ("infer", 1)]


# ---- io_float, ContextData.compiler ---------------------------------------------------------

def test_io_float_is_an_argument_of_the_compile() -> None:
    sess = onert_py.Session(int8_model(), backends="cpu", float_io=True)
    compiler, graph = session_internals(sess).compiler, session_internals(sess).model.primary
    x, y = graph.inputs[0], graph.outputs[0]
    assert not hasattr(compiler, "io_float")
    assert session_internals(sess).compiled.io_float == {x, y}
    assert [i.dtype for i in (*sess.inputs, *sess.outputs)] == [np.float32, np.float32]
    sess.set_output_type(0, "int8")
    assert session_internals(sess).compiled.io_float == {x} and sess.outputs[0].dtype == np.int8
    again = compiler.compile_subgraph(0, {x: (2, 6)}, io_float=frozenset({y}))
    own = session_internals(sess).compiled      # the session's own
    assert again.io_float == {y} and own.io_float == {x}
    again.release()
    assert not hasattr(compiler, "io_float")
    out = sess.run([np.full((2, 6), 0.5, np.float32)])[0]
    assert out.dtype == np.int8 and (out == 9).all()      # q(0.5) = 7 -> 0.5 -> 5 + 4
    sess.close()


def test_failed_io_type_recompile_keeps_the_session() -> None:
    # float32 input: 48 bytes, over the limit; the int8 session stays as it was
    sess = onert_py.Session(int8_model(), backends="cpu", config={"max_tensor_bytes": 40})
    before = session_internals(sess).compiled
    with pytest.raises(onert_py.CompileError, match="over the limit of 40"):
        sess.set_input_type(0, "float32")
    assert session_internals(sess).compiled is before and before.io_float == frozenset()
    assert sess.inputs[0].dtype == np.int8
    out = sess.run([np.full((2, 6), 7, np.int8)])[0]
    assert (out == 9).all()
    sess.close()


def test_contexts_find_the_compiler_as_compiler() -> None:
    names = set(inspect.signature(ContextData).parameters)
    assert "compiler" in names and "session" not in names
    sess = onert_py.Session(cf_models.if_model(), backends="cpu")
    inner = session_internals(sess)
    compiled = [inner.compiled, *inner.compiler.children.values()]
    assert all(ctx.data.compiler is inner.compiler
               for c in compiled for ctx in c.contexts.values())
    sess.close()


def test_a_child_the_shape_pass_did_not_foresee_is_still_built(monkeypatch) -> None:
    """Should a kernel ask for a (child, shapes) pair the shape pass did not plan, the compiler
    builds it there, inside the caller's build (logged with depth 1), and still refuses
    recursion."""
    from onert_py.builtin.backend import BuiltinBackend
    monkeypatch.setattr(BuiltinBackend, "subgraph_calls", lambda self, op, graph: [])
    sess = onert_py.Session(dynamic_if_model(), backends="cpu")
    assert [(sg, depth) for sg, _, depth in log_of(sess)] == [(2, 1), (1, 1), (0, 0)]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(sess.run([np.array(False), x, np.array([3, 2], np.int32)])[0],
                                  x.reshape(3, 2) ** 2)
    sess.close()
    with pytest.raises(onert_py.CompileError,
                       match=r"^subgraph 1 calls itself \(1 -> 1\); recursive"):
        onert_py.Session(dynamic_self_call_model(), backends="cpu")


# ---- default backends -----------------------------------------------------------------------

def test_default_backends_are_the_documented_ones(monkeypatch) -> None:
    """`backends: null` loads config.DEFAULT_BACKENDS, and every place that documents the
    default names exactly that set."""
    monkeypatch.delenv("BACKENDS", raising=False)
    from onert_py import config
    assert compiler_mod.DEFAULT_BACKENDS is config.DEFAULT_BACKENDS
    default = ";".join(config.DEFAULT_BACKENDS)
    assert config.defaults()["backends"] is None
    yaml_text = importlib.resources.files("onert_py.config").joinpath("default.yaml").read_text()
    (line,) = [t for t in yaml_text.splitlines() if t.startswith("backends:")]
    assert f"# null: {default} (DEFAULT_BACKENDS" in line
    assert config.schema()["properties"]["backends"]["description"].endswith(
        f"null: {default} (the default).")
    readme = os.path.join(REPO_ROOT, "README.md")
    with open(readme, encoding="utf-8") as f:
        (row,) = [t for t in f if t.startswith("| `backends` |")]
    assert row.rstrip().endswith(f"`null` (the default): `{default}` |")
    sess = onert_py.Session(cf_models.if_model(), config={"backends": None})
    assert sess.config.backends is None
    compiler = session_internals(sess).compiler
    assert compiler.requested == list(config.DEFAULT_BACKENDS)
    # the fastest list available: those that load, in order (acl_neon needs its native code)
    assert sess.backends == [b for b in config.DEFAULT_BACKENDS if b not in compiler.failures]
    assert sess.explain().splitlines()[0].startswith(
        f"backends: {', '.join(sess.backends)} (the default: ")
    sess.close()
