"""Activation ops inside acl_neon's fused inverted-residual blocks (backends/acl_neon/fusion.py,
roles "expand_*" / "depthwise_*", ops/inverted_residual.py): swish (LOGISTIC then MUL, the MUL
with or without a clamp) and HARD_SWISH after the expand, the stem or the depthwise, computed as
those convolutions' epilogues; and blocks that end with their depthwise (no project: the
EfficientNet form, whose squeeze-and-excitation gate reads the depthwise output). Generated
blocks against the interpreter and bit for bit against `fuse: false` at every instruction-set
level and 1 and 2 threads; the forms that stay apart. EfficientNet-B0:
test_acl_neon_fusion.py's check_model."""
from __future__ import annotations

import pytest

from builders.inverted_residual import Block, Stem, block_inputs, block_model
from fusion_harness import assert_close, fused_runs_match, groups, neon_session
from op_harness import backend_or_skip
from oracle import tflite_run

backend_or_skip("acl_neon")
from onert_py.backends.acl_neon import fusion, native  # noqa: E402

if not all(native.available(g)[0] for g in ("gemm", "spatial", "eltwise")):
    pytest.skip("acl_neon's gemm, spatial and eltwise modules are not built",
                allow_module_level=True)


@pytest.fixture
def fuse_small(monkeypatch):
    """Fuse blocks of any size, with or without project (acl_neon proposes only those whose
    expanded tensor is out of L2; the generated blocks are small)."""
    monkeypatch.setattr(fusion, "MIN_EXPANDED_BYTES", 0)
    monkeypatch.setattr(fusion, "LONE_MIN_EXPANDED_BYTES", 0)


SWISH = ("swish", "swish")
FORMS = {   # blocks, stem
    "project": ((Block(24, 10, tails=SWISH),
                 Block(30, 10, k=5, residual=True, tails=("hard_swish", "hard_swish"))), None),
    "lone": ((Block(24, 24, tails=SWISH, project=False),
              Block(20, 10, stride=2, tails=("swish_relu6", "swish"), project=False),
              Block(16, 6, tails=("", "hard_swish"), project=False)), None),
    "stem": ((Block(None, 8, tails=("", "swish"), project=False),
              Block(24, 10, stride=2, tails=SWISH)), Stem(8, tail="swish")),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_activation_ops_join_the_block(fuse_small, form):
    """Each block, its activation ops included, is one fused op, bit-identical to the ops
    apart; the epilogues run on every tile of the expand (rows of the stem) and every row of
    the depthwise, in bands of rows per thread."""
    blocks, stem = FORMS[form]
    cin = 3 if stem else 8
    model, ops = block_model(blocks, cin=cin, stem=stem)
    for sess in fused_runs_match(model, block_inputs(2, 19, 13, cin)):
        assert groups(sess) == [tuple(o) for o in ops]
        for f, blk in zip(sess.placement().fused, blocks):
            assert ("written as the block's" in f.why) == (not blk.project)
            assert "as epilogues" in f.why


def test_forms_that_stay_apart(fuse_small):
    """A block without project needs a 3x3 depthwise, and an expand or stem before it: a 5x5
    one, or a depthwise alone, keeps each convolution with its activation (folds.py)."""
    xs = block_inputs()
    for blocks in ((Block(24, 10, k=5, tails=SWISH, project=False),),
                   (Block(None, 8, tails=("", "swish"), project=False),)):
        model, _ = block_model(blocks)
        sess = neon_session(model)
        types = [f.type for f in sess.placement().fused]
        assert "InvertedResidual" not in types and "DepthwiseConv2DEpilogue" in types
        for out, ref in zip(sess.run(xs), tflite_run(model, xs)):
            assert_close(out, ref)


def test_a_lone_block_needs_a_large_expanded_tensor(monkeypatch):
    """With project, 512 KiB expanded suffices; without, LONE_MIN_EXPANDED_BYTES (1.5 MiB)."""
    monkeypatch.setattr(fusion, "MIN_EXPANDED_BYTES", 0)
    model, ops = block_model((Block(24, 24, tails=SWISH, project=False),
                              Block(24, 10, tails=SWISH)))
    fused = neon_session(model).placement().fused
    assert [f.ops for f in fused if f.type == "InvertedResidual"] == [tuple(ops[1])]
