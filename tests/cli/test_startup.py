"""The command line starts at once: its module imports none of the heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from nnlat.cli.main import app

HEAVY = ("torch", "torch_geometric", "scipy", "onnxruntime", "sqlalchemy", "httpx", "fastapi")


def _modules_after(code: str) -> set[str]:
    """The heavy modules imported by ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out.splitlines()[-1])) & set(HEAVY)


def test_importing_the_cli_imports_no_heavy_library() -> None:
    assert _modules_after("import nnlat.cli.main") == set()


def test_top_level_help_imports_no_heavy_library() -> None:
    code = (
        "from typer.testing import CliRunner\n"
        "from nnlat.cli.main import app\n"
        "assert CliRunner().invoke(app, ['--help']).exit_code == 0"
    )
    assert _modules_after(code) == set()


def test_lazy_group_is_listed_and_runs() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "80"})
    assert "eval" in result.stdout
    result = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert "unseen-structure" in result.stdout
    assert "--install-completion" not in result.stdout


def test_lazy_group_is_suggested_for_a_typo() -> None:
    result = CliRunner().invoke(app, ["evl"])
    assert result.exit_code == 2
    assert "Did you mean 'eval'" in result.output
