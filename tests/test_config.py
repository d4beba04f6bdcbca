"""Configuration: every key, every source and its precedence, every error message, the schema."""
from __future__ import annotations

import json
import os
from importlib import resources

import jsonschema
import numpy as np
import pytest
import yaml

from onert_py import ConfigError, Session, config
from onert_py.model_builder import ModelBuilder

NO_ENV: dict[str, str] = {}


def resolve(cfg=None, env=NO_ENV, **kw):
    return config.resolve(cfg, env=env, **kw)


# ---------------------------------------------------------------- every key
@pytest.mark.parametrize("key,value,expected", [
    ("backends", ["acl_cl", "cpu"], ["acl_cl", "cpu"]),
    ("backends", "acl_cl;cpu", ["acl_cl", "cpu"]),
    ("backends", "acl_cl, cpu", ["acl_cl", "cpu"]),
    ("op_backend_allops", "cpu", "cpu"),
    ("op_backend", {"Conv2D": "cpu", "SOFTMAX": "acl_cl"}, {"Conv2D": "cpu", "SOFTMAX": "acl_cl"}),
    ("op_backend_map", {3: "cpu"}, {(0, 3): "cpu"}),
    ("op_backend_map", {"3": "cpu", "1:3": "acl_cl"}, {(0, 3): "cpu", (1, 3): "acl_cl"}),
    ("op_backend_map", "0=acl_cl;3=cpu", {(0, 0): "acl_cl", (0, 3): "cpu"}),
    ("op_backend_map", " 1:2 = cpu ; ", {(1, 2): "cpu"}),
    ("op_backend_map", [{"subgraph": 1, "op": 3, "backend": "cpu"}, {"op": 0, "backend": "x"}],
     {(1, 3): "cpu", (0, 0): "x"}),
    ("op_backend_map", {"subgraph": 1, "op": 3, "backend": "cpu"}, {(1, 3): "cpu"}),
    ("executor", "Linear", "Linear"),
    ("memory_planner", "FirstFit", "FirstFit"),
    ("num_threads", 2, 2),
    ("num_threads", "4", 4),
    ("tracing", "t.json", "t.json"),
    ("tracing", False, None),
    ("workspace_dir", "/tmp/ws", "/tmp/ws"),
    ("graph_dot_dump", "g.dot", "g.dot"),
    ("graph_dot_dump", 0, None),
    ("use_mmaped_data", False, False),
    ("use_mmaped_data", "0", False),
    ("use_mmaped_data", "true", True),
    ("backend_paths", ["a", "b"], ["a", "b"]),
    ("backend_paths", "a", ["a"]),
    ("max_tensor_bytes", 1024, 1024),
    ("max_while_iterations", "10", 10),
])
def test_key_accepted(key, value, expected):
    assert getattr(resolve({key: value}), key) == expected


@pytest.mark.parametrize("key,value,expected", [
    ("backends", 3, "a list of backend ids"),
    ("backends", ["cpu", 1], "a list of backend ids"),
    ("op_backend_allops", ["cpu"], "a string"),
    ("op_backend", [1, 2], "a mapping {OpName: backend id}"),
    ("op_backend", {"Conv2D": 1}, "a mapping {OpName: backend id}"),
    ("op_backend_map", [1, 2], "a mapping {INDEX: backend}"),
    ("op_backend_map", 3, "a mapping {INDEX: backend}"),
    ("op_backend_map", {0: 5}, "op_backend_map[0] has an invalid value 5: expected a backend id (string), not int"),
    ("executor", 1, "one of Linear"),
    ("memory_planner", ["WIC"], "one of WIC, FirstFit, Bump"),
    ("num_threads", "two", "a positive integer"),
    ("num_threads", 2.5, "a positive integer"),
    ("num_threads", True, "a positive integer"),
    ("tracing", ["x"], "a file path or a flag"),
    ("workspace_dir", 5, "a string"),
    ("graph_dot_dump", 1.5, "a file path or a flag"),
    ("use_mmaped_data", "maybe", "a boolean"),
    ("backend_paths", {"a": 1}, "a list of directories"),
    ("max_tensor_bytes", "lots", "a positive integer"),
    ("max_while_iterations", "many", "a positive integer"),
    ("opencl", "gpu", "a mapping with keys platform, device, cache_dir"),
    ("opencl", {"device": [0]}, "opencl.device has an invalid value [0]: expected a string or an integer, not list"),
])
def test_key_wrong_type(key, value, expected):
    with pytest.raises(ConfigError) as info:
        resolve({key: value})
    msg = str(info.value)
    assert msg.startswith("config dict: ") and key in msg and expected in msg, msg
    assert "has an invalid value" in msg, msg
    assert f"not {type(value).__name__}" in msg or ", not " in expected, msg   # nested: inner type


