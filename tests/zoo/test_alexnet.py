"""Tests of the AlexNet family (shared contract: test_family_contract.py)."""

import random

from nnlat.zoo import get_family
from nnlat.zoo.alexnet import feature_size

FAMILY = get_family("alexnet")


def test_feature_size_of_the_canonical_alexnet() -> None:
    assert feature_size(224, [11, 5, 3, 3, 3]) == FAMILY.canonical["alexnet"]["pool_size"] == 6


def test_pool_size_divides_the_feature_map() -> None:
    # The legacy ONNX exporter rejects an adaptive pool that does not tile its input.
    for seed in range(200):
        config = FAMILY.sample(random.Random(seed))
        size = feature_size(config["resolution"], config["kernel_sizes"])
        assert size % config["pool_size"] == 0
