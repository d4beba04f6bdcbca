"""One loader, generic over the TFLite and Circle schemas, from file bytes to an ir.Model.

The file is trusted only after checking: identifier, root offset, every vector length against
the file size, every index against its table, and every constant buffer against its shape.
Tables are read with flatbuf.Table, which raises on out-of-range reads; those become
ModelLoadError too.

Circle's GGML block-quantized tensors (GGML_Q4_0 .. GGML_Q8_1, core/quant/ggml_blocks.py) are
constants whose buffer holds exactly the blocks of their logical shape; their data is kept as
bytes, one row of blocks per last-axis row. They may be only what onert reads them as:
FULLY_CONNECTED weights and GATHER params (BLOCK_USES); anywhere else the model fails to load.
"""
from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np

from ...errors import ModelLoadError
from ..ir import Graph, Model, Operand, Operation, Params, Quantization, ir_type_of
from ..ir.dtypes import numpy_dtype, type_name
from .flatbuf import Table
from .schema import (CIRCLE, EMPTY_TABLE, SCHEMAS, TFLITE, Schema, options_table,
                     read_table_fields)

MAX_BYTES = 2**63 - 1     # no tensor can be larger: sizes are int64 everywhere downstream
#: (builtin, input position) where a GGML block-quantized tensor may appear (onert's cpu backend)
BLOCK_USES = {("FULLY_CONNECTED", 1): "FULLY_CONNECTED weights (input 1)",
              ("GATHER", 0): "GATHER params (input 0)"}

_PARSE_ERRORS = (struct.error, IndexError, ValueError, TypeError, OverflowError, KeyError,
                 AttributeError, UnicodeDecodeError, RecursionError, MemoryError)


def detect_schema(buf: Any, what: str) -> Schema:
    """The schema whose file identifier the buffer carries."""
    if len(buf) < 8:
        raise ModelLoadError(f"{what}: file is {len(buf)} bytes, too short to be a model")
    ident = bytes(buf[4:8])
    for schema in SCHEMAS:
        if ident == schema.identifier:
            return schema
    raise ModelLoadError(
        f"{what}: unknown file identifier {ident!r}; expected b'TFL3' (TFLite) or b'CIR0' (Circle)")


