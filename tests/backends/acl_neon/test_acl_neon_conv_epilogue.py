"""Swish and hard-swish fused into acl_neon's convolutions (backends/acl_neon/folds.py's
propose_epilogues, ops/conv_epilogue.py): generated layers of every form the epilogues cover
against the interpreter and bit for bit against `fuse: false`, at every instruction-set level
and 1 and 2 threads; explain(), placement() and trace events naming the covered ops; the forms
that stay apart (an op on another backend, an inner tensor that is a model output, a MUL of
something else). The shared models: test_acl_neon_fusion.py's check_model."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import onert_py
from builders.conv_epilogue import LAYERS, Layer, layer_inputs, layer_model, se_block_model
from fusion_harness import assert_close, fused_runs_match, groups, neon_session
from op_harness import backend_or_skip
from oracle import tflite_run

backend_or_skip("acl_neon")
from onert_py.backends.acl_neon import native  # noqa: E402

if not all(native.available(g)[0] for g in ("gemm", "spatial", "eltwise")):
    pytest.skip("acl_neon's gemm, spatial and eltwise modules are not built",
                allow_module_level=True)

MODEL, LAYER_OPS = layer_model()
TYPES = {False: "Conv2DEpilogue", True: "DepthwiseConv2DEpilogue"}


def session(model=MODEL, **config) -> onert_py.Session:
    return neon_session(model, **config)


def test_layers_match_the_interpreter_and_the_unfused_ops():
    for fused in fused_runs_match(MODEL, layer_inputs()):
        assert groups(fused) == [tuple(ops) for ops in LAYER_OPS]
        assert [f.type for f in fused.placement().fused] == [TYPES[lay.depthwise]
                                                             for lay in LAYERS]


def test_wide_layers_split_over_threads():
    """Layers large enough that two threads split the GEMM's tiles and the depthwise rows."""
    layers = (Layer(False, 72), Layer(True, 72, k=5), Layer(False, 48, tail="hard_swish"))
    model, ops = layer_model(layers, batch=1, h=30, w=41, cin=24)
    xs = layer_inputs(1, 30, 41, 24)
    out = session(model, num_threads=2).run(xs)[0]
    assert groups(session(model)) == [tuple(o) for o in ops]
    assert_close(out, tflite_run(model, xs)[0])
    assert np.array_equal(out, session(model, num_threads=2, fuse=False).run(xs)[0])


def test_explain_placement_and_trace_name_the_fused_ops(tmp_path):
    path = tmp_path / "trace.json"
    with session(tracing=str(path)) as sess:
        sess.run(layer_inputs())
        text = sess.explain()
        p = sess.placement()
    conv, sig, mul = LAYER_OPS[0]
    swish = p.fused[0]
    assert (swish.type, swish.backend, swish.ops) == ("Conv2DEpilogue", "acl_neon",
                                                      (conv, sig, mul))
    line = (f"  #{swish.index} fused: #{conv} CONV_2D + #{sig} LOGISTIC + #{mul} MUL -> "
            f"acl_neon Conv2DEpilogue: swish (LOGISTIC, MUL) on each tile as it is stored: ")
    assert any(ln.startswith(line) and ln.endswith(" written once, not 3 times")
               for ln in text.splitlines()), text
    dw, hs = LAYER_OPS[3]
    assert f"#{dw} DEPTHWISE_CONV_2D + #{hs} HARD_SWISH -> acl_neon DepthwiseConv2DEpilogue: " \
           f"hard_swish (HARD_SWISH) on each output row" in p.fused[3].text
    for op in p.ops:
        assert op.fused_into == next(f.index for f in p.fused if op.index in f.ops)
    begins = [e for e in json.loads(path.read_text())["traceEvents"] if e["ph"] == "B"]
    assert [e["name"] for e in begins] == [f"${f.index} {f.type}" for f in p.fused]
    for e, f in zip(begins, p.fused):
        assert [int(i) for i in re.findall(r"#(\d+) ", e["args"]["covers"])] == list(f.ops)


def test_an_op_on_another_backend_keeps_its_layer_apart():
    xs = layer_inputs()
    ref = tflite_run(MODEL, xs)[0]
    for layer, member in ((0, 0), (1, 1), (4, 2), (2, 1)):
        on_cpu = LAYER_OPS[layer][member]
        sess = session(op_backend_map={on_cpu: "cpu"})
        assert tuple(LAYER_OPS[layer]) not in groups(sess)
        assert len(groups(sess)) == len(LAYERS) - 1, on_cpu
        assert sess.placement().backend_of(on_cpu) == "cpu"
        assert_close(sess.run(xs)[0], ref)


