"""Negative tests of the load phase: corrupt, truncated or inconsistent model files and
nnpackages fail with ModelLoadError naming the problem, never with another exception type."""
from __future__ import annotations

import importlib
import json
import os
import re
import sys

import flatbuffers
import numpy as np
import pytest

import onert_py
from onert_py import ModelLoadError, OnertPyError, Session
from onert_py.model_builder import single_op_model

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "tools"))
from fuzz_seeds import chain_model, cnn_model  # noqa: E402  (the fuzzer's seed models)

MODELS = "/work/shared/models"
OPS = importlib.import_module("tflite.BuiltinOperator").BuiltinOperator
OPTIONS = importlib.import_module("tflite.BuiltinOptions").BuiltinOptions


# ---------------------------------------------------------------- hand-written flatbuffers
def _fn(table: str, suffix: str):
    return getattr(importlib.import_module(f"tflite.{table}"), table + suffix)


def _tables(b: flatbuffers.Builder, offsets: list[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


def _ints(b: flatbuffers.Builder, values) -> int:
    return b.CreateNumpyVector(np.asarray(values, np.int32))


def raw_model(tensors: list[tuple[tuple[int, ...], int]], ops: list[tuple[int, list, list]],
              inputs: list[int], outputs: list[int], buffers: list[bytes] = (b"",),
              opcodes: list[int] = (OPS.ADD,), options: dict[int, int] | None = None) -> bytes:
    """A TFLite model written field by field, with nothing checked: `tensors` are float32
    (shape, buffer index), `ops` are (opcode index, inputs, outputs), `opcodes` builtin codes,
    `options` maps an op's position to a BuiltinOptions type (given an empty table)."""
    b = flatbuffers.Builder(256)
    bufs = []
    for data in buffers:
        vec = b.CreateByteVector(data) if data else None
        _fn("Buffer", "Start")(b)
        if vec is not None:
            _fn("Buffer", "AddData")(b, vec)
        bufs.append(_fn("Buffer", "End")(b))
    codes = []
    for code in opcodes:
        _fn("OperatorCode", "Start")(b)
        _fn("OperatorCode", "AddDeprecatedBuiltinCode")(b, min(code, 127))
        _fn("OperatorCode", "AddBuiltinCode")(b, code)
        _fn("OperatorCode", "AddVersion")(b, 1)
        codes.append(_fn("OperatorCode", "End")(b))
    ts = []
    for k, (shape, buf) in enumerate(tensors):
        name, shp = b.CreateString(f"t{k}"), _ints(b, shape)
        _fn("Tensor", "Start")(b)
        _fn("Tensor", "AddShape")(b, shp)
        _fn("Tensor", "AddType")(b, 0)
        _fn("Tensor", "AddBuffer")(b, buf)
        _fn("Tensor", "AddName")(b, name)
        ts.append(_fn("Tensor", "End")(b))
    operators = []
    for k, (code, ins, outs) in enumerate(ops):
        opt = None
        if options and k in options:
            b.StartObject(0)
            opt = (options[k], b.EndObject())
        iv, ov = _ints(b, ins), _ints(b, outs)
        _fn("Operator", "Start")(b)
        _fn("Operator", "AddOpcodeIndex")(b, code)
        _fn("Operator", "AddInputs")(b, iv)
        _fn("Operator", "AddOutputs")(b, ov)
        if opt is not None:
            _fn("Operator", "AddBuiltinOptionsType")(b, opt[0])
            _fn("Operator", "AddBuiltinOptions")(b, opt[1])
        operators.append(_fn("Operator", "End")(b))
    tv, iv, ov, opv = _tables(b, ts), _ints(b, inputs), _ints(b, outputs), _tables(b, operators)
    _fn("SubGraph", "Start")(b)
    _fn("SubGraph", "AddTensors")(b, tv)
    _fn("SubGraph", "AddInputs")(b, iv)
    _fn("SubGraph", "AddOutputs")(b, ov)
    _fn("SubGraph", "AddOperators")(b, opv)
    sg = _fn("SubGraph", "End")(b)
    sgs, cv, bv = _tables(b, [sg]), _tables(b, codes), _tables(b, bufs)
    _fn("Model", "Start")(b)
    _fn("Model", "AddVersion")(b, 3)
    _fn("Model", "AddSubgraphs")(b, sgs)
    _fn("Model", "AddOperatorCodes")(b, cv)
    _fn("Model", "AddBuffers")(b, bv)
    b.Finish(_fn("Model", "End")(b), file_identifier=b"TFL3")
    return bytes(b.Output())


ADD3 = dict(tensors=[((2,), 0), ((2,), 0), ((2,), 0)], ops=[(0, [0, 1], [2])],
            inputs=[0, 1], outputs=[2])


def load_error(model, *words: str) -> str:
    """Session(model) raises ModelLoadError whose message holds every word (case-insensitive)."""
    with pytest.raises(ModelLoadError) as info:
        Session(model)
    msg = str(info.value)
    for w in words:
        assert w.lower() in msg.lower(), f"{w!r} not in {msg!r}"
    return msg


# ---------------------------------------------------------------- the file itself
def test_raw_model_helper_is_valid():
    sess = Session(raw_model(**ADD3))
    a, b = np.array([1, 2], np.float32), np.array([10, 20], np.float32)
    np.testing.assert_array_equal(sess.run([a, b])[0], [11, 22])


def test_empty_bytes_and_empty_file(tmp_path):
    load_error(b"", "0 bytes", "too short")
    path = tmp_path / "empty.tflite"
    path.write_bytes(b"")
    load_error(str(path), "empty", str(path))


def test_three_bytes():
    load_error(b"TFL", "3 bytes", "too short")


def test_wrong_identifier(tmp_path):
    m = chain_model()
    bad = m[:4] + b"XXXX" + m[8:]
    load_error(bad, "identifier", "XXXX", "TFL3", "CIR0")
    path = tmp_path / "bad.tflite"
    path.write_bytes(bad)
    load_error(path, "identifier", str(path))


TRUNCATED = re.compile(r"truncated|outside the file|too short|more than")


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9, 0.99])
def test_truncated_at_fraction(fraction):
    m = chain_model()
    msg = load_error(m[:int(len(m) * fraction)])
    assert TRUNCATED.search(msg), msg


