"""docs/ops.md is generated from the backends' kernel registries by tools/op_table.py: it must
match what the registries answer now (regenerate with `python tools/op_table.py`)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

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


def test_every_builtin_has_a_row():
    tool = load_tool()
    text = (ROOT / "docs" / "ops.md").read_text()
    for name in tool.builtin_names():
        assert f"\n| {name} |" in text, name
