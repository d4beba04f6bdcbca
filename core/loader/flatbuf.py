"""A small flatbuffer reader: what the loader needs of the format, read with `struct` and NumPy
straight from the file's bytes (bytes, mmap or memoryview).

A table starts with a signed 32-bit offset back to its vtable; the vtable holds its own length,
the table's length, then one unsigned 16-bit offset per field (0: absent, the field has its
default). Offsets to tables, vectors and strings are unsigned 32-bit, relative to where they are
stored; a vector or string starts with its 32-bit length (flatbuffers' binary format,
https://flatbuffers.dev/internals/). A field is given as (name, vtable offset, kind, default),
the rows of schema_tables.FIELDS. Kinds: a struct format character ("b", "i", "f", "?", ...)
for a scalar, "[" + one for a vector of scalars, "s" string, "t" table, "T" vector of tables,
"u" a union's value (a table).

Every position read is inside the buffer: struct and NumPy raise (struct.error, ValueError) on
a read past its end, and a table whose vtable would lie before the buffer's start raises
IndexError; the loader turns these into ModelLoadError.
"""
from __future__ import annotations

import struct
from typing import Any

import numpy as np

_U16 = struct.Struct("<H")
_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")
SCALARS = {k: struct.Struct("<" + k) for k in "?bBhHiIqQfd"}
DTYPES = {k: np.dtype("<" + k) for k in "?bBhHiIqQfd"}


class Table:
    """One table of a flatbuffer: the buffer and the table's position in it."""

    __slots__ = ("buf", "pos", "_vt", "_vt_len")

    def __init__(self, buf: Any, pos: int) -> None:
        vt = pos - _I32.unpack_from(buf, pos)[0]
        if pos < 0 or vt < 0:
            raise IndexError(f"the table at byte {pos} has its vtable at byte {vt}, outside the "
                             f"buffer")
        self.buf, self.pos, self._vt = buf, pos, vt
        self._vt_len = _U16.unpack_from(buf, vt)[0]

    def _at(self, voff: int) -> int:
        """The position of the field at vtable offset `voff`; 0 when the table lacks it."""
        if voff >= self._vt_len:
            return 0
        o = _U16.unpack_from(self.buf, self._vt + voff)[0]
        return self.pos + o if o else 0

    def _deref(self, p: int) -> int:
        return p + _U32.unpack_from(self.buf, p)[0]

    def scalar(self, f: tuple) -> Any:
        p = self._at(f[1])
        return SCALARS[f[2]].unpack_from(self.buf, p)[0] if p else f[3]

    def table(self, f: tuple) -> Table | None:
        """A table field ("t") or a union's value ("u"); None when absent."""
        p = self._at(f[1])
        return Table(self.buf, self._deref(p)) if p else None

    def vector(self, f: tuple) -> tuple[int, int]:
        """(position of element 0, length) of a vector field; (0, 0) when absent."""
        p = self._at(f[1])
        if not p:
            return 0, 0
        start = self._deref(p)
        return start + 4, _U32.unpack_from(self.buf, start)[0]

    def array(self, f: tuple) -> np.ndarray:
        """A vector of scalars ("[i", "[f", ...) as a read-only NumPy view (empty when absent)."""
        start, n = self.vector(f)
        return np.frombuffer(self.buf, DTYPES[f[2][1]], n, start) if n else \
            np.zeros(0, DTYPES[f[2][1]])

    def tables(self, f: tuple) -> list[Table]:
        """The tables of a vector of tables ("T")."""
        start, n = self.vector(f)
        if start + 4 * n > len(self.buf):
            raise IndexError(f"a vector at byte {start} of {n} tables runs past the buffer's end")
        return [Table(self.buf, self._deref(start + 4 * i)) for i in range(n)]

    def string(self, f: tuple) -> bytes | None:
        p = self._at(f[1])
        if not p:
            return None
        start = self._deref(p)
        n = _U32.unpack_from(self.buf, start)[0]
        if start + 4 + n > len(self.buf):
            raise IndexError(f"a string at byte {start} of {n} bytes runs past the buffer's end")
        return bytes(self.buf[start + 4:start + 4 + n])

    def field(self, f: tuple) -> Any:
        """Field `f` by its kind: a scalar, bytes or None (string), a NumPy array (vector of
        scalars), a Table or None (table, union value), a list of Tables."""
        kind = f[2]
        if kind in SCALARS:
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
