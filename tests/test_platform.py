"""Platform names, and which known platform answers for an unknown one."""

from __future__ import annotations

import pytest

from nnlat.platform import UnknownPlatformError, match_platform

HEADS = ["epyc-ort1.31-fp32-t1", "xeon-openvino2026.4-fp32-t1", "xeon-ort1.31-fp32-t1"]


def test_an_exact_name_answers_for_itself() -> None:
    match = match_platform("xeon-ort1.31-fp32-t1", HEADS)
    assert (match.head, match.reason, match.exact) == ("xeon-ort1.31-fp32-t1", "exact", True)


@pytest.mark.parametrize(
    ("requested", "head"),
    [
        ("epyc-ort1.32-fp32-t1", "epyc-ort1.31-fp32-t1"),  # upgrade
        ("epyc-ort1.18-fp32-t1", "epyc-ort1.31-fp32-t1"),  # downgrade
        ("xeon-openvino2027.1-fp32-t1", "xeon-openvino2026.4-fp32-t1"),
    ],
)
def test_a_runtime_upgrade_is_served_by_the_same_hardware_and_runtime(
    requested: str, head: str
) -> None:
    match = match_platform(requested, HEADS)
    assert (match.head, match.reason) == (head, "nearest runtime version")
    assert head in match.warning() and requested in match.warning()


def test_the_nearest_version_wins_and_ties_go_to_the_newer() -> None:
    heads = ["epyc-ort1.20-fp32-t1", "epyc-ort1.30-fp32-t1", "epyc-ort1.34-fp32-t1"]
    assert match_platform("epyc-ort1.31-fp32-t1", heads).head == "epyc-ort1.30-fp32-t1"
    assert match_platform("epyc-ort1.32-fp32-t1", heads).head == "epyc-ort1.34-fp32-t1"


@pytest.mark.parametrize(
    "requested",
    [
        "epyc-ort1.32-fp32-t2",  # other threads
        "epyc-ort1.32-int8-t1",  # other precision
        "epyc-openvino2026.4-fp32-t1",  # other runtime
        "zen5-ort1.32-fp32-t1",  # other hardware, named explicitly
    ],
)
def test_a_named_platform_that_differs_in_more_than_version_is_refused(requested: str) -> None:
    with pytest.raises(UnknownPlatformError, match="no head for platform"):
        match_platform(requested, HEADS)


def test_this_hosts_default_falls_back_to_other_hardware_with_the_command_to_fix_it() -> None:
    match = match_platform("zen5-ort1.32-fp32-t1", HEADS, explicit=False)
    assert match.reason == "closest hardware"
    assert match.head in ("epyc-ort1.31-fp32-t1", "xeon-ort1.31-fp32-t1")  # same runtime
    assert "nnlat train --from" in match.warning() and "zen5-ort1.32-fp32-t1" in match.warning()
    assert "`nnlat onboard -p zen5-ort1.32-fp32-t1`" in match.warning()  # the quick remedy
    with pytest.raises(UnknownPlatformError):  # nothing shares runtime, precision, threads
        match_platform("zen5-tvm0.9-fp32", HEADS, explicit=False)


def test_a_typo_gets_did_you_mean() -> None:
    with pytest.raises(UnknownPlatformError, match=r"did you mean 'epyc-ort1\.31-fp32-t1'"):
        match_platform("epyc-ort1.31-fp23-t1", HEADS)
    with pytest.raises(UnknownPlatformError, match=r"not a platform name.*did you mean"):
        match_platform("epyc-ort-1.31-fp32-t1", HEADS)
