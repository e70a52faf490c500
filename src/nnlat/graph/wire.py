"""An ONNX file's bytes without its weights, cut out at the protobuf wire level.

nnlat never needs weight values: normalisation drops every initializer of more than
``KEEP_VALUE_NUMEL`` elements first thing. Parsing them anyway is most of the time of
reading a real model (a 102 MB ResNet-50: ~25 ms of protobuf parsing for 25 M numbers
that are thrown away), and protobuf has no lazy or partial parse. So before parsing,
:func:`without_weight_data` walks the wire format of ``ModelProto → graph →
initializer`` and leaves out each initializer's data field longer than
:data:`WEIGHT_PAYLOAD_BYTES`, re-encoding the lengths of the messages around it. Only
those bytes are skipped, and only where they are certainly more than ``KEEP_VALUE_NUMEL``
elements, so the normalised graph is the same as from a full parse; weights stored
elsewhere (``Constant`` nodes, sub-graphs, sparse initializers) are left in and dropped
later by the usual pass.
"""

from __future__ import annotations

from collections.abc import Callable

from nnlat.graph.tensors import KEEP_VALUE_NUMEL

# Field numbers (onnx.proto): ModelProto.graph, GraphProto.initializer, and the
# TensorProto fields that hold values: float, int32, int64, raw, double, uint64 data.
_MODEL_GRAPH = 7
_GRAPH_INITIALIZER = 5
_TENSOR_DATA = frozenset({4, 5, 7, 9, 10, 11})
_LENGTH_DELIMITED = 2

# A data field longer than this holds more than KEEP_VALUE_NUMEL elements whatever its
# type: no element is wider than 16 bytes (complex128), and packed varints take at
# least one byte each.
WEIGHT_PAYLOAD_BYTES = KEEP_VALUE_NUMEL * 16


class WireFormatError(ValueError):
    """The bytes are not well-formed protobuf (the caller parses them as they are)."""


def _varint(data: memoryview, at: int) -> tuple[int, int]:
    """The varint at ``at`` and the offset after it (IndexError past the end)."""
    byte = data[at]
    if byte < 0x80:  # most tags, lengths and dims: one byte
        return byte, at + 1
    value, shift = byte & 0x7F, 7
    while shift < 64:
        at += 1
        byte = data[at]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at + 1
        shift += 7
    raise WireFormatError("malformed varint")


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


# One field of a serialised message: (number, wire type, where its tag begins, where
# its tag ends, where its value begins (after a length prefix), where it ends). Plain
# tuples: a real model has tens of thousands of fields, mostly its weights' dims.
_Field = tuple[int, int, int, int, int, int]


def _fields(data: memoryview) -> list[_Field]:
    """The fields of one serialised message, in order."""
    fields, at, size = [], 0, len(data)
    while at < size:
        start = at
        tag, at = _varint(data, at)
        tag_end, kind = at, tag & 7
        if kind == 0:
            _, at = _varint(data, at)
            payload = tag_end
        elif kind == _LENGTH_DELIMITED:
            length, payload = _varint(data, at)
            at = payload + length
        elif kind == 1:
            payload, at = at, at + 8
        elif kind == 5:
            payload, at = at, at + 4
        else:  # groups (3, 4) are not used by onnx.proto
            raise WireFormatError(f"unsupported wire type {kind}")
        if at > size:
            raise WireFormatError("a field runs past the end of its message")
        fields.append((tag >> 3, kind, start, tag_end, payload, at))
    return fields


Pieces = list[memoryview | bytes]
Edit = Callable[[memoryview], tuple[Pieces, bool]]


def _rewrite(data: memoryview, edits: dict[int, Edit]) -> tuple[Pieces, bool]:
    """``data``'s pieces, the payloads of the messages in ``edits`` passed through them.

    ``edits`` maps a field number to a function from that field's payload to its new
    pieces and whether it changed. Returns the pieces and whether anything changed.
    Only fields longer than WEIGHT_PAYLOAD_BYTES are passed (so never a varint or a
    fixed-size number).
    """
    pieces: Pieces = []
    changed = False
    for number, _, start, tag_end, payload, end in _fields(data):
        # A message no longer than the threshold holds no field longer than it.
        edit = edits.get(number) if end - payload > WEIGHT_PAYLOAD_BYTES else None
        inner, inner_changed = edit(data[payload:end]) if edit else ([], False)
        if not inner_changed:
            pieces.append(data[start:end])
            continue
        changed = True
        pieces += [data[start:tag_end], _encode_varint(sum(len(p) for p in inner)), *inner]
    return pieces, changed


def _tensor(payload: memoryview) -> tuple[Pieces, bool]:
    """A TensorProto without its data fields longer than WEIGHT_PAYLOAD_BYTES."""
    fields = _fields(payload)
    kept = [
        payload[start:end]
        for number, _, start, _, begin, end in fields
        if number not in _TENSOR_DATA or end - begin <= WEIGHT_PAYLOAD_BYTES
    ]
    return kept, len(kept) < len(fields)


def _graph(payload: memoryview) -> tuple[Pieces, bool]:
    return _rewrite(payload, {_GRAPH_INITIALIZER: _tensor})


def without_weight_data(
    data: bytes | bytearray | memoryview,
) -> bytes | bytearray | memoryview:
    """``data`` (a serialised ModelProto) without its initializers' large data fields.

    Returns ``data`` itself when nothing was left out.

    Raises:
        WireFormatError: ``data`` is not well-formed protobuf.

    Example:
        >>> import numpy as np, onnx
        >>> from nnlat.testing import tiny_model
        >>> model = tiny_model()
        >>> model.graph.initializer.extend(
        ...     [onnx.numpy_helper.from_array(np.ones((64, 64), np.float32), "w")])
        >>> lean = onnx.ModelProto.FromString(without_weight_data(model.SerializeToString()))
        >>> [(t.name, list(t.dims), len(t.raw_data)) for t in lean.graph.initializer][-1]
        ('w', [64, 64], 0)
    """
    try:
        pieces, changed = _rewrite(memoryview(data), {_MODEL_GRAPH: _graph})
    except IndexError:
        raise WireFormatError("a message runs past the end of the bytes") from None
    return b"".join(pieces) if changed else data
