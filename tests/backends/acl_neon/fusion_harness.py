"""Helpers shared by acl_neon's fusion tests (test_acl_neon_fusion.py,
test_acl_neon_conv_epilogue.py; no tests here): sessions on acl_neon then cpu, the fused groups
of a session, the tolerance against the interpreter, and the check that fused runs match the
interpreter and the unfused ops bit for bit at every instruction-set level."""
from __future__ import annotations

import numpy as np

import onert_py
from oracle import tflite_run


def neon_session(model, **config) -> onert_py.Session:
    return onert_py.Session(model, backends=["acl_neon", "cpu"], config=config)


def groups(sess: onert_py.Session) -> list[tuple[int, ...]]:
    return [f.ops for f in sess.placement().fused]


def assert_close(out: np.ndarray, ref: np.ndarray) -> None:
    bound = 2e-5 * (float(np.abs(ref).max()) + 1e-6)
    assert float(np.abs(out - ref).max()) <= bound


def fused_runs_match(model, xs, threads=(1, 2)) -> list[onert_py.Session]:
    """The fused sessions of `model`, one per thread count, after checking that at every ISA
    level their outputs are within tolerance of the interpreter's and bit-identical to those of
    a `fuse: false` session (which fuses nothing)."""
    from onert_py.backends.acl_neon import native     # (the tests skip first without acl_neon)
    ref = tflite_run(model, xs)
    before = native.active_isa()
    sessions = []
    try:
        for t in threads:
            fused = neon_session(model, num_threads=t)
            apart = neon_session(model, num_threads=t, fuse=False)
            assert groups(apart) == []
            for level in native.available_isas():
                native.set_isa(level)
                for out, r, a in zip(fused.run(xs), ref, apart.run(xs)):
                    assert_close(out, r)
                    assert np.array_equal(out, a), (level, t)
            sessions.append(fused)
    finally:
        native.set_isa(before)
    return sessions
