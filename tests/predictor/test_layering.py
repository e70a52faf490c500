"""The predictor is the product: it never reaches into the store or the studies."""

from __future__ import annotations

import ast
from pathlib import Path

import nnlat.predictor

FORBIDDEN = ("nnlat.store", "nnlat.studies", "nnlat.cli")


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_predictor_module_imports_the_store_the_studies_or_the_cli() -> None:
    root = Path(nnlat.predictor.__file__).parent
    offending = {
        f"{path.relative_to(root)}: {name}"
        for path in root.rglob("*.py")
        for name in imported_modules(path)
        if name.startswith(FORBIDDEN)
    }
    assert not offending
