"""Schema access for :mod:`onert_py.model_builder`: formats, enums, operator codes and options tables.

Knows, for the TFLite schema (``tflite``) and the Circle schema (``circle_schema.v0_10.circle``):

* which options table each builtin operator uses (derived from the ``BuiltinOptions`` and
  ``BuiltinOptions2`` union member names plus :data:`OP_OPTIONS_EXCEPTIONS`),
* the fields of every options table (from the generated ``<Table>Add<Field>`` functions), and
  how each field is written: scalar, enum (name or int accepted), string, or vector,
* how to write validated options, quantization and sparsity tables (and plain vectors) with the
  generated builder functions.
"""

from __future__ import annotations

import difflib
import importlib
import re
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any, Callable, Mapping, Sequence

import flatbuffers
import numpy as np

#: format name -> (python package of the flatc-generated schema, file identifier)
FORMATS: dict[str, tuple[str, bytes]] = {
    "tflite": ("tflite", b"TFL3"),
    "circle": ("circle_schema.v0_10.circle", b"CIR0"),
}

QUANT_KEYS = frozenset({"scale", "zero_point", "quantized_dimension", "min", "max"})
SPARSITY_KEYS = frozenset({"traversal_order", "block_map", "dim_metadata"})
#: index vector dtype -> (SparseIndexVector member table, union type)
SPARSE_INDEX_TYPES = {"int32": ("Int32Vector", 1), "uint16": ("Uint16Vector", 2), "uint8": ("Uint8Vector", 3)}