def test_truncated_everywhere(tmp_path):
    """Every 7th prefix of the model, from bytes and from a memory-mapped file."""
    m = chain_model()
    for n in range(1, len(m), 7):
        with pytest.raises(ModelLoadError) as info:
            Session(m[:n])
        assert TRUNCATED.search(str(info.value)), (n, str(info.value))
    path = tmp_path / "cut.tflite"
    path.write_bytes(m[:len(m) // 2])
    assert TRUNCATED.search(load_error(path, str(path)))


@pytest.mark.skipif(not os.path.isdir(MODELS), reason=f"{MODELS} is absent")
@pytest.mark.parametrize("name", ["control_flow.tflite", "mobilenet_v2.tflite"])
def test_truncated_real_model(tmp_path, name):
    src = os.path.join(MODELS, name)
    if not os.path.isfile(src):
        pytest.skip(f"{src} is absent")
    data = open(src, "rb").read()
    for fraction in (0.1, 0.5, 0.9):
        path = tmp_path / f"{fraction}.tflite"
        path.write_bytes(data[:int(len(data) * fraction)])
        assert TRUNCATED.search(load_error(path))


def _mutate(data: bytes, rng: np.random.Generator) -> bytes:
    d = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        pos = int(rng.integers(0, len(d)))
        if rng.random() < 0.5:
            d[pos] ^= 1 << int(rng.integers(0, 8))
        else:
            d[pos] = int(rng.integers(0, 256))
    return bytes(d)


LIMIT = 1 << 24     # mutated shapes may ask for gigabytes: keep every tensor under 16 MiB


@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
@pytest.mark.parametrize("make,fmt,seed", [(chain_model, "tflite", 0), (chain_model, "circle", 1),
                                           (cnn_model, "tflite", 2)])
def test_random_bit_flips(make, fmt, seed):
    """Each mutant loads and (if it compiles) runs on zeros, or raises an onert_py error: any
    other exception type fails the test. Enough mutants must run for runs to be exercised."""
    m = make(fmt)
    rng = np.random.default_rng(seed)
    outcomes: dict[str, int] = {}
    for k in range(200):
        data = _mutate(m, rng)
        try:
            sess = Session(data, config={"max_tensor_bytes": LIMIT})
            infos = sess.inputs + sess.outputs
            if sum(int(np.prod(i.shape)) * i.dtype.itemsize for i in infos) > LIMIT:
                outcome = "too big to run"
            else:
                sess.run([np.zeros(i.shape, i.dtype) for i in sess.inputs])
                outcome = "ran"
        except OnertPyError as e:
            outcome = type(e).__name__
        except Exception as e:  # noqa: BLE001 - the point of the test
            pytest.fail(f"mutant {k}: {type(e).__name__}: {e}")
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes.get("ran", 0) >= 10, outcomes
    assert outcomes.get("ModelLoadError", 0) >= 50, outcomes


# ---------------------------------------------------------------- inconsistent contents
ONE_CONST = dict(tensors=[((2,), 0), ((2,), 1), ((2,), 0)], inputs=[0], outputs=[2],
                 ops=[(0, [0, 1], [2])])
F32x1, F32x2 = np.ones(1, np.float32).tobytes(), np.ones(2, np.float32).tobytes()
INCONSISTENT = {   # name: (raw_model arguments, words the ModelLoadError must hold)
    "buffer shorter than shape": ({**ONE_CONST, "buffers": [b"", F32x1]},
                                  ["tensor 1", "4-byte buffer", "shorter", "(2,)", "8 bytes"]),
    "buffer index out of range": ({**ADD3, "tensors": [((2,), 0), ((2,), 7), ((2,), 0)]},
                                  ["tensor 1", "buffer 7", "1 buffers"]),
    "op input out of range": ({**ADD3, "ops": [(0, [0, 5], [2])]},
                              ["operator 0 inputs", "tensor 5", "3 tensors"]),
    "op output out of range": ({**ADD3, "ops": [(0, [0, 1], [-7])]},
                               ["operator 0 outputs", "tensor -7"]),
    "opcode index out of range": ({**ADD3, "ops": [(3, [0, 1], [2])]},
                                  ["operator 0", "operator code 3", "has 1"]),
    "unknown builtin code": ({**ADD3, "opcodes": [250]},
                             ["operator code 0", "unknown builtin code 250"]),
    "subgraph input out of range": ({**ADD3, "inputs": [0, 9]},
                                    ["subgraph 0 inputs", "tensor 9", "3 tensors"]),
    "subgraph output out of range": ({**ADD3, "outputs": [3]}, ["subgraph 0 outputs", "tensor 3"]),
    "negative dimension": ({**ADD3, "tensors": [((2,), 0), ((-2,), 0), ((2,), 0)]},
                           ["tensor 1", "negative dimension"]),
    "op writes a subgraph input": ({**ADD3, "ops": [(0, [0, 1], [1])], "outputs": [1]},
                                   ["operator 0", "writes tensor 1", "input of the subgraph"]),
    "tensor written twice": ({**ADD3, "tensors": [((2,), 0)] * 4,
                              "ops": [(0, [0, 1], [2]), (0, [2, 1], [2])]},
                             ["tensor 2", "written by operator 0", "again by operator 1"]),
    "op writes a constant": ({**ONE_CONST, "ops": [(0, [0, 2], [1])], "inputs": [0, 2],
                              "outputs": [1], "buffers": [b"", F32x2]},
                             ["writes tensor 1", "constant"]),
    "options of the wrong table": ({**ADD3, "options": {0: OPTIONS.Conv2DOptions}},
                                   ["operator 0 (ADD)", "Conv2DOptions", "takes AddOptions"]),
}


@pytest.mark.parametrize("case", list(INCONSISTENT))
def test_inconsistent_model(case):
    kwargs, words = INCONSISTENT[case]
    load_error(raw_model(**kwargs), *words)


def test_absent_options_mean_defaults():
    """TFLite reads absent options as the table's defaults; so does the loader (no fused
    activation for ADD)."""
    sess = Session(raw_model(**ADD3))
    out = sess.run([np.array([-1, 2], np.float32), np.array([-1, 5], np.float32)])[0]
    np.testing.assert_array_equal(out, [-2, 7])


def test_enum_value_out_of_range():
    m = bytearray(single_op_model("ADD", [("a", (2,), "float32"), ("b", (2,), "float32")],
                                  [("y", (2,), "float32")], fused_activation_function="RELU6"))
    # RELU6 is ActivationFunctionType 3: patch each byte holding 3 until one is the activation.
    found = False
    for pos in [i for i, v in enumerate(m) if v == 3]:
        d = bytearray(m)
        d[pos] = 77
        try:
            Session(bytes(d))
        except ModelLoadError as e:
            if "ActivationFunctionType" in str(e):
                assert "77" in str(e) and "operator 0 (ADD)" in str(e), str(e)
                found = True
                break
        except OnertPyError:
            continue
    assert found, "no byte of the model holds the fused activation"


def test_not_a_model_object():
    load_error(12345, "path or bytes", "int")


# ---------------------------------------------------------------- paths and nnpackages
def test_nonexistent_path(tmp_path):
    path = tmp_path / "missing.tflite"
    load_error(path, "no such file", str(path))
    load_error(str(path), "no such file")


def test_directory_that_is_not_an_nnpackage(tmp_path):
    (tmp_path / "model.tflite").write_bytes(chain_model())
    load_error(tmp_path, "not an nnpackage", os.path.join("metadata", "MANIFEST"))


def _package(tmp_path, manifest: str | dict, config: str | None = None):
    (tmp_path / "metadata").mkdir()
    (tmp_path / "model.tflite").write_bytes(chain_model())
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (tmp_path / "metadata" / "MANIFEST").write_text(text)
    if config is not None:
        (tmp_path / "metadata" / "config.cfg").write_text(config)
    return tmp_path


MANIFEST = {"major-version": "1", "minor-version": "2", "patch-version": "0",
            "models": ["model.tflite"], "model-types": ["tflite"], "configs": []}


def test_nnpackage_manifest_not_json(tmp_path):
    load_error(_package(tmp_path, "{ not json"), "unreadable MANIFEST", "MANIFEST")


def test_nnpackage_manifest_not_an_object(tmp_path):
    load_error(_package(tmp_path, "[1, 2]"), "MANIFEST", "JSON object")


@pytest.mark.parametrize("models", [None, [], [3], "model.tflite"])
def test_nnpackage_manifest_bad_models(tmp_path, models):
    manifest = {k: v for k, v in MANIFEST.items() if k != "models"}
    if models is not None:
        manifest["models"] = models
    load_error(_package(tmp_path, manifest), "'models'", "non-empty list")


def test_nnpackage_model_file_missing(tmp_path):
    load_error(_package(tmp_path, {**MANIFEST, "models": ["nope.tflite"]}),
               "nope.tflite", "no such file")


def test_nnpackage_config_missing(tmp_path):
    load_error(_package(tmp_path, {**MANIFEST, "configs": ["absent.cfg"]}),
               "absent.cfg", "config", "unreadable")


def test_nnpackage_config_line_without_equals(tmp_path):
    pkg = _package(tmp_path, {**MANIFEST, "configs": ["config.cfg"]},
                   "# comment\nBACKENDS=cpu\nNOT A SETTING\n")
    load_error(pkg, "config.cfg:3", "KEY=VALUE", "NOT A SETTING")


def test_errors_are_onert_py_errors():
    assert issubclass(ModelLoadError, onert_py.OnertPyError)
    with pytest.raises(onert_py.OnertPyError):
        Session(b"\x00" * 64)
