"""Native execution (issue 18): native steps bound once, segments of them run in one native
call, host crossings shared without a Permute, Session.run's fast path and `outputs=`.

Segment runs must be bit-identical to step-by-step runs (config native_segments: false runs
every kernel through Python, one native call each)."""
from __future__ import annotations

import json
import zlib

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import ModelBuilder, single_op_model
from builders import cf_models
from builders.shared_models import model_path, quantized_inputs, realistic_inputs
from builders.small_models import small_cnn
from builders.small_models import small_cnn_inputs
from op_harness import backend_or_skip, session_internals

SHARED = ["mobilenet_v2", "mobilenet_v2_int8", "mobilenet_v3_small", "efficientnet_b0",
          "transformer_block", "transformer_block_int8", "lstm_text", "lstm_text_fused",
          "control_flow", "face_detection_short_range", "hand_landmark_lite",
          "palm_detection_lite", "pose_detection", "selfie_segmentation"]


@pytest.fixture(autouse=True)
def neon() -> None:
    backend_or_skip("acl_neon")


def chain_model(n: int = 12, width: int = 16, cpu_at: int | None = None) -> bytes:
    """x -> n alternating ADD/MUL with x (a chain acl_neon runs natively)."""
    b = ModelBuilder("tflite")
    x = b.add_input("x", (1, width), "float32")
    t = x
    for i in range(n):
        y = b.add_tensor(f"t{i}", (1, width), "float32")
        b.add_op("ADD" if i % 2 else "MUL", [t, x], [y])
        t = y
    b.add_output(t)
    return b.build()


def units_of(sess: onert_py.Session):
    return session_internals(sess).compiled.executor._units


def checksum(arrays) -> list[int]:
    return [zlib.crc32(np.ascontiguousarray(a).tobytes()) for a in arrays]


def run_both(model, inputs, backends="acl_neon;cpu", runs: int = 1, **config):
    """Outputs of `runs` runs with native segments and step by step."""
    out = {}
    for seg in (True, False):
        with onert_py.Session(model, backends=backends,
                              config={"native_segments": seg, **config}) as sess:
            out[seg] = [sess.run(inputs) for _ in range(runs)]
    return out[True], out[False]


def assert_identical(a, b) -> None:
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            assert u.dtype == v.dtype and u.shape == v.shape
            assert np.array_equal(u, v, equal_nan=True)


# ---- segments ---------------------------------------------------------------------------------

def test_a_native_chain_is_one_segment_and_matches_step_by_step():
    x = np.linspace(0.5, 1.0, 16, dtype=np.float32).reshape(1, 16)
    seg, step = run_both(chain_model(), [x])
    assert_identical(seg, step)
    with onert_py.Session(chain_model(), backends="acl_neon;cpu") as sess:
        sess.run([x])
        u = units_of(sess)
        assert len(u.segments) == 1 and u.native_ops == 12
        assert sess.placement().permutes == ()     # input and output shared


def test_a_python_kernel_ends_a_segment():
    model = chain_model(12)
    x = np.linspace(0.5, 1.0, 16, dtype=np.float32).reshape(1, 16)
    config = {"op_backend_map": {5: "cpu"}}          # op 5 runs in Python on cpu
    seg, step = run_both(model, [x], **config)
    assert_identical(seg, step)
    with onert_py.Session(model, backends="acl_neon;cpu", config=config) as sess:
        got = sess.run([x])
        u = units_of(sess)
        kinds = [("native", len(st)) if s is not None else ("python", st[0].backend)
                 for s, st in zip(u.segments, u.steps)]
        assert kinds == [("native", 5), ("python", "cpu"), ("native", 6)]
    with onert_py.Session(model, backends="cpu") as ref:
        np.testing.assert_allclose(got[0], ref.run([x])[0], rtol=1e-6)


@pytest.mark.parametrize("name", SHARED)
def test_shared_models_bit_identical_step_by_step(name):
    path = model_path(name)
    with onert_py.Session(path, backends="acl_neon;cpu") as probe:
        info = probe.inputs
        xs = (quantized_inputs(probe, 3) if info[0].quantization and info[0].dtype.kind in "iu"
              and name.endswith("int8") else realistic_inputs(probe, 3))
    before = checksum(xs)
    seg, step = run_both(path, xs, runs=2)        # the second run: state carried over
    assert_identical(seg, step)
    assert checksum(xs) == before                    # the user's arrays are only read


