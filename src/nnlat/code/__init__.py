"""Latency from source code (COBRA): read a PyTorch module's code as layer snippets.

:func:`interpret_file` takes ``path/to/model.py::ClassName``, **imports that file and
runs its code** (the constructor, and ``forward`` on shape-only meta tensors; see
:mod:`nnlat.code.loader`), and returns a :class:`CodeGraph`: one :class:`Snippet` per
call to the toolbox, with its parameters and shapes made concrete, and the call graph.
Code it cannot follow raises :class:`CodeError` naming ``file:line``.

torch is imported by the submodules; importing this package imports them.
"""

from nnlat.code.errors import CodeError
from nnlat.code.graph import CodeGraph, Snippet
from nnlat.code.interpret import interpret_file, interpret_module
from nnlat.code.loader import load_module, load_source_module, parse_target
from nnlat.code.snippet import SnippetModule, render_snippet, snippet_input_shapes

__all__ = [
    "CodeError",
    "CodeGraph",
    "Snippet",
    "SnippetModule",
    "interpret_file",
    "interpret_module",
    "load_module",
    "load_source_module",
    "parse_target",
    "render_snippet",
    "snippet_input_shapes",
]
