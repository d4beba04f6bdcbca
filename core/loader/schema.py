"""The two flatbuffer schemas onert_py reads (TFLite and Circle) behind one small interface.

Tables are read with core/loader/flatbuf.py from the field layouts and enum tables that
tools/gen_schema_tables.py precomputes from the generated `tflite` and `circle-schema` packages
(schema_tables.py): loading a model imports neither package.
"""
from __future__ import annotations

import re
import struct
from functools import lru_cache
from typing import Any, NamedTuple

from ..ir.dtypes import type_name
from ..ir.op_catalog import CIRCLE_EXTRA_CODES
from .flatbuf import Table
from .schema_tables import ENUMS, FIELDS, OPTIONS

#: One field of a table: (snake name, vtable offset, kind, default); see flatbuf.Table.field.
Field = tuple[str, int, str, Any]


class Schema(NamedTuple):
    """One flatbuffer schema: its generated package, file identifier and enum tables."""

    fmt: str
    package: str
    identifier: bytes

    def fields(self, table: str) -> tuple[Field, ...]:
        """The fields of table `table` (e.g. "Tensor", "Conv2DOptions"), by vtable offset."""
        return _fields(self.package, table)

    def layout(self, table: str) -> dict[str, Field]:
        """The fields of `table` by name."""
        return _layout(self.package, table)

    @property
    def builtin_names(self) -> dict[int, str]:
        return _enum_names(self.package, "BuiltinOperator")

    @property
    def option_names(self) -> dict[int, str]:
        return _enum_names(self.package, "BuiltinOptions")


TFLITE = Schema("tflite", "tflite", b"TFL3")
CIRCLE = Schema("circle", "circle_schema.v0_10.circle", b"CIR0")
SCHEMAS = (TFLITE, CIRCLE)


def _fields(package: str, table: str) -> tuple[Field, ...]:
    """A table's fields: the schema's own where they differ from TFLite's, else TFLite's."""
    own = FIELDS.get(package, {}).get(table)
    return own if own is not None else FIELDS[TFLITE.package][table]


@lru_cache(maxsize=None)
def _layout(package: str, table: str) -> dict[str, Field]:
    return {f[0]: f for f in _fields(package, table)}


@lru_cache(maxsize=None)
def _enum_names(package: str, enum: str) -> dict[int, str]:
    """{value: name} of a schema enum (precomputed: schema_tables.py)."""
    names = dict(ENUMS.get((package, enum)) or {})
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


def read_table_fields(schema: Schema, table: Table, table_name: str) -> dict[str, Any]:
    """Every field of an options table as {snake_name: value}: scalars (enums by name),
    strings, and vectors as lists; absent fields have the schema's defaults."""
    values: dict[str, Any] = {}
    for f in schema.fields(table_name):
        key = f[0]
        value = table.field(f)
        enum = TABLE_ENUM_FIELDS.get((table_name, key), ENUM_FIELDS.get(key))
        if enum is not None and isinstance(value, int):
            name = enum_name(schema, enum, value)
            if name is None:
                raise ValueError(f"{table_name}.{key} has the value {value}, which is not a "
                                 f"{enum}")
            value = name
        elif isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        elif hasattr(value, "tolist"):
            value = value.tolist()
        values[key] = value
    return values


def enum_name(schema: Schema, enum: str, value: int) -> str | None:
    """The member name of an enum value, None when the enum has no such value."""
    if enum == "TensorType":
        name = type_name(value)
        return None if name.startswith("UNKNOWN") else name
    return _enum_names(schema.package, enum).get(value)


def options_table(schema: Schema, builtin: str) -> str | None:
    """The BuiltinOptions table that operator `builtin` takes, or None (no options, or a
    BuiltinOptions2 table)."""
    return OPTIONS[schema.package].get(builtin)


#: A table with no fields set: read as any table, it gives every field's default. (A root
#: offset to the table at byte 8, its vtable at byte 4: 4 bytes long, an empty 4-byte object.)
EMPTY_TABLE = Table(struct.pack("<IHHi", 8, 4, 4, 4), 8)
