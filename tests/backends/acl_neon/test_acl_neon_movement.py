"""acl_neon's data-movement kernels (group `movement`) against the TFLite interpreter, at every
instruction-set level the CPU has and with 1 and 2 threads: odd shapes, every element size,
quantized operands, and the checks: each op must run on acl_neon (not fall back), forms it
does not compute must fall back to cpu, out-of-range gather indices must fail the run. Each
kernel runs as its native step, bound to the tensors' slots when prepared."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.errors import ExecutionError
from onert_py.model_builder import single_op_model
from op_harness import assert_outputs, backend_or_skip, kernels, rand
from oracle import tflite_run
from builders.quant import qspec

I32 = np.int32
backend_or_skip("acl_neon")
native = pytest.importorskip("onert_py.backends.acl_neon.native")
if not native.available("movement")[0]:
    pytest.skip(native.available("movement")[1], allow_module_level=True)


def session(model: bytes, threads: int) -> onert_py.Session:
    return onert_py.Session(model, backends=["acl_neon", "cpu"],
                            config={"num_threads": threads})


def placement(s: onert_py.Session) -> dict[str, str]:
    """op type -> backend, for the model's (non-Permute) ops."""
    return {op.type: op.backend for op in s.placement().ops}


def check(model: bytes, inputs: list, threads: int, on: str = "acl_neon") -> None:
    s = session(model, threads)
    assert set(placement(s).values()) == {on}, placement(s)
    if on == "acl_neon":      # bound once: the group's kernels run their native steps
        neon = [k for k in kernels(s) if getattr(k, "native_group", "") == "movement"]
        assert all(k.native_step is not None for k in neon), neon
    expected = tflite_run(model, inputs)
    s.run([np.roll(x, 1) for x in inputs])        # stale state would show
    assert_outputs([np.array(o) for o in s.run(inputs)], expected, 0, 0, f"threads={threads}")


@pytest.fixture(params=[(isa, t) for isa in (native.available_isas()) for t in (1, 2)],
                ids=lambda p: f"{p[0]}-t{p[1]}")
def level(request):
    """(isa, threads): every kernel at every ISA level, with 1 and 2 threads."""
    isa, threads = request.param
    before = native.active_isa()
    native.set_isa(isa)
    yield threads
    native.set_isa(before)


RNG = np.random.default_rng(7)