#: Operators whose options table name is not their own name in CamelCase plus "Options".
OP_OPTIONS_EXCEPTIONS: dict[str, str] = {
    **dict.fromkeys(("AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"), "Pool2DOptions"),
    **dict.fromkeys(
        ("MEAN", "SUM", "REDUCE_PROD", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_ANY", "REDUCE_ALL"),
        "ReducerOptions",
    ),
    **dict.fromkeys(("MAXIMUM", "MINIMUM"), "MaximumMinimumOptions"),
    **dict.fromkeys(("RANDOM_UNIFORM", "RANDOM_STANDARD_NORMAL", "MULTINOMIAL"), "RandomOptions"),
    "L2_NORMALIZATION": "L2NormOptions",
    "UNIDIRECTIONAL_SEQUENCE_RNN": "SequenceRNNOptions",
    "CONV_3D_TRANSPOSE": "Conv3DOptions",
}

#: Scalar fields holding an enum value: field name -> enum class name (per-table overrides below).
ENUM_FIELDS: dict[str, str] = {
    "fused_activation_function": "ActivationFunctionType",
    "padding": "Padding",
    "weights_format": "FullyConnectedOptionsWeightsFormat",
    "kernel_type": "LSTMKernelType",
    "type": "LSHProjectionType",
    "combiner": "CombinerType",
    "reduce_function": "ReduceWindowFunction",
    "comparison_direction": "StablehloComparisonDirection",
    "compare_type": "StablehloComparisonType",
    "algorithm": "RngAlgorithm",
    "composite_attributes_format": "CustomOptionsFormat",
    **dict.fromkeys(
        ("output_type", "in_data_type", "out_data_type", "key_dtype", "value_dtype", "out_type",
         "idx_out_type", "quantized_bias_type"),
        "TensorType",
    ),
}
TABLE_ENUM_FIELDS: dict[tuple[str, str], str] = {
    ("MirrorPadOptions", "mode"): "MirrorPadMode",
    ("RoPEOptions", "mode"): "RoPEMode",
}
#: Vector fields: field name -> element dtype (enum vectors: "enum:<EnumClass>").
#: Vectors of ``BuiltinOptions2`` tables not listed here are int64 (StableHLO dimensions).
VECTOR_FIELDS: dict[str, str] = {
    "new_shape": "int32",
    "squeeze_dims": "int32",
    "boundaries": "float32",
    "num_columns_per_channel": "int32",
    "embedding_dim_per_channel": "int32",
    "window_reversal": "bool",
    "precision_config": "enum:StablehloPrecisionConfig",
    "called_computations": "int32",
    "custom_attributes": "uint8",
    "composite_attributes": "uint8",
    "branch_subgraph_indices": "int32",
}
#: Fields holding a string.
STRING_FIELDS: frozenset[str] = frozenset(
    {"container", "shared_name", "location", "signature", "name", "call_target_name", "backend_config"}
)
#: Spelling aliases accepted in both formats (TFLite name <-> Circle name).
FIELD_ALIASES: dict[str, dict[str, str]] = {
    "BatchMatMulOptions": {"adj_x": "adjoint_lhs", "adj_y": "adjoint_rhs",
                           "adjoint_lhs": "adj_x", "adjoint_rhs": "adj_y"},
}
#: Defaults applied when a field is not given, where the schema default (0) is unusable.
CONVENIENCE_DEFAULTS: dict[str, dict[str, Any]] = {
    "Conv2DOptions": {"stride_w": 1, "stride_h": 1},
    "DepthwiseConv2DOptions": {"stride_w": 1, "stride_h": 1},
    "TransposeConvOptions": {"stride_w": 1, "stride_h": 1},
    "Pool2DOptions": {"stride_w": 1, "stride_h": 1},
    "Conv3DOptions": {"stride_d": 1, "stride_w": 1, "stride_h": 1},
    "SoftmaxOptions": {"beta": 1.0},
}


def camel_to_snake(name: str) -> str:
    """``StrideW`` -> ``stride_w``, ``PotScaleInt16`` -> ``pot_scale_int16``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@dataclass(frozen=True)
class FieldSpec:
    """One field of an options table."""

    name: str  # snake_case
    kind: str  # "scalar" | "enum" | "string" | "vector"
    add: Callable[..., Any]  # generated <Table>Add<Field>(builder, value)
    enum: str | None = None  # enum class name (kind "enum", or enum vectors)
    dtype: str | None = None  # vector element dtype


@dataclass(frozen=True)
class OptionsSpec:
    """An options table: which union it belongs to, its union type value and its fields."""

    table: str
    union: str  # "BuiltinOptions" | "BuiltinOptions2"
    union_type: int
    fields: dict[str, FieldSpec]


class Schema:
    """One flatc-generated schema package (TFLite or Circle), with cached lookups."""

    def __init__(self, fmt: str) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; valid formats: {sorted(FORMATS)}")
        self.fmt = fmt
        self.package, self.identifier = FORMATS[fmt]
        self._options: dict[str, OptionsSpec] = {}

    def module(self, table: str) -> ModuleType:
        """The generated module of ``table`` (e.g. ``"Tensor"``)."""
        return importlib.import_module(f"{self.package}.{table}")

    def fn(self, table: str, suffix: str) -> Callable[..., Any]:
        """The generated builder function ``<table><suffix>`` (e.g. ``fn("Tensor", "AddShape")``)."""
        return getattr(self.module(table), table + suffix)

    def enum_members(self, enum: str) -> dict[str, int]:
        """Name -> value of a schema enum (or union type) class."""
        cls = getattr(self.module(enum), enum)
        return {k: v for k, v in vars(cls).items() if not k.startswith("_") and isinstance(v, int)}

    def enum_value(self, enum: str, value: Any, what: str) -> int:
        """``value`` (a member name, case-insensitive, or an int) as an int of ``enum``."""
        if isinstance(value, str):
            members = self.enum_members(enum)
            if value.upper() in members:
                return members[value.upper()]
            raise ValueError(f"{what}: {value!r} is not a {enum}; valid names: {sorted(members)}")
        if isinstance(value, (np.dtype, type)) and enum == "TensorType":
            return self.enum_value(enum, np.dtype(value).name, what)
        return int(value)

    @property
    def builtin_ops(self) -> dict[str, int]:
        """BuiltinOperator name -> code (Circle includes its negative, Circle-only codes)."""
        return _builtin_ops(self.package)

    def op_code(self, op: str) -> int:
        """The BuiltinOperator code of ``op``; ValueError listing valid names if unknown."""
        ops = self.builtin_ops
        if op not in ops:
            near = difflib.get_close_matches(op, list(ops), n=3)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise ValueError(
                f"unknown {self.fmt} operator {op!r}{hint}; use 'CUSTOM:<name>' for custom ops; "
                f"valid names: {', '.join(sorted(ops))}"
            )
        return ops[op]

    def op_options(self, op: str) -> OptionsSpec | None:
        """The options table used by builtin operator ``op``, or None if it takes no options."""
        table = op_options_tables(self.package).get(op)
        if table is None:
            return None
        if table not in self._options:
            self._options[table] = self._load_options(table)
        return self._options[table]

    def _load_options(self, table: str) -> OptionsSpec:
        union = "BuiltinOptions" if table in self.enum_members("BuiltinOptions") else "BuiltinOptions2"
        mod = self.module(table)
        prefix = table + "Add"
        fields: dict[str, FieldSpec] = {}
        for attr, add in vars(mod).items():
            if not attr.startswith(prefix):
                continue
            camel = attr[len(prefix):]
            name = camel_to_snake(camel)
            if hasattr(mod, f"{table}Start{camel}Vector"):
                dtype = VECTOR_FIELDS.get(name, "int64" if union == "BuiltinOptions2" else None)
                if dtype is None:
                    raise RuntimeError(f"{table}.{name}: vector element type unknown")
                enum = dtype[5:] if dtype.startswith("enum:") else None
                fields[name] = FieldSpec(name, "vector", add, enum, "uint32" if enum else dtype)
            elif name in STRING_FIELDS:
                fields[name] = FieldSpec(name, "string", add)
            else:
                enum = TABLE_ENUM_FIELDS.get((table, name), ENUM_FIELDS.get(name))
                fields[name] = FieldSpec(name, "enum" if enum else "scalar", add, enum)
        return OptionsSpec(table, union, self.enum_members(union)[table], fields)

    def resolve_options(self, op: str, spec: OptionsSpec, given: Mapping[str, Any]) -> dict[str, Any]:
        """Validate ``given`` options of ``op`` against ``spec``; return field name -> normalized value."""
        out: dict[str, Any] = {}
        aliases = FIELD_ALIASES.get(spec.table, {})
        for key, value in {**CONVENIENCE_DEFAULTS.get(spec.table, {}), **given}.items():
            name = key if key in spec.fields else aliases.get(key, key)
            if name not in spec.fields:
                raise ValueError(
                    f"{op}: unknown option {key!r} for {spec.table}; "
                    f"valid options: {sorted(spec.fields) or 'none'}"
                )
            if value is None:
                out.pop(name, None)
                continue
            f = spec.fields[name]
            what = f"{op}.{name}"
            if f.kind == "enum":
                value = self.enum_value(f.enum or "", value, what)
            elif f.kind == "string":
                if not isinstance(value, str):
                    raise ValueError(f"{what}: expected a string, got {value!r}")
            elif f.kind == "vector":
                if isinstance(value, (str, bytes)) and f.dtype != "uint8":
                    raise ValueError(f"{what}: expected a list, got {value!r}")
                if isinstance(value, bytes):
                    value = np.frombuffer(value, np.uint8)
                items = [self.enum_value(f.enum, v, what) for v in value] if f.enum else value
                value = np.asarray(items, dtype=f.dtype).reshape(-1)
            elif isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value) > 0:
                raise ValueError(f"{what}: expected a scalar, got {value!r}")
            else:
                value = value.item() if isinstance(value, np.generic) else value
            out[name] = value
        return out

    def write_options(self, b: flatbuffers.Builder, spec: OptionsSpec, values: Mapping[str, Any]) -> int:
        """Write an options table holding resolved ``values``; return its offset."""
        offsets: dict[str, int] = {}
        for name, value in values.items():
            kind = spec.fields[name].kind
            if kind == "string":
                offsets[name] = b.CreateString(value)
            elif kind == "vector":
                offsets[name] = b.CreateNumpyVector(value)
        self.fn(spec.table, "Start")(b)
        for name, value in values.items():
            spec.fields[name].add(b, offsets.get(name, value))
        return self.fn(spec.table, "End")(b)

    def write_quant(self, b: flatbuffers.Builder, q: Mapping[str, Any]) -> int:
        """Write a QuantizationParameters table from a :func:`check_quant` dict; return its offset."""
        s, offs = self, {}
        for key, dt in (("min", np.float32), ("max", np.float32), ("scale", np.float32)):
            if key in q:
                offs[key] = numpy_vector(b, np.atleast_1d(q[key]), dt)
        if "scale" in q or "zero_point" in q:
            zp = np.atleast_1d(q.get("zero_point", 0))
            if zp.size == 1 and "scale" in q:
                zp = np.broadcast_to(zp, np.atleast_1d(q["scale"]).shape)
            offs["zero_point"] = numpy_vector(b, zp, np.int64)
        s.fn("QuantizationParameters", "Start")(b)
        for key, off in offs.items():
            s.fn("QuantizationParameters", {"min": "AddMin", "max": "AddMax", "scale": "AddScale",
                                            "zero_point": "AddZeroPoint"}[key])(b, off)
        s.fn("QuantizationParameters", "AddQuantizedDimension")(b, int(q.get("quantized_dimension", 0)))
        return s.fn("QuantizationParameters", "End")(b)

    def write_sparsity(self, b: flatbuffers.Builder, name: str, sp: Mapping[str, Any]) -> int:
        """Write a SparsityParameters table; return its offset."""
        s = self
        dims = []
        for dm in sp.get("dim_metadata", []):
            idx_offs: dict[str, tuple[int, int]] = {}
            for key, camel in (("array_segments", "ArraySegments"), ("array_indices", "ArrayIndices")):
                if dm.get(key) is not None:
                    arr = np.asarray(dm[key])
                    table, utype = SPARSE_INDEX_TYPES.get(arr.dtype.name, SPARSE_INDEX_TYPES["int32"])
                    vec = numpy_vector(b, arr, np.dtype(table[:-6].lower()))
                    s.fn(table, "Start")(b)
                    s.fn(table, "AddValues")(b, vec)
                    idx_offs[camel] = (utype, s.fn(table, "End")(b))
            s.fn("DimensionMetadata", "Start")(b)
            fmt = s.enum_value("DimensionType", dm.get("format", "DENSE"), f"{name}.format")
            s.fn("DimensionMetadata", "AddFormat")(b, fmt)
            s.fn("DimensionMetadata", "AddDenseSize")(b, int(dm.get("dense_size", 0)))
            for camel, (utype, off) in idx_offs.items():
                s.fn("DimensionMetadata", f"Add{camel}Type")(b, utype)
                s.fn("DimensionMetadata", f"Add{camel}")(b, off)
            dims.append(s.fn("DimensionMetadata", "End")(b))
        order = numpy_vector(b, sp.get("traversal_order", range(len(dims))), np.int32)
        block_map = numpy_vector(b, sp["block_map"], np.int32) if sp.get("block_map") is not None else None
        dim_vec = offset_vector(b, dims)
        s.fn("SparsityParameters", "Start")(b)
        s.fn("SparsityParameters", "AddTraversalOrder")(b, order)
        if block_map is not None:
            s.fn("SparsityParameters", "AddBlockMap")(b, block_map)
        s.fn("SparsityParameters", "AddDimMetadata")(b, dim_vec)
        return s.fn("SparsityParameters", "End")(b)


@lru_cache(maxsize=None)
def _builtin_ops(package: str) -> dict[str, int]:
    cls = importlib.import_module(f"{package}.BuiltinOperator").BuiltinOperator
    return {k: v for k, v in vars(cls).items() if not k.startswith("_") and isinstance(v, int)}


@lru_cache(maxsize=None)
def op_options_tables(package: str) -> dict[str, str]:
    """BuiltinOperator name -> options table name, for every operator that has one.

    Both options unions are covered: ``BuiltinOptions`` and ``BuiltinOptions2`` (StableHLO ops,
    DILATE, REDUCE_WINDOW).
    """
    tables: list[str] = []
    for union in ("BuiltinOptions", "BuiltinOptions2"):
        cls = importlib.import_module(f"{package}.{union}").__dict__[union]
        tables += [k for k in vars(cls) if not k.startswith("_") and k != "NONE"]
    by_key = {t[: -len("Options")].lower(): t for t in tables}
    out: dict[str, str] = {}
    for op in _builtin_ops(package):
        table = OP_OPTIONS_EXCEPTIONS.get(op) or by_key.get(op.replace("_", "").lower())
        if table in tables:
            out[op] = table
    return out


def check_sparsity(name: str, sparsity: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A copy of a constant's sparsity dict; ValueError on keys outside :data:`SPARSITY_KEYS`."""
    if sparsity is None:
        return None
    unknown = set(sparsity) - SPARSITY_KEYS
    if unknown:
        raise ValueError(f"{name}: unknown sparsity keys {sorted(unknown)}; valid: {sorted(SPARSITY_KEYS)}")
    return dict(sparsity)


def check_quant(name: str, quant: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A copy of a tensor's quantization dict; ValueError on keys outside :data:`QUANT_KEYS`."""
    if quant is None:
        return None
    unknown = set(quant) - QUANT_KEYS
    if unknown:
        raise ValueError(f"{name}: unknown quantization keys {sorted(unknown)}; valid: {sorted(QUANT_KEYS)}")
    return dict(quant)


def encode_strings(arr: np.ndarray) -> bytes:
    """TFLite string tensor layout: int32 count, count+1 int32 offsets, then the bytes."""
    items = [s if isinstance(s, bytes) else str(s).encode() for s in arr.reshape(-1).tolist()]
    header = 4 * (len(items) + 2)
    offsets = np.cumsum([header] + [len(s) for s in items]).astype("<i4")
    return np.array([len(items)], "<i4").tobytes() + offsets.tobytes() + b"".join(items)


def numpy_vector(b: flatbuffers.Builder, values: Any, dtype: Any) -> int:
    """Write ``values`` as a flat vector of ``dtype``; return its offset."""
    return b.CreateNumpyVector(np.asarray(list(values) if isinstance(values, range) else values,
                                          dtype=dtype).reshape(-1))


def offset_vector(b: flatbuffers.Builder, offsets: Sequence[int]) -> int:
    """Write a vector of table offsets; return its offset."""
    b.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()
