"""Record in a saved predictor which hardware fingerprints its heads' data came from.

A predictor trained since fingerprints were kept (``Predictor.fit``) records them itself;
this adds them to one trained before, from the data files it was trained on (the
``environment.hardware_fingerprint`` of each measurement), so that `nnlat predict` can
warn on a host of the same name whose hardware differs (``nnlat.predictor.hardware_check``).
Only the predictor's own platforms are written; the weights are not touched.

Usage:
    python scripts/predictor_hardware.py src/nnlat/predictor/pretrained/member0 \\
        data/epyc-ort132-profiles.jsonl.gz data/corpus-epyc.jsonl.gz data/epyc-ort.jsonl.gz \\
        data/corpus-xeon.jsonl.gz data/nnlqp10-xeon.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections.abc import Iterator
from pathlib import Path

from nnlat.predictor.hardware_check import HARDWARE_KEY, fingerprints_by_platform


def measured_on(path: Path) -> Iterator[tuple[str, str | None]]:
    """``(platform, fingerprint)`` of every ok measurement in an nnlat archive file."""
    with gzip.open(path, "rt") as lines:
        for line in lines:
            for measurement in json.loads(line).get("measurements", []):
                if measurement.get("status") == "ok":
                    environment = measurement.get("environment") or {}
                    yield measurement["platform"], environment.get("hardware_fingerprint")


def main() -> None:
    """Parse the arguments; write ``info["hardware"]`` into the predictor's JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("predictor", type=Path, help="a saved predictor's directory")
    parser.add_argument("data", type=Path, nargs="+", help="the archive files it was trained on")
    args = parser.parse_args()
    path = args.predictor / "predictor.json"
    saved = json.loads(path.read_text())
    found = fingerprints_by_platform(pair for data in args.data for pair in measured_on(data))
    saved["info"][HARDWARE_KEY] = {p: found[p] for p in saved["platforms"] if p in found}
    path.write_text(json.dumps(saved, indent=1) + "\n")
    for platform, fingerprints in saved["info"][HARDWARE_KEY].items():
        print(f"{platform}: {', '.join(fingerprints)}")


if __name__ == "__main__":
    main()
