"""PADs of the channels folded into the ADD that reads them on acl_neon (backends/acl_neon/
folds.py, `propose_channel_pads`; ops/eltwise.py ChannelPaddedAdd), as MediaPipe's BlazeBlocks
widen their residual: PAD(x) of the last dim -> ADD with a tensor of the padded shape ->
[RELU-like clamp]. Generated models against the interpreter and bit for bit against
`fuse: false` at every instruction-set level and 1 and 2 threads; the forms that stay apart;
face_detection_short_range and palm_detection_lite."""
from __future__ import annotations

import numpy as np
import pytest

from builders.shared_models import model_path, realistic_inputs
from fusion_harness import fused_runs_match, groups, neon_session
from op_harness import backend_or_skip
from onert_py.model_builder import ModelBuilder

backend_or_skip("acl_neon")


def padded_add_model(c=24, pads=((0, 0), (0, 0), (0, 0), (0, 4)), act="NONE", relu=None,
                     pad_first=True, extra=None, shape=(2, 7, 9)):
    """x (shape + (c,)) padded by `pads`, added to y (the padded shape) with the ADD's fused
    `act`, then the `relu` activation op if given. `extra`: "output" makes the padded tensor a
    model output too, "reader" adds a second reader of it. Returns the model and inputs."""
    b = ModelBuilder()
    xs = (*shape, c)
    ps = tuple(d + lo + hi for d, (lo, hi) in zip(xs, pads))
    x, y = b.add_input("x", xs), b.add_input("y", ps)
    padded = b.add_tensor("padded", ps)
    b.add_op("PAD", [x, b.add_const("pads", np.array(pads, np.int32))], [padded])
    s = b.add_tensor("sum", ps)
    b.add_op("ADD", [padded, y] if pad_first else [y, padded], [s], fused_activation_function=act)
    out = s
    if relu is not None:
        out = b.add_tensor("out", ps)
        b.add_op(relu, [s], [out])
    b.add_output(out)
    if extra == "output":
        b.add_output(padded)
    elif extra == "reader":
        twice = b.add_tensor("twice", ps)
        b.add_op("MUL", [padded, y], [twice], fused_activation_function="NONE")
        b.add_output(twice)
    rng = np.random.default_rng(5)
    inputs = [rng.uniform(-1, 1, xs).astype(np.float32), rng.uniform(-1, 1, ps).astype(np.float32)]
    inputs[1].flat[0] = -0.0                  # 0 + -0 is +0: the fused kernel adds the zero too
    return b.build(), inputs


FORMS = {
    "after_relu": dict(relu="RELU"),                          # face_detection's BlazeBlock
    "before_and_after_relu6": dict(pads=((0, 0), (0, 0), (0, 0), (3, 5)), relu="RELU6"),
    "fused_act_second_operand": dict(act="RELU_N1_TO_1", pad_first=False, c=37),
    "no_clamp_wide": dict(c=64, pads=((0, 0), (0, 0), (0, 0), (0, 64)), shape=(1, 5, 6)),
    "rank2": dict(c=20, pads=((0, 0), (2, 0)), shape=(33,)),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_pad_add_clamp_fused(form):
    model, xs = padded_add_model(**FORMS[form])
    ops = (0, 1, 2) if FORMS[form].get("relu") else (0, 1)
    for sess in fused_runs_match(model, xs):
        assert groups(sess) == [ops]
        f = sess.placement().fused[0]
        assert f.type == "ChannelPaddedAdd" and "never written" in f.why


@pytest.mark.parametrize("kwargs", [
    dict(pads=((0, 0), (1, 0), (0, 0), (0, 4))),      # the rows padded too
    dict(extra="output"), dict(extra="reader"),       # the padded tensor read elsewhere
], ids=["rows_too", "output", "second_reader"])
def test_what_stays_apart(kwargs):
    model, xs = padded_add_model(relu="RELU", **kwargs)
    sess = neon_session(model)
    assert all(f.type != "ChannelPaddedAdd" for f in sess.placement().fused)
    for a, b in zip(sess.run(xs), neon_session(model, fuse=False).run(xs)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("name, count", [("face_detection_short_range", 11),
                                         ("palm_detection_lite", 3)])
@pytest.mark.parametrize("threads", [1, 2])
def test_shared_models(name, count, threads):
    path = model_path(name)
    sess = neon_session(path, num_threads=threads)
    assert [f.type for f in sess.placement().fused].count("ChannelPaddedAdd") == count
    xs = realistic_inputs(sess)
    apart = neon_session(path, num_threads=threads, fuse=False)
    for a, b in zip(sess.run(xs), apart.run(xs)):
        assert np.array_equal(a, b)
