"""What the code interpreter produces: the layers' snippets and the call graph between them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Snippet:
    """One layer of the code: a call to the toolbox, as runnable text.

    Attributes:
        kind: what is called: a module class (``"Conv2d"``), a function (``"relu"``,
            ``"add"``) or a tensor method (``"view"``).
        text: the snippet (:mod:`nnlat.code.snippet`): constructor, inputs of concrete
            shapes, the call, the output shape.
        location: ``file:line`` of the user's line that makes the call ("" if unknown).
        output_shapes: the shape of each output tensor.
    """

    kind: str
    text: str
    location: str
    output_shapes: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class CodeGraph:
    """A module's layers in execution order and the data flow between them.

    Attributes:
        snippets: the layers, in the order the forward pass runs them (topological).
        edges: ``(producer, consumer)`` index pairs, ``producer < consumer``: the output
            of ``snippets[producer]`` is an input of ``snippets[consumer]``.
        inputs: ``(name, shape)`` of each input of ``forward``.
        source: the file the module came from ("" for a module given as an object).

    Example:
        >>> g = CodeGraph((), (), (), "")
        >>> g.adjacency().shape
        (0, 0)
    """

    snippets: tuple[Snippet, ...]
    edges: tuple[tuple[int, int], ...]
    inputs: tuple[tuple[str, tuple[int, ...]], ...]
    source: str

    def adjacency(self) -> np.ndarray:
        """COBRA's ``A``: N×N, upper triangular, ``A[i, j] = 1`` when i feeds j (float32)."""
        n = len(self.snippets)
        matrix = np.zeros((n, n), dtype=np.float32)
        for i, j in self.edges:
            matrix[i, j] = 1.0
        return matrix

    def kinds(self) -> dict[str, int]:
        """How many snippets call each kind, e.g. ``{"Conv2d": 20, "add": 8}``."""
        counts: dict[str, int] = {}
        for snippet in self.snippets:
            counts[snippet.kind] = counts.get(snippet.kind, 0) + 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """The graph as JSON-ready data (:meth:`from_json` reads it back).

        Example:
            >>> g = CodeGraph((Snippet("relu", "y=x0", "m.py:2", ((1, 4),)),), (), (), "")
            >>> CodeGraph.from_json(g.to_json()) == g
            True
        """
        return {
            "snippets": [
                [s.kind, s.text, s.location, [list(shape) for shape in s.output_shapes]]
                for s in self.snippets
            ],
            "edges": [list(edge) for edge in self.edges],
            "inputs": [[name, list(shape)] for name, shape in self.inputs],
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CodeGraph:
        """The graph that :meth:`to_json` wrote."""
        snippets = tuple(
            Snippet(kind, text, location, tuple(tuple(shape) for shape in shapes))
            for kind, text, location, shapes in data["snippets"]
        )
        return cls(
            snippets,
            tuple((int(i), int(j)) for i, j in data["edges"]),
            tuple((name, tuple(shape)) for name, shape in data["inputs"]),
            data["source"],
        )
