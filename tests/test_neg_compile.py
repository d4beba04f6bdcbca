"""Negative tests of the compile phase: unsupported ops, unknown backends, bad configuration.
Each error names what went wrong and what would have been valid."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py import (BackendNotAvailableError, CompileError, ConfigError, Session,
                      UnsupportedOperationError)
from onert_py.backends.cpu.ops import kernels
from onert_py.model_builder import ModelBuilder, single_op_model

RELU = single_op_model("RELU", [("x", (2, 3), "float32")], [("y", (2, 3), "float32")])


def relu_then(op: str) -> tuple[bytes, str]:
    """RELU (op 0) followed by `op` (op 1); returns the model and op 1's IR type."""
    b = ModelBuilder()
    if op == "UNIQUE":
        x = b.add_input("x", (4,))
        r = b.add_tensor("r", (4,))
        b.add_op("RELU", [x], [r])
        y, idx = b.add_tensor("y", (4,)), b.add_tensor("idx", (4,), "int32")
        b.add_op("UNIQUE", [r], [y, idx], idx_out_type="INT32")
        outs, ir_type = [y, idx], "Unique"
    elif op == "HASHTABLE_LOOKUP":
        x = b.add_input("x", (2, 2))
        r = b.add_tensor("r", (2, 2))
        b.add_op("RELU", [x], [r])
        lookups = b.add_input("lookups", (2,), "int32")
        keys = b.add_const("keys", np.array([1, 2, 3], np.int32))
        y, hits = b.add_tensor("y", (2, 2)), b.add_tensor("hits", (2,), "uint8")
        b.add_op("HASHTABLE_LOOKUP", [lookups, keys, r], [y, hits])
        outs, ir_type = [y, hits], "HashtableLookup"
    elif op == "STABLEHLO_ABS":
        x = b.add_input("x", (4,))
        r = b.add_tensor("r", (4,))
        b.add_op("RELU", [x], [r])
        y = b.add_tensor("y", (4,))
        b.add_op("STABLEHLO_ABS", [r], [y])
        outs, ir_type = [y], "StablehloAbs"
    else:
        raise ValueError(op)
    for o in outs:
        b.add_output(o)
    return b.build(), ir_type


def unsupported_model() -> tuple[bytes, str, str]:
    """A model whose op 1 the cpu backend has no kernel for: (model, builtin, IR type)."""
    for op in ("UNIQUE", "HASHTABLE_LOOKUP", "STABLEHLO_ABS"):
        model, ir_type = relu_then(op)
        if ir_type not in kernels.keys():
            return model, op, ir_type
    pytest.skip("the cpu backend now runs every candidate op")


# ---------------------------------------------------------------- unsupported operations
@pytest.mark.parametrize("backends", ["cpu", "nope;cpu", ["cpu"]])
def test_unsupported_op(backends):
    model, builtin, ir_type = unsupported_model()
    with pytest.raises(UnsupportedOperationError) as info:
        Session(model, backends=backends)
    e = info.value
    msg = str(e)
    assert builtin in msg and ir_type in msg, msg
    assert "#1" in msg and "subgraph 0" in msg, msg
    assert "cpu" in msg and f"cpu has no kernel for {ir_type}" in msg, msg
    assert (e.op_type, e.op_index) == (ir_type, 1)
    assert set(e.reasons) == {"cpu"}
    assert isinstance(e, CompileError) and isinstance(e, onert_py.OnertPyError)


def test_unsupported_op_forced_by_rule():
    """An explicit rule sending an op to a backend that cannot run it is a CompileError, never a
    silent fallback."""
    model, builtin, ir_type = unsupported_model()
    with pytest.raises(CompileError) as info:
        Session(model, backends="cpu", config={"op_backend_map": {1: "cpu"}})
    msg = str(info.value)
    assert "#1" in msg and builtin in msg and "cpu cannot run it" in msg, msg


# ---------------------------------------------------------------- backends
def test_unknown_backend_lists_available():
    with pytest.raises(BackendNotAvailableError) as info:
        Session(RELU, backends="nope")
    msg = str(info.value)
    assert "'nope'" in msg and "none of the requested backends" in msg, msg
    assert "cpu" in msg.split("bundled backends:")[1], msg
    assert "nope" in info.value.reasons and "no backend named" in info.value.reasons["nope"]


def test_several_unknown_backends():
    with pytest.raises(BackendNotAvailableError) as info:
        Session(RELU, backends=["nope", "nada"])
    assert set(info.value.reasons) == {"nope", "nada"}
    assert "'nope'" in str(info.value) and "'nada'" in str(info.value)


def test_unknown_backend_falls_back():
    sess = Session(RELU, backends="nope;cpu")
    assert sess.backends == ["cpu"]
    text = sess.explain()
    assert "nope" in text and "no backend named 'nope'" in text, text
    x = np.array([[-1, 0, 1], [2, -3, 4]], np.float32)
    np.testing.assert_array_equal(sess.run([x])[0], np.maximum(x, 0))


