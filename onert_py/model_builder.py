"""Write tiny TFLite (``TFL3``) or Circle (``CIR0``) models in code, for tests and demos.

Example::

    b = ModelBuilder(fmt="tflite")
    x = b.add_input("x", (1, 8, 8, 3), "float32")
    w = b.add_const("w", np.ones((4, 3, 3, 3), np.float32))
    y = b.add_tensor("y", (1, 8, 8, 4), "float32")
    b.add_op("CONV_2D", [x, w, -1], [y], padding="SAME", fused_activation_function="RELU6")
    b.add_output(y)
    data = b.build()

Conventions:

* dtypes are numpy dtype names ("float32", "int8", "bool", ..., plus "string"); numpy dtypes work too.
* A shape may hold ``None``/``-1`` for unknown dimensions: the stored shape uses 1 there and the
  ``shape_signature`` holds -1.
* Operators are TFLite ``BuiltinOperator`` names (Circle adds its negative-coded ops such as
  ``INSTANCE_NORM`` and ``RMS_NORM``); custom operators are ``"CUSTOM:<name>"``.
* Options are keyword arguments named like the options table's schema fields (snake_case); enum
  fields take member names ("SAME", "RELU6") or ints, vector fields take lists. Options tables of
  both unions (``BuiltinOptions`` and ``BuiltinOptions2``, i.e. StableHLO ops) are supported;
  nested tables inside options are not. Conv/pool strides default to 1 and softmax ``beta`` to 1.0
  (see :data:`onert_py._schema_options.CONVENIENCE_DEFAULTS`). ``options={...}`` passes fields
  whose name clashes with an :meth:`ModelBuilder.add_op` parameter (e.g. CALL's ``subgraph``).
* Buffer 0 is the empty sentinel and every non-constant tensor points to it; each constant has its
  own buffer with 16-byte aligned data. Models over 2 GiB (buffer offsets) are not supported.
* Sparse constants: pass the already compressed values to :meth:`ModelBuilder.add_const` with
  ``sparsity=`` and the dense ``shape=``; no compression is done here.
* GGML block-quantized constants (Circle's ``GGML_Q4_0`` .. ``GGML_Q8_1``): pass the blocks'
  bytes and the logical shape to :meth:`ModelBuilder.add_blocks`
  (``onert_py.core.quant.ggml_blocks.quantize`` makes them from float values).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Mapping, Sequence, Union

import flatbuffers
import numpy as np

from onert_py._schema_options import (OptionsSpec, Schema, check_quant, check_sparsity, encode_strings,
                                       numpy_vector, offset_vector)

__all__ = ["ModelBuilder", "single_op_model", "DESCRIPTION", "SCHEMA_VERSION"]

DESCRIPTION = "onert_py.model_builder"
SCHEMA_VERSION = 3
_PLACEHOLDER_FOR_GREATER_OP_CODES = 127

DType = Union[str, np.dtype, type]
Shape = Sequence[Union[int, None]]


@dataclass
class _Tensor:
    name: str
    shape: list[int]
    dtype: int
    buffer: int = 0
    quant: dict[str, Any] | None = None
    shape_signature: list[int] | None = None
    is_variable: bool = False
    sparsity: dict[str, Any] | None = None


@dataclass
class _Operator:
    opcode_index: int
    inputs: list[int]
    outputs: list[int]
    options: tuple[OptionsSpec, dict[str, Any]] | None = None
    custom_options: bytes | None = None
    intermediates: list[int] | None = None


@dataclass
class _Subgraph:
    name: str
    tensors: list[_Tensor] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    operators: list[_Operator] = field(default_factory=list)


class ModelBuilder:
    """Incrementally describes a model (subgraphs, tensors, constants, operators) and serializes it.

    Subgraph 0 ("main") exists from the start; every ``add_*`` method takes ``subgraph=``.
    """

    def __init__(self, fmt: str = "tflite") -> None:
        self.schema = Schema(fmt)
        self.fmt = fmt
        self._subgraphs: list[_Subgraph] = [_Subgraph("main")]
        self._buffers: list[bytes | None] = [None]
        self._opcodes: dict[tuple[int, str | None, int], int] = {}

    # ---------------------------------------------------------------- graph structure
    def add_subgraph(self, name: str = "") -> int:
        """Add an empty subgraph (e.g. an IF branch or a WHILE body); return its index."""
        self._subgraphs.append(_Subgraph(name or f"subgraph{len(self._subgraphs)}"))
        return len(self._subgraphs) - 1

    @property
    def num_subgraphs(self) -> int:
        """Number of subgraphs so far."""
        return len(self._subgraphs)

    def add_tensor(
        self,
        name: str,
        shape: Shape,
        dtype: DType = "float32",
        quant: Mapping[str, Any] | None = None,
        shape_signature: Sequence[int] | None = None,
        is_variable: bool = False,
        subgraph: int = 0,
    ) -> int:
        """Add a tensor without data; return its index in ``subgraph``."""
        dims = [1 if d is None or d < 0 else int(d) for d in shape]
        if shape_signature is None and any(d is None or d < 0 for d in shape):
            shape_signature = [-1 if d is None or d < 0 else int(d) for d in shape]
        t = _Tensor(name, dims, self.tensor_type(dtype), quant=check_quant(name, quant),
                    shape_signature=None if shape_signature is None else [int(d) for d in shape_signature],
                    is_variable=bool(is_variable))
        tensors = self._sg(subgraph).tensors
        tensors.append(t)
        return len(tensors) - 1

    def add_input(self, name: str, shape: Shape, dtype: DType = "float32", subgraph: int = 0,
                  **kwargs: Any) -> int:
        """Add a tensor (see :meth:`add_tensor` for ``kwargs``) and append it to the subgraph inputs."""
        idx = self.add_tensor(name, shape, dtype, subgraph=subgraph, **kwargs)
        self._sg(subgraph).inputs.append(idx)
        return idx

    def add_output(self, tensor: int, subgraph: int = 0) -> int:
        """Append tensor index ``tensor`` to the subgraph outputs; return it."""
        sg = self._sg(subgraph)
        if not 0 <= tensor < len(sg.tensors):
            raise ValueError(f"no tensor {tensor} in subgraph {subgraph}")
        sg.outputs.append(tensor)
        return tensor

    def add_const(
        self,
        name: str,
        value: Any,
        dtype: DType | None = None,
        quant: Mapping[str, Any] | None = None,
        sparsity: Mapping[str, Any] | None = None,
        shape: Shape | None = None,
        subgraph: int = 0,
    ) -> int:
        """Add a constant tensor holding ``value`` in its own buffer; return its index.

        ``dtype`` defaults to the array's dtype (str/bytes arrays become "string" tensors).
        With ``sparsity`` (keys ``traversal_order``, ``block_map``, ``dim_metadata``: a list of
        ``{"format": "DENSE", "dense_size": n}`` or ``{"format": "SPARSE_CSR", "array_segments":
        [...], "array_indices": [...]}``), ``value`` holds the compressed values and ``shape`` the
        dense shape.
        """
        arr = np.asarray(value) if dtype is None else np.asarray(value, dtype=_np_dtype(dtype))
        if arr.dtype.kind in "USO":
            data, type_name = encode_strings(arr), "string"
        else:
            data, type_name = np.ascontiguousarray(arr, arr.dtype.newbyteorder("<")).tobytes(), arr.dtype.name
        if sparsity is not None and shape is None:
            raise ValueError(f"{name}: a sparse constant needs its dense shape=")
        sparse = check_sparsity(name, sparsity)
        idx = self.add_tensor(name, arr.shape if shape is None else shape, type_name, quant=quant,
                              subgraph=subgraph)
        t = self._sg(subgraph).tensors[idx]
        t.sparsity = sparse
        self._buffers.append(data)
        t.buffer = len(self._buffers) - 1
        return idx

    def add_blocks(self, name: str, blocks: bytes | np.ndarray, type_name: str, shape: Shape,
                   subgraph: int = 0) -> int:
        """Add a constant of a GGML block type (Circle: "GGML_Q4_0", "GGML_Q4_1", "GGML_Q8_0",
        "GGML_Q8_1") with logical `shape` (the last dimension runs along the 32-value blocks)
        holding `blocks`, the blocks' raw bytes as GGML lays them out; written as given (the
        loader checks their size against the shape). Returns the tensor's index."""
        if not type_name.upper().startswith("GGML_"):
            raise ValueError(f"{name}: {type_name!r} is not a GGML block type (GGML_Q4_0, "
                             f"GGML_Q4_1, GGML_Q8_0, GGML_Q8_1)")
        data = bytes(np.ascontiguousarray(blocks, np.uint8).reshape(-1)) \
            if isinstance(blocks, np.ndarray) else bytes(blocks)
        idx = self.add_tensor(name, shape, type_name, subgraph=subgraph)
        self._buffers.append(data)
        self._sg(subgraph).tensors[idx].buffer = len(self._buffers) - 1
        return idx

    def add_op(
        self,
        op: str,
        inputs: Sequence[int],
        outputs: Sequence[int],
        *,
        subgraph: int = 0,
        version: int = 1,
        custom_options: bytes | None = None,
        intermediates: Sequence[int] | None = None,
        options: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> int:
        """Add operator ``op`` (a BuiltinOperator name or ``"CUSTOM:<name>"``); return its index.

        Input index -1 marks an absent optional input. ``kwargs`` (merged with ``options``) are
        the fields of the operator's options table; unknown names raise ValueError.
        """
        sg = self._sg(subgraph)
        for i in [*inputs, *outputs, *(intermediates or [])]:
            if i != -1 and not 0 <= i < len(sg.tensors):
                raise ValueError(f"{op}: no tensor {i} in subgraph {subgraph}")
        given = {**(options or {}), **kwargs}
        resolved: tuple[OptionsSpec, dict[str, Any]] | None = None
        custom_code: str | None = None
        if op.startswith("CUSTOM:"):
            code, custom_code = self.schema.op_code("CUSTOM"), op[len("CUSTOM:"):]
            if not custom_code:
                raise ValueError("custom operator needs a name: 'CUSTOM:<name>'")
            if given:
                raise ValueError(f"{op}: custom operators take custom_options=bytes, not {sorted(given)}")
        else:
            code = self.schema.op_code(op)
            spec = self.schema.op_options(op)
            if spec is None and given:
                raise ValueError(f"{op}: takes no options, got {sorted(given)}")
            if spec is not None:
                resolved = (spec, self.schema.resolve_options(op, spec, given))
        key = (code, custom_code, int(version))
        opcode_index = self._opcodes.setdefault(key, len(self._opcodes))
        sg.operators.append(_Operator(
            opcode_index, [int(i) for i in inputs], [int(o) for o in outputs], resolved,
            None if custom_options is None else bytes(custom_options),
            None if intermediates is None else [int(i) for i in intermediates],
        ))
        return len(sg.operators) - 1

    def tensor_type(self, dtype: DType) -> int:
        """The schema's TensorType value for a numpy dtype (name), "string", or a GGML block
        type name ("GGML_Q4_0"; Circle only)."""
        if isinstance(dtype, str) and dtype.upper().startswith("GGML_"):
            return self.schema.enum_value("TensorType", dtype, "dtype")
        name = dtype if isinstance(dtype, str) and dtype in ("string", "str", "resource",
                                                             "variant") else None
        if name is None:
            try:
                name = np.dtype(dtype).name
            except TypeError as e:
                raise ValueError(f"unknown dtype {dtype!r}") from e
        name = "string" if name == "str" else name
        return self.schema.enum_value("TensorType", name, "dtype")

    def _sg(self, subgraph: int) -> _Subgraph:
        if not 0 <= subgraph < len(self._subgraphs):
            raise ValueError(f"no subgraph {subgraph} (have {len(self._subgraphs)})")
        return self._subgraphs[subgraph]

    # ---------------------------------------------------------------- serialization
    def build(self) -> bytes:
        """Serialize the model (file identifier TFL3 or CIR0)."""
        s, b = self.schema, flatbuffers.Builder(1024)
        buffers = [self._write_buffer(b, data) for data in self._buffers]
        opcodes = []
        for (code, custom, version), _ in sorted(self._opcodes.items(), key=lambda kv: kv[1]):
            name = None if custom is None else b.CreateString(custom)
            s.fn("OperatorCode", "Start")(b)
            s.fn("OperatorCode", "AddDeprecatedBuiltinCode")(b, min(code, _PLACEHOLDER_FOR_GREATER_OP_CODES))
            s.fn("OperatorCode", "AddBuiltinCode")(b, code)
            s.fn("OperatorCode", "AddVersion")(b, version)
            if name is not None:
                s.fn("OperatorCode", "AddCustomCode")(b, name)
            opcodes.append(s.fn("OperatorCode", "End")(b))
        subgraphs = [self._write_subgraph(b, sg) for sg in self._subgraphs]
        description = b.CreateString(DESCRIPTION)
        vectors = {k: offset_vector(b, v) for k, v in
                   (("OperatorCodes", opcodes), ("Subgraphs", subgraphs), ("Buffers", buffers))}
        s.fn("Model", "Start")(b)
        s.fn("Model", "AddVersion")(b, SCHEMA_VERSION)
        for k, off in vectors.items():
            s.fn("Model", "Add" + k)(b, off)
        s.fn("Model", "AddDescription")(b, description)
        b.Finish(s.fn("Model", "End")(b), file_identifier=s.identifier)
        return bytes(b.Output())

    def save(self, path: str | PathLike[str]) -> None:
        """Write :meth:`build` output to ``path``."""
        with open(path, "wb") as f:
            f.write(self.build())

    def _write_buffer(self, b: flatbuffers.Builder, data: bytes | None) -> int:
        vec = None
        if data:
            b.StartVector(1, len(data), 16)
            b.head -= len(data)
            b.Bytes[b.head:b.head + len(data)] = data
            vec = b.EndVector()
        self.schema.fn("Buffer", "Start")(b)
        if vec is not None:
            self.schema.fn("Buffer", "AddData")(b, vec)
        return self.schema.fn("Buffer", "End")(b)

    def _write_subgraph(self, b: flatbuffers.Builder, sg: _Subgraph) -> int:
        s = self.schema
        tensors = [self._write_tensor(b, t) for t in sg.tensors]
        operators = [self._write_operator(b, op) for op in sg.operators]
        offs = {
            "Tensors": offset_vector(b, tensors),
            "Inputs": numpy_vector(b, sg.inputs, np.int32),
            "Outputs": numpy_vector(b, sg.outputs, np.int32),
            "Operators": offset_vector(b, operators),
            "Name": b.CreateString(sg.name),
        }
        s.fn("SubGraph", "Start")(b)
        for k, off in offs.items():
            s.fn("SubGraph", "Add" + k)(b, off)
        return s.fn("SubGraph", "End")(b)

    def _write_tensor(self, b: flatbuffers.Builder, t: _Tensor) -> int:
        s = self.schema
        offs = {"Name": b.CreateString(t.name), "Shape": numpy_vector(b, t.shape, np.int32)}
        if t.shape_signature is not None:
            offs["ShapeSignature"] = numpy_vector(b, t.shape_signature, np.int32)
        if t.quant is not None:
            offs["Quantization"] = self.schema.write_quant(b, t.quant)
        if t.sparsity is not None:
            offs["Sparsity"] = self.schema.write_sparsity(b, t.name, t.sparsity)
        s.fn("Tensor", "Start")(b)
        s.fn("Tensor", "AddType")(b, t.dtype)
        s.fn("Tensor", "AddBuffer")(b, t.buffer)
        if t.is_variable:
            s.fn("Tensor", "AddIsVariable")(b, True)
        for k, off in offs.items():
            s.fn("Tensor", "Add" + k)(b, off)
        return s.fn("Tensor", "End")(b)

    def _write_operator(self, b: flatbuffers.Builder, op: _Operator) -> int:
        s = self.schema
        offs = {"Inputs": numpy_vector(b, op.inputs, np.int32),
                "Outputs": numpy_vector(b, op.outputs, np.int32)}
        if op.intermediates is not None:
            offs["Intermediates"] = numpy_vector(b, op.intermediates, np.int32)
        if op.custom_options is not None:
            offs["CustomOptions"] = numpy_vector(b, np.frombuffer(op.custom_options, np.uint8), np.uint8)
        union: tuple[str, int, int] | None = None
        if op.options is not None:
            spec, values = op.options
            union = (spec.union, spec.union_type, s.write_options(b, spec, values))
        s.fn("Operator", "Start")(b)
        s.fn("Operator", "AddOpcodeIndex")(b, op.opcode_index)
        for k, off in offs.items():
            s.fn("Operator", "Add" + k)(b, off)
        if union is not None:
            s.fn("Operator", f"Add{union[0]}Type")(b, union[1])
            s.fn("Operator", f"Add{union[0]}")(b, union[2])
        return s.fn("Operator", "End")(b)


def _np_dtype(dtype: DType) -> np.dtype:
    return np.dtype(object) if dtype in ("string", "str") else np.dtype(dtype)


def single_op_model(
    op: str,
    inputs: Sequence[tuple | np.ndarray | None],
    outputs: Sequence[tuple],
    fmt: str = "tflite",
    **options: Any,
) -> bytes:
    """A one-operator model: tuple inputs are graph inputs ``(name, shape, dtype[, quant])``,
    arrays are constants, ``None`` is an absent optional input; outputs are ``(name, shape,
    dtype[, quant])``; ``options`` go to :meth:`ModelBuilder.add_op`."""
    b = ModelBuilder(fmt)
    ins = []
    for i, spec in enumerate(inputs):
        if spec is None:
            ins.append(-1)
        elif isinstance(spec, tuple):
            name, shape, dtype, *quant = spec
            ins.append(b.add_input(name, shape, dtype, quant=quant[0] if quant else None))
        else:
            ins.append(b.add_const(f"const{i}", spec))
    outs = [b.add_tensor(*spec) for spec in outputs]
    b.add_op(op, ins, outs, **options)
    for o in outs:
        b.add_output(o)
    return b.build()
