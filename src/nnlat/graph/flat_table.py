"""A fast reader of flatbuffer tables, for the bulk parts of a TFLite file.

The ``tflite`` package's generated accessors read one field through five Python calls
(vtable lookup, type checks, ``struct`` unpacking), which made reading the tensor table
a third of loading a ``.tflite`` model. :class:`FlatTable` reads a field with two or
three ``struct`` unpacks and a vector with one ``numpy.frombuffer``; the TFLite reader
uses it for tensors, operators' tensor lists and buffers, and keeps the generated
classes for what is read rarely (operator codes, builtin options).

Reads past the end of the buffer raise :class:`struct.error` or :class:`ValueError`,
as the generated accessors do: the caller reports a truncated file.

The flatbuffer format (https://flatbuffers.dev/internals/): a table starts with a signed
offset back to its vtable; the vtable holds its own size, then one ``uint16`` offset per
field slot (0 = absent, read the default). Offsets to sub-tables, vectors and strings
are ``uint32`` relative to where they are stored; a vector starts with its length.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

_I32 = struct.Struct("<i").unpack_from
_U32 = struct.Struct("<I").unpack_from
_U16 = struct.Struct("<H").unpack_from


class FlatTable:
    """One table of a flatbuffer: its fields by slot number (0 = the first field).

    Example:
        >>> import flatbuffers
        >>> b = flatbuffers.Builder(0)
        >>> b.StartObject(2); b.PrependInt32Slot(1, 7, 0); end = b.EndObject()
        >>> _ = b.Finish(end)
        >>> table = FlatTable.root(bytes(b.Output()))
        >>> table.scalar(1, "<i", 0), table.scalar(0, "<i", -1)
        (7, -1)
    """

    __slots__ = ("_vtable", "_vtable_size", "buf", "pos")

    def __init__(self, buf: bytes, pos: int) -> None:
        self.buf = buf
        self.pos = pos
        self._vtable = pos - _I32(buf, pos)[0]
        self._vtable_size = _U16(buf, self._vtable)[0]

    @classmethod
    def root(cls, buf: bytes) -> FlatTable:
        """The root table of a whole flatbuffer."""
        return cls(buf, _U32(buf, 0)[0])

    def _field(self, slot: int) -> int:
        """The field's position in the buffer, or 0 when the field is absent."""
        entry = 4 + 2 * slot
        if entry >= self._vtable_size:
            return 0
        offset = _U16(self.buf, self._vtable + entry)[0]
        return self.pos + offset if offset else 0

    def scalar(self, slot: int, fmt: str, default: Any) -> Any:
        """A scalar field (``struct`` format such as ``"<I"``), or ``default``."""
        at = self._field(slot)
        return struct.unpack_from(fmt, self.buf, at)[0] if at else default

    def table(self, slot: int) -> FlatTable | None:
        """A sub-table field, or None."""
        at = self._field(slot)
        return FlatTable(self.buf, at + _U32(self.buf, at)[0]) if at else None

    def _vector(self, slot: int) -> tuple[int, int]:
        """(position of the first element, length) of a vector field; (0, 0) if absent."""
        at = self._field(slot)
        if not at:
            return 0, 0
        start = at + _U32(self.buf, at)[0]
        return start + 4, _U32(self.buf, start)[0]

    def array(self, slot: int, dtype: str) -> np.ndarray:
        """A vector of scalars (numpy dtype such as ``"<i4"``); empty when absent."""
        start, length = self._vector(slot)
        return np.frombuffer(self.buf, dtype=dtype, count=length, offset=start)

    def tables(self, slot: int) -> list[FlatTable]:
        """A vector of tables; empty when absent."""
        start, length = self._vector(slot)
        buf = self.buf
        return [FlatTable(buf, at + _U32(buf, at)[0]) for at in range(start, start + 4 * length, 4)]

    def string(self, slot: int) -> bytes:
        """A string field's bytes; empty when absent."""
        start, length = self._vector(slot)
        if start + length > len(self.buf):
            raise ValueError("string past the end of the buffer")
        return self.buf[start : start + length]

    def vector_end(self, slot: int, itemsize: int) -> int:
        """The position just after a vector field's last byte (0 when absent)."""
        start, length = self._vector(slot)
        return start + itemsize * length if start else 0
