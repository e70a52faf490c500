"""Start-up time of the ``nnlat`` command: ``--help`` and ``inspect`` of a real CNN.

    python benchmarks/cli_startup.py [--repeats 10] [--src src] [--resnet50-with-weights]

Each command runs in a fresh interpreter (``python -m nnlat``, with ``PYTHONPATH`` set
to ``--src`` so a given checkout is measured); reported are the median wall time and
the median CPU time (user + system) of the child, which a busy machine inflates less,
and the load average before the runs.

``light_resnet50.onnx`` (shipped with onnx) holds no weights; ``--resnet50-with-weights``
also times the zoo's canonical ResNet-50 exported by torch with its 25.6 M weights
(102 MB, as a user's own export would be), written to a temporary folder first.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import onnx

LIGHT = Path(onnx.__file__).parent / "backend/test/data/light/light_resnet50.onnx"
COMMANDS = {
    "nnlat --help": ["--help"],
    "nnlat inspect light_resnet50.onnx": ["inspect", str(LIGHT)],
}


def run_once(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s) of one ``python -m nnlat ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "nnlat", *args],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def export_resnet50(folder: Path) -> Path:
    """The zoo's canonical ResNet-50 with (random) weights, exported by torch."""
    import torch

    from nnlat.zoo import get_family, resnet

    module = resnet.build(get_family("resnet").canonical["resnet50"]).eval()
    path = folder / "resnet50.onnx"
    example = (torch.randn(1, 3, 224, 224),)
    torch.onnx.export(module, example, str(path), dynamo=False, opset_version=17)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--src", default="src", help="the src/ folder of the checkout")
    parser.add_argument(
        "--resnet50-with-weights",
        action="store_true",
        help="also inspect a torch export of ResNet-50 with its weights (needs torch)",
    )
    options = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(Path(options.src).resolve()), "COLUMNS": "80"}
    with tempfile.TemporaryDirectory() as folder:
        commands = dict(COMMANDS)
        if options.resnet50_with_weights:
            path = export_resnet50(Path(folder))
            commands["nnlat inspect resnet50.onnx (102 MB)"] = ["inspect", str(path)]
        print(f"load average before: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print("| command | wall median (s) | wall min (s) | CPU median (s) |")
        print("|---|---|---|---|")
        for label, args in commands.items():
            run_once(args, env)  # warm the file cache
            times = [run_once(args, env) for _ in range(options.repeats)]
            walls, cpus = [t[0] for t in times], [t[1] for t in times]
            print(
                f"| `{label}` | {statistics.median(walls):.2f} | {min(walls):.2f} "
                f"| {statistics.median(cpus):.3f} |"
            )


if __name__ == "__main__":
    main()
