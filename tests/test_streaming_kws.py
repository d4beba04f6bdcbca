"""A streaming int8 keyword-spotting model shaped like microWakeWord's (onert_py.examples.kws:
ring buffers in resource variables that a CALL_ONCE init subgraph zeroes, int8 convolutions
over time, a uint8 probability) against one TFLite interpreter invoked over the same stream of
inputs: bit-exact call by call on every backend list, restarted by reset_state, the same with
native segments off, the user's input arrays untouched."""
from __future__ import annotations

import zlib
from collections import Counter

import numpy as np
import pytest

from onert_py.config import VALID_KEYS
from onert_py.examples.kws import kws_model, kws_stream
from op_harness import backend_or_skip, open_session
from oracle import tflite_stream

CALLS = 50


@pytest.fixture(scope="module")
def model() -> bytes:
    return kws_model()


@pytest.fixture(scope="module")
def stream() -> list[np.ndarray]:
    return kws_stream(CALLS, seed=7)


@pytest.fixture(scope="module")
def expected(model: bytes, stream: list[np.ndarray]) -> list[np.ndarray]:
    """TFLite's probabilities over the stream, one interpreter from the first call on."""
    return [out for (out,) in tflite_stream(model, [[x] for x in stream])]


def run_stream(session, xs) -> list[np.ndarray]:
    return [np.array(session.run([x])[0], copy=True) for x in xs]


def assert_stream(got: list[np.ndarray], want: list[np.ndarray], what: str) -> None:
    assert len(got) == len(want)
    for n, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype == np.uint8 and g.shape == w.shape == (1, 1), what
        assert int(g[0, 0]) == int(w[0, 0]), (
            f"{what}: call {n} gives {int(g[0, 0])}, TFLite {int(w[0, 0])} (all calls: "
            f"{[int(x[0, 0]) for x in got]} vs {[int(x[0, 0]) for x in want]})")


def test_the_model_streams_like_microwakeword(model, expected):
    """The graph the builder writes (placement lists the ops of both subgraphs), and a stream
    whose probabilities move: a saturated or constant model would make the comparisons weak."""
    with open_session(model, "cpu") as sess:
        placement = sess.placement()
        assert [tuple(i.shape) for i in sess.inputs] == [(1, 3, 40)]
        assert [(str(i.dtype), tuple(i.shape)) for i in sess.outputs] == [("uint8", (1, 1))]
    main = Counter(op.type for op in placement.primary.ops)
    assert len(placement.primary.ops) == 45
    assert main["CallOnce"] == 1
    for op in ("VarHandle", "ReadVariable", "Concat", "StridedSlice", "AssignVariable"):
        assert main[op] == 6, (op, main)
    assert (main["Conv2D"], main["DepthwiseConv2D"], main["FullyConnected"]) == (5, 4, 1)
    (init,) = placement.children
    assert Counter(op.type for op in init.ops) == {"VarHandle": 6, "AssignVariable": 6}
    values = [int(e[0, 0]) for e in expected]
    assert len(set(values)) >= 20 and max(values) < 255, values


def test_stream_matches_tflite(backend, model, stream, expected):
    """50 calls in sequence on one session, bit-exact with TFLite call by call; the input
    arrays are the same bytes afterwards."""
    before = [zlib.crc32(x.tobytes()) for x in stream]
    with open_session(model, backend) as sess:
        got = run_stream(sess, stream)
    assert_stream(got, expected, f"on {backend}")
    assert [zlib.crc32(x.tobytes()) for x in stream] == before, "an input array was modified"


@pytest.mark.parametrize("name", ["cpu", "acl_neon"])
def test_reset_state_restarts_the_stream(name, model, stream, expected):
    """After reset_state the session answers the stream from its start as a fresh session
    (= a fresh interpreter) does; without the reset the ring buffers carry on and differ."""
    with open_session(model, backend_or_skip(name)) as sess:
        run_stream(sess, stream[:20])
        carried_on = run_stream(sess, stream[:10])
        assert [int(o[0, 0]) for o in carried_on] != [int(e[0, 0]) for e in expected[:10]]
        sess.reset_state()
        assert_stream(run_stream(sess, stream), expected, f"after reset_state on {name}")


@pytest.mark.skipif("native_segments" not in VALID_KEYS,
                    reason="this onert_py has no native_segments config key")
def test_native_segments_off_gives_the_same_stream(model, stream, expected):
    backends = backend_or_skip("acl_neon")
    with open_session(model, backends, config={"native_segments": False}) as sess:
        off = run_stream(sess, stream)
    with open_session(model, backends, config={"native_segments": True}) as sess:
        on = run_stream(sess, stream)
    assert_stream(off, expected, "native segments off")
    assert_stream(on, off, "native segments on vs off")
