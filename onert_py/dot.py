"""graph_dot_dump: the lowered graph as Graphviz DOT, ops filled with one colour per backend.

Op nodes are `op<index>` labelled `#<index> <NAME>`; Permute nodes (inserted where data crosses
backends) are dashed hexagons labelled with the two backends. Edges carry the tensor's name and
shape. Model inputs and outputs are ellipses; constants are left out to keep the graph readable.
When Graphviz's `dot` is installed, `<path>.svg` is rendered next to the DOT file.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass

from .errors import ConfigError

COLOURS = {"cpu": "#9ecae1", "builtin": "#d9d9d9", "acl_cl": "#fdae6b", "acl_neon": "#a1d99b",
           "gpu_cl": "#fc9272", "ruy": "#bcbddc", "xnnpack": "#fdd0a2", "trix": "#c7e9c0"}
EXTRA = ("#f2b6d2", "#ffffb3", "#80b1d3", "#b3de69", "#fccde5", "#bc80bd", "#ccebc5")


@dataclass
class DotDump:
    path: str                  # the DOT file
    svg: str | None            # the rendered SVG, when `dot` ran
    note: str = ""             # why there is no SVG


def _q(text: object) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def colours(backends) -> dict[str, str]:
    """A fill colour per backend id: fixed for known ids, then a palette in order of first use."""
    out: dict[str, str] = {}
    extra = iter(EXTRA * (1 + len(backends)))
    for b in backends:
        out.setdefault(b, COLOURS.get(b) or next(extra))
    return out


def to_dot(lowered, title: str = "") -> str:
    g = lowered.graph
    order = list(lowered.exec_order) + sorted(set(g.operations) - set(lowered.exec_order))
    fill = colours([lowered.op_backend[oi] for oi in order])
    producer = {o: op.index for op in g.operations.values() for o in op.outputs if o >= 0}

    def tensor(i: int) -> str:
        o = g.operands[i]
        return f"{o.name or f'#{i}'} {list(o.shape)}"

    lines = [f"digraph {_q(title or g.name or 'graph')} {{", "  rankdir=TB;",
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=8];']
    for oi in order:
        op, bid = g.operations[oi], lowered.op_backend[oi]
        if op.type == "Permute":
            label = f"#{oi} Permute\n{op.params.get('from')} -> {op.params.get('to')}"
            style = 'shape=hexagon, style="filled,dashed"'
        else:
            label, style = f"#{oi} {op.name}\n[{bid}]", 'shape=box, style="filled,rounded"'
        lines.append(f"  op{oi} [label={_q(label)}, {style}, fillcolor={_q(fill[bid])}];")
    sources = set()
    for oi in order:
        for i in g.operations[oi].inputs:
            if i < 0 or g.operands[i].is_constant:
                continue
            if i in producer:
                src = f"op{producer[i]}"
            else:                                  # a model input (or a never-written variable)
                src = f"in{i}"
                if i not in sources:
                    sources.add(i)
                    lines.append(f"  in{i} [label={_q(g.operands[i].name or f'#{i}')}, "
                                 f"shape=ellipse];")
            lines.append(f"  {src} -> op{oi} [label={_q(tensor(i))}];")
    for i in g.outputs:
        lines.append(f"  out{i} [label={_q(g.operands[i].name or f'#{i}')}, shape=ellipse, "
                     f"peripheries=2];")
        src = f"op{producer[i]}" if i in producer else f"in{i}"
        if i not in producer and i not in sources:
            lines.append(f"  in{i} [label={_q(g.operands[i].name or f'#{i}')}, shape=ellipse];")
        lines.append(f"  {src} -> out{i} [label={_q(tensor(i))}];")
    lines.append('  subgraph cluster_legend {\n    label="backends"; fontname="Helvetica";')
    for bid, colour in fill.items():
        lines.append(f"    {_q('legend_' + bid)} [label={_q(bid)}, shape=box, style=filled, "
                     f"fillcolor={_q(colour)}];")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def write_dot(lowered, path: str | os.PathLike, title: str = "", timeout: float = 30) -> DotDump:
    """Write the DOT file and, when Graphviz is installed, `<path>.svg`."""
    path = os.fspath(path)
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(to_dot(lowered, title))
    except OSError as e:
        raise ConfigError(f"graph_dot_dump: cannot write {path!r} ({e.strerror or e})") from None
    exe = shutil.which("dot")
    if exe is None:
        return DotDump(path, None, "Graphviz 'dot' is not installed; no SVG rendered")
    svg = path + ".svg"
    try:
        r = subprocess.run([exe, "-Tsvg", path, "-o", svg], capture_output=True, text=True,
                           timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return DotDump(path, None, f"rendering the SVG failed: {e}")
    if r.returncode != 0:
        return DotDump(path, None, f"dot exited with {r.returncode}: {r.stderr.strip()[:500]}")
    return DotDump(path, svg)
