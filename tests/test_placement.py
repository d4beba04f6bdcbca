"""Session.placement(): each op's backend and why, the Permutes inserted where data crosses
backends, the control-flow child subgraphs, and the closed-session error."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import onert_py
from op_harness import backend_or_skip
from onert_py import Placement, SessionClosedError

from builders import cf_models
from builders.small_models import conv_add_relu
from paths import PLUGINS


@pytest.fixture
def plugins(monkeypatch):
    """The test plugin backends on the backend path: testadd (float32 ADD only), cpu2."""
    monkeypatch.setenv("ONERT_BACKEND_PATH", PLUGINS)


def test_mixed_backends_insert_permutes(plugins):
    model, t = conv_add_relu()
    with onert_py.Session(model, backends="testadd;cpu") as sess:
        p = sess.placement()
    assert isinstance(p, Placement)
    assert p.backends == ("testadd", "cpu") and dict(p.not_loaded) == {}
    assert p.op_backend == {0: "cpu", 1: "testadd", 2: "cpu"}
    assert [(op.index, op.type, op.name) for op in p.ops] == [
        (0, "Conv2D", "CONV_2D"), (1, "BinaryArithmetic", "ADD"),
        (2, "ElementwiseActivation", "RELU")]
    conv, add, relu = p.ops
    assert (conv.rule, dict(conv.refusals)) == ("fallback", {"testadd": "testadd runs only ADD"})
    assert (add.rule, dict(add.refusals)) == ("default order", {})
    assert p.used_backends == {"cpu", "testadd"}
    assert p.ops_on("testadd") == (add,) and p.ops_on("cpu") == (conv, relu)
    assert p.backend_of(1) == "testadd"
    # conv's output into testadd and ADD's back to cpu: testadd's tensors are not host
    # memory it shares (IConfig.host_memory); cpu reads the input and writes the output in
    # place (no Permute with builtin, which owns them)
    crossings = [(q.operand, q.from_backend, q.to_backend) for q in p.permutes]
    assert crossings == [(t["conv"], "cpu", "testadd"), (t["sum"], "testadd", "cpu")]
    assert [(s.operand, s.owner, s.user) for s in p.shared] == [
        (t["y"], "builtin", "cpu"), (t["x"], "builtin", "cpu")]
    copies = [q.output for q in p.permutes]
    assert len(set(copies)) == 2 and min(copies) > max(t.values())    # new tensors
    assert min(q.index for q in p.permutes) > max(op.index for op in p.ops)
    assert p.children == () and p.primary.index == 0
    assert p.primary.input_shapes == ((1, 6, 6, 3),)


def test_one_backend_shares_inputs_and_outputs():
    model, t = conv_add_relu()
    with onert_py.Session(model, backends="cpu") as sess:
        p = sess.placement()
        assert "permutes elided (host backends share the tensor): 2" in sess.explain()
    assert p.used_backends == {"cpu"} and p.backends == ("cpu",)
    assert all(op.rule == "default order" and not op.refusals for op in p.ops)
    assert p.permutes == ()
    assert [(s.operand, s.owner, s.user) for s in p.shared] == [
        (t["y"], "builtin", "cpu"), (t["x"], "builtin", "cpu")]


def test_acl_cl_crossings_keep_their_permutes():
    """acl_cl's tensors live on the device: data crossing to or from it is still copied."""
    backend_or_skip("acl_cl")
    model, t = conv_add_relu()
    with onert_py.Session(model, backends="acl_cl;cpu",
                          config={"op_backend": {"ADD": "cpu"}}) as sess:
        p = sess.placement()
    assert p.op_backend == {0: "acl_cl", 1: "cpu", 2: "acl_cl"}
    assert [(q.operand, q.from_backend, q.to_backend) for q in p.permutes] == [
        (t["x"], "builtin", "acl_cl"), (t["conv"], "acl_cl", "cpu"),
        (t["sum"], "cpu", "acl_cl"), (t["y"], "acl_cl", "builtin")]
    assert p.shared == ()


def test_rules_and_backends_that_did_not_load(plugins):
    model, _ = conv_add_relu()
    config = {"op_backend": {"ADD": "cpu"}}
    with onert_py.Session(model, backends="no_such_backend;testadd;cpu", config=config) as sess:
        p = sess.placement()
    assert p.backends == ("testadd", "cpu")
    assert "no_such_backend" in p.not_loaded and p.not_loaded["no_such_backend"]
    assert p.used_backends == {"cpu"}
    assert p.ops[1].rule == "op type rule (ADD)" and not p.ops[1].refusals


def test_resize_gives_the_new_shapes():
    model, _ = conv_add_relu()
    with onert_py.Session(model, backends="cpu") as sess:
        before = sess.placement()
        sess.set_input_shape(0, (2, 6, 6, 3))
        after = sess.placement()
    assert before.primary.input_shapes == ((1, 6, 6, 3),)     # a snapshot: unchanged
    assert after.primary.input_shapes == ((2, 6, 6, 3),)
    assert after.op_backend == before.op_backend


def test_control_flow_children(plugins):
    config = {"op_backend_map": {"2:0": "cpu2"}}      # the else branch's MUL on cpu2
    with onert_py.Session(cf_models.if_model(), backends=["cpu", "cpu2"], config=config) as sess:
        sess.run([np.array(False), np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)])
        p = sess.placement()
    (if_op,) = p.ops
    assert (if_op.type, if_op.backend) == ("If", "builtin")
    assert [(c.index, c.input_shapes) for c in p.children] == [(1, ((2, 3), (2, 3))),
                                                               (2, ((2, 3), (2, 3)))]
    then, other = p.children
    assert then.op_backend == {0: "cpu"}
    assert other.op_backend == {0: "cpu2", 1: "cpu"}
    assert other.ops[0].rule == "op index rule (2:0)"
    assert ("cpu2", "cpu") in {(q.from_backend, q.to_backend) for q in other.permutes}
    with pytest.raises(KeyError, match=r"subgraph 2 has no op 5; its ops: \[0, 1\]"):
        other.backend_of(5)


def test_placement_is_frozen():
    model, _ = conv_add_relu()
    with onert_py.Session(model, backends="cpu") as sess:
        p = sess.placement()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.primary = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.ops[0].backend = "acl_cl"
    with pytest.raises(TypeError):
        p.ops[0].refusals["cpu"] = "no"
    with pytest.raises(TypeError):
        p.not_loaded["cpu"] = "no"
    hash(p.ops[0])                               # hashable, the refusals mapping aside
    with onert_py.Session(model, backends="cpu") as again:
        assert again.placement() == p            # compared by value


def test_closed_session_raises_like_the_other_methods():
    model, _ = conv_add_relu()
    sess = onert_py.Session(model, backends="cpu")
    sess.close()
    with pytest.raises(SessionClosedError) as placement_error:
        sess.placement()
    with pytest.raises(SessionClosedError) as explain_error:
        sess.explain()
    with pytest.raises(SessionClosedError) as run_error:
        sess.run([np.zeros((1, 6, 6, 3), np.float32)])
    assert str(placement_error.value) == str(explain_error.value) == str(run_error.value)
