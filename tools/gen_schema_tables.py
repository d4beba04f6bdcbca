"""Write core/loader/schema_tables.py: the enum tables of the TFLite and Circle schema packages
(operator codes, options unions, option enums) and the field layout of every table the loader
reads, precomputed so that loading a model imports neither generated package (importing
`tflite` alone costs ~30 ms). tests/test_schema_tables.py checks the file against the
installed packages; run this after upgrading `tflite` or `circle-schema`:
python tools/gen_schema_tables.py
"""
from __future__ import annotations

import importlib
import inspect
import re
import textwrap
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT.parent))


def reflected(package: str, enum: str) -> dict[int, str]:
    """{value: member name} of a generated enum class, read by reflection."""
    cls = getattr(importlib.import_module(f"{package}.{enum}"), enum)
    return {v: k for k, v in sorted(vars(cls).items(), key=lambda kv: str(kv[1]))
            if not k.startswith("_") and isinstance(v, int)}


def tables() -> dict[tuple[str, str], dict[int, str]]:
    from onert_py.core.loader.schema import ENUM_FIELDS, SCHEMAS, TABLE_ENUM_FIELDS
    enums = sorted({"BuiltinOperator", "BuiltinOptions", "BuiltinOptions2",
                    *ENUM_FIELDS.values(), *TABLE_ENUM_FIELDS.values()} - {"TensorType"})
    out = {}
    for schema in SCHEMAS:
        for enum in enums:
            try:
                out[(schema.package, enum)] = dict(sorted(reflected(schema.package, enum).items()))
            except (ImportError, AttributeError):
                continue          # an enum this schema version does not have
    return out


def options() -> dict[str, dict[str, str]]:
    """{package: {BuiltinOperator name: its BuiltinOptions table}} (the loader's view)."""
    from onert_py._schema_options import op_options_tables
    from onert_py.core.loader.schema import SCHEMAS
    out = {}
    for schema in SCHEMAS:
        union = reflected(schema.package, "BuiltinOptions")
        out[schema.package] = {op: t for op, t in sorted(op_options_tables(schema.package).items())
                               if t in union.values()}
    return out


# the tables the loader reads besides the BuiltinOptions union's members
CORE_TABLES = ("Model", "SubGraph", "Tensor", "Operator", "OperatorCode", "Buffer",
               "QuantizationParameters", "SparsityParameters", "DimensionMetadata",
               "Int32Vector", "Uint16Vector", "Uint8Vector")
# builder.Prepend<Kind>Slot -> struct format of the field
KINDS = {"Bool": "?", "Int8": "b", "Uint8": "B", "Int16": "h", "Uint16": "H", "Int32": "i",
         "Uint32": "I", "Int64": "q", "Uint64": "Q", "Float32": "f", "Float64": "d"}


class _Recorder:
    """Stands in for a flatbuffers.Builder: records the one Prepend<Kind>Slot call made."""

    def __getattr__(self, method: str):
        def record(slot, _value, default):
            self.call = (method, slot, default)
        return record


def table_fields(package: str, table: str) -> tuple[tuple, ...]:
    """(snake name, vtable offset, kind, default) of every field of a generated table, by
    vtable offset. Kind: a struct format ("b", "i", "f", "?", ...) for scalars, "[x" for a
    vector of them, "s" string, "[s" vector of strings, "t" table, "T" vector of tables, "u"
    union value. Offset and default come from the generated builder (`<Table>Add<Field>`:
    builder.Prepend<Kind>Slot(slot, value, default)), the kind of offset fields from the
    getter's body."""
    from onert_py.core.loader.schema import snake
    module = importlib.import_module(f"{package}.{table}")
    cls = getattr(module, table)
    out = []
    for name, fn in vars(cls).items():
        add = getattr(module, f"{table}Add{name}", None)
        if not inspect.isfunction(fn) or add is None:
            continue
        rec = _Recorder()
        add(rec, 0)
        method, slot, default = rec.call
        src = inspect.getsource(fn)
        vec = re.search(r"def \w+\(self, j\)", src) is not None
        if method != "PrependUOffsetTRelativeSlot":
            kind = KINDS[method[len("Prepend"):-len("Slot")]]
            default = bool(default) if kind == "?" else default
        elif "Union(" in src:
            kind, default = "u", None
        elif "Indirect(" in src:
            kind, default = ("T" if vec else "t"), None
        elif "String(" in src:
            kind, default = ("[s" if vec else "s"), None
        else:
            flags = re.search(r"number_types\.(\w+)Flags, a ", src)
            if not (vec and flags):
                raise ValueError(f"{package}.{table}.{name}: a field of unknown kind")
            kind, default = "[" + KINDS[flags.group(1)], None
        out.append((snake(name), 4 + 2 * slot, kind, default))
    return tuple(sorted(out, key=lambda f: f[1]))


def fields() -> dict[str, dict[str, tuple]]:
    """{package: {table: fields}}: every table for TFLite; for the other schemas, only the
    tables whose fields differ from TFLite's (the loader falls back to TFLite's)."""
    from onert_py.core.loader.schema import SCHEMAS, TFLITE
    out: dict[str, dict[str, tuple]] = {}
    for schema in SCHEMAS:
        union = set(reflected(schema.package, "BuiltinOptions").values()) - {"NONE"}
        tables = {t: table_fields(schema.package, t) for t in sorted({*CORE_TABLES, *union})}
        base = out.get(TFLITE.package, {})
        out[schema.package] = {t: f for t, f in tables.items() if base.get(t) != f}
    return out


def _mapping(table: dict) -> str:
    """`table` as a dict literal: one entry per key, its value's items wrapped at 99 columns
    (a few lines per enum, where pprint gives a line per member)."""
    lines = ["{"]
    for key in sorted(table):
        text = f"{key!r}: {table[key]!r},"
        lines += textwrap.wrap(text, 95, initial_indent="    ", subsequent_indent="        ",
                               break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines + ["}"])


def source() -> str:
    enums = _mapping(tables())
    opts = _mapping(options())
    layout = "{\n" + "".join(f"    {p!r}: {_mapping(t)},\n".replace("\n    ", "\n        ")
                             .replace("\n}", "\n    }") for p, t in fields().items()) + "}"
    return ('"""Generated by tools/gen_schema_tables.py from the installed `tflite` and '
            '`circle-schema`\npackages: do not edit. ENUMS: {(package, enum): {value: member '
            'name}}; OPTIONS:\n{package: {operator: options table}}; FIELDS: {package: {table: '
            '((field, vtable offset,\nkind, default), ...)}} (other packages list only the '
            'tables that differ from TFLite\'s)."""'
            f"\n\nENUMS = {enums}\n\nOPTIONS = {opts}\n\nFIELDS = {layout}\n")


if __name__ == "__main__":
    path = ROOT / "core" / "loader" / "schema_tables.py"
    path.write_text(source(), encoding="utf-8")
    print(f"wrote {path}")
