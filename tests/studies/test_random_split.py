"""The random-split study: one split per seed shared by every method, resumable."""

from __future__ import annotations

from pathlib import Path

from nnlat.studies.random_split import RandomSplitConfig, render, run
from nnlat.testing.records import TOY_PLATFORM, toy_records


def test_methods_share_a_split_and_a_rerun_fits_nothing(tmp_path: Path) -> None:
    config = RandomSplitConfig(
        TOY_PLATFORM,
        ("flops-lr", "flops-macs-lr"),
        seeds=(0, 1),
        test_fraction=0.25,
        results_path=tmp_path / "results.jsonl",
    )
    study = run(config, toy_records())
    assert [(r.seed, r.method) for r in study.rows] == [
        (0, "flops-lr"), (1, "flops-lr"), (0, "flops-macs-lr"), (1, "flops-macs-lr"),
    ]  # fmt: skip
    by_seed = {}
    for r in study.rows:
        by_seed.setdefault(r.seed, set()).add(tuple(r.measured_ms))
    assert all(len(tests) == 1 for tests in by_seed.values())  # the same test records
    assert {"mape", "acc_10", "acc_25"} <= set(study.rows[0].metrics)
    again = run(config, toy_records())
    assert len(again.rows) == 4 and len((tmp_path / "results.jsonl").read_text().splitlines()) == 4
    report = render(again)
    assert "Acc(25 %)" in report and "| **mean** |" in report
