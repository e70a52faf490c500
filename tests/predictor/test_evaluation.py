"""Leave-one-family-out evaluation: honest splits, resumable results, readable reports."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from nnlat.errors import NnlatError
from nnlat.predictor.evaluation import read_results, unseen_structure
from nnlat.predictor.report import unseen_structure_markdown
from nnlat.predictor.training import TrainSettings
from nnlat.testing.records import TOY_PLATFORM, toy_records

FAST = TrainSettings(epochs=2, valid_fraction=0.25, device="cpu")


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
    report = unseen_structure_markdown(read_results(path), "nnlat eval unseen-structure")
    assert "| **average** |" in report and "| small |" in report


def test_bad_requests_fail_clearly() -> None:
    records = two_families()
    with pytest.raises(NnlatError, match="no records on platform"):
        unseen_structure(records, "mars-ort9.9-fp32-t1", ["flops-lr"])
    with pytest.raises(NnlatError, match="unknown method 'magic'"):
        unseen_structure(records, TOY_PLATFORM, ["magic"])
