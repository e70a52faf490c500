"""Measurement campaigns: many zoo variants × several platforms, into the store.

A campaign is deterministic and resumable. Variants are drawn with a fixed seed per
family (:func:`~nnlat.zoo.generate.generate_variants`), so a restarted campaign draws
the same variants in the same order; a (variant, platform) pair that already has a
stored result is skipped, and a variant whose every platform is done is not even
exported again (its hash is known from the stored zoo spec). Each measurement is
written in its own transaction, so stopping at any moment (Ctrl-C, a crash, a full
disk) loses at most the measurement in progress. Each variant can be measured at several
batch sizes (``batch_sizes``): models people ship often run at batch 4 to 64, where a
predictor trained at batch 1 alone extrapolates.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nnlat.datasets.training import cache_path, cache_raw
from nnlat.errors import InvalidInputShapeError
from nnlat.graph.hashing import graph_key
from nnlat.measure.backends.base import graph_for
from nnlat.measure.backends.registry import BackendFactory
from nnlat.measure.runner import measure, resolve_platform
from nnlat.measure.types import MeasureSpec
from nnlat.platform import Platform, UnknownPlatformError
from nnlat.registry import Registry
from nnlat.store import Store
from nnlat.zoo.generate import Variant, generate_variants
from nnlat.zoo.registry import get_family

# The campaign protocol: the same stopping rule as a query, with a tighter budget so
# that thousands of models fit in hours. Results keep their stop reason ("ci", "time").
CAMPAIGN_SPEC = MeasureSpec(warmup_min_runs=3, warmup_max_s=1.0, min_runs=10, max_time_s=1.0)

# Called after each variant: (family, variants done in this family, its target).
OnVariant = Callable[[str, int, int], None]


@dataclass
class CampaignReport:
    """What a campaign did, per (family, platform), batch sizes together.

    Attributes:
        measured: results measured and stored now, by ``(family, platform)``.
        skipped: results already in the store, by ``(family, platform)``.
        failed: of ``measured``, those whose status is not ``ok``.
        refused: results not measured because the variant cannot take the batch size
            (its export hard-codes batch 1, in a ``Reshape`` say).
        seconds: wall time of the campaign.
    """

    measured: Counter[tuple[str, str]] = field(default_factory=Counter)
    skipped: Counter[tuple[str, str]] = field(default_factory=Counter)
    failed: Counter[tuple[str, str]] = field(default_factory=Counter)
    refused: Counter[tuple[str, str]] = field(default_factory=Counter)
    seconds: float = 0.0

    def rows(self) -> list[dict[str, object]]:
        """One dict per (family, platform): the table ``nnlat dataset build`` prints."""
        keys = sorted(set(self.measured) | set(self.skipped) | set(self.refused))
        return [
            {
                "family": family,
                "platform": platform,
                "measured": self.measured[family, platform],
                "skipped": self.skipped[family, platform],
                "failed": self.failed[family, platform],
                "refused": self.refused[family, platform],
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
    batch_sizes: Sequence[int] = (1,),
) -> CampaignReport:
    """Measure ``per_family`` distinct variants of each family on each platform.

    Args:
        store: where models, platforms and results go (and where done work is found).
        families: zoo family names.
        per_family: distinct variants (by graph hash) per family.
        platforms: platform names of this host.
        seed: the sampling seed; the same seed draws the same variants.
        spec: the measurement protocol (its batch size is replaced by ``batch_sizes``);
            each variant's own input shape.
        backends: the backend registry; by default the real backends.
        on_variant: progress callback, called once per variant.
        feature_cache: also write each measured variant's raw features to this cache
            (:func:`nnlat.datasets.training.cache_raw`), from the graph already in hand, so
            that training on the campaign does not rebuild every graph (for a TFLite family
            that is a second TensorFlow conversion per model); None: no cache.
        batch_sizes: measure each variant at each of these batch sizes (dimension 0 of
            every input); a result is skipped per (variant, platform, batch size).

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
        >>> build_dataset(store, ["alexnet"], 2, ["fake-fake1.0-fp32-t1"], spec=fast,
        ...               backends=reg, batch_sizes=(1, 4)).rows()[0]["measured"]
        2
    """
    if not batch_sizes or min(batch_sizes) < 1:
        raise ValueError(f"batch sizes must be at least 1, not {list(batch_sizes)}")
    specs = [spec.model_copy(update={"batch_size": b}) for b in dict.fromkeys(batch_sizes)]
    for family in families:
        get_family(family)  # an unknown family fails before any measuring
    resolved = resolve_platforms(platforms, backends)
    for platform in resolved:
        store.upsert_platform(platform)
    report = CampaignReport()
    start = time.perf_counter()
    for family in families:
        done = {
            (p.name, s.batch_size): store.measured_hashes(p, s.batch_size)
            for p in resolved
            for s in specs
        }
        variants = generate_variants(
            family, per_family, seed, known_hashes=store.zoo_hashes(family)
        )
        for index, variant in enumerate(variants, start=1):
            for batch_spec in specs:
                _measure_variant(
                    store,
                    family,
                    variant,
                    batch_spec,
                    resolved,
                    done,
                    report,
                    backends,
                    feature_cache,
                )
            if on_variant is not None:
                on_variant(family, index, per_family)
    report.seconds = time.perf_counter() - start
    return report


def _measure_variant(
    store: Store,
    family: str,
    variant: Variant,
    spec: MeasureSpec,
    platforms: Sequence[Platform],
    done: Mapping[tuple[str, int], set[str]],
    report: CampaignReport,
    backends: Registry[BackendFactory] | None,
    feature_cache: Path | None,
) -> None:
    """Measure one variant at ``spec``'s batch size on the platforms that lack it.

    At batch 1 the variant is its zoo model (stored with its recipe, exported only when
    something is left to measure). At another batch size it is another graph, with its
    own hash, as a query at that batch size stores it: the weight-free ONNX is kept,
    without the recipe (which regenerates batch 1), and the variant is exported to know
    that hash, even on a resumed campaign.
    """
    batch = spec.batch_size
    if batch == 1:
        graph, digest = None, variant.graph_hash  # exported only if something is left
    else:
        try:
            graph = graph_for(variant.graph, spec)
        except InvalidInputShapeError:  # batch 1 hard-coded: no graph at this batch size
            report.refused.update((family, p.name) for p in platforms)
            return
        digest = graph_key(graph).digest
    todo = [p for p in platforms if digest not in done[p.name, batch]]
    report.skipped.update((family, p.name) for p in platforms if p not in todo)
    if not todo:
        return
    if graph is None:
        graph = variant.graph
        # The recipe regenerates the model: keep the store small (no 10 MB TFLite file
        # per variant), as for ONNX zoo models.
        store.upsert_model(graph, zoo_spec=variant.model.spec, keep_source=False)
    else:
        store.upsert_model(graph, family=family, keep_onnx=True, keep_source=False)
    for platform in todo:
        result = measure(graph, platform, spec, backends=backends)
        store.add_measurement(result)
        report.measured[family, platform.name] += 1
        if result.status != "ok":
            report.failed[family, platform.name] += 1
        if feature_cache is not None:
            # The result's input shapes are read off this very graph, so these are the
            # features training would rebuild from the stored model.
            shapes = dict(result.input_shapes)
            if not cache_path(feature_cache, digest, shapes).exists():
                cache_raw(feature_cache, digest, shapes, graph)