@pytest.mark.parametrize("inner", ["conv", "logistic"])
def test_an_inner_tensor_that_is_a_model_output_stays(inner):
    model, ops = layer_model(extra_output=(1, inner))
    sess = session(model)
    assert groups(sess) == [tuple(o) for k, o in enumerate(ops) if k != 1]
    xs = layer_inputs()
    for out, ref in zip(sess.run(xs), tflite_run(model, xs)):
        assert_close(out, ref)


def test_other_readers_and_other_products_are_not_fused():
    """LOGISTIC then a MUL by another tensor (a gate), or a convolution output read by a third
    op, is not swish: nothing fuses."""
    from onert_py.model_builder import ModelBuilder
    b = ModelBuilder()
    x = b.add_input("x", (1, 6, 6, 4), "float32")
    rng = np.random.default_rng(0)
    w = b.add_const("w", rng.standard_normal((4, 1, 1, 4)).astype(np.float32))
    bias = b.add_const("b", np.zeros(4, np.float32))
    names = iter(range(100))

    def t() -> int:
        return b.add_tensor(f"t{next(names)}", (1, 6, 6, 4), "float32")

    y1, s1, g1 = t(), t(), t()
    b.add_op("CONV_2D", [x, w, bias], [y1], padding="SAME")
    b.add_op("LOGISTIC", [y1], [s1])
    b.add_op("MUL", [x, s1], [g1])                   # a gate of x, not of the conv output
    y2, s2, m2, a2 = t(), t(), t(), t()
    b.add_op("CONV_2D", [g1, w, bias], [y2], padding="SAME")
    b.add_op("LOGISTIC", [y2], [s2])
    b.add_op("MUL", [y2, s2], [m2])
    b.add_op("ADD", [m2, y2], [a2])                  # the conv output read by a third op
    b.add_output(a2)
    model = b.build()
    sess = session(model)
    assert groups(sess) == []
    xs = [rng.uniform(-2, 2, (1, 6, 6, 4)).astype(np.float32)]
    assert_close(sess.run(xs)[0], tflite_run(model, xs)[0])


def test_a_bad_epilogue_is_refused_by_the_plan():
    lib = native.module("gemm")
    w = np.ones((2, 1, 1, 2), np.float32)
    with pytest.raises(ValueError, match="epilogue"):
        lib.ConvPlan(w, None, [1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 2, 2, 2], 0.0, 1.0, 7)
    with pytest.raises(ValueError, match="clamp range"):
        native.module("spatial").depthwise_plan(1, 2, 2, 2, 1, 3, 3, 1, 1, 1, 1, 1, 1, 2, 2,
                                                0.0, 1.0, 1, 1.0, 0.0)


# ---- the squeeze-and-excitation gate in the 1x1 convolution (GatedConv2D) -------------------

SE_FORMS = [dict(), dict(gate_first=True, mul_act="RELU6", batch=1),
            dict(const_gate=True, cout=33), dict(const_gate=True, batch=1, h=30, w=41)]


@pytest.mark.parametrize("form", SE_FORMS, ids=["per-image", "gate-first", "shared", "wide"])
def test_se_blocks_match_the_interpreter_and_the_unfused_ops(form):
    model, parts = se_block_model(**form)
    batch, h, w = form.get("batch", 2), form.get("h", 9), form.get("w", 11)
    xs = [np.random.default_rng(2).uniform(-2, 2, (batch, h, w, 24)).astype(np.float32)]
    for fused in fused_runs_match(model, xs):
        gated = [f.ops for f in fused.placement().fused if f.type == "GatedConv2D"]
        assert gated == [tuple(parts["gate"])]
        assert sorted(groups(fused)) == sorted(tuple(p) for p in parts.values())


def test_gates_that_stay_apart():
    """A 3x3 project, a gated tensor that is a model output, the MUL on cpu: no GatedConv2D."""
    for form, config in ((dict(project_k=3), {}), (dict(gated_output=True), {}),
                         (dict(), "mul")):
        model, parts = se_block_model(**form)
        if config == "mul":
            config = {"op_backend_map": {parts["gate"][0]: "cpu"}}
        sess = session(model, **config)
        assert "GatedConv2D" not in [f.type for f in sess.placement().fused], form
        xs = [np.random.default_rng(2).uniform(-2, 2, (2, 9, 11, 24)).astype(np.float32)]
        for out, ref in zip(sess.run(xs), tflite_run(model, xs)):
            assert_close(out, ref)


def test_explain_names_the_gate():
    model, parts = se_block_model()
    text = session(model).explain()
    mul, project = parts["gate"]
    assert any(f"fused: #{mul} MUL + #{project} CONV_2D -> acl_neon GatedConv2D: the "
               f"per-channel gate applied as the convolution reads its input" in ln
               for ln in text.splitlines()), text