def test_backends_from_environment(monkeypatch):
    monkeypatch.setenv("BACKENDS", "nope")
    with pytest.raises(BackendNotAvailableError):
        Session(RELU)
    assert Session(RELU, backends="cpu").backends == ["cpu"]   # arguments beat the environment


@pytest.mark.parametrize("backends", ["", ";", " ; "])
def test_empty_backends(backends):
    with pytest.raises(ConfigError, match="backends is empty"):
        Session(RELU, backends=backends)


def test_backends_wrong_type():
    with pytest.raises(ConfigError, match="not int"):
        Session(RELU, backends=3)


# ---------------------------------------------------------------- configuration
@pytest.mark.parametrize("key,nearest", [("memory_planer", "memory_planner"),
                                         ("backend", "backends"),
                                         ("op_backend_mapp", "op_backend_map")])
def test_unknown_config_key(key, nearest):
    with pytest.raises(ConfigError) as info:
        Session(RELU, config={key: "x"})
    msg = str(info.value)
    assert f"unknown config key {key!r}" in msg and f"did you mean {nearest!r}" in msg, msg
    assert "valid keys:" in msg and "memory_planner" in msg
    assert isinstance(info.value, ValueError)


def test_unknown_config_key_in_yaml(tmp_path):
    path = tmp_path / "cfg.yaml"
    path.write_text("backends: [cpu]\nexecuter: Linear\n")
    with pytest.raises(ConfigError) as info:
        Session(RELU, config=str(path))
    assert str(path) in str(info.value) and "did you mean 'executor'" in str(info.value)


def test_malformed_yaml(tmp_path):
    path = tmp_path / "cfg.yaml"
    path.write_text("backends: [cpu\n")
    with pytest.raises(ConfigError, match="malformed YAML"):
        Session(RELU, config=path)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file"):
        Session(RELU, config=tmp_path / "absent.yaml")


@pytest.mark.parametrize("key,value,words", [
    ("executor", "Linaer", ["unknown executor", "did you mean 'Linear'"]),
    ("memory_planner", "Bumb", ["unknown memory_planner", "WIC", "did you mean 'Bump'"]),
    ("num_threads", 0, ["num_threads must be at least 1"]),
    ("num_threads", "many", ["num_threads has an invalid value"]),
    ("op_backend_map", "0:cpu", ["not INDEX=BACKEND"]),
    ("op_backend_map", {"first": "cpu"}, ["not an op index"]),
])
def test_invalid_config_values(key, value, words):
    with pytest.raises(ConfigError) as info:
        Session(RELU, config={key: value})
    for w in words:
        assert w in str(info.value), str(info.value)


@pytest.mark.parametrize("mapping,words", [
    ({5: "cpu"}, ["op 5 of subgraph 0", "1 ops", "(0..0)"]),
    ("7=cpu", ["op 7 of subgraph 0"]),
    ({"3:0": "cpu"}, ["subgraph 3", "the model has 1"]),
])
def test_op_backend_map_bad_index(mapping, words):
    with pytest.raises(CompileError) as info:
        Session(RELU, backends="cpu", config={"op_backend_map": mapping})
    assert "op_backend_map" in str(info.value)
    for w in words:
        assert w in str(info.value), str(info.value)


def test_op_backend_map_from_environment(monkeypatch):
    monkeypatch.setenv("OP_BACKEND_MAP", "9=cpu")
    with pytest.raises(CompileError, match="op 9 of subgraph 0"):
        Session(RELU, backends="cpu")


@pytest.mark.parametrize("config", [{"op_backend_map": {0: "acl_neon"}},
                                    {"op_backend": {"RELU": "nope"}},
                                    {"op_backend_allops": "nope"}])
def test_rule_names_backend_not_listed(config):
    with pytest.raises(CompileError) as info:
        Session(RELU, backends="cpu", config=config)
    msg = str(info.value)
    assert "not available" in msg and "['cpu']" in msg, msg


def test_valid_rules_compile():
    sess = Session(RELU, backends="cpu", config={"op_backend_map": {0: "cpu"},
                                                 "op_backend": {"RELU": "cpu"},
                                                 "op_backend_allops": "cpu"})
    assert "op index rule" in sess.explain()


def test_op_backend_unknown_op_name():
    with pytest.raises((ConfigError, CompileError)) as info:
        Session(RELU, backends="cpu", config={"op_backend": {"NotAnOp": "cpu"}})
    assert "NotAnOp" in str(info.value)


def test_config_of_wrong_type():
    with pytest.raises(ConfigError, match="YAML path or a dict"):
        Session(RELU, config=["backends", "cpu"])