def case_models():
    """name -> (model, inputs)."""
    c = {}
    for dt in ("float32", "int8", "int16", "int64", "bool"):
        x = rand(RNG, (2, 3, 5, 7), dt, -50, 50)
        c[f"transpose_{dt}"] = (single_op_model(
            "TRANSPOSE", [("x", x.shape, dt), np.array([3, 1, 0, 2], I32)],
            [("y", (7, 3, 2, 5), dt)]), [x])
    x = rand(RNG, (3, 37, 41), "float32")
    c["transpose_tiled"] = (single_op_model("TRANSPOSE", [("x", x.shape, "float32"),
                                                         np.array([0, 2, 1], I32)],
                                            [("y", (3, 41, 37), "float32")]), [x])
    a, b = rand(RNG, (2, 3, 5)), rand(RNG, (2, 4, 5))
    c["concat_axis1_const"] = (single_op_model(
        "CONCATENATION", [("a", a.shape, "float32"), ("b", b.shape, "float32"),
                          np.ones((2, 1, 5), np.float32)], [("y", (2, 8, 5), "float32")],
        axis=1), [a, b])
    a, b = rand(RNG, (3, 1, 5), "int8", -9, 9), rand(RNG, (3, 1, 2), "int8", -9, 9)
    c["concat_last_int8"] = (single_op_model(
        "CONCATENATION", [("a", a.shape, "int8"), ("b", b.shape, "int8")],
        [("y", (3, 1, 7), "int8")], axis=-1), [a, b])
    x = rand(RNG, (2, 3, 5), "float32")
    pads = np.array([[1, 0], [0, 2], [3, 1]], I32)
    c["pad"] = (single_op_model("PAD", [("x", x.shape, "float32"), pads],
                                [("y", (3, 5, 9), "float32")]), [x])
    c["padv2_const"] = (single_op_model(
        "PADV2", [("x", x.shape, "float32"), pads, np.array(-1.5, np.float32)],
        [("y", (3, 5, 9), "float32")]), [x])
    v = np.array([2.25], np.float32)
    c["padv2_value_input"] = (single_op_model(
        "PADV2", [("x", x.shape, "float32"), pads, ("v", (1,), "float32")],
        [("y", (3, 5, 9), "float32")]), [x, v])
    x = rand(RNG, (1, 3, 5, 8), "int64", -99, 99)
    c["depth_to_space"] = (single_op_model("DEPTH_TO_SPACE", [("x", x.shape, "int64")],
                                           [("y", (1, 6, 10, 2), "int64")], block_size=2), [x])
    x = rand(RNG, (2, 6, 9, 3))
    c["space_to_depth"] = (single_op_model("SPACE_TO_DEPTH", [("x", x.shape, "float32")],
                                           [("y", (2, 2, 3, 27), "float32")], block_size=3), [x])
    x = rand(RNG, (2, 5, 3, 3))
    c["space_to_batch"] = (single_op_model(
        "SPACE_TO_BATCH_ND", [("x", x.shape, "float32"), np.array([2, 3], I32),
                              np.array([[1, 2], [2, 1]], I32)],
        [("y", (12, 4, 2, 3), "float32")]), [x])
    x = rand(RNG, (12, 4, 2, 3))
    c["batch_to_space"] = (single_op_model(
        "BATCH_TO_SPACE_ND", [("x", x.shape, "float32"), np.array([2, 3], I32),
                              np.array([[1, 2], [2, 1]], I32)],
        [("y", (2, 5, 3, 3), "float32")]), [x])
    x = rand(RNG, (4, 7, 5), "int32", -9, 9)
    c["slice"] = (single_op_model("SLICE", [("x", x.shape, "int32"), np.array([1, 2, 0], I32),
                                            np.array([2, -1, 3], I32)],
                                  [("y", (2, 5, 3), "int32")]), [x])
    x = rand(RNG, (6, 7, 3))
    c["strided_slice_negative"] = (single_op_model(
        "STRIDED_SLICE", [("x", x.shape, "float32"), np.array([5, 1, 0], I32),
                          np.array([0, 7, 3], I32), np.array([-2, 3, 1], I32)],
        [("y", (3, 2, 3), "float32")]), [x])
    x = rand(RNG, (3, 8, 5))
    c["split"] = (single_op_model("SPLIT", [np.array(1, I32), ("x", x.shape, "float32")],
                                  [(f"y{i}", (3, 2, 5), "float32") for i in range(4)],
                                  num_splits=4), [x])
    c["split_v"] = (single_op_model(
        "SPLIT_V", [("x", x.shape, "float32"), np.array([2, -1, 1], I32), np.array(-1, I32)],
        [("y0", (3, 8, 2), "float32"), ("y1", (3, 8, 2), "float32"),
         ("y2", (3, 8, 1), "float32")], num_splits=3), [x])
    a, b, d = (rand(RNG, (3, 5)) for _ in range(3))
    c["pack"] = (single_op_model("PACK", [("a", (3, 5), "float32"), ("b", (3, 5), "float32"),
                                          ("d", (3, 5), "float32")],
                                 [("y", (3, 3, 5), "float32")], values_count=3, axis=1),
                 [a, b, d])
    x = rand(RNG, (3, 4, 5), "uint8", 0, 200)
    c["unpack"] = (single_op_model("UNPACK", [("x", x.shape, "uint8")],
                                   [(f"y{i}", (3, 5), "uint8") for i in range(4)], num=4,
                                   axis=1), [x])
    x, i = rand(RNG, (2, 5, 3, 4)), np.array([[3, 0, 2], [2, 2, 4]], I32)
    c["gather_batch_dims"] = (single_op_model(
        "GATHER", [("x", x.shape, "float32"), ("i", i.shape, "int32")],
        [("y", (2, 3, 3, 4), "float32")], axis=1, batch_dims=1), [x, i])
    x, i = rand(RNG, (6, 3), "int64", -9, 9), np.array([5, 0, 0, 3], np.int64)
    c["gather_int64"] = (single_op_model("GATHER", [("x", x.shape, "int64"),
                                                    ("i", (4,), "int64")],
                                         [("y", (4, 3), "int64")], axis=0), [x, i])
    i = np.array([[1, 3, -1], [0, 7, 2]], I32)
    c["one_hot"] = (single_op_model(
        "ONE_HOT", [("i", i.shape, "int32"), np.array(4, I32), np.array(5.0, np.float32),
                    np.array(-1.0, np.float32)], [("y", (2, 4, 3), "float32")], axis=1), [i])
    ids, table = np.array([2, 0, 2, 4], I32), rand(RNG, (5, 3, 2))
    c["embedding_lookup"] = (single_op_model(
        "EMBEDDING_LOOKUP", [("i", (4,), "int32"), ("t", table.shape, "float32")],
        [("y", (4, 3, 2), "float32")]), [ids, table])
    return c


CASES = case_models()


@pytest.mark.parametrize("name", list(CASES))
def test_movement_op(level, name):
    model, inputs = CASES[name]
    check(model, inputs, level)


