"""nnpackage directories (metadata/MANIFEST + a KEY=VALUE config) and Circle models: they load,
their configuration is applied, and they compute what the TFLite interpreter computes for the
same graph written as TFLite."""
from __future__ import annotations

import json

import numpy as np
import pytest

from onert_py import CompileError, ConfigError, ModelLoadError, Session, UnsupportedOperationError
from onert_py.backends.cpu.ops import kernels
from onert_py.model_builder import ModelBuilder
from oracle import tflite_run

ONERT_KEYS = ("BACKENDS", "CPU_MEMORY_PLANNER", "OP_BACKEND_MAP", "OP_BACKEND_ALLOPS",
              "EXECUTOR", "NUM_THREADS")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    """onert's environment variables would override the package's config: clear them."""
    for key in ONERT_KEYS:
        monkeypatch.delenv(key, raising=False)


def graph(fmt: str) -> bytes:
    """CONV_2D(RELU) -> RESHAPE -> BATCH_MATMUL(adjoint rhs) -> ADD(input) -> SOFTMAX, the
    same in both formats (Circle spells BatchMatMul's flags adjoint_lhs/adjoint_rhs)."""
    rng = np.random.default_rng(7)
    b = ModelBuilder(fmt=fmt)
    x = b.add_input("image", (1, 4, 4, 2))
    w = b.add_const("w", rng.standard_normal((3, 3, 3, 2)).astype(np.float32))
    bias = b.add_const("bias", rng.standard_normal(3).astype(np.float32))
    c = b.add_tensor("conv", (1, 4, 4, 3))
    b.add_op("CONV_2D", [x, w, bias], [c], padding="SAME", fused_activation_function="RELU")
    shape = b.add_const("shape", np.array([1, 16, 3], np.int32))
    r = b.add_tensor("flat", (1, 16, 3))
    b.add_op("RESHAPE", [c, shape], [r], new_shape=[1, 16, 3])
    m = b.add_const("m", rng.standard_normal((1, 5, 3)).astype(np.float32))
    mm = b.add_tensor("mm", (1, 16, 5))
    adj = {"adj_y": True} if fmt == "tflite" else {"adjoint_rhs": True}
    b.add_op("BATCH_MATMUL", [r, m], [mm], **adj)
    offset = b.add_input("offset", (1, 16, 5))
    s = b.add_tensor("sum", (1, 16, 5))
    b.add_op("ADD", [mm, offset], [s])
    y = b.add_tensor("probs", (1, 16, 5))
    b.add_op("SOFTMAX", [s], [y], beta=1.0)
    b.add_output(y)
    b.add_output(mm)
    return b.build()


def inputs(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((1, 4, 4, 2)).astype(np.float32),
            rng.standard_normal((1, 16, 5)).astype(np.float32)]


def expected() -> list[np.ndarray]:
    return tflite_run(graph("tflite"), inputs())


def assert_matches(outs: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(outs) == len(want)
    for got, w in zip(outs, want):
        assert got.shape == w.shape and got.dtype == w.dtype
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5)


def make_package(root, model: bytes, config: str | None = "BACKENDS=cpu\n",
                 model_name: str = "model.tflite", model_type: str = "tflite", **manifest):
    """An nnpackage in `root`: the model, metadata/MANIFEST and (unless None) config.cfg."""
    root.mkdir(exist_ok=True)
    (root / model_name).write_bytes(model)
    meta = root / "metadata"
    meta.mkdir()
    body = {"major-version": "1", "minor-version": "2", "patch-version": "0",
            "configs": [] if config is None else ["config.cfg"],
            "models": [model_name], "model-types": [model_type], **manifest}
    (meta / "MANIFEST").write_text(json.dumps(body, indent=2))
    if config is not None:
        (meta / "config.cfg").write_text(config)
    return root


# ---------------------------------------------------------------- nnpackage
def test_nnpackage_loads_and_runs(tmp_path):
    pkg = make_package(tmp_path / "pkg", graph("tflite"))
    sess = Session(pkg)
    assert sess.config.backends == ["cpu"]
    assert [i.name for i in sess.inputs] == ["image", "offset"]
    assert [o.name for o in sess.outputs] == ["probs", "mm"]
    assert_matches(sess.run(inputs()), expected())
    assert sess.backends == ["cpu"]


def test_nnpackage_path_forms(tmp_path):
    pkg = make_package(tmp_path / "pkg", graph("tflite"))
    want = expected()
    for path in (str(pkg), str(pkg) + "/", pkg):
        assert_matches(Session(path).run(inputs()), want)


def test_nnpackage_without_config(tmp_path):
    pkg = make_package(tmp_path / "pkg", graph("tflite"), config=None)
    sess = Session(pkg, backends="cpu")
    assert sess.config.memory_planner == "WIC"
    assert_matches(sess.run(inputs()), expected())


def test_nnpackage_config_applied(tmp_path):
    config = ("# onert keys, KEY=VALUE\n\nBACKENDS=cpu\nCPU_MEMORY_PLANNER=Bump\n"
              "OP_BACKEND_MAP=0=cpu;3=cpu\nEXECUTOR = Linear\n")
    sess = Session(make_package(tmp_path / "pkg", graph("tflite"), config))
    assert sess.config.backends == ["cpu"]
    assert sess.config.memory_planner == "Bump"
    assert sess.config.executor == "Linear"
    assert sess.config.op_backend_map == {(0, 0): "cpu", (0, 3): "cpu"}
    assert "op index rule" in sess.explain()
    assert_matches(sess.run(inputs()), expected())


