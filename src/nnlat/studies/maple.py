"""MAPLE on a device pool we own: hardware descriptors and few-shot adaptation (issue 31).

MAPLE (Abbasi et al., CVPRW 2022) adapts a latency predictor to an unseen device from 3
measurements because it describes the hardware: every primitive of the search space is
run alone on the device, with its counters (§3.3); a dual-stream regressor takes the
architecture encoding and that descriptor (§3.4); the target's few latencies are mixed
into the training set with a larger weight. Its Table 1: leave-one-device-out over eight
devices, mean Acc(10 %) 0.87 with 3 shots, 0.93 with 10 (HELP with 10: 0.81).

Here the pool is :data:`nnlat.measure.pool.VELA_POOL` (sixteen Ethos-U NPUs through Vela)
and the space NAS-Bench-201 as int8 TFLite (``nasbench201-int8``), measured by
``scripts/maple_campaign.sh``. Variants are split by their position in the campaign's
seeded draw (:func:`is_test`): of the first 1,100, 900 training and 200 test
architectures, the same on every device. Descriptors (:func:`characterise_pool`) are
built from the space's own primitives (:attr:`~nnlat.studies.maple_spaces.Space.workloads`:
:func:`nnlat.zoo.nasbench201_tflite.primitives`, or the keyword spotter's layers) before
any architecture is looked at. The keyword-spotting space (``cnn-kws``) runs the same way.

For each target device, k ∈ {3, 10} shots and a seed, with the k shots drawn from the
target's *training* architectures (its test architectures are never seen), methods
(:data:`METHODS`):

* ``maple``: the dual-stream regressor on [one-hot cell encoding; full descriptor],
  trained on the other devices' training rows with the k shots mixed in (eq. 3);
* ``maple-<parts>``: the same with only some descriptor parts (the ablation): ``none``
  (no descriptor: only the k shots tell the devices apart), ``latency`` (the primitives'
  latencies), ``counters`` (their Vela counters without latency), ``spec`` (a priori);
* ``help``: HELP's kind of descriptor — a device is its latencies on k reference
  architectures (the target's k shots, measured on every training device too), with the
  same regressor and mixing; latencies only, no counters, no specification;
* ``maple-ops`` (nnlat's variant): the descriptor's primitive costs composed with the
  architecture's converted-operator counts, each pool device's efficiency (fitted cost /
  descriptor cost per operator) carried to the target, weighted by fit on the k shots
  (:class:`~nnlat.predictor.maple.OpCostTransfer`);
* ``lut``: the look-up-table sum of the target's primitive latencies (0 shots);
* ``lut-scaled``: that sum times the median ratio of measured to summed over the k shots;
* ``<composition>@<pricing>`` for a composition of :data:`PRICED`: the primitives priced
  for where the network's tensors land (:mod:`nnlat.studies.maple_traffic`); the named
  ``maple-ops-traffic`` and ``maple-lut-traffic`` are the pricing chosen on validation
  (:data:`TRAFFIC`);
* ``nnlp-ft``: NNLQP's transfer of nnlat's graph network (:mod:`nnlat.studies.maple_nnlp`):
  NNLP pre-trained with a head per source device, a new head fine-tuned on the k shots;
  no descriptor. Its sources are the devices outside the target's fold of
  ``nnlp_folds`` (all others when that is the pool's size);
* ``nnlp-lut``: the same network learning measured / the look-up-table sum of the
  architecture's primitives on the device (the descriptor as a prior it corrects);
  ``nnlp-lut-traffic`` prices that sum as ``maple-lut-traffic`` does.

Metrics on the target's test architectures: Acc(10 %), Acc(5 %), MAPE, Spearman.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nnlat.measure.descriptor import HardwareDescriptor, characterise_vela, load_descriptors
from nnlat.predictor.maple import MapleRegressor, OpCostTransfer, mixing_weights, priced
from nnlat.predictor.metrics import accuracy_report, spearman
from nnlat.studies.maple_nnlp import NnlpTransfer, arch_graphs
from nnlat.studies.maple_spaces import KWS_PRICINGS, NB201, compose_kws, load_context, space_of
from nnlat.studies.maple_traffic import PRICINGS, price, primitive_costs
from nnlat.studies.results import Results, read_jsonl, record_result
from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config

FAMILY = NB201.family
VARIANTS = 1100  # the campaign's first 1,100 draws: 900 training, 200 test
SHOTS = (3, 10)
PARTS = {
    "maple": ("latency", "counters", "spec"),
    "maple-none": (),
    "maple-latency": ("latency",),
    "maple-counters": ("counters",),
    "maple-spec": ("spec",),
}
# Named variants: a composition with the pricing of memory traffic chosen on validation
# (reports/maple/validation.md, scripts/maple_validation.py).
TRAFFIC = {
    "maple-ops-traffic": "maple-ops@on_chip",
    "maple-lut-traffic": "maple-lut@on_chip",
    "nnlp-lut-traffic": "nnlp-lut@on_chip",  # maple-lut's pricing, not chosen again
}
METHODS = (
    *PARTS, "maple-ops", "maple-lut", "help", "lut", "lut-scaled", "nnlp-ft", "nnlp-lut", *TRAFFIC
)  # fmt: skip
PRICED = ("maple-ops", "maple-lut", "lut", "lut-scaled", "nnlp-lut")  # take ``@<pricing>``
DEFAULT_METHODS = ("maple-ops", "maple", "help", "lut", "lut-scaled")
COMPOSING = ("maple-ops", "maple-lut", "lut", "lut-scaled", "nnlp-lut")  # need Space.composes


def method_pricing(method: str) -> tuple[str, str]:
    """A method's base and the pricing of its composition (:mod:`maple_traffic`).

    ``<base>@<pricing>`` for a base of :data:`PRICED` and a pricing of
    :data:`~nnlat.studies.maple_traffic.PRICINGS`; a named variant of :data:`TRAFFIC`; any
    other method of :data:`METHODS` composes as before (``compute``).

    Raises:
        ValueError: an unknown method or pricing, with the known ones.

    Example:
        >>> method_pricing("maple-ops@placement"), method_pricing("maple")
        (('maple-ops', 'placement'), ('maple', 'compute'))
    """
    method = TRAFFIC.get(method, method)
    base, _, pricing = method.partition("@")
    pricings = dict.fromkeys([*PRICINGS, *KWS_PRICINGS])  # every space's, ordered
    if base not in METHODS or (pricing and (base not in PRICED or pricing not in pricings)):
        raise ValueError(
            f"unknown method {method!r}; known: {', '.join(METHODS)}, and "
            f"<{'|'.join(PRICED)}>@<{'|'.join(pricings)}>"
        )
    return base, pricing or "compute"


def default_methods(family: str) -> tuple[str, ...]:
    """What ``nnlat eval maple`` runs on a space unless told: all but ``nnlp-ft`` (slow).

    Example:
        >>> default_methods("nasbench201-int8")[:3]
        ('maple-ops', 'maple', 'help')
    """
    everything = ("maple-ops", "maple", "help", "lut", "lut-scaled", *PARTS)
    methods = dict.fromkeys(everything)  # ordered, without repeats
    if not space_of(family).composes:
        methods = {m: None for m in methods if m not in COMPOSING}
    return tuple(methods)


def check_space(family: str, methods: Sequence[str]) -> None:
    """Refuse methods that compose primitives on a space that has none to compose.

    Raises:
        ValueError: an unknown space, or which methods it cannot run and what it can.

    Example:
        >>> check_space("cnn-kws", ["maple", "lut"])
    """
    pricings = space_of(family).pricings
    for method in methods:
        base, pricing = method_pricing(method)
        if base in COMPOSING and pricing not in pricings:
            raise ValueError(
                f"{method} prices the search space's primitives as {pricing!r}; {family} "
                f"composes with {', '.join(pricings) or 'no pricing'}: use another method"
            )


def is_test(position: int) -> bool:
    """Whether the campaign's variant at ``position`` (0-based) is a test architecture.

    Two of every eleven: 200 of the first 1,100, spread over the campaign so that a
    campaign stopped early still has both kinds in the same 9 : 2 ratio.

    Example:
        >>> sum(is_test(p) for p in range(1100))
        200
    """
    return position % 11 in (4, 10)


def is_validation(position: int) -> bool:
    """Training positions held out to choose methods and settings (never test ones).

    Example:
        >>> any(is_validation(p) and is_test(p) for p in range(1100))
        False
    """
    return position % 11 in (2, 7)


@dataclass(frozen=True)
class PoolData:
    """The campaign's latencies, one row per variant position.

    Attributes:
        archs: the space's architecture strings (:attr:`Space.arch`), by position.
        devices: platform names, the columns of ``latency_ms``.
        latency_ms: ``(positions, devices)``; NaN where not (yet) measured.
        family: the search space's zoo family (:data:`~nnlat.studies.maple_spaces.SPACES`).
    """

    archs: tuple[str, ...]
    devices: tuple[str, ...]
    latency_ms: np.ndarray
    family: str = FAMILY

    def complete(self) -> np.ndarray:
        """Positions measured on every device, in order."""
        return np.flatnonzero(~np.isnan(self.latency_ms).any(axis=1))


def load_pool(db: str, devices: Sequence[str], family: str = FAMILY) -> PoolData:
    """Read the campaign's results for ``devices`` from the store at ``db``.

    A variant's position is its rank among the family's models in insertion order (the
    campaign inserts them in its seeded draw order); positions from :data:`VARIANTS` on
    are not read.
    """
    import sqlalchemy as sa

    from nnlat.store import Store

    space = space_of(family)
    query = sa.text(
        "SELECT m.id, m.zoo_spec, p.name, ms.median_ms FROM measurements ms "
        "JOIN models m ON ms.model_id = m.id JOIN platforms p ON p.id = ms.platform_id "
        "WHERE m.family = :family AND ms.status = 'ok' AND ms.batch_size = 1"
    )
    with Store.open(db, migrate=False) as store, store.engine.connect() as connection:
        rows = connection.execute(query, {"family": family}).all()
    ids = sorted({row[0] for row in rows})[:VARIANTS]
    position = {model_id: i for i, model_id in enumerate(ids)}
    archs = [""] * len(ids)
    column = {name: j for j, name in enumerate(devices)}
    latency = np.full((len(ids), len(devices)), np.nan)
    for model_id, spec, platform, median_ms in rows:
        if model_id not in position:
            continue
        spec = json.loads(spec) if isinstance(spec, str) else spec
        archs[position[model_id]] = space.arch(spec["config"])
        if platform in column:
            latency[position[model_id], column[platform]] = median_ms
    return PoolData(tuple(archs), tuple(devices), latency, family)


def load_table(path: Path, family: str = FAMILY) -> PoolData:
    """Read :func:`write_table`'s CSV back (its rows are complete; positions kept).

    Example:
        >>> import tempfile
        >>> data = PoolData(("a", "b"), ("d",), np.array([[1.0], [2.0]]))
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     _ = write_table(data, Path(folder) / "t.csv")
        ...     load_table(Path(folder) / "t.csv").latency_ms.tolist()
        [[1.0], [2.0]]
    """
    import csv

    with path.open(newline="") as handle:
        rows = list(csv.reader(handle))
    devices, body = tuple(rows[0][3:]), rows[1:]
    size = max((int(row[0]) for row in body), default=-1) + 1
    archs = [""] * size
    latency = np.full((size, len(devices)), np.nan)
    for row in body:
        archs[int(row[0])] = row[2]
        latency[int(row[0])] = [float(v) for v in row[3:]]
    return PoolData(tuple(archs), devices, latency, family)


def characterise_pool(
    platforms: Sequence[str],
    out: Path,
    cache: Path | None = None,
    on_device: Callable[[str], None] | None = None,
    family: str = FAMILY,
) -> dict[str, HardwareDescriptor]:
    """Build (or complete) the descriptors of ``platforms`` in the JSON file ``out``.

    Each is the search space's primitive workloads (:attr:`Space.workloads`) estimated
    on the device. Resumable: platforms already in ``out`` are kept, not measured again.
    """
    from nnlat.measure.descriptor import save_descriptors

    found = load_descriptors(out) if out.is_file() else {}
    workloads = None
    for platform in platforms:
        if platform in found:
            continue
        workloads = workloads or space_of(family).workloads(cache)
        found[platform] = characterise_vela(platform, workloads)
        save_descriptors(list(found.values()), out)
        if on_device is not None:
            on_device(platform)
    return found


def op_counts(arch: str) -> np.ndarray:
    """:func:`~nnlat.zoo.nasbench201_tflite.converted_ops` of a cell as a vector.

    Example:
        >>> op_counts(ALL_CONV3X3).tolist()
        [0.0, 6.0, 0.0, 3.0, 0.0, 0.0, 0.0]
    """
    from nnlat.zoo.nasbench201_tflite import CONVERTED_OPS, converted_ops

    counts = converted_ops(arch)
    return np.array([float(counts[op]) for op in CONVERTED_OPS])


def compose(
    family: str,
    archs: Sequence[str],
    descriptors: dict[str, HardwareDescriptor],
    devices: Sequence[str],
    pricing: str,
    context: Mapping[str, Mapping[str, float]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The look-up-table design of ``archs`` on ``devices``: what each part costs, and traffic.

    NAS-Bench-201 prices its converted-operator counts for where the tensors land
    (:mod:`~nnlat.studies.maple_traffic`), or in context (``context``: each cell operator
    estimated between its neighbours, :mod:`~nnlat.studies.maple_nb201_context`; no
    traffic time); a keyword spotter sums its layers' primitives
    (:func:`~nnlat.studies.maple_spaces.compose_kws`, priced ``compute``, ``split`` or
    ``context``; no traffic time). ``context`` reads ``context``, the in-context latencies.

    Returns:
        ``(devices, archs, parts)`` costs in ms (summed over parts: the look-up-table
        latency) and ``(archs, devices)`` traffic time in ms.
    """
    if family != NB201.family:
        design = compose_kws(archs, descriptors, devices, pricing, context)
        return design, np.zeros((len(archs), len(devices)))
    counts = np.stack([op_counts(a) for a in archs]) if archs else np.zeros((0, 7))
    if pricing == "context":
        return priced(counts, _in_context_costs(descriptors, devices, len(archs), context)), (
            np.zeros((len(archs), len(devices)))
        )
    found = price(archs, descriptors, devices, pricing, arch_config(ALL_CONV3X3))
    return priced(counts, found.costs), found.traffic_ms