def test_an_error_inside_a_segment_names_the_op_and_backend():
    x = np.ones((1, 16), np.float32)
    with onert_py.Session(chain_model(), backends="acl_neon;cpu") as sess:
        sess.run([x])
        steps = session_internals(sess).compiled.executor.steps
        victim = steps[4].kernel.outputs[0]           # op 4's output, an arena tensor
        victim.set_buffer(np.zeros(3, np.float32))    # too small: the native step refuses it
        with pytest.raises(onert_py.ExecutionError,
                           match=r"subgraph 0 op #4 MUL on acl_neon failed: RuntimeError: "
                                 r"binary output: buffer of 12 bytes, the kernel needs 64"):
            sess.run([x])


def test_tracing_keeps_one_event_per_op_inside_segments(tmp_path):
    path = tmp_path / "t.json"
    x = np.ones((1, 16), np.float32)
    with onert_py.Session(chain_model(), backends="acl_neon;cpu",
                          config={"tracing": str(path)}) as sess:
        sess.run([x])
        sess.run([x])
        assert len(units_of(sess).segments) == 1
        summary = sess.trace_summary()
    doc = json.loads(path.read_text())
    threads = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M"
               and e["name"] == "thread_name"}
    begins = [e for e in doc["traceEvents"] if e["ph"] == "B"]
    ends = [e for e in doc["traceEvents"] if e["ph"] == "E"]
    assert len(begins) == len(ends) == 2 * 12
    assert [e["name"] for e in begins[:12]] == [
        f"${i} {'ADD' if i % 2 else 'MUL'}" for i in range(12)]
    assert {threads[e["tid"]] for e in begins} == {"0, acl_neon"}
    for b, e in zip(begins, ends):
        assert b["name"] == e["name"] and 0 <= e["ts"] - b["ts"] < 1e6
    assert begins[0]["args"] == {"input0": "(1, 16)", "input1": "(1, 16)"}
    assert "| MUL | 12 |" in summary and "| acl_neon | 24 |" in summary


@pytest.mark.parametrize("executor", ["Dataflow", "Parallel"])
def test_dataflow_and_parallel_match_linear(executor):
    model, xs = small_cnn(), small_cnn_inputs()
    with onert_py.Session(model, backends="acl_neon;cpu") as lin:
        want = lin.run(xs)
    got, step = run_both(model, xs, runs=2, executor=executor)
    assert_identical(got, step)
    for a, b in zip(want, got[1]):
        assert np.array_equal(a, b)
    with onert_py.Session(model, backends="acl_neon;cpu", config={"executor": executor}) as sess:
        sess.run(xs)
        u = units_of(sess)
        if executor == "Dataflow":
            assert u is not None and u.native_ops > 0
        else:          # a chain of the DAG on one backend: one segment on its worker
            assert u is not None and max(len(m) for m in u.members) == 5
            assert all(s is not None for s in u.segments)


def test_set_input_shape_after_a_first_run_rebinds():
    model = small_cnn()
    xs = small_cnn_inputs()
    with onert_py.Session(model, backends="acl_neon;cpu") as sess, \
            onert_py.Session(model, backends="cpu") as ref:
        first = sess.run(xs)
        np.testing.assert_allclose(first[0], ref.run(xs)[0], rtol=1e-5, atol=1e-6)
        for batch in (3, 1):
            sess.set_input_shape(0, (batch, 8, 8, 3))
            ref.set_input_shape(0, (batch, 8, 8, 3))
            big = [np.repeat(xs[0], batch, axis=0), *xs[1:]]
            for a, b in zip(sess.run(big), ref.run(big)):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# ---- state ------------------------------------------------------------------------------------

def test_resource_variables_across_runs_and_reset_state():
    model = cf_models.variable_model((1, 3))
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    seg, step = run_both(model, [x], runs=3)
    assert_identical(seg, step)
    with onert_py.Session(model, backends="acl_neon;cpu") as sess:
        outs = [sess.run([x])[0] for _ in range(3)]
        np.testing.assert_array_equal(outs[2], 3 * x)
        u = units_of(sess)
        names = [st.kernel.op.name for seg_, sts in zip(u.segments, u.steps) if seg_ is not None
                 for st in sts]
        assert {"READ_VARIABLE", "ADD", "ASSIGN_VARIABLE"} <= set(names)   # all native
        sess.reset_state()
        np.testing.assert_array_equal(sess.run([x])[0], x)                # a new stream