def qcases():
    x = rand(RNG, (2, 3, 4), "int8", -128, 127)
    y = rand(RNG, (2, 2, 4), "int8", -128, 127)
    q = ("int8", 0.05, -3)
    same = single_op_model("CONCATENATION", [qspec("a", x.shape, *q), qspec("b", y.shape, *q)],
                           [qspec("y", (2, 5, 4), *q)], axis=1)
    other = single_op_model("CONCATENATION",
                            [qspec("a", x.shape, "uint8", 0.05, 128),
                             qspec("b", y.shape, "uint8", 0.1, 120)],
                            [qspec("y", (2, 5, 4), "uint8", 0.05, 128)], axis=1)
    pad = single_op_model("PAD", [qspec("x", x.shape, *q), np.array([[0, 1], [2, 0], [1, 1]],
                                                                   I32)],
                          [qspec("y", (3, 5, 6), *q)])
    s2b = single_op_model("SPACE_TO_BATCH_ND", [qspec("x", (1, 3, 3, 2), *q),
                                                np.array([2, 2], I32),
                                                np.array([[1, 0], [0, 1]], I32)],
                          [qspec("y", (4, 2, 2, 2), *q)])
    u = lambda a: (a.astype(np.int16) + 128).astype(np.uint8)  # noqa: E731
    s2b_in = rand(RNG, (1, 3, 3, 2), "int8", -128, 127)
    return {"concat_int8": (same, [x, y], "acl_neon"),
            "concat_uint8_requantized": (other, [u(x), u(y)], "acl_neon"),
            "pad_int8_zero_point": (pad, [x], "acl_neon"),
            "space_to_batch_int8": (s2b, [s2b_in], "acl_neon")}


QCASES = qcases()


@pytest.mark.parametrize("name", list(QCASES))
@pytest.mark.parametrize("threads", [1, 2])
def test_movement_quantized(name, threads):
    model, inputs, on = QCASES[name]
    check(model, inputs, threads, on)


def test_computed_parameters_fall_back_to_cpu():
    x = rand(RNG, (3, 4))
    model = single_op_model("TRANSPOSE", [("x", (3, 4), "float32"), ("p", (2,), "int32")],
                            [("y", (4, 3), "float32")])
    s = session(model, 1)
    assert placement(s) == {"Transpose": "cpu"}
    np.testing.assert_array_equal(s.run([x, np.array([1, 0], I32)])[0], x.T)


@pytest.mark.parametrize("bad", [5, -1])
@pytest.mark.parametrize("op", ["GATHER", "EMBEDDING_LOOKUP"])
def test_index_out_of_range_fails_the_run(op, bad):
    table = rand(RNG, (5, 3))
    if op == "GATHER":
        model = single_op_model(op, [("x", (5, 3), "float32"), ("i", (2,), "int32")],
                                [("y", (2, 3), "float32")], axis=0)
        args = lambda i: [table, i]  # noqa: E731
    else:
        model = single_op_model(op, [("i", (2,), "int32"), ("x", (5, 3), "float32")],
                                [("y", (2, 3), "float32")])
        args = lambda i: [i, table]  # noqa: E731
    s = session(model, 2)
    assert set(placement(s).values()) == {"acl_neon"}
    ok = s.run(args(np.array([4, 0], I32)))[0]
    np.testing.assert_array_equal(ok, table[[4, 0]])
    with pytest.raises(ExecutionError, match="out of range"):
        s.run(args(np.array([0, bad], I32)))


def test_big_threaded_copies_match_numpy():
    """Big enough for the threaded paths (tiled transpose, split memcpy, border fills)."""
    x = rand(RNG, (1, 67, 129, 33))
    models = {
        "t": (single_op_model("TRANSPOSE", [("x", x.shape, "float32"),
                                            np.array([0, 3, 1, 2], I32)],
                              [("y", (1, 33, 67, 129), "float32")]), x.transpose(0, 3, 1, 2)),
        "p": (single_op_model("PAD", [("x", x.shape, "float32"),
                                      np.array([[0, 0], [1, 2], [3, 0], [0, 5]], I32)],
                              [("y", (1, 70, 132, 38), "float32")]),
              np.pad(x, [(0, 0), (1, 2), (3, 0), (0, 5)])),
        "c": (single_op_model("CONCATENATION", [("a", x.shape, "float32"),
                                                ("b", x.shape, "float32")],
                              [("y", (1, 67, 129, 66), "float32")], axis=3),
              np.concatenate([x, x + 1], axis=3)),
    }
    for name, (model, want) in models.items():
        s = session(model, 2)
        assert set(placement(s).values()) == {"acl_neon"}
        got = s.run([x] if name != "c" else [x, x + 1])[0]
        np.testing.assert_array_equal(got, want, err_msg=name)