class _Reader:
    def __init__(self, buf: Any, schema: Schema, what: str) -> None:
        self.buf, self.schema, self.what = buf, schema, what
        self.size = len(buf)
        layout = schema.layout
        self.M, self.SG, self.T = layout("Model"), layout("SubGraph"), layout("Tensor")
        self.OP, self.OC, self.B = layout("Operator"), layout("OperatorCode"), layout("Buffer")
        self.Q = layout("QuantizationParameters")

    def fail(self, msg: str) -> ModelLoadError:
        return ModelLoadError(f"{self.what}: {msg}")

    def count(self, n: int, elem_size: int, what: str) -> int:
        if n < 0 or n * elem_size > self.size:
            raise self.fail(f"{what} declares {n} entries, more than the {self.size}-byte file holds")
        return n

    def tables(self, tab: Table, f: tuple, what: str) -> list[Table]:
        """The tables of vector field `f`, its length checked against the file first."""
        self.count(tab.length(f), 4, what)
        return tab.tables(f)

    def read(self) -> Model:
        root = struct.unpack_from("<I", self.buf, 0)[0]
        if root + 4 > self.size:
            raise self.fail(f"root table offset {root} is outside the file ({self.size} bytes)")
        m, M = Table(self.buf, root), self.M
        opcodes = self._opcodes(m)
        buffers = self._buffers(m)
        subgraphs = self.tables(m, M["subgraphs"], "subgraphs vector")
        if not subgraphs:
            raise self.fail("the model has no subgraph")
        n_sg = len(subgraphs)
        graphs = [self._subgraph(sg, i, opcodes, buffers, n_sg) for i, sg in enumerate(subgraphs)]
        desc = m.string(M["description"])
        return Model(graphs, self.schema.fmt,
                     description=desc.decode("utf-8", "replace") if desc else "")

    def _opcodes(self, m: Table) -> list[tuple[str, str | None, int]]:
        names = self.schema.builtin_names
        OC = self.OC
        out = []
        for i, oc in enumerate(self.tables(m, self.M["operator_codes"], "operator_codes vector")):
            code = oc.scalar(OC["builtin_code"])
            dep = oc.scalar(OC["deprecated_builtin_code"])
            if self.schema is TFLITE or code >= 0:
                code = max(code, dep)   # old files only set the deprecated byte
            if code not in names:
                raise self.fail(f"operator code {i} has unknown builtin code {code}")
            custom = oc.string(OC["custom_code"])
            out.append((names[code], custom.decode("utf-8", "replace") if custom else None,
                        oc.scalar(OC["version"])))
        return out

    def _buffers(self, m: Table) -> list[np.ndarray | None]:
        out: list[np.ndarray | None] = []
        B = self.B
        for i, b in enumerate(self.tables(m, self.M["buffers"], "buffers vector")):
            offset, size = b.scalar(B["offset"]), b.scalar(B["size"])
            if offset > 1:      # data stored after the flatbuffer (models over 2 GB)
                if offset + size > self.size:
                    raise self.fail(f"buffer {i} points at bytes {offset}..{offset + size}, "
                                    f"outside the {self.size}-byte file")
                out.append(np.frombuffer(self.buf, np.uint8, size, offset))
                continue
            n = self.count(b.length(B["data"]), 1, f"buffer {i}")
            out.append(b.array(B["data"]) if n else None)
        return out

    def _subgraph(self, sg: Table, sg_index: int, opcodes: list, buffers: list,
                  n_sg: int) -> Graph:
        SG = self.SG
        name = sg.string(SG["name"])
        g = Graph(name.decode("utf-8", "replace") if name else f"subgraph_{sg_index}")
        where = f"subgraph {sg_index}"
        tensors = self.tables(sg, SG["tensors"], f"{where} tensors vector")
        n_t = len(tensors)
        for ti, t in enumerate(tensors):
            g.operands[ti] = self._tensor(t, ti, sg_index, buffers)
        g.inputs = self._indices(sg.array(SG["inputs"]), n_t, f"{where} inputs", allow_absent=False)
        g.outputs = self._indices(sg.array(SG["outputs"]), n_t, f"{where} outputs",
                                  allow_absent=False)
        for oi, op in enumerate(self.tables(sg, SG["operators"], f"{where} operators vector")):
            g.operations[oi] = self._operator(op, oi, where, opcodes, n_t, n_sg)
        self._check_writers(g, where)
        self._check_block_uses(g, where)
        return g

    def _check_block_uses(self, g: Graph, where: str) -> None:
        """GGML tensors are constants read as BLOCK_USES says, never subgraph inputs/outputs."""
        valid = " and ".join(BLOCK_USES.values())
        for t in (*g.inputs, *g.outputs):
            o = g.operands[t]
            if o.is_block_quantized:
                raise self.fail(f"{where} tensor {t} ({o.name!r}, {o.type_name}) is an input or "
                                f"output of the subgraph; GGML block-quantized tensors are "
                                f"constants, read only as {valid}")
        for oi, op in g.operations.items():
            for pos, t in enumerate(op.inputs):
                o = g.operands[t] if t >= 0 else None
                if o is not None and o.is_block_quantized and (op.builtin, pos) not in BLOCK_USES:
                    raise self.fail(f"{where} operator {oi} ({op.name}) reads {o.type_name} "
                                    f"tensor {t} ({o.name!r}) as input {pos}; GGML "
                                    f"block-quantized tensors are read only as {valid}")

    def _check_writers(self, g: Graph, where: str) -> None:
        """Every tensor is written at most once, never a subgraph input, never a constant."""
        writer: dict[int, int] = {}
        inputs = set(g.inputs)
        for oi, op in g.operations.items():
            for t in op.outputs:
                if t < 0:
                    continue
                if t in inputs:
                    raise self.fail(f"{where} operator {oi} ({op.name}) writes tensor {t}, "
                                    f"which is an input of the subgraph")
                if g.operands[t].is_constant:
                    raise self.fail(f"{where} operator {oi} ({op.name}) writes tensor {t}, "
                                    f"which is a constant (has buffer data)")
                if t in writer:
                    raise self.fail(f"{where} tensor {t} is written by operator {writer[t]} and "
                                    f"again by operator {oi}")
                writer[t] = oi

    def _indices(self, arr: np.ndarray, n_t: int, what: str, allow_absent: bool = True) -> list[int]:
        lo = -1 if allow_absent else 0
        vals = arr.tolist()
        for v in vals:
            if v < lo or v >= n_t:
                raise self.fail(f"{what} refer to tensor {v}, but the subgraph has {n_t} tensors")
        return vals

    def _tensor(self, t: Table, ti: int, sg_index: int, buffers: list) -> Operand:
        where = f"subgraph {sg_index} tensor {ti}"
        T = self.T
        shape = tuple(t.array(T["shape"]).tolist())
        if any(d < 0 for d in shape):
            raise self.fail(f"{where} has a negative dimension in shape {shape}")
        code = t.scalar(T["type"])
        dtype = numpy_dtype(code)
        elements = math.prod(shape)
        if elements * (dtype.itemsize if dtype is not None else 1) > MAX_BYTES:
            raise self.fail(f"{where} has shape {shape}: {elements} elements, more bytes than a "
                            f"64-bit size can count (at most {MAX_BYTES})")
        name = t.string(T["name"])
        sig = tuple(t.array(T["shape_signature"]).tolist()) or None
        op = Operand(ti, name.decode("utf-8", "replace") if name else f"t{ti}", shape, dtype,
                     type_name(code), quant=self._quant(t.table(T["quantization"])),
                     shape_signature=sig, is_variable=t.scalar(T["is_variable"]))
        bi = t.scalar(T["buffer"])
        if bi < 0 or bi >= max(len(buffers), 1):
            raise self.fail(f"{where} uses buffer {bi}, but the model has {len(buffers)} buffers")
        data = buffers[bi] if buffers else None
        sparsity = self._sparsity(t.table(T["sparsity"]))
        if sparsity is not None:
            op.sparsity = sparsity
        if op.is_block_quantized:
            op.data = self._blocks(op, data, where)
        elif data is not None and data.size and dtype is not None:
            need = op.num_elements * dtype.itemsize
            if sparsity is None:
                if data.size < need:
                    raise self.fail(f"{where} ({op.name!r}) has a {data.size}-byte buffer, shorter "
                                    f"than its shape {shape} of {type_name(code)} needs ({need} bytes)")
                op.data = data[:need].view(dtype).reshape(shape)
            else:
                if data.size % dtype.itemsize:
                    raise self.fail(f"{where} sparse buffer size {data.size} is not a multiple of "
                                    f"{dtype.itemsize}")
                op.data = data.view(dtype)
        elif data is not None and data.size:
            op.data = data      # STRING and other raw types: keep the bytes
        return op

    def _blocks(self, op: Operand, data: np.ndarray | None, where: str) -> np.ndarray:
        """A GGML tensor's data: exactly its blocks, as rows of bytes (shape[:-1] + row bytes)."""
        from ..quant import ggml_blocks      # Circle's GGML models only: not at import
        what = f"{where} ({op.name!r}, {op.type_name})"
        if self.schema is not CIRCLE:
            raise self.fail(f"{what}: GGML block-quantized types exist in Circle models only")
        fmt = ggml_blocks.block_format(op.type_name)
        problem = ggml_blocks.shape_problem(fmt, op.shape)
        if problem is None and op.sparsity is not None:
            problem = "it is sparse (a GGML tensor holds all its blocks)"
        if problem is None and (data is None or not data.size):
            problem = "it has no data (GGML block-quantized tensors are constants)"
        if problem is not None:
            raise self.fail(f"{what} has shape {op.shape}: {problem}")
        need = ggml_blocks.nbytes(fmt, op.shape)
        if data.size != need:
            raise self.fail(f"{what} has a {data.size}-byte buffer; its shape {op.shape} holds "
                            f"{need // fmt.block_bytes} blocks of {fmt.block_bytes} bytes "
                            f"({need} bytes)")
        return data.reshape(*op.shape[:-1], ggml_blocks.row_bytes(fmt, op.shape[-1]))

    def _sparsity(self, sp: Table | None) -> dict | None:
        if sp is None:
            return None
        SP, DM = self.schema.layout("SparsityParameters"), self.schema.layout("DimensionMetadata")
        dims = []
        for d in self.tables(sp, SP["dim_metadata"], "sparsity dim_metadata"):
            fmt = d.scalar(DM["format"])
            meta = {"format": fmt, "dense_size": d.scalar(DM["dense_size"])}
            if fmt != 0:
                for key in ("array_segments", "array_indices"):
                    meta[key] = self._index_vector(d.scalar(DM[f"{key}_type"]),
                                                   d.table(DM[key]))
            dims.append(meta)
        return {"traversal_order": sp.array(SP["traversal_order"]).tolist(),
                "block_map": sp.array(SP["block_map"]).tolist(), "dim_metadata": dims}

    def _index_vector(self, kind: int, table: Table | None) -> np.ndarray:
        names = {1: "Int32Vector", 2: "Uint16Vector", 3: "Uint8Vector"}
        if kind not in names or table is None:
            raise self.fail(f"sparse index vector of unknown type {kind}")
        return table.array(self.schema.layout(names[kind])["values"])

    def _quant(self, q: Table | None) -> Quantization | None:
        if q is None:
            return None
        Q = self.Q
        scale = q.array(Q["scale"]).astype(np.float32)
        if scale.size == 0:
            return None
        zp = q.array(Q["zero_point"]).astype(np.int64)
        if zp.size == 0:
            zp = np.zeros(scale.size, np.int64)
        return Quantization(scale, zp, q.scalar(Q["quantized_dimension"]))

    def _options(self, op: Table, oi: int, where: str, builtin: str) -> dict[str, Any]:
        """The operator's options as {field: value}. Absent options mean the table's defaults
        (as in TFLite); options of another table than the one the op uses are corrupt."""
        try:
            return self._read_options(op, oi, where, builtin)
        except ValueError as e:     # an enum field holding a value its enum lacks
            raise self.fail(f"{where} operator {oi} ({builtin}): {e}") from None

    def _read_options(self, op: Table, oi: int, where: str, builtin: str) -> dict[str, Any]:
        expected = options_table(self.schema, builtin)
        opt_type = op.scalar(self.OP["builtin_options_type"])
        found = self.schema.option_names.get(opt_type) if opt_type else None
        table = op.table(self.OP["builtin_options"]) if opt_type else None
        if expected is not None:
            if opt_type and found != expected:
                raise self.fail(f"{where} operator {oi} ({builtin}) has options of type "
                                f"{found or opt_type}, but {builtin} takes {expected}")
            return read_table_fields(self.schema, table if table is not None else EMPTY_TABLE,
                                     expected)
        if table is not None and found:
            return read_table_fields(self.schema, table, found)
        return {}

    def _operator(self, op: Table, oi: int, where: str, opcodes: list, n_t: int,
                  n_sg: int) -> Operation:
        OP = self.OP
        idx = op.scalar(OP["opcode_index"])
        if idx >= len(opcodes):
            raise self.fail(f"{where} operator {oi} uses operator code {idx}, "
                            f"but the model has {len(opcodes)}")
        builtin, custom, version = opcodes[idx]
        inputs = self._indices(op.array(OP["inputs"]), n_t, f"{where} operator {oi} inputs")
        outputs = self._indices(op.array(OP["outputs"]), n_t, f"{where} operator {oi} outputs")
        params = self._options(op, oi, where, builtin)
        if custom is not None:
            n = self.count(op.length(OP["custom_options"]), 1,
                           f"{where} operator {oi} custom options")
            params["custom_options"] = bytes(op.array(OP["custom_options"])) if n else b""
        if self.schema is CIRCLE and "adjoint_lhs" in params:
            params["adj_x"], params["adj_y"] = params["adjoint_lhs"], params["adjoint_rhs"]
        for key in ("then_subgraph_index", "else_subgraph_index", "cond_subgraph_index",
                    "body_subgraph_index", "init_subgraph_index", "subgraph"):
            if key in params and not 0 <= params[key] < n_sg:
                raise self.fail(f"{where} operator {oi} ({builtin}) refers to subgraph "
                                f"{params[key]}, but the model has {n_sg}")
        ir_type, sub_field = ir_type_of(builtin)
        if sub_field:
            params[sub_field] = builtin
        inter = self._indices(op.array(OP["intermediates"]), n_t,
                              f"{where} operator {oi} intermediates", allow_absent=False)
        return Operation(oi, ir_type, builtin, inputs, outputs, Params(params),
                         subtype=builtin if sub_field else None, custom_code=custom,
                         version=version, intermediates=inter)


def load_flatbuffer(buf: Any, what: str) -> Model:
    """Parse a TFLite or Circle flatbuffer (bytes, mmap or memoryview) into an ir.Model."""
    schema = detect_schema(buf, what)
    try:
        return _Reader(buf, schema, what).read()
    except ModelLoadError:
        raise
    except _PARSE_ERRORS as e:
        raise ModelLoadError(f"{what}: corrupt or truncated {schema.fmt} file "
                             f"({type(e).__name__}: {e})") from e