def test_reading_an_unassigned_variable_is_an_error():
    b = ModelBuilder()
    x = b.add_input("x", (1, 3))
    h = b.add_tensor("h", (), "resource")
    cur, y = b.add_tensor("cur", (1, 3)), b.add_tensor("y", (1, 3))
    b.add_op("VAR_HANDLE", [], [h], container="", shared_name="v")
    b.add_op("READ_VARIABLE", [h], [cur])
    b.add_op("ADD", [cur, x], [y])
    b.add_output(y)
    for seg in (True, False):
        with onert_py.Session(b.build(), backends="acl_neon;cpu",
                              config={"native_segments": seg}) as sess:
            with pytest.raises(onert_py.ExecutionError,
                               match="reads variable 0 before any ASSIGN_VARIABLE wrote it"):
                sess.run([np.ones((1, 3), np.float32)])


# ---- Session.run: inputs in place, outputs= ---------------------------------------------------

def add_model(shape=(2, 8)) -> bytes:
    return single_op_model("ADD", [("a", shape, "float32"), ("b", shape, "float32")],
                           [("y", shape, "float32")])


def test_inputs_are_read_in_place_and_never_written():
    a = np.arange(16, dtype=np.float32).reshape(2, 8)
    b = np.ones((2, 8), np.float32)
    a.flags.writeable = False                       # read-only arrays are fine
    with onert_py.Session(add_model(), backends="acl_neon;cpu") as sess:
        for _ in range(2):
            (y,) = sess.run([a, b])
            np.testing.assert_array_equal(y, a + b)
        assert y is not a and not np.shares_memory(y, a)
        # a strided view is read correctly (copied privately first)
        wide = np.arange(32, dtype=np.float32).reshape(2, 16)
        np.testing.assert_array_equal(sess.run([wide[:, ::2], b])[0], wide[:, ::2] + b)
        assert checksum([wide]) == checksum([np.arange(32, dtype=np.float32).reshape(2, 16)])


def test_outputs_preallocated():
    a = np.arange(16, dtype=np.float32).reshape(2, 8)
    b = np.full((2, 8), 2.0, np.float32)
    with onert_py.Session(add_model(), backends="acl_neon;cpu") as sess:
        out = np.zeros((2, 8), np.float32)
        res = sess.run([a, b], outputs=[out])
        assert res[0] is out
        np.testing.assert_array_equal(out, a + b)
        sess.run([b, b], outputs=[out])
        np.testing.assert_array_equal(out, b + b)
        bad = [([np.zeros((2, 8), np.float64)], "expected dtype float32"),
               ([np.zeros((2, 7), np.float32)], r"expected shape \(2, 8\)"),
               ([np.zeros((2, 16), np.float32)[:, ::2]], "C-contiguous and writeable"),
               ([a.copy(), a.copy()], "list of 1 arrays"),
               ([b], "shares memory with an input")]
        for outputs, msg in bad:
            with pytest.raises(onert_py.InputError, match=msg):
                sess.run([a, b], outputs=outputs)
        np.testing.assert_array_equal(b, np.full((2, 8), 2.0, np.float32))
    with onert_py.Session(add_model(), backends="cpu") as cpu:    # the Python path too
        out = np.zeros((2, 8), np.float32)
        assert cpu.run([a, b], outputs=[out])[0] is out
        np.testing.assert_array_equal(out, a + b)


def test_outputs_preallocated_for_a_model_with_python_kernels():
    model, xs = small_cnn(), small_cnn_inputs()
    with onert_py.Session(model, backends="acl_neon;cpu",
                          config={"op_backend": {"MEAN": "cpu"}}) as sess:
        want = sess.run(xs)
        outs = [np.empty_like(w) for w in want]
        got = sess.run(xs, outputs=outs)
        assert all(g is o for g, o in zip(got, outs))
        for w, g in zip(want, got):
            np.testing.assert_array_equal(w, g)