def test_arguments_and_environment_override_package(tmp_path, monkeypatch):
    pkg = make_package(tmp_path / "pkg", graph("tflite"),
                       "BACKENDS=nope\nCPU_MEMORY_PLANNER=Bump\n")
    sess = Session(pkg, backends="cpu", config={"memory_planner": "FirstFit"})
    assert sess.config.backends == ["cpu"] and sess.config.memory_planner == "FirstFit"
    monkeypatch.setenv("CPU_MEMORY_PLANNER", "FirstFit")
    monkeypatch.setenv("BACKENDS", "cpu")
    sess = Session(pkg)
    assert sess.config.backends == ["cpu"] and sess.config.memory_planner == "FirstFit"
    assert_matches(sess.run(inputs()), expected())


@pytest.mark.parametrize("planner", ["WIC", "FirstFit", "Bump"])
def test_every_planner_from_package(tmp_path, planner):
    pkg = make_package(tmp_path / "pkg", graph("tflite"),
                       f"BACKENDS=cpu\nCPU_MEMORY_PLANNER={planner}\n")
    sess = Session(pkg)
    assert sess.config.memory_planner == planner
    assert_matches(sess.run(inputs()), expected())


def test_package_config_bad_value(tmp_path):
    pkg = make_package(tmp_path / "pkg", graph("tflite"), "CPU_MEMORY_PLANNER=Bumb\n")
    with pytest.raises(ConfigError) as info:
        Session(pkg)
    msg = str(info.value)
    assert "nnpackage config" in msg and "Bumb" in msg and "did you mean 'Bump'" in msg, msg


def test_package_config_bad_op_index(tmp_path):
    pkg = make_package(tmp_path / "pkg", graph("tflite"), "BACKENDS=cpu\nOP_BACKEND_MAP=42=cpu\n")
    with pytest.raises(CompileError, match="op 42 of subgraph 0"):
        Session(pkg)


def test_package_backend_unavailable_falls_back(tmp_path):
    pkg = make_package(tmp_path / "pkg", graph("tflite"), "BACKENDS=nope;cpu\n")
    sess = Session(pkg)
    assert sess.config.backends == ["nope", "cpu"] and sess.backends == ["cpu"]
    assert "nope" in sess.explain()


def test_package_first_model_is_primary(tmp_path):
    pkg = make_package(tmp_path / "pkg", graph("tflite"),
                       models=["model.tflite", "other.tflite"], **{"model-types": ["tflite"] * 2})
    (pkg / "other.tflite").write_bytes(b"not a model at all")
    assert_matches(Session(pkg).run(inputs()), expected())


def test_package_model_is_corrupt(tmp_path):
    pkg = make_package(tmp_path / "pkg", graph("tflite")[:100])
    with pytest.raises(ModelLoadError, match="model.tflite"):
        Session(pkg)


# ---------------------------------------------------------------- Circle
def test_circle_file_identifier():
    data = graph("circle")
    assert data[4:8] == b"CIR0" and graph("tflite")[4:8] == b"TFL3"


def test_circle_matches_tflite_interpreter():
    sess = Session(graph("circle"), backends="cpu")
    assert [i.name for i in sess.inputs] == ["image", "offset"]
    assert_matches(sess.run(inputs()), expected())
    assert_matches(sess.run(inputs(1)), tflite_run(graph("tflite"), inputs(1)))


def test_circle_and_tflite_agree():
    a = Session(graph("circle"), backends="cpu").run(inputs(2))
    b = Session(graph("tflite"), backends="cpu").run(inputs(2))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_circle_nnpackage(tmp_path):
    pkg = make_package(tmp_path / "pkg", graph("circle"), "BACKENDS=cpu\nCPU_MEMORY_PLANNER=Bump\n",
                       model_name="model.circle", model_type="circle")
    sess = Session(pkg)
    assert sess.config.memory_planner == "Bump"
    assert_matches(sess.run(inputs()), expected())


def test_circle_file_on_disk(tmp_path):
    path = tmp_path / "model.circle"
    path.write_bytes(graph("circle"))
    assert_matches(Session(str(path), backends="cpu").run(inputs()), expected())


def test_circle_only_op_loads():
    """INSTANCE_NORM has a negative builtin code (Circle only): the model loads, and either
    runs or is refused at compile time by name, never at load time."""
    b = ModelBuilder(fmt="circle")
    x = b.add_input("x", (1, 2, 2, 3))
    gamma = b.add_const("gamma", np.ones(3, np.float32))
    beta = b.add_const("beta", np.zeros(3, np.float32))
    y = b.add_tensor("y", (1, 2, 2, 3))
    b.add_op("INSTANCE_NORM", [x, gamma, beta], [y], epsilon=1e-5)
    b.add_output(y)
    data = b.build()
    if "InstanceNorm" in kernels.keys():
        x_arr = np.random.default_rng(0).standard_normal((1, 2, 2, 3)).astype(np.float32)
        out = Session(data, backends="cpu").run([x_arr])[0]
        mean = x_arr.mean(axis=(1, 2), keepdims=True)
        want = (x_arr - mean) / np.sqrt(x_arr.var(axis=(1, 2), keepdims=True) + 1e-5)
        np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)
        return
    with pytest.raises(UnsupportedOperationError) as info:
        Session(data, backends="cpu")
    assert "INSTANCE_NORM" in str(info.value) and info.value.op_type == "InstanceNorm"
