"""Cross-op fusion (core/compiler/fusion.py) of MobileNet inverted-residual blocks on acl_neon
(backends/acl_neon/fusion.py, ops/inverted_residual.py): generated blocks of every form the
fused kernel covers against the interpreter and bit for bit against `fuse: false`, at every
instruction-set level and 1 and 2 threads; explain(), placement() and trace events naming the
covered ops; the compiler's checks of a proposal (backends, inner tensors read elsewhere);
the shared models."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import onert_py
from builders.inverted_residual import BLOCKS, Block, Stem, block_inputs, block_model
from builders.shared_models import model_path, realistic_inputs
from fusion_harness import assert_close, fused_runs_match, groups, neon_session
from op_harness import backend_or_skip
from oracle import tflite_run

backend_or_skip("acl_neon")
from onert_py.backends.acl_neon import fusion, native  # noqa: E402
from onert_py.core.backend import FusionProposal  # noqa: E402

if not all(native.available(g)[0] for g in ("gemm", "spatial")):
    pytest.skip("acl_neon's gemm and spatial modules are not built", allow_module_level=True)

MODEL, BLOCK_OPS = block_model()


@pytest.fixture
def fuse_small(monkeypatch):
    """Fuse blocks of any size (acl_neon proposes only those whose expanded tensor is out of
    L2; the generated blocks are small)."""
    monkeypatch.setattr(fusion, "MIN_EXPANDED_BYTES", 0)


def session(model=MODEL, **config) -> onert_py.Session:
    return neon_session(model, **config)


def test_blocks_match_the_interpreter_and_the_unfused_ops(fuse_small):
    for fused in fused_runs_match(MODEL, block_inputs()):
        assert groups(fused) == [tuple(ops) for ops in BLOCK_OPS]


def test_batch_one_and_wide_rows(fuse_small):
    """One image, rows wider than a step (no multi-row steps), a 5x5 stride-2 block."""
    model, ops = block_model((Block(48, 16), Block(64, 16, k=5, stride=2)), batch=1, h=9,
                             w=70, cin=16)
    xs = block_inputs(1, 9, 70, 16)
    sess = session(model, num_threads=2)
    assert groups(sess) == [tuple(o) for o in ops]
    out = sess.run(xs)[0]
    assert_close(out, tflite_run(model, xs)[0])
    assert np.array_equal(out, session(model, num_threads=2, fuse=False).run(xs)[0])


STEMS = {   # stem, first block, input (h, w, cin): stride 2 SAME on odd sizes, 5x5 stride 1
    "3x3s2": (Stem(8), Block(None, 6), (19, 13, 3)),
    "5x5s1_valid": (Stem(12, k=5, stride=1, act="RELU", padding="VALID"),
                    Block(None, 10, stride=2, acts=("NONE", "RELU6", "RELU")), (15, 22, 4)),
}


@pytest.mark.parametrize("form", sorted(STEMS))
def test_stem_fused_with_the_first_block(fuse_small, form):
    """A stem CONV_2D over few channels whose output only the first block's depthwise reads
    joins that block: its rows computed into the block's ring, bit-identical to the ops apart
    at every ISA level and 1 and 2 threads (several bands: their first rows are recomputed)."""
    stem, first, (h, w, cin) = STEMS[form]
    model, ops = block_model((first, Block(24, 10, stride=2)), h=h, w=w, cin=cin, stem=stem)
    xs = block_inputs(2, h, w, cin)
    for sess in fused_runs_match(model, xs):
        assert groups(sess) == [tuple(o) for o in ops]
        assert len(ops[0]) == 3                                   # stem, depthwise, project
        f = sess.placement().fused[0]
        assert f.why.startswith("stem output ") and "CONV_2D + #" in f.text


def test_a_stem_read_elsewhere_or_on_another_backend_stays_apart(fuse_small):
    stem, first, (h, w, cin) = STEMS["3x3s2"]
    model, ops = block_model((first,), h=h, w=w, cin=cin, stem=stem, extra_output=(0, "stem"))
    assert groups(session(model)) == [tuple(ops[0][1:])]          # its output is a model output
    model, ops = block_model((first,), h=h, w=w, cin=cin, stem=stem)
    sess = session(model, op_backend_map={ops[0][0]: "cpu"})
    assert groups(sess) == [tuple(ops[0][1:])]
    xs = block_inputs(2, h, w, cin)
    assert_close(sess.run(xs)[0], tflite_run(model, xs)[0])


PADS = {   # pad (top, bottom, left, right), stem or None, first block: the PAD's reader
    "dw_3x3s2_valid": ((1, 1, 1, 1), None, Block(None, 6, stride=2, padding="VALID")),
    "dw_5x5s2_uneven": ((0, 1, 2, 1), None, Block(None, 6, k=5, stride=2, padding="VALID")),
    "dw_3x3s1_same": ((1, 1, 0, 1), None, Block(None, 6)),
    "stem_valid": ((1, 1, 1, 1), Stem(8, padding="VALID"), Block(None, 6)),
    "stem_same": ((1, 0, 1, 0), Stem(8), Block(None, 6)),
    # after an expand (the PAD between it and the depthwise), with a residual
    "expand_s2": (None, None, Block(24, 6, stride=2, padding="VALID", pad=(1, 1, 1, 1))),
    "expand_residual": (None, None, Block(24, 8, residual=True, padding="VALID",
                                          pad=(1, 1, 1, 1))),
}


@pytest.mark.parametrize("form", sorted(PADS))
def test_a_zero_pad_folds_into_the_block(fuse_small, form):
    """A PAD of the rows and columns that only the block's depthwise (or stem) reads joins the
    block as that convolution's padding (pose_detection's stride-2 layers), after the block's
    expand too: the fused op reads the PAD's input (or computes the expand's rows unpadded),
    bit-identical to the ops apart at every ISA level and 1 and 2 threads."""
    pad, stem, first = PADS[form]
    cin = 3 if stem else 8
    model, ops = block_model((first, Block(24, 10, stride=2)), cin=cin, stem=stem, pad=pad)
    xs = block_inputs(2, 19, 13, cin)
    for sess in fused_runs_match(model, xs):
        assert groups(sess) == [tuple(o) for o in ops]
        f = sess.placement().fused[0]
        assert len(f.ops) == len(ops[0]) and "PAD + #" in f.text
        assert f.why.startswith(f"PAD folded into the {'stem' if stem else 'depthwise'} padding")


def test_a_pad_that_leaves_a_row_without_input_or_is_read_elsewhere_stays_apart(fuse_small):
    """Folded, the first (or last) output row of the depthwise would read only padding, which
    the fused kernel refuses: the PAD stays an op of its own, the block still fuses. A PAD
    whose output is also a model output stays too."""
    first = Block(None, 6)
    xs = block_inputs(2, 19, 13, 8)
    for pad in ((2, 0, 1, 3), (1, 2, 0, 1)):     # SAME 3x3 pads 1 more: 3 rows before, 3 after
        model, ops = block_model((first,), pad=pad)
        sess = session(model)
        assert groups(sess) == [tuple(ops[0][1:])]
        assert_close(sess.run(xs)[0], tflite_run(model, xs)[0])
    model, ops = block_model((first,), pad=(1, 1, 1, 1), extra_output=(0, "pad"))
    assert groups(session(model)) == [tuple(ops[0][1:])]


def test_explain_and_placement_name_the_fused_ops(fuse_small):
    sess = session()
    text = sess.explain()
    p = sess.placement()
    residual = next(f for f in p.fused if len(f.ops) == 4)
    a, b, c, d = residual.ops
    assert residual.type == "InvertedResidual" and residual.backend == "acl_neon"
    line = (f"  #{residual.index} fused: #{a} CONV_2D + #{b} DEPTHWISE_CONV_2D + #{c} CONV_2D"
            f" + #{d} ADD -> acl_neon InvertedResidual: expanded tensor ")
    assert any(ln.startswith(line) and ln.endswith(" kept in row bands")
               for ln in text.splitlines()), text
    assert f"fused ops: {len(BLOCKS)}" in text
    first = next(f for f in p.fused if len(f.ops) == 2)       # the block without expand
    assert f"#{first.ops[0]} DEPTHWISE_CONV_2D + #{first.ops[1]} CONV_2D" in first.text
    assert "depthwise output" in first.why and "expanded" not in first.why
    for op in p.ops:        # every model op is listed, with the fused op that runs it
        assert op.backend == "acl_neon"
        assert op.fused_into == next(f.index for f in p.fused if op.index in f.ops)
        assert f"fused into #{op.fused_into}" in next(
            ln for ln in text.splitlines() if ln.split()[:2] == [str(op.index), op.name])


def test_trace_event_lists_the_ops_it_covers(fuse_small, tmp_path):
    path = tmp_path / "trace.json"
    with session(tracing=str(path)) as sess:
        sess.run(block_inputs())
        fused = sess.placement().fused
    begins = [e for e in json.loads(path.read_text())["traceEvents"] if e["ph"] == "B"]
    assert [e["name"] for e in begins] == [f"${f.index} InvertedResidual" for f in fused]
    for e, f in zip(begins, fused):
        assert [int(i) for i in re.findall(r"#(\d+) ", e["args"]["covers"])] == list(f.ops)
    assert begins[0]["args"]["input0"] == str(block_inputs()[0].shape)


def test_fuse_false_runs_every_op_alone(fuse_small, monkeypatch):
    for sess in (session(fuse=False), session(fuse="off")):
        assert groups(sess) == [] and "fused" not in sess.explain()
    monkeypatch.setenv("FUSE", "0")
    assert groups(session()) == []
    with pytest.raises(onert_py.ConfigError, match="fuse"):
        session(fuse="sometimes")


def test_no_fusion_across_backends(fuse_small):
    """An op of a block mapped to cpu leaves the block, and nothing fuses across backends."""
    expand, dw, project, add = BLOCK_OPS[2]
    xs = block_inputs()
    ref = tflite_run(MODEL, xs)[0]
    # without the expand the ADD no longer adds the depthwise input: it stays apart too
    cases = {dw: [], add: [(expand, dw, project)], expand: [(dw, project)]}
    for on_cpu, expected in cases.items():
        sess = session(op_backend_map={on_cpu: "cpu"})
        got = [g for g in groups(sess) if set(g) & set(BLOCK_OPS[2])]
        assert got == expected, on_cpu
        assert sess.placement().backend_of(on_cpu) == "cpu"
        assert_close(sess.run(xs)[0], ref)


@pytest.mark.parametrize("inner", ["expand", "depthwise", "project"])
def test_an_inner_tensor_that_is_a_model_output_stays(fuse_small, inner):
    """A model output is never an inner tensor: the block is fused without the ops around it."""
    model, ops = block_model(extra_output=(2, inner))
    expand, dw, project, _ = ops[2]
    expected = {"expand": [(dw, project)], "depthwise": [], "project": [(expand, dw, project)]}
    sess = session(model)
    assert [g for g in groups(sess) if set(g) & set(ops[2])] == expected[inner]
    xs = block_inputs()
    for out, ref in zip(sess.run(xs), tflite_run(model, xs)):
        assert_close(out, ref)


def test_small_blocks_are_not_proposed():
    """By default acl_neon fuses only where the expanded tensor does not fit L2."""
    assert groups(session()) == []


def test_the_compiler_checks_each_proposal(fuse_small, monkeypatch):
    """Proposals breaking a rule are dropped; the rest are taken, each op in one group."""
    from onert_py.backends.acl_neon.backend import AclNeonConfig
    expand, dw, project, add = BLOCK_OPS[2]
    e2, d2, p2 = BLOCK_OPS[1]
    roles = {"roles": ("expand", "depthwise", "project", "add")}
    whole = (expand, dw, project, add)

    def run(proposed, model=MODEL, **config):
        monkeypatch.setattr(AclNeonConfig, "fusions", lambda self, graph, ops: [
            FusionProposal(tuple(p), "InvertedResidual", roles, "test") for p in proposed])
        sess = session(model, **config)
        xs = block_inputs()
        for out, ref in zip(sess.run(xs), tflite_run(model, xs)):
            assert_close(out, ref)
        return groups(sess)

    assert run([whole]) == [whole]
    assert run([whole, whole]) == [whole]                  # an op is in one group at most
    assert run([(e2, p2)]) == []                  # e2's output is read by d2, outside
    assert run([(dw, expand, project, add)]) == []         # out of execution order
    assert run([(project,)]) == []                         # one op
    assert run([(*whole, 999)]) == []                      # no op 999
    assert run([whole], op_backend_map={add: "cpu"}) == []          # two backends
    model, _ = block_model(extra_output=(2, "depthwise"))  # an inner tensor is an output
    assert run([whole], model) == []


# ---- the shared models (skipped without ../shared/models) ----------------------------------

def check_model(name: str, fused_blocks: int, threads: int = 1, others: int = 0) -> None:
    """`fused_blocks` inverted-residual blocks and `others` other fusions (convolutions with a
    swish or hard-swish epilogue, gated 1x1 convolutions: test_acl_neon_conv_epilogue.py),
    every output bit-identical to `fuse: false` and within tolerance of the interpreter."""
    path = model_path(name)
    sess = onert_py.Session(path, config={"num_threads": threads})
    apart = onert_py.Session(path, config={"num_threads": threads, "fuse": False})
    types = [f.type for f in sess.placement().fused]
    assert types.count("InvertedResidual") == fused_blocks
    assert len(types) - fused_blocks == others
    xs = realistic_inputs(sess)
    out = sess.run(xs)
    for o, a, r, x in zip(out, apart.run(xs), tflite_run(path, xs),
                          tflite_run(path, xs, xnnpack=True)):
        assert np.array_equal(o, a)
        # test_real_models' bound: what TFLite's two kernel sets disagree by, or 2e-5 relative
        bound = max(2e-5 * float(np.abs(r).max()), 2 * float(np.abs(x - r).max()))
        assert float(np.abs(o - r).max()) <= bound


@pytest.mark.parametrize("threads", [1, 2])
def test_mobilenet_v2(threads):
    """Its first seven blocks (112x112 to 28x28: expanded tensors of 0.6 to 4.8 MB) run fused,
    the first with the stem, bit-identical to the ops apart."""
    check_model("mobilenet_v2", 7, threads)
    sess = onert_py.Session(model_path("mobilenet_v2"))
    first = sess.placement().fused[0]
    assert first.ops == (0, 1, 2) and first.why.startswith("stem output 1.6 MB")


@pytest.mark.parametrize("threads", [1, 2])
def test_pose_detection_pads_fold(threads):
    """Five of its eight PADs (before stride-2 VALID layers) fold into the blocks that read
    them, with the stem or the expand before them; the other three feed two depthwise
    convolutions each."""
    check_model("pose_detection", 9, threads)
    sess = onert_py.Session(model_path("pose_detection"))
    folded = [f for f in sess.placement().fused if f.why.startswith("PAD folded")]
    assert len(folded) == 5 and folded[0].ops[0] == 0


@pytest.mark.parametrize("threads", [1, 2])
def test_efficientnet_b0_blocks_end_with_their_depthwise(threads):
    """Its blocks gate the depthwise output (SE: MEAN, LOGISTIC, MUL) and use swish: the three
    with a 3x3 depthwise and over 1.5 MiB expanded (the stem's, the 112x112x96 and the
    56x56x144 one) run fused up to the depthwise's swish, the 43 other convolutions followed by
    swish (expand, depthwise, SE reduce) fuse it as an epilogue, and the 16 SE gates fuse into
    the project convolutions."""
    check_model("efficientnet_b0", 3, threads, others=43 + 16)
    sess = onert_py.Session(model_path("efficientnet_b0"))
    first = sess.placement().fused[0]
    assert first.ops == tuple(range(6)) and first.why.startswith("stem output 1.6 MB")


def test_mobilenet_v3_small_blocks_fused_at_any_size(fuse_small):
    """Its two ReLU blocks without SE (ops 11-13, 14-17); the others have SE and HARD_SWISH.
    Both are below the size where fusion pays, so only with `fuse_small`. Its 19 convolutions
    followed by HARD_SWISH fuse it, its 9 SE gates their project convolutions."""
    check_model("mobilenet_v3_small", 2, others=19 + 9)
