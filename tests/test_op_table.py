"""docs/ops.md is generated from the backends' kernel registries by tools/op_table.py: it must
match what the registries answer now (regenerate with `python tools/op_table.py`)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_tool():
    spec = importlib.util.spec_from_file_location("op_table", ROOT / "tools" / "op_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ops_md_is_up_to_date():
    tool = load_tool()
    current = (ROOT / "docs" / "ops.md").read_text()
    assert current == tool.render(), \
        "docs/ops.md is stale: regenerate it with `python tools/op_table.py`"


def test_table_answers_follow_supports():
    """Spot checks that the table is the kernels' own answer, not a list."""
    tool = load_tool()
    loaded, _ = tool.load_backends()
    cpu = loaded["cpu"]
    assert tool.supported_dtypes(cpu, "LOGICAL_AND") == ["bool"]
    assert "i64" not in tool.supported_dtypes(cpu, "DIV")
    assert "f32" in tool.supported_dtypes(cpu, "CONV_2D")
    op, graph = tool.synthetic("ADD", "q-i8")
    assert graph.operands[op.inputs[0]].quant is not None
    assert graph.operands[op.inputs[0]].dtype == np.dtype(np.int8)
    assert tool.supported_dtypes(loaded["builtin"], "ADD") == []


def test_probes_give_acl_backends_their_real_ops():
    """With realistic operands (constant axes/weights, bool/int32 outputs) the acl backends'
    own supports() accepts what their registries implement, and still refuses what they lack."""
    tool = load_tool()
    loaded, failed = tool.load_backends()
    if failed:
        pytest.skip(f"backends not loaded here: {failed}")
    neon, cl, cpu = loaded["acl_neon"], loaded["acl_cl"], loaded["cpu"]
    assert "f32" in tool.supported_dtypes(neon, "ARG_MAX")
    assert "f32" in tool.supported_dtypes(cl, "EQUAL")
    assert "f32" in tool.supported_dtypes(neon, "FULLY_CONNECTED")
    assert "f32" in tool.supported_dtypes(cl, "FULLY_CONNECTED")
    assert {"f32", "q-i8", "q-u8"} <= set(tool.supported_dtypes(cl, "CONV_2D"))
    assert "f32" in tool.supported_dtypes(neon, "MEAN")
    assert "f32" in tool.supported_dtypes(cl, "TRANSPOSE")
    assert "f32" in tool.supported_dtypes(neon, "UNIDIRECTIONAL_SEQUENCE_LSTM")
    assert tool.supported_dtypes(neon, "TILE") == []        # no acl_neon Tile kernel
    assert tool.supported_dtypes(neon, "COS") == []         # no native COS on acl_neon
    assert "q-i16" not in tool.supported_dtypes(neon, "CONV_2D")   # 8-bit quantized only
    assert "i32" not in tool.supported_dtypes(cl, "EQUAL")
    # cpu keeps what it had with the generic probe
    plain = [label for label in tool.DTYPES if tool.block_input("ARG_MAX", label) is None]
    assert tool.supported_dtypes(cpu, "ARG_MAX") == plain      # GGML blocks: not in ARG_MAX
    assert {"f32", "q-i8", "q-u8"} <= set(tool.supported_dtypes(cpu, "FULLY_CONNECTED"))
    # GGML blocks: FULLY_CONNECTED weights and GATHER params on cpu and acl_neon only
    ggml = {"g-q4_0", "g-q4_1", "g-q8_0", "g-q8_1"}
    for op in ("FULLY_CONNECTED", "GATHER"):
        assert ggml <= set(tool.supported_dtypes(cpu, op))
        assert ggml <= set(tool.supported_dtypes(neon, op))
        assert not ggml & set(tool.supported_dtypes(cl, op))
    assert not ggml & set(tool.supported_dtypes(cpu, "CONV_2D"))


def test_probe_operands_follow_the_schema():
    tool = load_tool()
    op, graph = tool.synthetic("ARG_MAX", "f32")
    axis, out = graph.operands[op.inputs[1]], graph.operands[op.outputs[0]]
    assert axis.is_constant and axis.dtype == np.dtype(np.int32)
    assert out.dtype == np.dtype(np.int32) and op.params.output_type == "INT32"
    op, graph = tool.synthetic("EQUAL", "q-u8")
    assert len(op.inputs) == 2 and graph.operands[op.outputs[0]].dtype == np.dtype(np.bool_)
    op, graph = tool.synthetic("FULLY_CONNECTED", "q-i8")
    x, w, b = (graph.operands[i] for i in op.inputs)
    assert not x.is_constant and x.quant is not None
    assert w.is_constant and w.dtype == np.dtype(np.int8) and w.quant.per_channel
    assert b.is_constant and b.dtype == np.dtype(np.int32)
    assert np.allclose(b.quant.scale, x.quant.scale[0] * w.quant.scale)
    op, graph = tool.synthetic("CONV_2D", "q-u8")
    w = graph.operands[op.inputs[1]]
    assert w.dtype == np.dtype(np.uint8) and not w.quant.per_channel
    assert op.params.stride_h == 1 and op.params.padding == "SAME"
    op, graph = tool.synthetic("LSTM", "f32")
    assert len(op.inputs) == 24 and op.inputs[9] == -1
    assert graph.operands[op.inputs[18]].is_variable
    op, graph = tool.synthetic("SPLIT", "i16")      # axis first, as in the schema
    assert graph.operands[op.inputs[0]].is_constant and len(op.outputs) == 2
    assert graph.operands[op.inputs[1]].dtype == np.dtype(np.int16)
    op, graph = tool.synthetic("ADD_N", "f32")      # no probe: the generic layout
    assert len(op.inputs) == tool.N_INPUTS
    for name in tool.builtin_names():               # every probe builds for every column
        for label in tool.DTYPES:
            tool.synthetic(name, label)


def test_cells_are_the_backends_answer():
    """supported_dtypes() reports exactly what config.supports() says, dtype by dtype."""
    tool = load_tool()

    class Config:
        def supports(self, op, graph):
            x = graph.operands[op.inputs[0]]
            return (x.dtype == np.dtype(np.int16) and x.quant is None), ""

    class Backend:
        config = Config()

    assert tool.supported_dtypes(Backend(), "MEAN") == ["i16"]
    assert tool.supported_dtypes(Backend(), "RESHAPE") == ["i16"]


def test_every_builtin_has_a_row():
    tool = load_tool()
    text = (ROOT / "docs" / "ops.md").read_text()
    for name in tool.builtin_names():
        assert f"\n| {name} |" in text, name
