"""graph_dot_dump: the lowered graph as DOT, ops coloured by backend, Permutes marked."""
from __future__ import annotations

import os
import re
import shutil

import pytest

import onert_py
from onert_py import dot
from builders.small_models import conv_add_relu_model
from op_harness import session_internals
from paths import PLUGINS

ID = r'(?:"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*)'
NODE = re.compile(rf"^\s*({ID})\s*\[(.*)\];\s*$")
EDGE = re.compile(rf"^\s*({ID})\s*->\s*({ID})\s*\[label=(\"(?:[^\"\\]|\\.)*\")\];\s*$")


def parse(text: str):
    """A small structural DOT reader: declared nodes (id -> attributes) and edges."""
    lines = text.strip().splitlines()
    assert lines[0].startswith("digraph ") and lines[0].endswith("{") and lines[-1] == "}"
    assert text.count("{") == text.count("}")
    nodes, edges = {}, []
    for line in lines[1:-1]:
        if m := EDGE.match(line):
            edges.append((m.group(1), m.group(2), m.group(3)))
        elif m := NODE.match(line):
            nodes[m.group(1).strip('"')] = m.group(2)
    return nodes, [(a.strip('"'), b.strip('"'), label) for a, b, label in edges]


@pytest.fixture
def session(monkeypatch):
    monkeypatch.setenv("ONERT_BACKEND_PATH", PLUGINS)
    sess = onert_py.Session(conv_add_relu_model(), backends="testadd;cpu")
    yield sess
    sess.close()


def test_dot_structure(session):
    lowered = session_internals(session).compiled.lowered     # what write_dot draws
    text = dot.to_dot(lowered, "m")
    nodes, edges = parse(text)
    for a, b, _ in edges:                                   # every edge end is declared
        assert a in nodes and b in nodes, (a, b)
    ops = [n for n in nodes if re.fullmatch(r"op\d+", n)]
    n_permutes = len(session.placement().permutes)
    assert n_permutes == 2          # cpu <-> testadd; the input and output are shared
    assert len(ops) == len(lowered.graph.operations) == 3 + n_permutes
    permutes = [n for n in ops if "Permute" in nodes[n]]
    assert len(permutes) == n_permutes and all("dashed" in nodes[n] for n in permutes)
    assert '"#1 ADD\\n[testadd]"' in nodes["op1"] and '"#0 CONV_2D\\n[cpu]"' in nodes["op0"]
    colours = dot.colours(["cpu", "testadd", "builtin"])
    assert len(set(colours.values())) == 3
    for bid, colour in colours.items():                      # each backend's colour and legend
        assert f'fillcolor="{colour}"' in nodes[f"legend_{bid}"]
        assert any(f'fillcolor="{colour}"' in nodes[n] for n in ops), bid
    labels = [label for _, _, label in edges]
    assert any("conv [1, 6, 6, 4]" in label for label in labels)   # tensor name and shape
    assert any(label.startswith('"x [1, 6, 6, 3]') for label in labels)
    assert not any(label.startswith('"w ') for label in labels)      # constants left out


def test_colours_for_unknown_backends():
    c = dot.colours(["cpu", "mine", "yours", "mine"])
    assert list(c) == ["cpu", "mine", "yours"] and len(set(c.values())) == 3


def test_quoting():
    assert dot._q('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'


def test_session_writes_graph_dot(tmp_path, monkeypatch):
    path = tmp_path / "out" / "graph.dot"
    monkeypatch.setenv("ONERT_BACKEND_PATH", PLUGINS)
    sess = onert_py.Session(conv_add_relu_model(), backends="testadd;cpu",
                            config={"graph_dot_dump": str(path)})
    assert path.exists() and sess.graph_dot.path == str(path)
    nodes, _ = parse(path.read_text())
    assert "op0" in nodes
    if shutil.which("dot"):
        assert sess.graph_dot.svg and os.path.getsize(sess.graph_dot.svg) > 0
    else:
        assert sess.graph_dot.svg is None and "not installed" in sess.graph_dot.note
    sess.close()


def test_graph_dot_dump_from_environment_flag(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPH_DOT_DUMP", "1")
    monkeypatch.setenv("WORKSPACE_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", "")                     # no `dot`: the DOT file, and a note
    sess = onert_py.Session(conv_add_relu_model(), backends="cpu")
    assert (tmp_path / "graph.dot").exists() and "not installed" in sess.graph_dot.note
    sess.close()


def test_no_dump_by_default(monkeypatch):
    monkeypatch.delenv("GRAPH_DOT_DUMP", raising=False)
    sess = onert_py.Session(conv_add_relu_model(), backends="cpu")
    assert sess.graph_dot is None
    sess.close()


def test_unwritable_path_is_a_config_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(onert_py.ConfigError, match="graph_dot_dump: cannot write"):
        onert_py.Session(conv_add_relu_model(), backends="cpu",
                         config={"graph_dot_dump": str(blocker / "g.dot")})
