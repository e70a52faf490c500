"""Tests of the VGG family (shared contract: test_family_contract.py)."""

import random

from nnlat.zoo import get_family

FAMILY = get_family("vgg")


def test_pool_size_divides_the_feature_map() -> None:
    # The legacy ONNX exporter rejects an adaptive pool that does not tile its input.
    for seed in range(200):
        config = FAMILY.sample(random.Random(seed))
        assert (config["resolution"] // 32) % config["pool_size"] == 0
