"""Clamp activations folded into the op before them on acl_neon (backends/acl_neon/folds.py,
`propose_clamps`; ops/eltwise.py ClampedBinaryArithmetic): ADD / SUB / MUL / DIV, CONV_2D and
DEPTHWISE_CONV_2D without a fused activation, followed by the RELU, RELU6 or RELU_N1_TO_1 that
alone reads their output. Generated models against the interpreter and bit for bit against
`fuse: false` at every instruction-set level and 1 and 2 threads; the forms that stay apart;
explain(); face_detection_short_range (its ADD -> RELU residual blocks)."""
from __future__ import annotations

import numpy as np
import pytest

from builders.shared_models import model_path, realistic_inputs
from fusion_harness import fused_runs_match, groups, neon_session
from op_harness import backend_or_skip
from onert_py.model_builder import ModelBuilder

backend_or_skip("acl_neon")
from onert_py.backends.acl_neon import native  # noqa: E402

SHAPE = (1, 9, 11, 8)


def chain_model(steps, output_inner=False, second_reader=False):
    """x -> each (op, activation) of `steps` in turn: a binary op with a constant second
    operand or a convolution, with no fused activation, then the activation op. Returns the
    model and the op indices of each pair. `output_inner`: the first op's output is also a
    model output; `second_reader`: it is also read by an extra ADD."""
    rng = np.random.default_rng(3)
    b = ModelBuilder()
    x = b.add_input("x", SHAPE)
    pairs, k, cur, inner0 = [], 0, x, None
    for op, act in steps:
        t = b.add_tensor(f"t{k}", SHAPE)
        if op == "CONV_2D":
            w = b.add_const(f"w{k}", rng.standard_normal((8, 3, 3, 8)).astype(np.float32) * .3)
            bias = b.add_const(f"b{k}", rng.standard_normal(8).astype(np.float32))
            b.add_op(op, [cur, w, bias], [t], padding="SAME", fused_activation_function="NONE")
        elif op == "DEPTHWISE_CONV_2D":
            w = b.add_const(f"w{k}", rng.standard_normal((1, 3, 3, 8)).astype(np.float32))
            bias = b.add_const(f"b{k}", rng.standard_normal(8).astype(np.float32))
            b.add_op(op, [cur, w, bias], [t], padding="SAME", depth_multiplier=1,
                     fused_activation_function="NONE")
        else:
            c = b.add_const(f"c{k}", rng.uniform(0.5, 1.5, (8,)).astype(np.float32))
            b.add_op(op, [cur, c], [t], fused_activation_function="NONE")
        a = b.add_tensor(f"a{k}", SHAPE)
        b.add_op(act, [t], [a])
        pairs.append((2 * k, 2 * k + 1))
        inner0 = t if inner0 is None else inner0
        cur, k = a, k + 1
    b.add_output(cur)
    if output_inner:
        b.add_output(inner0)
    if second_reader:
        extra = b.add_tensor("extra", SHAPE)
        b.add_op("ADD", [inner0, inner0], [extra], fused_activation_function="NONE")
        b.add_output(extra)
    return b.build(), pairs


STEPS = [("ADD", "RELU"), ("SUB", "RELU6"), ("MUL", "RELU_N1_TO_1"), ("DIV", "RELU"),
         ("CONV_2D", "RELU6"), ("DEPTHWISE_CONV_2D", "RELU")]


def inputs():
    return [np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32) * 3]


def test_each_pair_is_fused_and_matches_the_interpreter_and_the_ops_apart():
    model, pairs = chain_model(STEPS)
    if not native.available("gemm")[0]:
        pytest.skip("acl_neon's gemm module is not built")
    for sess in fused_runs_match(model, inputs()):
        assert groups(sess) == pairs
        fused = [f for f in sess.placement().fused]
        assert [f.type for f in fused] == ["ClampedBinaryArithmetic"] * 4 + [
            "Conv2D", "DepthwiseConv2D"]
        assert ("#2 SUB + #3 RELU6 -> acl_neon ClampedBinaryArithmetic: RELU6 as SUB's fused "
                "clamp") in sess.explain()


@pytest.mark.parametrize("form", ["output_inner", "second_reader"])
def test_an_output_read_elsewhere_stays_apart(form):
    model, pairs = chain_model(STEPS[:2], **{form: True})
    sess = neon_session(model)
    assert groups(sess) == pairs[1:]               # the first pair's ADD output is shared
    fused_runs_match(model, inputs(), threads=(1,))


def test_what_is_not_a_clamp_or_already_clamped_stays_apart():
    b = ModelBuilder()
    x = b.add_input("x", SHAPE)
    c = b.add_const("c", np.ones(8, np.float32))
    t, u, v, w = (b.add_tensor(n, SHAPE) for n in "tuvw")
    b.add_op("ADD", [x, c], [t], fused_activation_function="NONE")
    b.add_op("TANH", [t], [u])                      # not a clamp
    b.add_op("ADD", [u, c], [v], fused_activation_function="RELU6")
    b.add_op("RELU", [v], [w])                      # the ADD clamps already
    b.add_output(w)
    model = b.build()
    assert groups(neon_session(model)) == []
    fused_runs_match(model, inputs(), threads=(1,))


def test_no_fusion_across_backends():
    model, pairs = chain_model(STEPS[:2])
    sess = neon_session(model, op_backend_map={1: "cpu"})     # the first RELU on cpu
    assert groups(sess) == pairs[1:]


def test_face_detection_residual_relus():
    path = model_path("face_detection_short_range")
    sess = neon_session(path)
    fused = [f for f in sess.placement().fused if "RELU" in f.text]
    # 16 ADD -> RELU pairs; 11 of them take the PAD of the channels before them too
    # (test_acl_neon_channel_pad.py)
    assert len(fused) == 17 and sum(f.type == "ClampedBinaryArithmetic" for f in fused) == 5
    assert sum(f.type == "ChannelPaddedAdd" for f in fused) == 11
    xs = realistic_inputs(sess)
    apart = neon_session(path, fuse=False)
    for a, b in zip(sess.run(xs), apart.run(xs)):
        assert np.array_equal(a, b)
