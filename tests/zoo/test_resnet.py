"""Tests of the ResNet family (shared contract: test_family_contract.py)."""

import pytest

from nnlat.zoo import get_family

FAMILY = get_family("resnet")


def test_basic_blocks_do_not_expand() -> None:
    config = {**FAMILY.canonical["resnet18"], "expansion": 4}
    with pytest.raises(ValueError, match="expansion"):
        FAMILY.build(config)
