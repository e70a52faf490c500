"""How much heap LiteRT allocates for a model: a candidate CPU memory target (issue 30).

Run:  python scripts/litert_heap_probe.py FILE.tflite [FILE ...] [--repeats 3]

The CPU memory target nnlat measures today is the growth of the resident set's high-water
mark, in 4 KiB pages, which for a small model is 0 or one page (reports/perfsage/NOTES.md).
TFLite's own arena is no better a measure: with the default XNNPACK delegate most
intermediate tensors live in the delegate's workspace, not in the arena. This probe reads
glibc's count of heap bytes in use (``mallinfo2``: ``uordblks + hblkhd``) before the
interpreter is made, after it is made, after ``allocate_tensors`` and after one
``invoke`` on zeros, and prints the growth at each step (bytes) per repetition: what the
runtime holds for the model (packed weights, arena, workspaces). glibc only. The LiteRT
backend's memory is now this count (``nnlat.measure.heap``), read after the timed runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from nnlat.measure.heap import heap_in_use


def main() -> None:
    """Print, per file and repetition, the heap growth after each interpreter step."""
    from ai_edge_litert.interpreter import Interpreter

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print("| file | file bytes | made | allocated | invoked |")
    print("|---|---|---|---|---|")
    for path in args.files:
        data = path.read_bytes()
        for _ in range(args.repeats):
            before = heap_in_use()
            interpreter = Interpreter(model_content=data, num_threads=1)
            made = heap_in_use() - before
            interpreter.allocate_tensors()
            allocated = heap_in_use() - before
            for detail in interpreter.get_input_details():
                interpreter.set_tensor(detail["index"], np.zeros(detail["shape"], detail["dtype"]))
            interpreter.invoke()
            invoked = heap_in_use() - before
            print(f"| {path.name} | {len(data):,} | {made:,} | {allocated:,} | {invoked:,} |")
            del interpreter


if __name__ == "__main__":
    main()
