"""Tests of the MNASNet family (shared contract: test_family_contract.py)."""

import random

from nnlat.zoo import get_family

FAMILY = get_family("mnasnet")


def test_sampled_blocks_follow_the_table() -> None:
    config = FAMILY.sample(random.Random(7))
    stages = ["channels", "blocks", "strides", "kernels", "expansions"]
    assert len({len(config[key]) for key in stages}) == 1
    assert config["expansions"][0] == 1
    assert set(config["kernels"]) <= {3, 5, 7}
