"""Pinned graph hashes: a change here means every cached measurement is orphaned.

If a change to normalisation or hashing is intended, bump ``HASH_SCHEME_VERSION`` and
regenerate: ``python tests/graph/test_golden_hashes.py --update``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from nnlat.graph import HASH_SCHEME_VERSION, graph_key, load
from nnlat.testing import tiny_model
from nnlat.zoo.realworld import EXAMPLE_INPUT_SHAPES, REALWORLD_BUILDERS

GOLDEN = Path(__file__).parents[1] / "golden" / "graph_hashes.json"
LIGHT = Path(__import__("onnx").__file__).parent / "backend/test/data/light"
ZOO = [
    ("resnet", "resnet18"),
    ("mobilenetv2", "mobilenet_v2"),
    ("nasbench201", "nb201_all_conv3x3"),
]


def current_hashes() -> dict[str, str]:
    """Hash of every pinned model, computed now."""
    hashes = {"tiny": graph_key(load(tiny_model())).digest}
    hashes["tiny@batch4"] = graph_key(load(tiny_model(), batch_size=4)).digest
    for path in sorted(LIGHT.glob("*.onnx")):
        hashes[path.stem] = graph_key(load(path)).digest
    for name, build in sorted(REALWORLD_BUILDERS.items()):
        shapes = EXAMPLE_INPUT_SHAPES.get(name)
        hashes[f"realworld/{name}"] = graph_key(load(build(), input_shapes=shapes)).digest
    from nnlat.zoo import get_family

    for family, config in ZOO:
        spec = get_family(family)
        hashes[f"zoo/{config}"] = graph_key(spec.model(spec.canonical[config]).to_graph()).digest
    return hashes


@pytest.mark.slow
def test_hashes_match_golden_file() -> None:
    golden = json.loads(GOLDEN.read_text())
    assert golden["scheme"] == HASH_SCHEME_VERSION, "scheme bumped: regenerate the golden file"
    now = current_hashes()
    changed = {
        k: (golden["hashes"].get(k), v) for k, v in now.items() if golden["hashes"].get(k) != v
    }
    if changed:
        pytest.fail(
            f"graph hashes changed for {sorted(changed)}; if intended, bump HASH_SCHEME_VERSION "
            "and run: python tests/graph/test_golden_hashes.py --update"
        )


if __name__ == "__main__" and "--update" in sys.argv:
    GOLDEN.write_text(
        json.dumps({"scheme": HASH_SCHEME_VERSION, "hashes": current_hashes()}, indent=2) + "\n"
    )
    print(f"wrote {GOLDEN}")
