"""Tests of the SqueezeNet family (shared contract: test_family_contract.py)."""

from nnlat.zoo import get_family
from nnlat.zoo.squeezenet import fire_modules

FAMILY = get_family("squeezenet")


def test_fire_modules_reproduce_squeezenet_1_0() -> None:
    stages = fire_modules([3, 4, 1], base_e=128, incr_e=128, freq=2, pct_3x3=0.5, sr=0.125)
    assert stages == [
        [[16, 64, 64], [16, 64, 64], [32, 128, 128]],
        [[32, 128, 128], [48, 192, 192], [48, 192, 192], [64, 256, 256]],
        [[64, 256, 256]],
    ]
