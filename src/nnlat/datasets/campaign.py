"""Measurement campaigns: many zoo variants × several platforms, into the store.

A campaign is deterministic and resumable. Variants are drawn with a fixed seed per
family (:func:`~nnlat.zoo.generate.generate_variants`), so a restarted campaign draws
the same variants in the same order; a (variant, platform) pair that already has a
stored result is skipped, and a variant whose every platform is done is not even
exported again (its hash is known from the stored zoo spec). Each measurement is
written in its own transaction, so stopping at any moment (Ctrl-C, a crash, a full
disk) loses at most the measurement in progress.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nnlat.datasets.training import cache_path, cache_raw
from nnlat.measure.backends.registry import BackendFactory
from nnlat.measure.runner import measure, resolve_platform
from nnlat.measure.types import MeasureSpec
from nnlat.platform import Platform, UnknownPlatformError
from nnlat.registry import Registry
from nnlat.store import Store
from nnlat.zoo.generate import generate_variants
from nnlat.zoo.registry import get_family

# The campaign protocol: the same stopping rule as a query, with a tighter budget so
# that thousands of models fit in hours. Results keep their stop reason ("ci", "time").
CAMPAIGN_SPEC = MeasureSpec(warmup_min_runs=3, warmup_max_s=1.0, min_runs=10, max_time_s=1.0)

# Called after each variant: (family, variants done in this family, its target).
OnVariant = Callable[[str, int, int], None]


@dataclass
class CampaignReport:
    """What a campaign did, per (family, platform).

    Attributes:
        measured: results measured and stored now, by ``(family, platform)``.
        skipped: results already in the store, by ``(family, platform)``.
        failed: of ``measured``, those whose status is not ``ok``.
        seconds: wall time of the campaign.
    """

    measured: Counter[tuple[str, str]] = field(default_factory=Counter)
    skipped: Counter[tuple[str, str]] = field(default_factory=Counter)
    failed: Counter[tuple[str, str]] = field(default_factory=Counter)
    seconds: float = 0.0

    def rows(self) -> list[dict[str, object]]:
        """One dict per (family, platform): the table ``nnlat dataset build`` prints."""
        keys = sorted(set(self.measured) | set(self.skipped))
        return [
            {
                "family": family,
                "platform": platform,
                "measured": self.measured[family, platform],
                "skipped": self.skipped[family, platform],
                "failed": self.failed[family, platform],
            }
            for family, platform in keys
        ]


def resolve_platforms(
    platforms: Sequence[str], backends: Registry[BackendFactory] | None = None
) -> list[Platform]:
    """The platforms of this host named by ``platforms``, checked before any work.

    Raises:
        UnknownPlatformError: a name is malformed, unknown, or unavailable on this host.
    """
    resolved = []
    for name in platforms:
        backend, platform, canonical = resolve_platform(name, backends)
        if platform is None:
            reason = backend.available().reason
            raise UnknownPlatformError(f"platform {canonical!r} cannot run here: {reason}")
        resolved.append(platform)
    return resolved


def build_dataset(
    store: Store,
    families: Sequence[str],
    per_family: int,
    platforms: Sequence[str],
    *,
    seed: int = 0,
    spec: MeasureSpec = CAMPAIGN_SPEC,
    backends: Registry[BackendFactory] | None = None,
    on_variant: OnVariant | None = None,
    feature_cache: Path | None = None,
) -> CampaignReport:
    """Measure ``per_family`` distinct variants of each family on each platform.

    Args:
        store: where models, platforms and results go (and where done work is found).
        families: zoo family names.
        per_family: distinct variants (by graph hash) per family.
        platforms: platform names of this host.
        seed: the sampling seed; the same seed draws the same variants.
        spec: the measurement protocol; batch size 1 and each variant's own input shape.
        backends: the backend registry; by default the real backends.
        on_variant: progress callback, called once per variant.
        feature_cache: also write each measured variant's raw features to this cache
            (:func:`nnlat.datasets.training.cache_raw`), from the graph already in hand, so
            that training on the campaign does not rebuild every graph (for a TFLite family
            that is a second TensorFlow conversion per model); None: no cache.

    Returns:
        Counts of measured, skipped and failed results per (family, platform).

    Raises:
        UnknownNameError: an unknown family.
        UnknownPlatformError: a platform that cannot run on this host.

    Example:
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.measure.backends.registry import backend_registry
        >>> store, reg = Store.open("sqlite://"), backend_registry({"fake": FakeBackend})
        >>> fast = MeasureSpec(min_runs=3, max_time_s=0.05)
        >>> run = lambda: build_dataset(store, ["alexnet"], 2, ["fake-fake1.0-fp32-t1"],
        ...                             spec=fast, backends=reg)
        >>> run().rows()[0]["measured"], run().rows()[0]["skipped"]
        (2, 2)
    """
    for family in families:
        get_family(family)  # an unknown family fails before any measuring
    resolved = resolve_platforms(platforms, backends)
    for platform in resolved:
        store.upsert_platform(platform)
    report = CampaignReport()
    start = time.perf_counter()
    for family in families:
        done = {p.name: store.measured_hashes(p, spec.batch_size) for p in resolved}
        variants = generate_variants(
            family, per_family, seed, known_hashes=store.zoo_hashes(family)
        )
        for index, variant in enumerate(variants, start=1):
            todo = [p for p in resolved if variant.graph_hash not in done[p.name]]
            for platform in resolved:
                if platform not in todo:
                    report.skipped[family, platform.name] += 1
            if todo:
                # The recipe regenerates the model: keep the store small (no 10 MB TFLite
                # file per variant), as for ONNX zoo models.
                store.upsert_model(variant.graph, zoo_spec=variant.model.spec, keep_source=False)
            for platform in todo:
                result = measure(variant.graph, platform, spec, backends=backends)
                store.add_measurement(result)
                report.measured[family, platform.name] += 1
                if result.status != "ok":
                    report.failed[family, platform.name] += 1
                if feature_cache is not None:
                    # The result's input shapes are read off this very graph, so these
                    # are the features training would rebuild from the recipe.
                    shapes = dict(result.input_shapes)
                    if not cache_path(feature_cache, variant.graph_hash, shapes).exists():
                        cache_raw(feature_cache, variant.graph_hash, shapes, variant.graph)
            if on_variant is not None:
                on_variant(family, index, per_family)
    report.seconds = time.perf_counter() - start
    return report
