"""End-to-end latency (bench.py --e2e) on the models of issue 18's targets.

A run is timed from numpy inputs to numpy outputs exactly as a user writes it: onert_py
``sess.run(xs)``; LiteRT ``set_tensor`` per input + ``invoke()`` + ``get_tensor`` per output.
Next to it the steady state: LiteRT's ``invoke()`` alone (``xnnpack:invoke``,
``builtin:invoke``, inputs set once) against the same ``sess.run(xs)``.

The models: a one-op ADD of two 1x8 float32 inputs, the streaming int8 keyword-spotting model
of ``onert_py.examples.kws`` (stateful: every call advances its ring buffers, in every runtime
alike), and ``lstm_text`` and ``control_flow`` from ../shared/models (skipped when absent).
"""
from __future__ import annotations

import os
from typing import Any, Sequence

from .common import short_reason
from .report import _cell_ms, _median, _table, fmt_diff, fmt_ratio
from .runtimes import BUILTIN, BUILTIN_INVOKE, XNNPACK, XNNPACK_INVOKE, label

GENERATED = ("one_op_add", "kws_stream")
SHARED = ("lstm_text", "control_flow")
E2E_MODELS = GENERATED + SHARED
LITERT_KEYS = (XNNPACK, BUILTIN, XNNPACK_INVOKE, BUILTIN_INVOKE)


def one_op_add() -> bytes:
    """ADD of two (1, 8) float32 inputs: the smallest model, all per-call cost."""
    from onert_py.model_builder import ModelBuilder

    b = ModelBuilder("tflite")
    x, y = b.add_input("a", (1, 8), "float32"), b.add_input("b", (1, 8), "float32")
    out = b.add_tensor("sum", (1, 8), "float32")
    b.add_op("ADD", [x, y], [out], fused_activation_function="NONE")
    b.add_output(out)
    return b.build()


def kws_stream() -> bytes:
    """The streaming int8 KWS model (onert_py.examples.kws, microWakeWord's shape)."""
    from onert_py.examples.kws import kws_model

    return kws_model()


def write_models(folder: str, models_dir: str,
                 names: Sequence[str] = E2E_MODELS) -> tuple[dict[str, str], dict[str, str]]:
    """(paths, errors) of the named models: the generated ones written into ``folder``, the
    shared ones looked up in ``models_dir``; a model that cannot be had gets its reason."""
    builders = {"one_op_add": one_op_add, "kws_stream": kws_stream}
    paths: dict[str, str] = {}
    errors: dict[str, str] = {}
    for name in names:
        if name in builders:
            path = os.path.join(folder, f"{name}.tflite")
            try:
                data = builders[name]()
            except Exception as e:  # noqa: BLE001 - reported in the table
                errors[name] = f"cannot build: {short_reason(e, 60)}"
                continue
            with open(path, "wb") as f:
                f.write(bytes(data))
            paths[name] = path
        else:
            path = os.path.join(models_dir, f"{name}.tflite")
            if os.path.isfile(path):
                paths[name] = path
            else:
                errors[name] = f"{path} not found"
    return paths, errors


def e2e_keys(py_keys: Sequence[str]) -> list[str]:
    """The runtimes of an e2e row: onert_py's, then LiteRT's four (e2e and invoke alone)."""
    return [*py_keys, *LITERT_KEYS]


def e2e_table(threads: int, rows: dict[str, dict[str, Any]], py_keys: Sequence[str]) -> str:
    """Markdown: per model onert_py's run, LiteRT's set+invoke+get and invoke alone (median
    ms), the ratios, onert_py's max abs diff from LiteRT builtin, samples and other load."""
    single = len(py_keys) == 1
    names = {k: label(k, single) for k in py_keys}
    head = ["model"] + [f"{names[k]} run ms" for k in py_keys]
    head += ["XNNPACK set+invoke+get ms", "builtin set+invoke+get ms", "XNNPACK invoke ms",
             "builtin invoke ms"]
    for k in py_keys:
        head += [f"{names[k]}/XNNPACK e2e", f"{names[k]}/builtin e2e",
                 f"{names[k]}/XNNPACK invoke", f"{names[k]}/builtin invoke"]
    head += [f"max abs diff {names[k]} vs builtin" for k in py_keys] + ["samples", "other load"]
    body = []
    for model, r in rows.items():
        cells = r.get("cells", {})
        if r.get("error"):
            body.append([model, f"n/a ({r['error']})"] + ["–"] * (len(head) - 2))
            continue
        line = [model] + [_cell_ms(cells.get(k)) for k in py_keys]
        line += [_cell_ms(cells.get(k)) for k in LITERT_KEYS]
        for k in py_keys:
            p = _median(cells.get(k))
            line += [fmt_ratio(p, _median(cells.get(ref))) for ref in LITERT_KEYS]
        line += [fmt_diff(r.get("diff", {}).get(k)) for k in py_keys]
        ns = sorted({c.get("n", 0) for c in cells.values() if not c.get("error")})
        line.append("/".join(str(n) for n in ns) if ns else "–")
        load = r.get("other_load")
        line.append("–" if load is None else f"{load:.2f}")
        body.append(line)
    title = (f"### End to end, {threads} thread{'s' if threads != 1 else ''} (median ms, "
             "interleaved)")
    note = ("run = `sess.run(xs)`; set+invoke+get = LiteRT `set_tensor` per input, `invoke()`, "
            "`get_tensor` per output; invoke = `invoke()` alone (steady state, inputs set once). "
            "Ratios < 1× mean onert_py is faster.")
    return title + "\n\n" + note + "\n\n" + _table(head, body)


def ratio_of(row: dict[str, Any], key: str, ref: str) -> tuple[float | None, float | None]:
    """(median ms of ``key``, median ms of ``ref``) in an e2e row (None where missing)."""
    cells = row.get("cells", {})
    return _median(cells.get(key)), _median(cells.get(ref))
