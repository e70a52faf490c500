"""The cache key of a measurement, in the form the database indexes.

The key is (graph hash, platform, batch size, input shapes, protocol version). Input
shapes are a mapping, so they are stored as canonical JSON (sorted names, no spaces) and
indexed through a 32-hex BLAKE2b hash of that text: MySQL cannot index ``TEXT``, and
names of inputs are unbounded.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence


def canonical_input_shapes(input_shapes: Mapping[str, Sequence[int]]) -> str:
    """Input shapes as canonical JSON: names sorted, shapes as lists, no spaces.

    Example:
        >>> canonical_input_shapes({"y": (1, 4), "x": [1, 3, 8, 8]})
        '{"x":[1,3,8,8],"y":[1,4]}'
    """
    shapes = {name: [int(d) for d in shape] for name, shape in input_shapes.items()}
    return json.dumps(shapes, sort_keys=True, separators=(",", ":"))


def input_shapes_hash(canonical: str) -> str:
    """The 32-hex hash of canonical input shapes, the indexed part of the cache key.

    Example:
        >>> len(input_shapes_hash(canonical_input_shapes({"x": [1, 3]})))
        32
    """
    return hashlib.blake2b(canonical.encode(), digest_size=16).hexdigest()


def parse_input_shapes(canonical: str) -> dict[str, tuple[int, ...]]:
    """The inverse of :func:`canonical_input_shapes`.

    Example:
        >>> parse_input_shapes('{"x":[1,3,8,8]}')
        {'x': (1, 3, 8, 8)}
    """
    return {name: tuple(shape) for name, shape in json.loads(canonical).items()}
