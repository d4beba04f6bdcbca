"""acl_neon's bound plans (groups movement, core, lookup, recurrent) as native steps: each plan
binds to tensor slots once and checks the buffers the slots hold when the step runs. A buffer
too small, read-only where written, or missing is a RuntimeError naming the operand (via
core/exec/native.run_step), never a crash or a wild write; a slot pointed at another buffer is
followed by the step bound to it."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.core.exec import native as rt
from op_harness import backend_or_skip

backend_or_skip("acl_neon")
native = pytest.importorskip("onert_py.backends.acl_neon.native")
if not rt.available():
    pytest.skip("the native runtime (_native) is not built", allow_module_level=True)

F32, I32 = np.float32, np.int32


def lib(group: str):
    ok, why = native.available(group)
    if not ok:
        pytest.skip(why)
    return native.module(group)


def slots(*arrays) -> list:
    return [rt._native.slot(a) for a in arrays]


def read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.flags.writeable = False
    return a


def test_gather_step_checks_its_slots_when_it_runs():
    table = np.arange(15, dtype=F32).reshape(5, 3)
    idx = np.array([4, 0], I32)
    out = np.zeros((2, 3), F32)
    sp, si, so = slots(table, idx, out)
    step = lib("movement").GatherPlan(1, 1, 5, 2, 12, 4).bind(sp, si, so, 1)
    rt.run_step(step)
    np.testing.assert_array_equal(out, table[[4, 0]])

    rt.set_slot(sp, table[:4].copy())
    with pytest.raises(RuntimeError, match="gather params: buffer of 48 bytes, the kernel "
                                           "needs 60"):
        rt.run_step(step)
    rt.set_slot(sp, table)
    rt.set_slot(si, np.array([0, 7], I32))
    out[...] = -1
    with pytest.raises(RuntimeError, match=r"gather index 7 out of range \[0, 5\)"):
        rt.run_step(step)
    assert (out == -1).all()              # nothing written
    rt.set_slot(si, idx)
    rt.set_slot(so, read_only(out))
    with pytest.raises(RuntimeError, match="gather output: buffer is read-only"):
        rt.run_step(step)
    rt.set_slot(so, None)
    with pytest.raises(RuntimeError, match="gather output: no buffer is bound"):
        rt.run_step(step)
    other = np.zeros((2, 3), F32)         # the step follows its slots to new buffers
    rt.set_slot(so, other)
    rt.run_step(step)
    np.testing.assert_array_equal(other, table[[4, 0]])


def test_copy_plan_binds_lists_of_slots():
    mv = lib("movement")
    x = np.arange(12, dtype=F32).reshape(3, 4)
    a, b = np.zeros(6, F32), np.zeros(6, F32)
    # rows 0 and 2 of x into a, row 1 and a filled row into b (a split with a fill)
    steps = [(0, 0, 0, 0, [4], [4], [4], 4, b""), (0, 0, 32, 16, [2], [4], [4], 4, b""),
             (0, 1, 16, 0, [2], [4], [4], 4, b""),
             (-1, 1, 0, 8, [4], [4], [4], 4, np.float32(9).tobytes())]
    plan = mv.CopyPlan([x.nbytes], [a.nbytes, b.nbytes], steps)
    sx, sa, sb = slots(x, a, b)
    with pytest.raises(ValueError, match="1 source and 2 destination slots"):
        plan.bind([sx], [sa], 1)
    with pytest.raises(TypeError, match="tensor slot"):
        plan.bind([x], [sa, sb], 1)
    step = plan.bind([sx], [sa, sb], 2)
    rt.run_step(step)
    np.testing.assert_array_equal(a, [0, 1, 2, 3, 8, 9])
    np.testing.assert_array_equal(b, [4, 5, 9, 9, 9, 9])
    rt.set_slot(sb, np.zeros(5, F32))
    a[...] = 0
    with pytest.raises(RuntimeError, match="copy plan destination 1: buffer of 20 bytes"):
        rt.run_step(step)
    assert not a.any()                    # every slot is checked before anything is written
    with pytest.raises(RuntimeError, match="output does not fit"):
        rt.run_step(mv.error_step("output does not fit"))


def test_copy_and_lookup_steps_check_sizes():
    x = np.arange(6, dtype=F32)
    y = np.zeros(6, F32)
    sx, sy = slots(x, y)
    step = lib("core").BytesPlan(x.nbytes).bind(sx, sy, 1)
    rt.run_step(step)
    np.testing.assert_array_equal(y, x)
    rt.set_slot(sx, x[:5].copy())
    with pytest.raises(RuntimeError, match="copy source: buffer of 20 bytes, the kernel needs 24"):
        rt.run_step(step)

    look, keys = np.array([3, 1, 8], I32), np.array([1, 3, 5], I32)
    values = np.arange(6, dtype=np.int16).reshape(3, 2)
    out, hits = np.full((3, 2), 7, np.int16), np.zeros(3, np.uint8)
    s = slots(look, keys, values, out, hits)
    step = lib("lookup").LookupPlan(3, 3, 4).bind(*s, 1)
    rt.run_step(step)
    np.testing.assert_array_equal(out, [[2, 3], [0, 1], [0, 0]])
    np.testing.assert_array_equal(hits, [1, 1, 0])
    rt.set_slot(s[4], read_only(hits))
    with pytest.raises(RuntimeError, match="hits: buffer is read-only"):
        rt.run_step(step)


def test_rnn_step_state_slots_and_chain():
    """A variable state is written back (so must be writeable), another only read; `chain`
    runs steps of any module in order as one step (the input projection, then the loop)."""
    rec = lib("recurrent")
    rng = np.random.default_rng(3)
    steps_, batch, units = 3, 2, 4
    wh_t = rng.uniform(-0.5, 0.5, (units, units)).astype(F32)
    x = rng.uniform(-1, 1, (steps_ * batch, units)).astype(F32)
    xw, h0 = np.zeros_like(x), rng.uniform(-1, 1, (batch, units)).astype(F32)

    def run(write: bool, chained: bool):
        h, out = h0.copy(), np.zeros_like(x)
        sx, sxw, sh, so = slots(x, xw, h, out)
        xw[...] = 0
        feed = rt._native.copy_step(sx, sxw, x.nbytes)    # stands in for the projection
        plan = rec.RnnPlan([steps_, batch, units], True, wh_t, rec.ACT_TANH, write)
        loop = plan.bind(sxw, sh, so, 1)
        if chained:
            rt.run_step(rt._native.chain([feed, loop]))
        else:
            rt.run_step(feed)
            rt.run_step(loop)
        return h, out

    h_sep, out_sep = run(True, False)
    h_chain, out_chain = run(True, True)
    np.testing.assert_array_equal(out_chain, out_sep)
    np.testing.assert_array_equal(h_chain, h_sep)
    np.testing.assert_array_equal(h_sep, out_sep[-batch:])     # the last step's output
    h_kept, out_kept = run(False, True)
    np.testing.assert_array_equal(h_kept, h0)
    np.testing.assert_array_equal(out_kept, out_sep)

    plan = rec.RnnPlan([steps_, batch, units], True, wh_t, rec.ACT_TANH, True)
    sxw, sh, so = slots(x, read_only(h0), np.zeros_like(x))
    with pytest.raises(RuntimeError, match="hidden state: buffer is read-only"):
        rt.run_step(plan.bind(sxw, sh, so, 1))
    plan = rec.RnnPlan([steps_, batch, units], True, wh_t, rec.ACT_TANH, False)
    rt.run_step(plan.bind(sxw, sh, so, 1))     # a state that is not a variable: only read
