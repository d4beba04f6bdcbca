"""The fuzzer (tools/fuzz.py) and its regression files: every saved input works or fails with
an onert_py error; a short deterministic fuzz run finds nothing; each mutator changes what it
says; the worker isolation reports crashes, hangs and memory blow-ups; huge declared tensors
are refused before any allocation, under the configurable max_tensor_bytes."""
from __future__ import annotations

import glob
import os
import random
import sys

import numpy as np
import pytest

TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
sys.path.insert(0, TOOLS)

import fuzz  # noqa: E402
import fuzz_mutators as fm  # noqa: E402
from fuzz_runner import Worker  # noqa: E402
from fuzz_seeds import builtin_seeds  # noqa: E402

from onert_py import CompileError, Session  # noqa: E402
from onert_py.model_builder import ModelBuilder  # noqa: E402

REGRESSIONS = sorted(glob.glob(os.path.join(fuzz.REGRESSIONS, "*.tflite"))
                     + glob.glob(os.path.join(fuzz.REGRESSIONS, "*.circle")))
SEEDS = dict(builtin_seeds())


@pytest.fixture(scope="module")
def worker():
    with Worker() as w:
        yield w


# ---------------------------------------------------------------- (1) the regression suite
@pytest.mark.parametrize("path", REGRESSIONS, ids=os.path.basename)
def test_regression_file(worker, path):
    result = fuzz.check_file(path, worker)
    assert result["status"] in ("ok", "refused"), (path, result)


def test_regression_folder_is_not_empty():
    assert len(REGRESSIONS) >= 5


# ---------------------------------------------------------------- (2) a short fuzz run
def test_fixed_budget_fuzz_finds_nothing():
    """Deterministic: case i of seed 0 is always the same mutant; the budget only decides how
    many run."""
    r = fuzz.fuzz(30, seed=0, save_dir=None, max_cases=450)
    assert not r["finding_cases"], r
    assert r["cases"] >= 30, r
    assert len(r["by_kind"]) >= 10, r["by_kind"]
    outcomes = {o for per in r["outcomes"].values() for o in per}
    assert {"ok", "ModelLoadError", "CompileError"} <= outcomes, r["outcomes"]


def test_cases_are_deterministic():
    seeds = builtin_seeds()
    a = [fuzz.make_case(seeds, 5, i)[1] for i in range(20)]
    b = [fuzz.make_case(seeds, 5, i)[1] for i in range(20)]
    assert [m.data for m in a] == [m.data for m in b]
    assert len({m.kind for m in a}) > 5


# ---------------------------------------------------------------- (3) the mutators
def seeds_with(pred):
    return [d for d in SEEDS.values() if pred(fm.unpack(d))]


def mutate(kind: str, data: bytes, seed: int = 0) -> fm.Mutation:
    for k in range(50):
        mu = fm.MUTATORS[kind](data, random.Random(seed * 100 + k))
        if mu is not None:
            assert mu.kind == kind and mu.data != data
            return mu
    raise AssertionError(f"{kind} never applied")


def test_every_mutator_is_tested():
    assert set(fm.MUTATORS) == set(MUTATOR_CHECKS)


def _tensor(m, d):
    return m.subgraphs[d["subgraph"]].tensors[d["tensor"]]


def _check_cycle(m, d):
    ops = [m.subgraphs[d["subgraph"]].operators[k] for k in d["ops"]]
    written = {o for op in ops for o in fm.ints(op.outputs)}
    for op, ins in zip(ops, d["inputs"]):
        assert fm.ints(op.inputs) == ins
    # one op reads what it or its partner writes: a cycle
    assert all(set(fm.ints(op.inputs)) & written for op in ops)


MUTATOR_CHECKS = {
    "huge_dim": lambda m, d, mu: (fm.ints(_tensor(m, d).shape) == d["shape"]
                                  and np.prod(d["shape"], dtype=object) >= 2**20),
    "negative_index": lambda m, d, mu: d["value"] < -1 or d["value"] == fm.UINT32_MAX,
    "index_out_of_range": lambda m, d, mu: d["value"] >= d.get("size", 0),
    "cycle": lambda m, d, mu: _check_cycle(m, d) is None,
    "subgraph_out_of_range": lambda m, d, mu: (
        getattr(m.subgraphs[d["subgraph"]].operators[d["op"]].builtinOptions, d["field"])
        == d["value"] and not 0 <= d["value"] < len(m.subgraphs)),
    "self_call": lambda m, d, mu: d["value"] in (d["subgraph"], 0) and getattr(
        m.subgraphs[d["subgraph"]].operators[d["op"]].builtinOptions, d["field"]) == d["value"],
    "shared_buffer": lambda m, d, mu: _tensor(m, d).buffer == d["buffer"] > 0,
    "dtype": lambda m, d, mu: _tensor(m, d).type == d["type"],
    "rank": lambda m, d, mu: fm.ints(_tensor(m, d).shape) == d["shape"],
    "option_value": lambda m, d, mu: np.array_equal(getattr(
        m.subgraphs[d["subgraph"]].operators[d["op"]].builtinOptions, d["field"]), d["value"],
        equal_nan=True),
    "const_data": lambda m, d, mu: int.from_bytes(bytes(m.buffers[d["buffer"]].data[
        4 * d["word"]:4 * d["word"] + 4]), "little", signed=d["value"] < 0) == d["value"],
    "arity": lambda m, d, mu: d["values"] in [fm.ints(getattr(x, d["attr"])) for x in
                                              [m.subgraphs[d["subgraph"]]]
                                              + list(m.subgraphs[d["subgraph"]].operators)],
    "opcode": lambda m, d, mu: m.operatorCodes[d["opcode"]].builtinCode == d["code"],
    "bit_flip": None, "truncate": None, "offset_out_of_range": None, "length_out_of_range": None,
}