def _in_context_costs(
    descriptors: Mapping[str, HardwareDescriptor],
    devices: Sequence[str],
    archs: int,
    context: Mapping[str, Mapping[str, float]] | None,
) -> np.ndarray:
    """``(devices, archs, parts)``: each converted operator priced in context, the rest alone.

    Raises:
        ValueError: a device without in-context latencies.
    """
    if context is None or any(d not in context for d in devices):
        raise ValueError("context pricing needs every device's in-context latencies")
    costs = []
    for device in devices:
        descriptor = descriptors[device]
        alone = {w: 1e3 * descriptor.counter(w, "latency_s") for w in descriptor.workloads}
        per_op = primitive_costs(descriptor, arch_config(ALL_CONV3X3), alone | context[device])
        costs.append(np.broadcast_to(per_op, (archs, len(per_op))))
    return np.array(costs).reshape(len(devices), archs, -1)


def lut_latency_ms(arch: str, descriptor: HardwareDescriptor, config: dict[str, Any]) -> float:
    """The look-up-table estimate: the primitives' latencies summed along ``arch``.

    Counts the operators the converter keeps (:func:`op_counts`: live nodes only, merged
    pools, standalone ReLUs), not the edges as written: summing edges (the first version)
    put dead nodes' convolutions in and missed the standalone ReLUs, which made the sum
    0.17–1.0 × the measured latency depending on the architecture.
    """
    costs = primitive_costs(descriptor, config)
    return float(op_counts(arch) @ costs[:-1] + costs[-1])


