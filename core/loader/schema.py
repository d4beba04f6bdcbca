"""The two flatbuffer schemas onert_py reads (TFLite and Circle) behind one small interface."""
from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any, Callable

import flatbuffers
import numpy as np
from flatbuffers.table import Table

from ..ir.dtypes import type_name
from ..ir.op_catalog import CIRCLE_EXTRA_CODES


@dataclass(frozen=True)
class Schema:
    """One flatbuffer schema: its generated package, file identifier and enum tables."""

    fmt: str
    package: str
    identifier: bytes

    def cls(self, name: str) -> type:
        """The generated class `name` (e.g. "Model", "Conv2DOptions") of this schema."""
        return _schema_class(self.package, name)

    @property
    def builtin_names(self) -> dict[int, str]:
        return _enum_names(self.package, "BuiltinOperator")

    @property
    def option_names(self) -> dict[int, str]:
        return _enum_names(self.package, "BuiltinOptions")


TFLITE = Schema("tflite", "tflite", b"TFL3")
CIRCLE = Schema("circle", "circle_schema.v0_10.circle", b"CIR0")
SCHEMAS = (TFLITE, CIRCLE)


@lru_cache(maxsize=None)
def _schema_class(package: str, name: str) -> type:
    module = importlib.import_module(f"{package}.{name}")
    return getattr(module, name)


@lru_cache(maxsize=None)
def _enum_names(package: str, enum: str) -> dict[int, str]:
    cls = _schema_class(package, enum)
    names = {v: k for k, v in vars(cls).items() if not k.startswith("_") and isinstance(v, int)}
    if enum == "BuiltinOperator":
        for code, name in CIRCLE_EXTRA_CODES.items():
            names.setdefault(code, name)
    return names


def snake(name: str) -> str:
    """FusedActivationFunction -> fused_activation_function."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


# Option fields whose integer values are schema enums: field -> (enum class name | "TensorType")
ENUM_FIELDS = {
    "fused_activation_function": "ActivationFunctionType",
    "padding": "Padding",
    "weights_format": "FullyConnectedOptionsWeightsFormat",
    "mode": "MirrorPadMode",
    "combiner": "CombinerType",
    "in_data_type": "TensorType", "out_data_type": "TensorType", "output_type": "TensorType",
    "idx_out_type": "TensorType",
}

# Same field name, another enum, in one table: (table, field) -> enum class name
TABLE_ENUM_FIELDS = {("RoPEOptions", "mode"): "RoPEMode"}

_SKIP = ("GetRootAs",)
_SUFFIXES = ("IsNone", "Length", "AsNumpy", "BufferHasIdentifier")


@lru_cache(maxsize=None)
def _getters(cls: type) -> tuple[tuple[str, str, bool, bool], ...]:
    """(snake name, method name, is vector, has AsNumpy) for each field getter of an options class."""
    methods = {n for n, _ in inspect.getmembers(cls, inspect.isfunction)}
    out = []
    for n in sorted(methods):
        if n == "Init" or n.startswith(_SKIP) or n.endswith(_SUFFIXES):
            continue
        is_vec = f"{n}Length" in methods
        out.append((snake(n), n, is_vec, f"{n}AsNumpy" in methods))
    return tuple(out)


def read_table_fields(schema: Schema, table: Any, cls_name: str) -> dict[str, Any]:
    """Every field of an options table as {snake_name: value}, enums by name."""
    cls = schema.cls(cls_name)
    obj = cls()
    obj.Init(table.Bytes, table.Pos)
    values: dict[str, Any] = {}
    for key, meth, is_vec, has_np in _getters(cls):
        if is_vec:
            n = getattr(obj, meth + "Length")()
            if has_np and n:
                values[key] = [v.item() for v in getattr(obj, meth + "AsNumpy")()]
            else:
                values[key] = [getattr(obj, meth)(j) for j in range(n)]
            continue
        value = getattr(obj, meth)()
        enum = TABLE_ENUM_FIELDS.get((cls_name, key), ENUM_FIELDS.get(key))
        if enum is not None and isinstance(value, int):
            name = enum_name(schema, enum, value)
            if name is None:
                raise ValueError(f"{cls_name}.{key} has the value {value}, which is not a "
                                 f"{enum}")
            value = name
        elif isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        values[key] = value
    return values


def enum_name(schema: Schema, enum: str, value: int) -> str | None:
    """The member name of an enum value, None when the enum has no such value."""
    if enum == "TensorType":
        name = type_name(value)
        return None if name.startswith("UNKNOWN") else name
    return _enum_names(schema.package, enum).get(value)


def vector(getter: Callable[[], Any]) -> np.ndarray:
    """A numeric vector field as a NumPy array (empty when absent)."""
    arr = getter()
    return arr if isinstance(arr, np.ndarray) else np.zeros(0, np.int32)


def module(schema: Schema, name: str) -> ModuleType:
    return importlib.import_module(f"{schema.package}.{name}")


@lru_cache(maxsize=None)
def _options_tables(package: str) -> dict[str, str]:
    from onert_py._schema_options import op_options_tables
    union = _enum_names(package, "BuiltinOptions")
    return {op: t for op, t in op_options_tables(package).items() if t in union.values()}


def options_table(schema: Schema, builtin: str) -> str | None:
    """The BuiltinOptions table that operator `builtin` takes, or None (no options, or a
    BuiltinOptions2 table)."""
    return _options_tables(schema.package).get(builtin)


def _empty_table() -> Table:
    """A table with no fields set: reading it through any options class gives the defaults."""
    b = flatbuffers.Builder(16)
    b.StartObject(0)
    b.Finish(b.EndObject())
    buf = bytes(b.Output())
    return Table(buf, int.from_bytes(buf[:4], "little"))


EMPTY_TABLE = _empty_table()