def test_wrong_type_names_the_source(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("num_threads: two\n")
    with pytest.raises(ConfigError, match=rf"^{path}: num_threads has an invalid value 'two': "
                                          r"expected a positive integer, not str"):
        resolve(str(path))
    with pytest.raises(ConfigError, match=r"^environment: num_threads has an invalid value"):
        resolve(env={"NUM_THREADS": "two"})
    with pytest.raises(ConfigError, match=r"^nnpackage config: use_mmaped_data"):
        resolve(package={"USE_MMAPED_DATA": "maybe"})
    with pytest.raises(ConfigError, match=r"^Session arguments: backends .* not int"):
        resolve(backends=3)


@pytest.mark.parametrize("value,words", [
    ("0:cpu", ["entry '0:cpu' is not INDEX=BACKEND"]),
    ({"first": "cpu"}, ["key 'first' is not an op index (N or SUBGRAPH:N)"]),
    ({"1:x": "cpu"}, ["key '1:x' is not an op index"]),
    ([{"op": 1}], ["needs 'op' and 'backend'"]),
    ([{"op": 1, "backend": "cpu", "sub": 0}], ["nothing else"]),
    ([{"op": "one", "backend": "cpu"}], ["op_backend_map entry's op", "an integer"]),
])
def test_op_backend_map_errors(value, words):
    with pytest.raises(ConfigError) as info:
        resolve({"op_backend_map": value})
    for w in words:
        assert w in str(info.value), str(info.value)


def test_opencl_section():
    cfg = resolve({"opencl": {"platform": 0, "device": "gpu0", "cache_dir": "/tmp/cl"}})
    assert cfg.sections == {"opencl": {"platform": 0, "device": "gpu0", "cache_dir": "/tmp/cl"}}
    assert resolve().sections == {}
    with pytest.raises(ConfigError, match=r"unknown key 'devcie' in opencl \(did you mean "
                                          r"'device'\?\); valid keys: platform, device, cache_dir"):
        resolve({"opencl": {"devcie": 0}})


def test_unknown_key_lists_valid_and_nearest():
    with pytest.raises(ConfigError) as info:
        resolve({"num_thread": 2})
    msg = str(info.value)
    assert "unknown config key 'num_thread' (did you mean 'num_threads'?)" in msg
    assert all(k in msg for k in config.VALID_KEYS)


def test_malformed_yaml_line_and_column(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("backends: [cpu]\nop_backend:\n  Conv2D: cpu\n   Softmax: cpu\n")
    with pytest.raises(ConfigError, match=rf"^{path}: malformed YAML at line 4, column \d+"):
        resolve(str(path))
    path.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="must be a mapping of keys, not list"):
        resolve(str(path))
    path.write_text("")
    assert resolve(str(path)).backends is None


# ---------------------------------------------------------------- environment names
def test_environment_names():
    env = {"BACKENDS": "acl_cl;cpu", "OP_BACKEND_ALLOPS": "cpu", "OP_BACKEND_MAP": "0=cpu;1:2=x",
           "OP_BACKEND_Conv2D": "acl_cl", "EXECUTOR": "Linear", "NUM_THREADS": "3",
           "CPU_MEMORY_PLANNER": "Bump", "USE_MMAPED_DATA": "0", "UNRELATED": "1"}
    c = resolve(env=env)
    assert (c.backends, c.op_backend_allops, c.executor, c.num_threads, c.memory_planner,
            c.use_mmaped_data) == (["acl_cl", "cpu"], "cpu", "Linear", 3, "Bump", False)
    assert c.op_backend == {"Conv2D": "acl_cl"}
    assert c.op_backend_map == {(0, 0): "cpu", (1, 2): "x"}


def test_tracing_mode_and_graph_dot_dump_flags():
    c = resolve(env={"TRACING_MODE": "1", "WORKSPACE_DIR": "/ws", "GRAPH_DOT_DUMP": "2"})
    assert c.tracing == os.path.join("/ws", "trace.json")
    assert c.graph_dot_dump == os.path.join("/ws", "graph.dot")
    assert resolve(env={"TRACING_MODE": "0", "GRAPH_DOT_DUMP": "0"}).tracing is None
    # the flag from the environment uses the workspace_dir from a stronger source
    c = resolve({"workspace_dir": "/yaml"}, env={"TRACING_MODE": "1", "WORKSPACE_DIR": "/ws"})
    assert c.tracing == os.path.join("/yaml", "trace.json")
    assert resolve({"tracing": True}).tracing == os.path.join(".", "trace.json")
    assert resolve(env={"GRAPH_DOT_DUMP": "out/g.dot"}).graph_dot_dump == "out/g.dot"


def test_os_environ_is_the_default(monkeypatch):
    monkeypatch.setenv("CPU_MEMORY_PLANNER", "FirstFit")
    assert config.resolve().memory_planner == "FirstFit"


# ---------------------------------------------------------------- precedence
PKG = {"BACKENDS": "pkg", "CPU_MEMORY_PLANNER": "Bump", "NUM_THREADS": "1",
       "OP_BACKEND_Conv2D": "pkg", "OP_BACKEND_MAP": "0=pkg;1=pkg"}
ENV = {"BACKENDS": "env", "CPU_MEMORY_PLANNER": "FirstFit", "OP_BACKEND_MAP": "1=env;2=env"}
YAML = {"backends": ["yaml"], "op_backend_map": {2: "yaml"}, "op_backend": {"Softmax": "yaml"}}


def test_defaults():
    c = resolve()
    assert (c.backends, c.executor, c.memory_planner, c.num_threads, c.use_mmaped_data,
            c.max_tensor_bytes, c.workspace_dir) == (None, "Linear", "WIC", None, True, 1 << 34, ".")


def test_default_yaml_lists_the_defaults():
    """default.yaml shows users the defaults that config.defaults() gives (Config's own)."""
    text = resources.files("onert_py.config").joinpath("default.yaml").read_text()
    assert yaml.safe_load(text) == config.defaults()


def test_package_beats_defaults():
    c = resolve(package=PKG)
    assert (c.backends, c.memory_planner, c.num_threads) == (["pkg"], "Bump", 1)


def test_environment_beats_package():
    c = resolve(package=PKG, env=ENV)
    assert (c.backends, c.memory_planner, c.num_threads) == (["env"], "FirstFit", 1)
    assert c.op_backend_map == {(0, 0): "pkg", (0, 1): "env", (0, 2): "env"}   # merged per index


def test_yaml_beats_environment(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(YAML))
    for cfg in (YAML, str(path)):
        c = resolve(cfg, package=PKG, env=ENV)
        assert (c.backends, c.memory_planner) == (["yaml"], "FirstFit")
        assert c.op_backend_map == {(0, 0): "pkg", (0, 1): "env", (0, 2): "yaml"}
        assert c.op_backend == {"Conv2D": "pkg", "Softmax": "yaml"}


def test_arguments_beat_yaml():
    c = resolve(YAML, package=PKG, env=ENV, backends="arg")
    assert c.backends == ["arg"]
    assert resolve(YAML, env=ENV, backends=None).backends == ["yaml"]   # None: not given


def test_null_does_not_erase_a_weaker_source():
    assert resolve({"backends": None, "num_threads": None}, package=PKG).num_threads == 1


# ---------------------------------------------------------------- the environment reaches the compiler
def conv_relu_model() -> bytes:
    b = ModelBuilder()
    x = b.add_input("x", (1, 4, 4, 2), "float32")
    w = b.add_const("w", np.ones((2, 1, 1, 2), np.float32))
    c = b.add_tensor("c", (1, 4, 4, 2), "float32")
    b.add_op("CONV_2D", [x, w, -1], [c], padding="SAME")
    y = b.add_tensor("y", (1, 4, 4, 2), "float32")
    b.add_op("RELU", [c], [y])
    b.add_output(y)
    return b.build()


def test_environment_rules_reach_the_compiler(monkeypatch):
    monkeypatch.setenv("OP_BACKEND_MAP", "1=cpu")
    monkeypatch.setenv("OP_BACKEND_Conv2D", "cpu")
    sess = Session(conv_relu_model(), backends="cpu")
    text = sess.explain()
    rows = {l.split()[1]: l for l in text.splitlines() if l.strip()[:1].isdigit()}
    assert "op type rule (Conv2D)" in rows["CONV_2D"], text
    assert "op index rule (0:1)" in rows["RELU"], text
    sess.close()


def test_environment_rule_with_unknown_op_name(monkeypatch):
    monkeypatch.setenv("OP_BACKEND_Conv2d", "cpu")
    with pytest.raises(ConfigError, match="did you mean"):
        Session(conv_relu_model(), backends="cpu")


# ---------------------------------------------------------------- the JSON schema
def load_schema() -> dict:
    return json.loads(resources.files("onert_py.config").joinpath("schema.json").read_text())


def test_schema_is_valid_and_in_step_with_the_code():
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    props = schema["properties"]
    assert set(props) == set(config.VALID_KEYS)
    assert all(p.get("description") for p in props.values())
    assert props["executor"]["enum"] == list(config.EXECUTORS)
    assert props["memory_planner"]["enum"] == list(config.PLANNERS)
    for name, keys in config.SECTIONS.items():
        assert set(props[name]["properties"]) == set(keys)
    assert set(config.defaults()) == set(config.VALID_KEYS) - set(config.SECTIONS)
    assert config.schema() == schema


EXAMPLES = [
    {"backends": ["acl_cl", "cpu"], "op_backend_allops": "acl_cl", "op_backend": {"Softmax": "cpu"},
     "op_backend_map": {0: "acl_neon"}, "executor": "Linear", "memory_planner": "WIC",
     "num_threads": 2, "tracing": "trace.json", "graph_dot_dump": "graph.dot"},
    {"backends": "acl_cl;cpu", "op_backend_map": "0=acl_cl;3=cpu", "use_mmaped_data": False},
    {"op_backend_map": [{"subgraph": 1, "op": 3, "backend": "cpu"}], "backend_paths": ["./b"]},
    {"op_backend_map": {"subgraph": 1, "op": 3, "backend": "cpu"}, "tracing": True,
     "opencl": {"platform": 0, "device": "gpu", "cache_dir": "/tmp"}, "max_tensor_bytes": 1024},
]
BAD = [{"num_threads": "two"}, {"backends": 3}, {"op_backend": [1, 2]}, {"executer": "Linear"},
       {"opencl": {"devcie": 0}}, {"memory_planner": "Bumb"}, {"op_backend_map": {"x": "cpu"}}]


@pytest.mark.parametrize("example", EXAMPLES)
def test_examples_pass_schema_and_resolve(example):
    jsonschema.validate(json.loads(json.dumps({str(k) if not isinstance(k, str) else k: v
                                               for k, v in example.items()})), load_schema())
    resolve(example)


@pytest.mark.parametrize("bad", BAD)
def test_bad_examples_fail_schema_and_resolve(bad):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, load_schema())
    with pytest.raises(ConfigError):
        resolve(bad)


def test_default_yaml_passes_schema():
    text = resources.files("onert_py.config").joinpath("default.yaml").read_text()
    assert text.startswith("# yaml-language-server: $schema=schema.json")
    jsonschema.validate(yaml.safe_load(text), load_schema())
