"""The loader's view of a flatbuffer: the `flatbuffers` library's own table reader
(flatbuffers.table.Table: vtable lookups, scalars, vectors, strings, unions), driven by field
layouts precomputed from the published schema packages (schema_tables.FIELDS), instead of the
`tflite` / `circle_schema` packages' generated classes. Importing those packages (hundreds of
generated modules) and calling their accessors field by field cost a fresh process about
30 ms and MobileNetV2's load 40-60 ms; this reads the same fields in a few ms.

A field is given as (name, vtable offset, kind, default), the rows of schema_tables.FIELDS.
Kinds: a struct format character ("b", "i", "f", "?", ...) for a scalar, "[" + one for a
vector of scalars, "s" string, "t" table, "T" vector of tables, "u" a union's value (a table).

Every position is checked before it is read: a table whose vtable lies outside the buffer, a
vector or string running past its end raise IndexError (struct and NumPy raise struct.error /
ValueError on other reads past the end); the loader turns these into ModelLoadError.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
from flatbuffers import number_types as N
from flatbuffers.table import Table as _FbTable

FLAGS = {"?": N.BoolFlags, "b": N.Int8Flags, "B": N.Uint8Flags, "h": N.Int16Flags,
         "H": N.Uint16Flags, "i": N.Int32Flags, "I": N.Uint32Flags, "q": N.Int64Flags,
         "Q": N.Uint64Flags, "f": N.Float32Flags, "d": N.Float64Flags}
DTYPES = {k: np.dtype("<" + k) for k in FLAGS}
_I32 = struct.Struct("<i")


class Table:
    """One table of a flatbuffer (a flatbuffers.table.Table), read by field layout."""

    __slots__ = ("fb", "size", "_vt", "_vt_len")

    def __init__(self, buf: Any, pos: int) -> None:
        size = len(buf)
        vt = pos - _I32.unpack_from(buf, pos)[0] if 0 <= pos <= size - 4 else -1
        if vt < 0 or vt > size - 4:
            raise IndexError(f"the table at byte {pos} has its vtable at byte {vt}, outside the "
                             f"buffer")
        self.fb, self.size = _FbTable(buf, pos), size
        self._vt, self._vt_len = vt, self.fb.Get(N.VOffsetTFlags, vt)

    @property
    def buf(self) -> Any:
        return self.fb.Bytes

    def _offset(self, f: tuple) -> int:
        """The field's offset from the table's start, 0 when absent: flatbuffers' Table.Offset
        with the vtable found once per table instead of once per field."""
        voff = f[1]
        return self.fb.Get(N.VOffsetTFlags, self._vt + voff) if voff < self._vt_len else 0

    def scalar(self, f: tuple) -> Any:
        o = self._offset(f)
        return self.fb.Get(FLAGS[f[2]], self.fb.Pos + o) if o else f[3]

    def table(self, f: tuple) -> Table | None:
        """A table field ("t") or a union's value ("u"); None when absent."""
        o = self._offset(f)
        return Table(self.fb.Bytes, self.fb.Indirect(self.fb.Pos + o)) if o else None

    def length(self, f: tuple) -> int:
        """The declared length of vector field `f` (0 when absent), not yet checked."""
        o = self._offset(f)
        return self.fb.VectorLen(o) if o else 0

    def _vector(self, o: int, item: int) -> tuple[int, int]:
        """(position of element 0, length) of the vector at field offset o, checked to lie
        inside the buffer for elements of `item` bytes."""
        start, n = self.fb.Vector(o), self.fb.VectorLen(o)
        if start + item * n > self.size:
            raise IndexError(f"a vector at byte {start} of {n} elements runs past the "
                             f"buffer's end")
        return start, n

    def array(self, f: tuple) -> np.ndarray:
        """A vector of scalars ("[i", "[f", ...) as a read-only NumPy view (empty when absent)."""
        dt = DTYPES[f[2][1]]
        o = self._offset(f)
        if not o:
            return np.zeros(0, dt)
        start, n = self._vector(o, dt.itemsize)
        return np.frombuffer(self.fb.Bytes, dt, n, start) if n else np.zeros(0, dt)

    def tables(self, f: tuple) -> list[Table]:
        """The tables of a vector of tables ("T")."""
        o = self._offset(f)
        if not o:
            return []
        start, n = self._vector(o, 4)
        buf, indirect = self.fb.Bytes, self.fb.Indirect
        return [Table(buf, indirect(start + 4 * i)) for i in range(n)]

    def string(self, f: tuple) -> bytes | None:
        o = self._offset(f)
        if not o:
            return None
        self._vector(o, 1)
        return bytes(self.fb.String(self.fb.Pos + o))

    def field(self, f: tuple) -> Any:
        """Field `f` by its kind: a scalar, bytes or None (string), a NumPy array (vector of
        scalars), a Table or None (table, union value), a list of Tables."""
        kind = f[2]
        if kind in FLAGS:
            return self.scalar(f)
        if kind == "s":
            return self.string(f)
        if kind in ("t", "u"):
            return self.table(f)
        if kind == "T":
            return self.tables(f)
        if kind[0] == "[" and kind[1:] in DTYPES:
            return self.array(f)
        raise ValueError(f"field {f[0]} has kind {kind!r}, which this reader does not read")
