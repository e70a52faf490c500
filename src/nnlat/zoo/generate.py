"""Draw distinct variants of a family: seeded sampling, de-duplicated by graph hash."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from nnlat.errors import ExportError, NnlatError
from nnlat.graph.hashing import graph_key
from nnlat.graph.ir import Graph
from nnlat.zoo.family import ZooModel
from nnlat.zoo.registry import get_family

logger = logging.getLogger(__name__)

# Give up after this many draws per requested variant: the space is then too small.
MAX_DRAWS_PER_VARIANT = 20


@dataclass
class Variant:
    """A generated variant: its recipe, the graph's hash, and the graph (exported on demand).

    A variant whose hash came from ``known_hashes`` is not exported until ``.graph`` is
    read: resuming a campaign over thousands of variants then costs no export at all.
    """

    model: ZooModel
    graph_hash: str
    _graph: Graph | None = field(default=None, repr=False)

    @property
    def graph(self) -> Graph:
        """The normalised graph (exported now if it was not yet)."""
        if self._graph is None:
            self._graph = self.model.to_graph()
        return self._graph


def generate_variants(
    family: str,
    count: int,
    seed: int = 0,
    *,
    seen: set[str] | None = None,
    known_hashes: Mapping[str, str] | None = None,
) -> Iterator[Variant]:
    """Yield ``count`` structurally distinct variants of ``family``.

    Sampling is deterministic for a seed. Two configurations that produce the same
    graph (same hash) count once. A configuration the exporter refuses (a library
    model class at an opset it cannot export) is skipped with a warning and counts
    as a draw, so that one bad combination does not stop a campaign.

    Args:
        family: a registered family name.
        count: how many distinct variants to yield.
        seed: seed of the sampler.
        seen: graph hashes to skip (e.g. already in a dataset); updated in place.
        known_hashes: configuration JSON (``ZooModel.config_json``) → graph hash, for
            configurations hashed before; they are not exported again.

    Raises:
        UnknownNameError: no such family.
        NnlatError: the family could not produce ``count`` distinct variants.

    Example:
        >>> [v.model.family for v in generate_variants("nasbench201", 2, seed=0)]
        ['nasbench201', 'nasbench201']
    """
    spec = get_family(family)
    rng = random.Random(seed)
    seen = set() if seen is None else seen
    produced = draws = 0
    while produced < count:
        if draws >= MAX_DRAWS_PER_VARIANT * count:
            raise NnlatError(
                f"family {family!r} produced only {produced} distinct variants in {draws} "
                f"draws (asked for {count}); its search space is too small"
            )
        draws += 1
        model = spec.model(spec.sample(rng))
        graph = None
        digest = (known_hashes or {}).get(model.config_json)
        if digest is None:
            try:
                graph = model.to_graph()
            except ExportError as exc:
                logger.warning("%s: skipped %s: %s", family, model.config_json, exc)
                continue
            digest = graph_key(graph).digest
        if digest in seen:
            continue
        seen.add(digest)
        produced += 1
        yield Variant(model, digest, graph)
