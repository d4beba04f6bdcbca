"""Generate docs/ops.md: which backend runs which TFLite/Circle builtin, for which input dtypes.

Nothing here is written by hand: for every builtin name of the two schemas the tool builds a
synthetic one-operation graph per input dtype and asks each backend's
`config.supports(op, graph)`, the same question the compiler's scheduler asks. The graph has
the op's real layout where tools/op_probes.py describes it (constant parameters and weights,
index inputs, output types; the data tensors of the probed dtype, quantized where the column
says so), else N_INPUTS inputs and one output all of the probed dtype. The answer is what each
registered kernel's `supports()` says.

    python tools/op_table.py            # rewrite docs/ops.md
    python tools/op_table.py --check    # exit 1 when docs/ops.md is out of date
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from onert_py.core.compiler.backend_manager import BUNDLED, BackendManager
from onert_py.core.ir import Graph, Operation
from onert_py.core.ir.op_catalog import CIRCLE_EXTRA_CODES, ir_type_of
from onert_py.core.ir.operand import Operand, Quantization
from onert_py.core.ir.operation import Params
from onert_py.core.ir.dtypes import TENSOR_TYPES
from onert_py.core.loader.flatbuffer_loader import BLOCK_USES
from onert_py.core.loader.schema import (CIRCLE, EMPTY_TABLE, TFLITE, options_table,
                                         read_table_fields)
from onert_py.core.quant import ggml_blocks

sys.path.insert(0, str(Path(__file__).resolve().parent))
import op_probes  # noqa: E402  (tools/ is not a package)

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "ops.md"
BACKENDS = ("builtin", *BUNDLED)
N_INPUTS = 3          # inputs of a builtin without a probe, all of the probed dtype
TYPE_NAMES = {dtype: name for name, dtype in reversed(TENSOR_TYPES.values())
              if dtype is not None}

# column label -> (schema type name, NumPy dtype, quantized)
DTYPES: dict[str, tuple[str, np.dtype, bool]] = {
    "f32": ("FLOAT32", np.dtype(np.float32), False),
    "f16": ("FLOAT16", np.dtype(np.float16), False),
    "f64": ("FLOAT64", np.dtype(np.float64), False),
    "i64": ("INT64", np.dtype(np.int64), False),
    "i32": ("INT32", np.dtype(np.int32), False),
    "i16": ("INT16", np.dtype(np.int16), False),
    "i8": ("INT8", np.dtype(np.int8), False),
    "u8": ("UINT8", np.dtype(np.uint8), False),
    "bool": ("BOOL", np.dtype(np.bool_), False),
    "q-i16": ("INT16", np.dtype(np.int16), True),
    "q-i8": ("INT8", np.dtype(np.int8), True),
    "q-u8": ("UINT8", np.dtype(np.uint8), True),
    # Circle's GGML blocks: the input the loader lets hold them (BLOCK_USES: FULLY_CONNECTED
    # weights, GATHER params) is a constant of that type, every other data tensor float32
    "g-q4_0": ("GGML_Q4_0", np.dtype(np.float32), False),
    "g-q4_1": ("GGML_Q4_1", np.dtype(np.float32), False),
    "g-q8_0": ("GGML_Q8_0", np.dtype(np.float32), False),
    "g-q8_1": ("GGML_Q8_1", np.dtype(np.float32), False),
}


def builtin_names() -> dict[str, str]:
    """Every builtin name -> the schemas that have it ("tflite, circle" or "circle")."""
    tfl = set(TFLITE.builtin_names.values())
    cir = set(CIRCLE.builtin_names.values()) | set(CIRCLE_EXTRA_CODES.values())
    return {n: ", ".join(s for s, names in (("tflite", tfl), ("circle", cir)) if n in names)
            for n in sorted(tfl | cir)}


def _params(builtin: str, field: str | None, extra: dict) -> Params:
    """The options a loaded model gives the op: the options table's schema defaults (what the
    loader reads when a model leaves a field out), the sub-type field, then the probe's values."""
    schema = TFLITE if builtin in TFLITE.builtin_names.values() else CIRCLE
    table = options_table(schema, builtin)
    values = read_table_fields(schema, EMPTY_TABLE, table) if table else {}
    if field is not None:
        values[field] = builtin
    return Params({**values, **extra})


