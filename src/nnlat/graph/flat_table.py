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

import functools
import struct
from typing import Any

import numpy as np

_I32 = struct.Struct("<i").unpack_from
_U32 = struct.Struct("<I").unpack_from
_U16 = struct.Struct("<H").unpack_from


@functools.lru_cache(maxsize=4096)
def _compiled(fmt: str) -> struct.Struct:
    """A compiled ``struct`` format. ``struct``'s own cache holds 100 formats and is
    emptied whole when full, so code that unpacks many formats (torch, numpy) can make
    every ``struct.unpack_from(fmt, ...)`` compile its format again."""
    return struct.Struct(fmt)


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

    def fields(self, count: int) -> tuple[int, ...]:
        """The positions of the first ``count`` fields (0 for an absent one), read with
        one unpack: for tables read field after field, such as a model's tensors; read
        them with the ``*_at`` functions of this module."""
        present = min(count, (self._vtable_size - 4) // 2)
        offsets = _compiled(f"<{present}H").unpack_from(self.buf, self._vtable + 4)
        pos = self.pos
        return tuple(pos + o if o else 0 for o in offsets) + (0,) * (count - present)

    def scalar(self, slot: int, fmt: str, default: Any) -> Any:
        """A scalar field (``struct`` format such as ``"<I"``), or ``default``."""
        return scalar_at(self.buf, self._field(slot), fmt, default)

    def table(self, slot: int) -> FlatTable | None:
        """A sub-table field, or None."""
        return table_at(self.buf, self._field(slot))

    def _vector(self, slot: int) -> tuple[int, int]:
        """(position of the first element, length) of a vector field; (0, 0) if absent."""
        return vector_at(self.buf, self._field(slot))

    def array(self, slot: int, dtype: str) -> np.ndarray:
        """A vector of scalars (numpy dtype such as ``"<i4"``); empty when absent."""
        start, length = self._vector(slot)
        return np.frombuffer(self.buf, dtype=dtype, count=length, offset=start)

    def values(self, slot: int, code: str) -> tuple[Any, ...]:
        """A vector of scalars as Python numbers (``struct`` code such as ``"i"``, read
        little-endian); empty when absent. One ``struct`` unpack: for the short vectors
        of a model (shapes, operator inputs) faster than :meth:`array` and ``tolist``."""
        return values_at(self.buf, self._field(slot), code)

    def tables(self, slot: int) -> list[FlatTable]:
        """A vector of tables; empty when absent."""
        start, length = self._vector(slot)
        buf = self.buf
        return [FlatTable(buf, at + _U32(buf, at)[0]) for at in range(start, start + 4 * length, 4)]

    def string(self, slot: int) -> bytes:
        """A string field's bytes; empty when absent."""
        return string_at(self.buf, self._field(slot))

    def vector_end(self, slot: int, itemsize: int) -> int:
        """The position just after a vector field's last byte (0 when absent)."""
        start, length = self._vector(slot)
        return start + itemsize * length if start else 0


def scalar_at(buf: bytes, at: int, fmt: str, default: Any) -> Any:
    """The scalar stored at ``at`` (``struct`` format such as ``"<I"``; 0: ``default``)."""
    return _compiled(fmt).unpack_from(buf, at)[0] if at else default


def vector_at(buf: bytes, at: int) -> tuple[int, int]:
    """(position of the first element, length) of the vector whose offset is stored at
    ``at``; (0, 0) when ``at`` is 0 (absent)."""
    if not at:
        return 0, 0
    start = at + _U32(buf, at)[0]
    return start + 4, _U32(buf, start)[0]


def values_at(buf: bytes, at: int, code: str) -> tuple[Any, ...]:
    """The vector of scalars whose offset is stored at ``at`` (0: absent, empty)."""
    start, length = vector_at(buf, at)
    return _compiled(f"<{length}{code}").unpack_from(buf, start) if length else ()


def string_at(buf: bytes, at: int) -> bytes:
    """The string whose offset is stored at ``at`` (0: absent, empty)."""
    start, length = vector_at(buf, at)
    if start + length > len(buf):
        raise ValueError("string past the end of the buffer")
    return buf[start : start + length]


def table_at(buf: bytes, at: int) -> FlatTable | None:
    """The sub-table whose offset is stored at ``at`` (0: absent, None)."""
    return FlatTable(buf, at + _U32(buf, at)[0]) if at else None
