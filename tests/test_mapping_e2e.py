"""A YAML map puts the convolutions on one backend and everything else on another; the
expected Permutes appear at every crossing and the answers do not change."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders.shared_models import model_path, realistic_inputs
from builders.small_models import small_cnn
from builders.small_models import small_cnn_inputs as small_inputs
from op_harness import session_internals
from oracle import tflite_run
from paths import PLUGINS


@pytest.fixture(autouse=True)
def plugin_path(monkeypatch):
    monkeypatch.setenv("ONERT_BACKEND_PATH", PLUGINS)


HOST = {"builtin", "cpu", "acl_neon"}


def expected_permutes(sess: onert_py.Session, backend_of: dict[int, str]) -> int:
    """Crossings counted from the original graph: one per (operand, other backend reading it),
    one per backend reading a model input, one per model output, except where both sides
    keep host tensors they share (builtin, cpu, acl_neon: no Permute, lowering.py)."""
    g = session_internals(sess).model.primary
    home = {i: "builtin" for i in g.inputs}
    for op in g.operations.values():
        for o in op.outputs:
            home[o] = backend_of[op.index]
    crossings = set()
    for op in g.operations.values():
        for i in op.inputs:
            if i >= 0 and not g.operands[i].is_constant and home[i] != backend_of[op.index] \
                    and not {home[i], backend_of[op.index]} <= HOST:
                crossings.add((i, backend_of[op.index]))
    return len(crossings) + sum(home[o] not in HOST for o in g.outputs)


def write_map(tmp_path, text: str) -> str:
    path = tmp_path / "map.yaml"
    path.write_text(text)
    return str(path)


def check_split(sess: onert_py.Session, conv_backend: str, rest_backend: str) -> None:
    text = sess.explain()
    backend_of = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0].isdigit():
            backend_of[int(parts[0])] = parts[2]
            want = conv_backend if parts[1] == "CONV_2D" else rest_backend
            assert parts[2] == want, line
            if parts[1] == "CONV_2D":
                assert "op type rule" in line, line
    assert f"permutes inserted: {expected_permutes(sess, backend_of)}" in text


def test_yaml_map_splits_a_generated_model(tmp_path):
    cfg = write_map(tmp_path, "backends: [cpu, cpu2]\nop_backend:\n  Conv2D: cpu2\n")
    model = small_cnn()
    sess = onert_py.Session(model, config=cfg)
    check_split(sess, "cpu2", "cpu")
    xs = small_inputs()
    for o, r in zip(sess.run(xs), tflite_run(model, xs)):
        np.testing.assert_allclose(o, r, rtol=1e-5, atol=1e-5)


def test_index_rule_beats_type_rule(tmp_path):
    cfg = write_map(tmp_path, "backends: [cpu, cpu2]\nop_backend: {CONV_2D: cpu2}\n"
                              "op_backend_map: {0: cpu}\n")
    text = onert_py.Session(small_cnn(), config=cfg).explain()
    first = next(l for l in text.splitlines() if l.split()[:2] == ["0", "CONV_2D"])
    assert "cpu " in first and "op index rule" in first


def test_yaml_map_splits_mobilenet_v2(tmp_path):
    path = model_path("mobilenet_v2")
    cfg = write_map(tmp_path, "backends: [cpu, cpu2]\nop_backend:\n  Conv2D: cpu2\n")
    sess = onert_py.Session(path, config=cfg)
    check_split(sess, "cpu2", "cpu")
    xs = realistic_inputs(sess)
    out = sess.run(xs)[0]
    same = onert_py.Session(path, backends="cpu").run(xs)[0]
    np.testing.assert_array_equal(out, same)     # same kernels: Permutes change nothing
    np.testing.assert_allclose(out, tflite_run(path, xs)[0], rtol=1e-4, atol=1e-4)
