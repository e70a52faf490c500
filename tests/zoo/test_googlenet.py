"""Tests of the GoogLeNet family (shared contract: test_family_contract.py)."""

from nnlat.zoo import get_family

FAMILY = get_family("googlenet")


def test_canonical_has_nine_inception_blocks() -> None:
    stages = FAMILY.canonical["googlenet"]["stages"]
    assert [len(stage) for stage in stages] == [2, 5, 2]
    # The last block concatenates 384 + 384 + 128 + 128 = 1024 channels, as in the paper.
    c1, _, c3, _, c5, pool_proj = stages[-1][-1]
    assert c1 + c3 + c5 + pool_proj == 1024