def block_input(builtin: str, label: str) -> int | None:
    """In a GGML column, the input of `builtin` that holds the blocks (None: not a GGML
    column, -1: the loader refuses GGML blocks anywhere in this builtin)."""
    if DTYPES[label][0] not in ggml_blocks.FORMATS:
        return None
    return next((pos for (name, pos) in BLOCK_USES if name == builtin), -1)


class _Operands:
    """Adds the operands of one probe graph for the dtype column `label`."""

    def __init__(self, graph: Graph, label: str) -> None:
        self.graph, self.label = graph, label
        self.type_name, self.dtype, quantized = DTYPES[label]
        self.quant = Quantization(np.array([0.5], np.float32), np.array([0], np.int64)) \
            if quantized else None

    def blocks(self, shape: tuple[int, ...]) -> int:
        """A GGML constant of `shape` with its last dimension made one whole block."""
        i = len(self.graph.operands)
        shape = (*shape[:-1], ggml_blocks.QK)
        data = ggml_blocks.quantize(ggml_blocks.block_format(self.type_name),
                                    np.zeros(shape, np.float32))
        self.graph.operands[i] = Operand(index=i, name=f"t{i}", shape=shape, dtype=None,
                                         type_name=self.type_name, data=data)
        return i

    def add(self, shape, dtype, quant=None, data=None, variable=False) -> int:
        i = len(self.graph.operands)
        dtype = np.dtype(dtype)
        if data is not None:
            data = np.asarray(data, dtype).reshape(shape)
            data.setflags(write=False)
        self.graph.operands[i] = Operand(index=i, name=f"t{i}", shape=tuple(shape), dtype=dtype,
                                         type_name=TYPE_NAMES[dtype], quant=quant, data=data,
                                         is_variable=variable)
        return i

    def weights(self, slot: op_probes.W) -> int:
        n = int(np.prod(slot.shape, dtype=np.int64))
        values = np.arange(n) % 3
        if self.quant is None:
            return self.add(slot.shape, self.dtype, None, values.astype(self.dtype))
        if self.dtype == np.uint8:      # TFLite's uint8 scheme: per-tensor, zero point 128
            quant = Quantization(np.array([0.25], np.float32), np.array([128], np.int64))
            return self.add(slot.shape, np.uint8, quant, values + 127)
        channels = slot.shape[slot.qaxis] if slot.qaxis is not None else 1
        quant = Quantization((0.25 / (1 + np.arange(channels))).astype(np.float32),
                             np.zeros(channels, np.int64), slot.qaxis or 0)
        return self.add(slot.shape, np.int8, quant, values - 1)

    def bias(self, slot: op_probes.B, inputs: list[int]) -> int:
        if self.quant is None:
            return self.add((slot.n,), self.dtype, None, np.zeros(slot.n))
        w = self.graph.operands[inputs[slot.weights]].quant
        scale = np.broadcast_to(self.quant.scale[0] * w.scale, (slot.n,)).astype(np.float32)
        quant = Quantization(scale, np.zeros(slot.n, np.int64), 0)
        return self.add((slot.n,), np.int64 if self.dtype == np.int16 else np.int32, quant,
                        np.zeros(slot.n))

    def input(self, slot, inputs: list[int]) -> int:
        P = op_probes
        if slot is P.ABSENT:
            return -1
        if isinstance(slot, P.D):
            return self.add(slot.shape, self.dtype, self.quant, variable=slot.variable)
        if isinstance(slot, P.C):
            return self.add(slot.shape, self.dtype, self.quant,
                            np.full(slot.shape, slot.value).astype(self.dtype))
        if isinstance(slot, P.P):
            values = np.asarray(slot.values, slot.dtype)
            return self.add(values.shape, slot.dtype, None, values)
        if isinstance(slot, P.I):
            return self.add(slot.shape, np.int32)
        if isinstance(slot, P.W):
            return self.weights(slot)
        return self.bias(slot, inputs)

    def output(self, slot: op_probes.O) -> int:
        if slot.dtype is None:
            return self.add(slot.shape, self.dtype, self.quant)
        return self.add(slot.shape, slot.dtype)


