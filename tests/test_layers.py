"""The layering of docs/architecture.md, checked with import-linter on every test run.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``): no import cycles, the
one-way layers ``cli | server → querying → farm → store | predictor → measure | features
→ graph``, no torch / SQLAlchemy / Celery / FastAPI under ``graph`` and ``features``, and
a predictor that imports neither the store nor the studies.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import nnlat

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
CONTRACTS = ("acyclic", "layers", "light-core", "predictor-product")


def lint(*contracts: str) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the nnlat being tested (a checkout's ``src/`` or the install)."""
    source_root = str(Path(nnlat.__file__).resolve().parents[1])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([source_root, os.environ.get("PYTHONPATH", "")]),
    }
    script = (
        "import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True, "
        "limit_to_contracts=tuple(sys.argv[2:])))"
    )
    return subprocess.run(
        [sys.executable, "-c", script, str(PYPROJECT), *contracts],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


@pytest.mark.parametrize("contract", CONTRACTS)
def test_imports_keep_the_contract(contract: str) -> None:
    result = lint(contract)
    assert result.returncode == 0, result.stdout + result.stderr
