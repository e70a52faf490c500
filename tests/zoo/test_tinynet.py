"""Tests of the small-network family: bases, size bound, shapes, bad configurations."""

import hashlib
import json
import random

import pytest

from nnlat.zoo import get_family, randdag, seqnet, vit
from nnlat.zoo.tinynet import BASES, MAX_MACS

FAMILY = get_family("tinynet")
SAMPLES = [FAMILY.sample(random.Random(seed)) for seed in range(300)]
MACS = {"randdag": randdag.macs, "seqnet": seqnet.estimate_macs, "vit": vit.estimate_macs}


def _without_base(config: dict) -> dict:
    return {k: v for k, v in config.items() if k != "base"}


def test_every_base_is_drawn_and_every_variant_is_small() -> None:
    assert {config["base"] for config in SAMPLES} == set(BASES)
    macs = [MACS[config["base"]](_without_base(config)) for config in SAMPLES]
    assert max(macs) <= MAX_MACS
    # Far below the default spaces: the median variant is under 1 % of the budget of randdag.
    assert sorted(macs)[len(macs) // 2] < randdag.MAX_MACS / 100


def test_a_variant_builds_the_same_network_as_its_base_family() -> None:
    config = next(c for c in SAMPLES if c["base"] == "seqnet")
    tiny = FAMILY.model(config)
    base = get_family("seqnet").model(_without_base(config))
    assert tiny.input_shape == base.input_shape == (1, config["frames"], config["features"])
    tiny_ops = [node.op_type for node in tiny.to_onnx().graph.node]
    assert tiny_ops == [node.op_type for node in base.to_onnx().graph.node]


# Digests of the first 20 seed-0 variants of each base family, taken before the families
# took a SampleSpace: stored datasets hold those variants as recipes drawn by seed.
SEED0_DIGESTS = {
    "randdag": "29bb86b04b2ec787",
    "seqnet": "d0ed42837324289b",
    "vit": "aa3d881dddca9dc5",
}


@pytest.mark.parametrize("name", SEED0_DIGESTS)
def test_the_base_families_still_draw_their_stored_variants(name: str) -> None:
    rng = random.Random(0)
    configs = [get_family(name).sample(rng) for _ in range(20)]
    digest = hashlib.sha256(json.dumps(configs, sort_keys=True).encode()).hexdigest()[:16]
    assert digest == SEED0_DIGESTS[name]


def test_an_unknown_base_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="randdag, seqnet, vit"):
        FAMILY.build({"base": "resnet", "resolution": 32, "num_classes": 10})
