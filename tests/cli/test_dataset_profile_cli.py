"""``nnlat dataset profile``: profiles stored results once, then finds nothing to do."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.graph import load
from nnlat.measure.runner import measure, reference_platform
from nnlat.measure.types import MeasureSpec
from nnlat.store import Store
from nnlat.testing import tiny_model

runner = CliRunner()


def test_profile_then_resume(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/nnlat.db"
    graph, platform = load(tiny_model()), reference_platform()
    with Store.open(url) as store:
        store.upsert_model(graph, family="tiny")
        store.upsert_platform(platform)
        spec = MeasureSpec(min_runs=3, max_time_s=0.05, warmup_max_s=0.05, profile_runs=0)
        store.add_measurement(measure(graph, platform, spec))
    args = ["dataset", "profile", "-p", platform.name, "--db", url, "--no-features", "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["profiled"] == 1
    second = json.loads(runner.invoke(app, args).stdout)
    assert (second["profiled"], second["skipped"]) == (0, 1)