@pytest.mark.parametrize("kind", sorted(k for k, v in MUTATOR_CHECKS.items() if v))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_structured_mutator_does_what_it_says(kind, seed):
    needs_cf = kind in ("subgraph_out_of_range", "self_call")
    pool = seeds_with(lambda m: bool(fm.cf_ops(m))) if needs_cf else list(SEEDS.values())
    data = pool[seed % len(pool)]
    mu = mutate(kind, data, seed)
    m = fm.unpack(mu.data)
    assert MUTATOR_CHECKS[kind](m, mu.detail, mu), (mu.what, mu.detail)


def test_bit_flip_and_truncate():
    data = SEEDS["chain"]
    mu = mutate("bit_flip", data)
    diff = [i for i in range(len(data)) if data[i] != mu.data[i]]
    assert diff and all(i >= 8 for i in diff) and len(mu.data) == len(data)
    assert set(diff) <= {p for p, _ in mu.detail["flips"]}
    mu = mutate("truncate", data)
    assert mu.data == data[:mu.detail["length"]] and len(mu.data) < len(data)


@pytest.mark.parametrize("kind", ["offset_out_of_range", "length_out_of_range"])
def test_offset_and_length_mutators_hit_real_fields(kind):
    data = SEEDS["cnn"]
    w = fm.Walker(data)
    assert len(w.lengths) > 20 and len(w.uoffsets) > 40
    mu = mutate(kind, data)
    pos = mu.detail["pos"]
    assert pos in (w.lengths if kind == "length_out_of_range" else w.uoffsets + w.soffsets)
    assert [i for i in range(len(data)) if data[i] != mu.data[i]] and all(
        pos <= i < pos + 4 for i in range(len(data)) if data[i] != mu.data[i])


def test_seeds_run_and_cover_both_formats(worker):
    kinds = {d[4:8] for d in SEEDS.values()}
    assert kinds == {b"TFL3", b"CIR0"}
    assert any(fm.cf_ops(fm.unpack(d)) for d in SEEDS.values())
    for name, data in SEEDS.items():
        assert worker.run(data, fuzz.MAX_TENSOR_BYTES, 60)["status"] == "ok", name


# ---------------------------------------------------------------- isolation
@pytest.fixture(scope="module")
def selftest():
    with Worker(runner="selftest", mem_bytes=1 << 30) as w:
        yield w


@pytest.mark.parametrize("what,finding", [("abort", "crash"), ("segv", "crash"),
                                          ("exit", "crash"), ("sleep", "hang"),
                                          ("alloc", "memory"), ("raise", "exception")])
def test_isolation_reports_misbehaving_cases(selftest, what, finding):
    result = selftest.run(what.encode(), 1 << 20, timeout=3)
    assert result["status"] == "finding" and result["finding"] == finding, result
    if finding == "crash":
        assert ("SIGABRT" in result["msg"]) if what == "abort" else True
        assert ("SIGSEGV" in result["msg"]) if what == "segv" else True
    assert selftest.run(b"fine", 1 << 20, timeout=30) == {"status": "ok"}   # restarted


# ---------------------------------------------------------------- huge tensors
def _relu_model(shape) -> bytes:
    b = ModelBuilder()
    x = b.add_input("x", shape)
    y = b.add_tensor("y", shape)
    b.add_op("RELU", [x], [y])
    b.add_output(y)
    return b.build()


@pytest.mark.parametrize("limit", [None, 1 << 20])
def test_declared_tensor_of_1e12_elements_refused_before_allocation(worker, limit):
    """In the worker, whose address space is bounded: an allocation attempt would surface as
    a "memory" finding, not the CompileError naming the limit."""
    data = _relu_model((10**6, 10**6))
    result = worker.run(data, limit or (1 << 34), timeout=30)
    assert result["status"] == "refused" and result["error"] == "CompileError", result
    assert "max_tensor_bytes" in result["msg"] and "4000000000000 bytes" in result["msg"]


def test_limit_is_configurable():
    data = _relu_model((1024, 256))        # 1 MiB
    Session(data, config={"max_tensor_bytes": 1 << 20})
    with pytest.raises(CompileError, match="max_tensor_bytes"):
        Session(data, config={"max_tensor_bytes": (1 << 20) - 1})


@pytest.mark.parametrize("shape", [(2**21, 2**21, 2**21, 2), (2**31 - 1,) * 4])
def test_shapes_past_int64_are_refused_at_load(shape):
    from onert_py import ModelLoadError
    with pytest.raises(ModelLoadError, match="64-bit size"):
        Session(_relu_model(shape))


def test_dynamic_tensor_resized_past_the_limit_is_refused():
    """FILL with a shape computed at run time: 8192 x 8192 float32 (256 MiB) under a 1 MiB
    limit must fail with an onert_py error before the buffer is allocated."""
    from onert_py import ExecutionError
    b = ModelBuilder()
    dims = b.add_input("dims", (2,), "int32")
    y = b.add_tensor("y", (-1, -1))
    b.add_op("FILL", [dims, b.add_const("v", np.float32(1))], [y])
    b.add_output(y)
    sess = Session(b.build(), config={"max_tensor_bytes": 1 << 20})
    with pytest.raises(ExecutionError, match="max_tensor_bytes"):
        sess.run([np.array([8192, 8192], np.int32)])
