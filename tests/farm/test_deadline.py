"""The job deadline stops a block, even one that catches every ``Exception``.

Run in a fresh process: a timer signal in the test runner's own process, with its many
library threads, is not what a worker looks like.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

CODE = """
import time
from nnlat.farm.deadline import JobTimeout, deadline
try:
    with deadline(0.1):
        try:
            time.sleep(5)
        except Exception:  # what the measurement protocol does with runtime errors
            print("swallowed")
except JobTimeout as exc:
    print("stopped:", exc)
with deadline(5):
    time.sleep(0.2)  # the timer of the first block is gone, this one does not fire
print("done")
"""


@pytest.mark.slow
def test_deadline_passes_through_exception_handlers() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.split("\n")[:2] == ["stopped: ran past 0.1 s", "done"]