def synthetic(builtin: str, label: str) -> tuple[Operation, Graph]:
    """A graph holding one `builtin` operation probed for dtype `label`: the op's layout of
    tools/op_probes.py (data slots of dtype `label`), else N_INPUTS inputs and one output all
    of dtype `label` and shape (1, 2, 2, 1)."""
    ir_type, field = ir_type_of(builtin)
    probe = op_probes.probe_for(builtin, ir_type) or op_probes.Probe(
        (op_probes.D(),) * N_INPUTS, (op_probes.O(),))
    graph = Graph(name="probe")
    make = _Operands(graph, label)
    blocks_at = block_input(builtin, label)
    inputs: list[int] = []
    for pos, slot in enumerate(probe.inputs):
        inputs.append(make.blocks(slot.shape) if pos == blocks_at else make.input(slot, inputs))
    outputs = [make.output(slot) for slot in probe.outputs]
    graph.inputs = [i for i in inputs if i >= 0 and not graph.operands[i].is_constant
                    and not graph.operands[i].is_variable]
    graph.outputs = list(outputs)
    op = Operation(index=0, type=ir_type, builtin=builtin, inputs=inputs, outputs=outputs,
                   params=_params(builtin, field, probe.params),
                   subtype=builtin if field is not None else None)
    graph.operations[0] = op
    return op, graph


def load_backends() -> tuple[dict[str, object], dict[str, str]]:
    """The backends that load here (id -> Backend) and why each other one did not."""
    manager = BackendManager()
    loaded, failed = {}, {}
    for backend_id in BACKENDS:
        try:
            loaded[backend_id] = manager.load(backend_id)
        except Exception as e:  # a backend that cannot load is reported, not fatal
            failed[backend_id] = str(e).splitlines()[0] if str(e) else type(e).__name__
    return loaded, failed


def supported_dtypes(backend, builtin: str) -> list[str]:
    """The dtype labels for which `backend` accepts a `builtin` op."""
    labels = []
    for label in DTYPES:
        if block_input(builtin, label) == -1:
            continue                # a model with GGML blocks here does not load
        op, graph = synthetic(builtin, label)
        try:
            ok, _ = backend.config.supports(op, graph)
        except Exception:  # a supports() that needs real parameters: not answerable here
            ok = False
        if ok:
            labels.append(label)
    return labels


def render() -> str:
    loaded, failed = load_backends()
    ids = list(loaded)
    lines = [
        "# Supported operations",
        "",
        "Generated by `python tools/op_table.py` from the backends' kernel registries: for each",
        "builtin and input dtype, the answer of the backend's `supports()` (the question the",
        "compiler's scheduler asks) on a synthetic one-operation graph laid out as a converted",
        "model holds the op (`tools/op_probes.py`): the schema's inputs, with constant int32",
        "parameters (axes, paddings, begin/end, shapes, k), constant weights and biases (`q-i8`",
        "per-channel int8 weights, `q-u8` per-tensor uint8, `q-i16` per-channel int8 with int64",
        "bias), int32 indices, and the real output types (bool for comparisons, int32 for",
        "ArgMax/ArgMin and TopK indices); the dtype column is the type of the data tensors",
        "(`q-` marks a quantized tensor; in a `g-` column the input that may hold Circle's GGML",
        "blocks, FULLY_CONNECTED's weights or GATHER's params, is a constant of that type and",
        "the other data tensors are float32: models with GGML blocks anywhere else do not",
        "load). A builtin without a probe gets "
        f"{N_INPUTS} inputs and one output",
        "of that dtype, so its row may understate support. The option values are the schema's",
        "defaults with the probe's overrides. Do not edit by hand; `tests/test_op_table.py` fails",
        "when it is stale.",
        "",
        "Dtypes: " + ", ".join(f"`{k}` {v[0]}{' (quantized)' if v[2] else ''}"
                               for k, v in DTYPES.items()) + ".",
        "",
    ]
    if failed:
        lines += ["Backends that did not load here (not in the table):", ""]
        lines += [f"- `{b}`: {why}" for b, why in failed.items()] + [""]
    lines += ["| builtin | IR type | schema | " + " | ".join(ids) + " |",
              "|---|---|---|" + "---|" * len(ids)]
    counts = dict.fromkeys(ids, 0)
    names = builtin_names()
    for builtin, schemas in names.items():
        ir_type, field = ir_type_of(builtin)
        cells = []
        for b in ids:
            labels = supported_dtypes(loaded[b], builtin)
            counts[b] += bool(labels)
            cells.append(" ".join(labels) if labels else "-")
        ir = f"{ir_type}.{builtin}" if field else ir_type
        lines.append(f"| {builtin} | {ir} | {schemas} | " + " | ".join(cells) + " |")
    lines += ["", f"{len(names)} builtins. Supported by: " +
              ", ".join(f"{b} {counts[b]}" for b in ids) + ".", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with docs/ops.md")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date: run python tools/op_table.py", file=sys.stderr)
            return 1
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