@dataclass(frozen=True)
class MapleConfig:
    """What the study runs.

    Attributes:
        db: database URL of the campaign.
        descriptors: the descriptors' JSON file (:func:`characterise_pool`).
        devices: the pool; each is left out in turn.
        methods: of :data:`METHODS`.
        shots: adaptation sizes k.
        seeds: draws of the k shots per device.
        steps: the regressor's training steps.
        out: results file (JSON lines; a rerun resumes).
        validation: score on validation positions of the training split instead of test.
        table: read the latencies from this CSV (:func:`write_table`'s) instead of ``db``.
        nnlp_folds: ``nnlp-ft`` leaves the devices out in this many groups (one
            pre-training each; the pool's size leaves them out one by one).
        nnlp_epochs: ``nnlp-ft``'s pre-training epochs.
        family: the search space (:data:`~nnlat.studies.maple_spaces.SPACES`); a space
            whose primitives do not compose runs the regressors and ``nnlp-ft`` only.
        targets: the devices left out in turn (default: every device); the others are
            sources only.
    """

    db: str
    descriptors: str
    devices: tuple[str, ...]
    methods: tuple[str, ...] = DEFAULT_METHODS
    shots: tuple[int, ...] = SHOTS
    seeds: int = 2
    steps: int = 400
    out: str | None = None
    validation: bool = False
    table: str | None = None
    nnlp_folds: int = 4
    nnlp_epochs: int = 30
    family: str = FAMILY
    targets: tuple[str, ...] = ()


