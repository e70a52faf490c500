"""Leave-one-family-out evaluation: honest splits, resumable results, readable reports."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from nnlat.errors import NnlatError
from nnlat.predictor.training import TrainSettings
from nnlat.studies.unseen_structure import (
    UnseenStructureConfig,
    read_results,
    render,
    run,
    seed_ensemble,
)
from nnlat.testing.records import TOY_PLATFORM, toy_records

FAST = TrainSettings(epochs=2, valid_fraction=0.25, device="cpu")


def unseen_structure(records, platform, methods, **options):  # type: ignore[no-untyped-def]
    """The study's rows for ``methods`` on ``platform`` (options: the config's fields)."""
    hooks = {k: options.pop(k) for k in ("on_result",) if k in options}
    if "families" in options:
        options["families"] = tuple(options["families"])
    config = UnseenStructureConfig(platform, tuple(methods), **options)
    return run(config, records, **hooks).rows


def two_families() -> list:  # type: ignore[type-arg]
    records = toy_records()
    return [
        dataclasses.replace(r, family="small" if r.raw.graph_values[1] < 1e5 else "large")
        for r in records
    ]


def test_each_family_is_tested_only_on_itself(tmp_path: Path) -> None:
    records = two_families()
    results = unseen_structure(records, TOY_PLATFORM, ["flops-lr", "nnlp"], settings=FAST)
    assert {(r.family, r.method) for r in results} == {
        (f, m) for f in ("small", "large") for m in ("flops-lr", "nnlp")
    }
    for result in results:
        expected = sum(r.family == result.family for r in records)
        assert result.test_records == expected
        assert result.train_records == len(records) - expected
        assert len(result.predicted_ms) == expected and 0 <= result.metrics["acc_10"] <= 1


def test_results_file_resumes_without_redoing(tmp_path: Path) -> None:
    path = tmp_path / "us.jsonl"
    records = two_families()
    unseen_structure(records, TOY_PLATFORM, ["flops-lr"], families=["small"], results_path=path)
    assert len(read_results(path)) == 1
    seen = []
    unseen_structure(records, TOY_PLATFORM, ["flops-lr"], results_path=path, on_result=seen.append)
    assert [r.family for r in seen] == ["large"] and len(read_results(path)) == 2
    config = UnseenStructureConfig(
        TOY_PLATFORM, ("flops-lr",), results_path=path, fit_missing=False, command="nnlat eval"
    )
    rebuilt = run(config, [])  # from the file alone, no records
    assert rebuilt.config.families == ("large", "small") and len(rebuilt.rows) == 2
    report = render(rebuilt)
    assert "| **average** |" in report and "| small |" in report


def test_bad_requests_fail_clearly() -> None:
    records = two_families()
    with pytest.raises(NnlatError, match="no records on platform"):
        unseen_structure(records, "mars-ort9.9-fp32-t1", ["flops-lr"])
    with pytest.raises(NnlatError, match="unknown method 'magic'"):
        unseen_structure(records, TOY_PLATFORM, ["magic"])


def test_seed_ensemble_combines_runs_of_the_same_folds() -> None:
    records = two_families()
    runs = [
        unseen_structure(
            records, TOY_PLATFORM, ["nnlp"], settings=FAST.model_copy(update={"seed": s})
        )
        for s in (0, 1)
    ]
    ensemble = seed_ensemble(runs, "nnlp")
    assert [(r.family, r.method) for r in ensemble] == [("large", "nnlp ×2"), ("small", "nnlp ×2")]
    for fold in ensemble:
        members = [r for run in runs for r in run if r.family == fold.family]
        low = [min(p) for p in zip(*(m.predicted_ms for m in members), strict=True)]
        high = [max(p) for p in zip(*(m.predicted_ms for m in members), strict=True)]
        assert all(lo <= p <= hi for lo, p, hi in zip(low, fold.predicted_ms, high, strict=True))
    with pytest.raises(NnlatError, match="not every run"):
        seed_ensemble([runs[0], runs[1][:1]], "nnlp")
    with pytest.raises(NnlatError, match="no 'brpnas' results"):
        seed_ensemble(runs, "brpnas")
