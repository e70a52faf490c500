"""Published latency tables: reading, importing (idempotent, any database), bad files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.datasets.published import (
    PublishedDataError,
    import_latency_table,
    published_table,
    read_latency_table,
)
from nnlat.datasets.training import load_records
from nnlat.store import Store

# Two architectures whose only difference is dead computation (node 1 feeds node 2
# through "none" alone): ONNX export drops it, so they are one graph.
DEAD_A = "|avg_pool_3x3~0|+|skip_connect~0|none~1|+|none~0|none~1|skip_connect~2|"
DEAD_B = "|skip_connect~0|+|none~0|skip_connect~1|+|none~0|none~1|skip_connect~2|"
CONV = "|nor_conv_3x3~0|+|nor_conv_3x3~0|avg_pool_3x3~1|+|skip_connect~0|nor_conv_3x3~1|skip_connect~2|"  # noqa: E501
POOL = "|avg_pool_3x3~0|+|nor_conv_1x1~0|skip_connect~1|+|nor_conv_1x1~0|skip_connect~1|skip_connect~2|"  # noqa: E501
FBNET = "-".join(["k3_e1", "skip", "k5_e6", "k3_e3"] * 5 + ["k5_e1_g2", "k3_e6"])


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture
def help_csv(tmp_path: Path) -> Path:
    """A HELP-shaped file: GPU columns with batch suffixes, a CPU model number, gaps."""
    return write(
        tmp_path / "help_latency_ms.csv",
        "nb201_idx,arch_str,gpu_1,gpu_32,silver_4114,phone_1\n"
        f"3,{DEAD_A},6.3,4.6,5.7,12\n"
        f"25,{DEAD_B},4.6,4.0,4.8,11\n"
        f"1,{CONV},12.9,10.4,25.7,\n"
        f"0,{POOL},10.7,7.6,10.2,0\n",
    )


def test_reading_names_platforms_and_batch_sizes(help_csv: Path) -> None:
    table = read_latency_table(help_csv, "nas-bench-201")
    assert [(d.platform.name, d.batch_size) for d in table.devices] == [
        ("gpu-help1.0-fp32", 1),
        ("gpu-help1.0-fp32", 32),
        ("silver_4114-help1.0-fp32", 1),  # a CPU model number, not a batch size
        ("phone-help1.0-fp32", 1),
    ]
    assert table.ids == [3, 25, 1, 0]
    assert np.isnan(table.latencies_ms[2, 3]) and np.isnan(table.latencies_ms[3, 3])  # "", 0
    assert table.source == "imported:help_latency_ms.csv"


@pytest.mark.slow
def test_import_is_idempotent_and_deduplicates_by_graph(store: Store, help_csv: Path) -> None:
    table = read_latency_table(help_csv, "nas-bench-201")
    first = import_latency_table(store, table, workers=1)
    assert (first.archs, first.built, first.models_added) == (4, 4, 3)  # DEAD_A ≡ DEAD_B
    assert (first.values, first.missing) == (14, 2)
    assert first.measurements_added == 14 - 4  # DEAD_B's four values repeat DEAD_A's keys
    assert store.stats().models == 3
    stored = store.list_measurements(platform="gpu-help1.0-fp32")
    assert sorted(m.batch_size for m in stored) == [1, 1, 1, 32, 32, 32]
    assert {m.source for m in stored} == {"imported:help_latency_ms.csv"}
    at_32 = next(m for m in stored if m.batch_size == 32)
    assert at_32.input_shapes == {"input": (32, 3, 32, 32)}

    again = import_latency_table(store, table, workers=1)
    assert (again.models_added, again.measurements_added) == (0, 0)
    assert store.stats().measurements == first.measurements_added


@pytest.mark.slow
def test_a_file_with_unseen_devices_adds_platforms(tmp_path: Path, help_csv: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    import_latency_table(store, read_latency_table(help_csv, "nas-bench-201"), workers=1)
    other = write(
        tmp_path / "lab_ms.csv", f"nb201_idx,arch_str,npu_x2\n1,{CONV},3.5\n7,{POOL},2.0\n"
    )
    report = import_latency_table(store, read_latency_table(other, "nas-bench-201"), workers=1)
    assert report.platforms == ["npu_x2-lab1.0-fp32"]
    assert (report.built, report.models_added, report.measurements_added) == (0, 0, 2)


def test_single_column_file_names_its_device_and_fills_the_feature_cache(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / "latbench_desktop_cpu_i7_fp32_ms.csv",
        f"nb201_idx,arch_str,arch_vector,latency_ms\n1,{CONV},334131,7.06\n0,{POOL},421211,3.9\n",
    )
    table = read_latency_table(path, "nas-bench-201")
    assert [d.platform.name for d in table.devices] == ["desktop_cpu_i7-latbench1.0-fp32"]
    store = Store.open("sqlite://")
    cache = tmp_path / "features"
    import_latency_table(store, table, workers=1, cache_dir=cache)
    assert len(list(cache.glob("*.npz"))) == 2
    records = load_records(store, cache_dir=cache)
    assert sorted(r.latency_ms for r in records) == [3.9, 7.06]
    assert {(r.source, r.family) for r in records} == {("imported", "nasbench201")}
    assert len(list(cache.glob("*.npz"))) == 2  # read from the cache, none rebuilt


def test_fbnet_space(tmp_path: Path) -> None:
    path = write(
        tmp_path / "help_latency_ms.csv",
        f"fbnet_idx,op_idx_list,arch_str,pixel3\n0,0-8-3-2,{FBNET},17.5\n",
    )
    store = Store.open("sqlite://")
    report = import_latency_table(store, read_latency_table(path, "fbnet"), workers=1)
    assert report.models_added == 1
    assert store.list_models()[0].family == "fbnet"


def test_sampling_draws_the_same_ids_from_any_file(tmp_path: Path, help_csv: Path) -> None:
    table = read_latency_table(help_csv, "nas-bench-201")
    reordered = write(
        tmp_path / "other_ms.csv",
        f"nb201_idx,arch_str,x\n0,{POOL},1\n1,{CONV},1\n3,{DEAD_A},1\n25,{DEAD_B},1\n",
    )
    other = read_latency_table(reordered, "nas-bench-201")
    assert sorted(table.sample(2, seed=5).ids) == sorted(other.sample(2, seed=5).ids)
    assert len(table.sample(10).ids) == 4


@pytest.mark.parametrize(
    ("text", "space", "message"),
    [
        (f"nb201_idx,arch_str,x\n1,{CONV},1\n", "nasbench", "unknown search space"),
        ("nb201_idx,arch,x\n1,a,1\n", "nas-bench-201", "'arch_str' column"),
        (f"nb201_idx,arch_str\n1,{CONV}\n", "nas-bench-201", "no device column"),
        ("nb201_idx,arch_str,x\n1,|bogus~0|,1\n", "nas-bench-201", "line 2"),
        (f"nb201_idx,arch_str,x\n1,{CONV},1,2\n", "nas-bench-201", "line 2: 4 fields"),
        ("nb201_idx,arch_str,x\n", "nas-bench-201", "no rows"),
    ],
)
def test_bad_files_are_refused_with_a_reason(
    tmp_path: Path, text: str, space: str, message: str
) -> None:
    path = write(tmp_path / "bad_ms.csv", text)
    with pytest.raises(PublishedDataError, match=message):
        read_latency_table(path, space)


@pytest.mark.slow
def test_cli_imports_and_refuses(tmp_path: Path, help_csv: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    args = ["dataset", "import", str(help_csv), "--space", "nas-bench-201", "--db", db]
    result = CliRunner().invoke(app, [*args, "--no-features", "-w", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["models_added"], report["measurements_added"]) == (3, 10)
    result = CliRunner().invoke(app, [*args, "--no-features"])
    assert result.exit_code == 0 and "0 of 14 values added" in result.stdout
    bad = CliRunner().invoke(app, ["dataset", "import", str(help_csv), "--space", "x", "--db", db])
    assert bad.exit_code == 2 and "unknown search space" in bad.output
    missing = CliRunner().invoke(app, ["dataset", "import", "nope.csv", "-s", "fbnet", "--db", db])
    assert missing.exit_code == 2 and "cannot read" in missing.output


def test_the_published_files_read_whole() -> None:
    help_nb201 = read_latency_table(published_table("nas-bench-201"), "nas-bench-201")
    assert len(help_nb201.ids) == 15625 and len(help_nb201.devices) == 13
    assert ("1080ti-help1.0-fp32", 256) in {
        (d.platform.name, d.batch_size) for d in help_nb201.devices
    }
    latbench = read_latency_table(
        published_table("nas-bench-201", "latbench_desktop_cpu_i7_7820x_fp32_ms.csv"),
        "nas-bench-201",
    )
    assert len(latbench.ids) == 15284
    assert latbench.devices[0].platform.name == "desktop_cpu_i7_7820x-latbench1.0-fp32"
    fb = read_latency_table(published_table("fbnet"), "fbnet")
    assert len(fb.ids) == 5000 and not np.isnan(fb.latencies_ms).all()