@dataclass(frozen=True)
class MapleResult:
    """One (device, method, k, seed): metrics on the device's test architectures."""

    device: str
    method: str
    shots: int
    seed: int
    train_rows: int
    test_archs: int
    acc_10: float
    acc_5: float
    mape: float
    spearman: float
    seconds: float
    data_key: str = ""


def shot_positions(train: np.ndarray, k: int, device: str, seed: int) -> np.ndarray:
    """k of the target's training positions, for a (device, seed): the first k of one order."""
    digest = hashlib.sha256(f"{device}/{seed}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    return rng.permutation(train)[:k]


@dataclass
class _Fold:
    """Everything one (target, k, seed) needs."""

    data: PoolData
    descriptors: dict[str, HardwareDescriptor]
    target: int
    train: np.ndarray  # positions (complete, training split)
    test: np.ndarray
    shots: np.ndarray
    enc: np.ndarray = field(repr=False)
    # per pricing: converted-operator counts × costs (ms), (devices, positions, ops + 1)
    designs: dict[str, np.ndarray] = field(repr=False)
    traffic: dict[str, np.ndarray] = field(repr=False)  # per pricing, (positions, devices)
    distance: np.ndarray = field(repr=False)  # descriptor distances, (devices, devices)
    # for ``nnlp-ft`` and ``nnlp-lut``: per method (``nnlp-lut@<pricing>``), its networks
    nnlp: dict[str, NnlpTransfer] = field(default_factory=dict, repr=False)

    @property
    def others(self) -> list[int]:
        return [j for j in range(len(self.data.devices)) if j != self.target]


def _regressor_rows(
    fold: _Fold, device_vectors: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Training rows: the other devices' training archs, then the target's shots."""
    arch, desc, y = [], [], []
    for j in fold.others:
        arch.append(fold.enc[fold.train])
        desc.append(np.repeat(device_vectors[j][None], len(fold.train), axis=0))
        y.append(fold.data.latency_ms[fold.train, j])
    initial = sum(len(a) for a in arch)
    arch.append(fold.enc[fold.shots])
    desc.append(np.repeat(device_vectors[fold.target][None], len(fold.shots), axis=0))
    y.append(fold.data.latency_ms[fold.shots, fold.target])
    weight = mixing_weights(initial, len(fold.shots))
    return np.concatenate(arch), np.concatenate(desc), np.concatenate(y), weight


NNLP = ("nnlp-ft", "nnlp-lut")  # NNLP's transfer: one NnlpTransfer per _nnlp_name


def _nnlp_name(base: str, pricing: str) -> str:
    """Which NnlpTransfer a method uses: ``nnlp-ft``, or ``nnlp-lut@<pricing>``."""
    return base if base == "nnlp-ft" else f"{base}@{pricing}"


def _predict(method: str, fold: _Fold, steps: int, seed: int) -> np.ndarray:
    devices = fold.data.devices
    method, pricing = method_pricing(method)
    if method in COMPOSING:
        design = fold.designs[pricing]
        lut = design.sum(axis=2).T  # (positions, devices)
    if method in NNLP:
        key = _nnlp_name(method, pricing)
        if key not in fold.nnlp:
            raise ValueError(f"{key} needs the fold's NnlpTransfer")
        return fold.nnlp[key].predict(fold.target, fold.train, fold.shots, fold.test, seed)
    if method in ("lut", "lut-scaled"):
        test_lut = lut[fold.test, fold.target]
        if method == "lut":
            return test_lut
        ratio = fold.data.latency_ms[fold.shots, fold.target] / lut[fold.shots, fold.target]
        return test_lut * float(np.median(ratio))
    if method == "maple-ops":
        others = fold.others
        model = OpCostTransfer().fit(
            design[np.ix_(others, fold.train)], fold.data.latency_ms[np.ix_(fold.train, others)]
        )
        adapted = model.adapt(
            design[fold.target, fold.shots],
            fold.data.latency_ms[fold.shots, fold.target],
            fold.distance[fold.target, others],
        )
        return model.predict(design[fold.target, fold.test], adapted)
    if method == "maple-lut":
        # The descriptor enters twice: as MAPLE's vector, and composed with the architecture
        # as the look-up-table sum of its primitives' latencies on the device; the network
        # learns the correction factor (measured / sum), which varies far less across
        # devices than the latency itself (a 300x range over the pool). A traffic pricing
        # also gives it the architecture's traffic time on the device, as a share of the sum.
        vectors = np.stack([fold.descriptors[d].vector() for d in devices])
        arch, desc, y, weight = _regressor_rows(fold, vectors)

        def composed(rows: np.ndarray, device: int) -> np.ndarray:
            columns = [np.log(lut[rows, device])]
            if pricing != "compute":
                # log1p: a cell of skips only moves nothing (traffic 0)
                share = fold.traffic[pricing][rows, device] / lut[rows, device]
                columns.append(np.log1p(share))
            return np.stack(columns, axis=1)

        rows_extra = np.concatenate(
            [composed(fold.train, j) for j in fold.others] + [composed(fold.shots, fold.target)]
        )
        rows_lut = np.exp(rows_extra[:, 0])
        desc = np.concatenate([desc, rows_extra], axis=1)
        model = MapleRegressor(steps=steps, seed=seed).fit(arch, desc, y / rows_lut, weight)
        n = len(fold.test)
        test_desc = np.repeat(vectors[fold.target][None], n, axis=0)
        test_desc = np.concatenate([test_desc, composed(fold.test, fold.target)], axis=1)
        return model.predict(fold.enc[fold.test], test_desc) * lut[fold.test, fold.target]
    if method == "help":
        # A device is its latencies on the reference architectures (the target's shots).
        vectors = np.log(fold.data.latency_ms[fold.shots].T)
    else:
        parts = PARTS[method]
        vectors = np.stack([fold.descriptors[d].vector(parts) for d in devices])
    arch, desc, y, weight = _regressor_rows(fold, vectors)
    model = MapleRegressor(steps=steps, seed=seed).fit(arch, desc, y, weight)
    n = len(fold.test)
    return model.predict(fold.enc[fold.test], np.repeat(vectors[fold.target][None], n, axis=0))


def _data_key(data: PoolData) -> str:
    """Which data a result was computed on: the number of complete positions."""
    return f"{len(data.complete())}x{len(data.devices)}"


def saved(config: MapleConfig) -> Results[MapleConfig, MapleResult]:
    """The rows ``config.out`` holds for the data ``config`` reads, nothing trained.

    A results file keeps the rows of earlier, smaller snapshots of a campaign (a rerun on
    more data resumes beside them); a report is of one snapshot only: the table's (or
    the database's) when ``config.table`` is given, otherwise the snapshot with the most
    complete positions.
    """
    rows = read_jsonl(Path(config.out), MapleResult) if config.out else []
    if config.table:
        data = load_table(Path(config.table), space_of(config.family).family)
        key = _data_key(data) + ("-validation" if config.validation else "")
    else:
        keys = {r.data_key for r in rows if r.data_key.endswith("-validation") == config.validation}
        key = max(keys, key=lambda k: int(k.split("x")[0]), default="")
    return Results(config, [r for r in rows if r.data_key == key])


def run(
    config: MapleConfig, on_result: Callable[[MapleResult], None] | None = None
) -> Results[MapleConfig, MapleResult]:
    """Leave each device out; adapt with k shots; score every method on its test archs.

    Results already in ``config.out`` for the same data (same number of complete
    positions) are kept and not recomputed.
    """
    import torch

    # Hundreds of small full-batch fits: intra-op threads only contend on a shared core.
    torch.set_num_threads(1)
    space = space_of(config.family)
    check_space(space.family, config.methods)
    data = (
        load_table(Path(config.table), space.family)
        if config.table
        else load_pool(config.db, config.devices, space.family)
    )
    descriptors = load_descriptors(Path(config.descriptors))
    missing = [d for d in config.devices if d not in descriptors]
    if missing:
        raise ValueError(f"no descriptor for {missing}: run characterise_pool first")
    complete = data.complete()
    train = np.array([p for p in complete if not is_test(int(p))])
    test = np.array([p for p in complete if is_test(int(p))])
    if config.validation:  # choose on validation: the test positions are not read at all
        test = np.array([p for p in train if is_validation(int(p))])
        train = np.array([p for p in train if not is_validation(int(p))])
    if len(train) < max(config.shots) or len(test) == 0:
        raise ValueError(
            f"{len(train)} training and {len(test)} test architectures are measured on every "
            "device: too few to run"
        )
    key = _data_key(data) + ("-validation" if config.validation else "")
    path = Path(config.out) if config.out else None
    done = [r for r in (read_jsonl(path, MapleResult) if path else []) if r.data_key == key]
    seen = {(r.device, r.method, r.shots, r.seed) for r in done}
    results: list[MapleResult] = list(done)
    enc = np.stack([space.encode(a) for a in data.archs])
    designs, traffic = {}, {}
    # only what a method composes: a device without a Vela descriptor (a CPU's is latency
    # alone) can join the pool for the regressors and nnlp-ft
    pricings = sorted(
        {method_pricing(m)[1] for m in config.methods if method_pricing(m)[0] in COMPOSING}
    )
    # The in-context latencies live beside the descriptors.
    context = (
        load_context(Path(config.descriptors).parent / space.context.name)
        if "context" in pricings
        else None
    )
    if space.composes:
        for pricing in pricings:
            designs[pricing], traffic[pricing] = compose(
                space.family, data.archs, descriptors, data.devices, pricing, context
            )
    uses_distance = any(method_pricing(m)[0] == "maple-ops" for m in config.methods)
    distance = descriptor_distances(descriptors, data.devices) if uses_distance else np.zeros(0)
    nnlp = {}
    for method in config.methods:
        base, pricing = method_pricing(method)
        if base in NNLP:
            name = _nnlp_name(base, pricing)
            prior = None if base == "nnlp-ft" else designs[pricing].sum(axis=2).T
            nnlp[name] = NnlpTransfer(
                arch_graphs(data.archs, space),
                data.latency_ms,
                list(data.devices),
                config.nnlp_folds,
                config.nnlp_epochs,
                prior,
            )
    for target, device in enumerate(data.devices):
        if config.targets and device not in config.targets:
            continue
        for k in config.shots:
            for seed in range(config.seeds):
                shots = shot_positions(train, k, device, seed)
                fold = _Fold(
                    data,
                    descriptors,
                    target,
                    train,
                    test,
                    shots,
                    enc,
                    designs,
                    traffic,
                    distance,
                    nnlp,
                )
                for method in config.methods:
                    if (device, method, k, seed) in seen:
                        continue
                    start = time.perf_counter()
                    predicted = _predict(method, fold, config.steps, seed)
                    measured = data.latency_ms[test, target]
                    report = accuracy_report(measured, predicted)
                    record_result(
                        results,
                        MapleResult(
                            device=device,
                            method=method,
                            shots=k,
                            seed=seed,
                            train_rows=len(train) * (len(data.devices) - 1) + k,
                            test_archs=len(test),
                            acc_10=report["acc_10"],
                            acc_5=report["acc_5"],
                            mape=report["mape"],
                            spearman=spearman(measured, predicted),
                            seconds=time.perf_counter() - start,
                            data_key=key,
                        ),
                        path,
                        on_result,
                    )
    return Results(config, results, inputs=len(complete))


def short_name(platform: str) -> str:
    """A pool name without its repeated parts.

    Example:
        >>> short_name("u55_32.ethos_u55_deep_embedded.shared_sram-vela5.2-int8")
        'u55_32/deep_embedded/shared_sram'
    """
    hardware = platform.split("-vela")[0]
    accelerator, system, memory = hardware.split(".")
    system = system.replace("ethos_u55_", "").replace("ethos_u65_", "").replace("ethos_u85_", "")
    return f"{accelerator}/{system}/{memory}"


def descriptor_distances(
    descriptors: dict[str, HardwareDescriptor], devices: Sequence[str]
) -> np.ndarray:
    """Euclidean distances between standardised descriptor vectors (MAPLE's Figure 2)."""
    vectors = np.stack([descriptors[d].vector() for d in devices])
    std = vectors.std(axis=0)
    z = (vectors - vectors.mean(axis=0)) / np.where(std > 1e-12, std, 1.0)
    return np.sqrt(((z[:, None, :] - z[None, :, :]) ** 2).sum(axis=2))


def plot_distances(
    descriptors: dict[str, HardwareDescriptor], devices: Sequence[str], path: Path
) -> None:
    """Write the device-distance map as a PNG heat map."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    distances = descriptor_distances(descriptors, devices)
    names = [short_name(d) for d in devices]
    figure, axes = plt.subplots(figsize=(9, 8))
    image = axes.imshow(distances, cmap="viridis")
    axes.set_xticks(range(len(names)), names, rotation=90, fontsize=7)
    axes.set_yticks(range(len(names)), names, fontsize=7)
    for i in range(len(names)):
        for j in range(len(names)):
            axes.text(
                j,
                i,
                f"{distances[i, j]:.0f}",
                ha="center",
                va="center",
                fontsize=5,
                color="white" if distances[i, j] < distances.max() / 2 else "black",
            )
    figure.colorbar(image, ax=axes, label="Euclidean distance (standardised descriptors)")
    axes.set_title("Distance between hardware descriptors (MAPLE Figure 2)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def _mean(rows: Sequence[MapleResult], attr: str) -> float:
    return statistics.fmean(getattr(r, attr) for r in rows)


TABLE_METHODS = (
    "maple-ops",
    "maple-ops-traffic",
    "maple",
    "maple-lut",
    "maple-lut-traffic",
    "help",
    "lut",
    "lut-scaled",
    "nnlp-ft",
    "nnlp-lut-traffic",
)


def render(study: Results[MapleConfig, MapleResult]) -> str:
    """The report's tables: Table 1 (per device and mean Acc(10 %), Spearman), the ablation."""
    config, all_rows = study.config, study.rows
    priced_options = sorted({r.method for r in all_rows if "@" in r.method})
    rows = [r for r in all_rows if r.method in TABLE_METHODS or "@" in r.method]
    methods = [m for m in TABLE_METHODS if any(r.method == m for r in rows)] + priced_options
    shots = sorted({r.shots for r in rows})
    devices = [d for d in config.devices if any(r.device == d for r in rows)]
    cols = [(m, k) for m in methods for k in shots]

    # the configurations whose tensor arena is off-chip (Vela's Dedicated_Sram memory mode)
    dram_arena = [d for d in devices if "dedicated_sram" in d.split("-vela")[0].split(".")[-1]]
    means = {"**mean**": devices, "**mean, arena in DRAM**": dram_arena}

    def cell(device: str, method: str, k: int, attr: str) -> float | None:
        chosen = [r for r in rows if r.method == method and r.shots == k]
        if device not in means:
            chosen = [r for r in chosen if r.device == device]
            return _mean(chosen, attr) if chosen else None
        per_device = [
            _mean([r for r in chosen if r.device == d], attr)
            for d in means[device]
            if any(r.device == d for r in chosen)
        ]
        return statistics.fmean(per_device) if per_device else None

    def table(attr: str, fmt: Callable[[float], str]) -> list[str]:
        header = "| device | " + " | ".join(f"{m} k={k}" for m, k in cols) + " |"
        lines = [header, "|" + "---|" * (len(cols) + 1)]
        for device in [*devices, *(m for m, chosen in means.items() if chosen)]:
            values = [cell(device, m, k, attr) for m, k in cols]
            name = device if device in means else short_name(device)
            lines.append(
                f"| {name} | " + " | ".join("–" if v is None else fmt(v) for v in values) + " |"
            )
        return lines

    sample = rows[0] if rows else None
    lines = [
        f"Leave-one-device-out over {len(devices)} devices; "
        + (
            f"{sample.train_rows - sample.shots} training rows (other devices' training "
            f"architectures) + k shots; {sample.test_archs} test architectures per device"
            if sample
            else "no results"
        )
        + f"; seeds of the shots {sorted({r.seed for r in rows})}, averaged per device, "
        "then over devices.",
        "",
        "### Acc(10 %) (MAPLE's Table 1 metric; devices as rows)",
        "",
        *table("acc_10", lambda v: f"{v:.3f}"),
        "",
        "### Spearman",
        "",
        *table("spearman", lambda v: f"{v:.3f}"),
        "",
        "### MAPE",
        "",
        *table("mape", lambda v: f"{v:.1%}"),
        "",
        *_ablation(all_rows, devices),
    ]
    return "\n".join(lines) + "\n"


def _ablation(rows: Sequence[MapleResult], devices: Sequence[str]) -> list[str]:
    """Mean over devices of Acc(10 %) and Spearman for each descriptor subset."""
    shots = sorted({r.shots for r in rows})
    seeds = sorted({r.seed for r in rows if r.method in PARTS})
    lines = [
        f"### Descriptor ablation (MAPLE regressor; mean over devices; seeds {seeds})",
        "",
        "| descriptor | parts | "
        + " | ".join(f"Acc(10 %) k={k} | Spearman k={k}" for k in shots)
        + " |",
        "|---|---|" + "---|---|" * len(shots),
    ]
    for method, parts in PARTS.items():
        cells = []
        for k in shots:
            chosen = [r for r in rows if r.method == method and r.shots == k]
            if not chosen:
                cells += ["–", "–"]
                continue
            per_device = [[r for r in chosen if r.device == d] for d in devices]
            per_device = [c for c in per_device if c]
            cells.append(f"{statistics.fmean(_mean(c, 'acc_10') for c in per_device):.3f}")
            cells.append(f"{statistics.fmean(_mean(c, 'spearman') for c in per_device):.3f}")
        if any(c != "–" for c in cells):
            lines.append(
                f"| {method} | {' + '.join(parts) or 'none'} | " + " | ".join(cells) + " |"
            )
    return lines


def _status(rows: Sequence[MapleResult], devices: int) -> list[str]:
    """A warning line when the study ran on fewer architectures than the protocol's 900."""
    if not rows:
        return []
    per_device = (rows[0].train_rows - rows[0].shots) // (devices - 1)
    if per_device >= 900:
        return []
    return [
        f"**Preliminary**: the campaign had {per_device} training and {rows[0].test_archs} "
        "test architectures measured on every device when this ran (the protocol: 900 and "
        "200). Rerun the command on the finished campaign.",
        "",
    ]


def _method_notes(config: MapleConfig, ran: set[str]) -> list[str]:
    """What each method that ran is, in the report's words (a method that did not run on
    this space is not described)."""
    space = space_of(config.family)
    bases = {method_pricing(m)[0] for m in ran} | ran
    composition = (
        "the architecture's converted-operator counts (live nodes, merged pools, standalone "
        "ReLUs) composed with the descriptor's primitive latencies (`@context`: the cell "
        "operators priced between neighbours of a cell, `maple_nb201_context`)"
        if space.family == NB201.family
        else "the architecture's layers, each a primitive of the space characterised alone "
        "(`maple_spaces.compose_kws`), summed by kind (first convolution, depthwise, "
        "pointwise, head; `@split` also splits each kind into on- and off-chip time; "
        "`@context` sums each primitive priced between two neighbours of the space, "
        "`maple_kws_context`)"
    )
    notes = [
        (
            ("maple-ops",),
            f"`maple-ops` = nnlat's variant: {composition}; each pool device's per-part "
            "efficiency (least-squares cost / descriptor cost) carried to the target and "
            "weighted by its fit on the k shots"
            + (
                " (designed on this 85-architecture snapshot with its test rows in view: "
                "optimistic until rerun on positions ≥ 85, see findings.md);"
                if space.family == NB201.family
                else " (designed on NAS-Bench-201; `@split` chosen on validation, `validation.md`);"
            ),
        ),
        (
            ("maple",),
            f"`maple` = MAPLE's dual-stream regressor on [{space.encoding}; descriptor] with "
            "the k shots mixed in (eq. 3 weights);",
        ),
        (
            ("maple-lut",),
            "`maple-lut` = the same, with the descriptor also composed with the architecture "
            "as the sum of its primitives' latencies, the network predicting measured / sum "
            "(nnlat's variant, added after `maple`'s first test numbers on an earlier "
            "57-architecture snapshot were seen; not in the paper);",
        ),
        (
            ("help",),
            "`help` = HELP's kind of descriptor (the device's latencies on k reference "
            "architectures = the shots), same regressor;",
        ),
        (("lut",), "`lut` = sum of the primitives' latencies (no shots);"),
        (
            ("lut-scaled",),
            "`lut-scaled` = that sum times the median measured/sum ratio of the shots.",
        ),
        (tuple(p for p in PARTS if p != "maple"), "`maple-<parts>` = the ablation."),
        (
            tuple(TRAFFIC),
            "`maple-ops-traffic`, `maple-lut-traffic` = `maple-ops`, `maple-lut` with the "
            "primitives' activation traffic priced where the network keeps it "
            "(`nnlat.studies.maple_traffic`: on a DRAM-arena configuration, moved to the "
            "SRAM at its bandwidth; `maple-lut` also given the architecture's traffic time), "
            "the pricing chosen on validation (`validation.md`).",
        ),
        (
            ("nnlp-ft",),
            "`nnlp-ft` = NNLQP's transfer of nnlat's graph network "
            "(`nnlat.studies.maple_nnlp`): NNLP on the architecture's ONNX graph, pre-trained "
            f"with a head per source device ({config.nnlp_epochs} epochs; the devices left "
            f"out in {config.nnlp_folds} groups, `i % {config.nnlp_folds}`, so its sources "
            "are the other groups' devices), then a new head alone fine-tuned on the k "
            "shots; no descriptor.",
        ),
        (
            ("nnlp-lut", "nnlp-lut-traffic"),
            "`nnlp-lut-traffic` = the same network learning measured / (the "
            "`maple-lut-traffic` look-up-table sum), so that the descriptor enters as the "
            "prior it corrects (nnlat's variant; the pricing taken from `maple-lut-traffic`, "
            "not chosen again).",
        ),
    ]
    return [text for names, text in notes if bases & set(names)]


def report(study: Results[MapleConfig, MapleResult], out: Path, command: str) -> str:
    """The README of ``reports/maple``: command, data, tables, distance map (PNG written)."""
    from nnlat.measure.descriptor import pmu_status

    config = study.config
    descriptors = load_descriptors(Path(config.descriptors))
    devices = [d for d in config.devices if d in descriptors]
    plot_distances(descriptors, devices, out / "distance_map.png")
    distances = descriptor_distances(descriptors, devices)
    np.fill_diagonal(distances, np.inf)
    nearest = [
        f"| {short_name(d)} | {short_name(devices[int(np.argmin(distances[i]))])} | "
        f"{distances[i].min():.1f} |"
        for i, d in enumerate(devices)
    ]
    example = descriptors[devices[0]]
    keys = sorted({r.data_key for r in study.rows})
    lines = [
        "# MAPLE on a device pool we own: descriptors and few-shot adaptation (issue 31)",
        "",
        f"Made by `{command}` (study: `nnlat.studies.maple`; data: "
        "`scripts/maple_campaign.sh`, see `data/maple/README.md`).",
        "",
        f"Pool: {len(config.devices)} Ethos-U NPUs through Vela (`nnlat.measure.pool.VELA_POOL`). "
        f"Data: {space_of(config.family).label}, complete positions × devices = "
        f"{', '.join(keys)}. "
        f"Descriptor: {len(example.workloads)} primitive workloads × "
        f"{len(example.counter_names)} Vela counters + {len(example.spec)} specification "
        f"values = {example.vector().size} numbers per device.",
        "",
        f"CPU counters: {pmu_status().reason}.",
        "",
        *_status(study.rows, len(config.devices)),
        "Methods: " + " ".join(_method_notes(config, {r.method for r in study.rows})),
        "",
        render(study),
        "",
        "## Device-distance map (MAPLE Figure 2)",
        "",
        "![distance map](distance_map.png)",
        "",
        "Euclidean distance between standardised descriptor vectors; each device's nearest:",
        "",
        "| device | nearest | distance |",
        "|---|---|---|",
        *nearest,
    ]
    return "\n".join(lines) + "\n"


def write_table(data: PoolData, path: Path) -> int:
    """The campaign as one wide CSV: position, split, arch, one latency column (ms) per device.

    Only positions measured on every device are written. Returns how many.
    """
    import csv

    rows = data.complete()
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["position", "split", "arch", *data.devices])
        for p in rows:
            split = "test" if is_test(int(p)) else "train"
            latencies = [f"{v:.6f}" for v in data.latency_ms[p]]
            writer.writerow([int(p), split, data.archs[p], *latencies])
    return len(rows)
