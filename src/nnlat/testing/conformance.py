"""The backend conformance check: what every backend must do, checked in one call.

``check_backend(backend)`` exercises a backend the way the runner uses it and raises
:class:`ConformanceError` (an ``AssertionError``) at the first broken promise:

1. identity: a lowercase ``name``, known ``dtypes``, ``available()`` truthy, every
   offered platform named ``hardware-<name>X.Y-dtype[-tN]`` and resolvable back through
   ``platform(threads, dtype)``;
2. the tiny model (a Graph) and a NAS-Bench-201 zoo model (a ZooModel and its Graph)
   prepare and run on each offered platform, returning one output per graph output of
   the graph's shape, and a positive, finite latency;
3. threads: where the runtime can say, a platform of 1 thread runs on 1 thread;
4. failures are results: through :func:`nnlat.measure.runner.measure`, a model with an
   operator no runtime has (a custom domain) comes back ``failed`` or ``unsupported``
   with a message, never as an exception, and the tiny model comes back ``ok``.

A backend that is not available on this host fails step 1: callers skip it instead
(see ``tests/measure/test_backends.py``).

Two optional backend attributes adapt the check without loosening it for the others:

* ``source_format = "tflite"`` (LiteRT, Vela): the backend runs the original TFLite file,
  so steps 2 and 4 use small hand-written TFLite models (int8, and float32 where the
  backend runs fp32) instead of ONNX ones, and an ONNX graph must be refused as
  unsupported;
* ``deterministic = True`` (Vela's estimator): nothing executes, so a run returns no
  outputs, and a good model comes back with exactly one sample, marked deterministic.

A backend with many platforms per dtype resolves names through ``platform_by_name``,
which step 1 then checks instead of ``platform(threads, dtype)``.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from nnlat.measure.backends.base import Backend, BackendUnavailableError, Prepared
from nnlat.measure.types import MeasureSpec
from nnlat.platform import DTYPES, parse_platform_name
from nnlat.registry import Registry

# Small budgets: conformance is about behaviour, not about good numbers.
CHECK_SPEC = MeasureSpec(
    warmup_min_runs=1, warmup_max_s=0.2, min_runs=3, max_runs=10, max_time_s=0.5
)


class ConformanceError(AssertionError):
    """A backend broke one of the promises of :mod:`nnlat.measure.backends.base`."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


def _check_run(
    prepared: Prepared, graph: Any, inputs: dict[str, Any], label: str, executes: bool = True
) -> None:
    result = prepared.run(inputs)
    _require(
        math.isfinite(result.latency_ms) and result.latency_ms > 0,
        f"{label}: latency {result.latency_ms!r} ms is not a positive finite number",
    )
    if not executes:
        _require(result.outputs == (), f"{label}: an estimator returned outputs it never computed")
        return
    _require(
        len(result.outputs) == len(graph.outputs),
        f"{label}: {len(result.outputs)} outputs, the graph has {len(graph.outputs)}",
    )
    for output, spec in zip(result.outputs, graph.outputs, strict=True):
        if spec.is_static:
            _require(
                tuple(output.shape) == tuple(spec.shape),
                f"{label}: output {spec.name!r} has shape {tuple(output.shape)}, "
                f"expected {tuple(spec.shape)}",
            )


@functools.cache
def _nb201() -> tuple[Any, Any]:
    """The NAS-Bench-201 all-conv3x3 ZooModel and its graph (exported once per process)."""
    from nnlat.zoo.registry import get_family

    family = get_family("nasbench201")
    zoo = family.model(family.canonical["nb201_all_conv3x3"])
    return zoo, zoo.to_graph()


def check_backend(backend: Backend) -> None:
    """Check that ``backend`` keeps the backend protocol (see the module docstring).

    Args:
        backend: the backend to check; it must be available on this host.

    Raises:
        ConformanceError: the first promise broken, saying which and how.

    Example (not run as a doctest: it takes seconds, and the tests run it)::

        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> check_backend(FakeBackend())  # doctest: +SKIP
    """
    from nnlat.graph import load
    from nnlat.measure.inputs import random_inputs
    from nnlat.measure.runner import measure
    from nnlat.testing.models import tiny_model
    from nnlat.zoo.realworld import custom_domain_op

    # 1. identity
    _require(backend.name.isalpha() and backend.name.islower(), f"bad name {backend.name!r}")
    _require(set(backend.dtypes) <= set(DTYPES), f"unknown dtypes in {backend.dtypes}")
    availability = backend.available()
    _require(bool(availability), f"{backend.name} is not available: {availability.reason}")
    platforms = backend.platforms()
    _require(bool(platforms), f"{backend.name} offers no platform on this host")
    by_name = getattr(backend, "platform_by_name", None)
    for platform in platforms:
        parts = parse_platform_name(platform.name)
        _require(
            parts["runtime"] == backend.name, f"{platform.name}: runtime is not {backend.name}"
        )
        if by_name is not None:
            _require(
                by_name(platform.name) == platform, f"platform_by_name({platform.name}) differs"
            )
        else:
            again = backend.platform(platform.threads, platform.dtype)
            _require(
                again == platform, f"platform({platform.threads}, {platform.dtype}) != {platform}"
            )

    # 2-3. prepare and run each platform on the tiny model and a zoo model. Exporting
    # the zoo model takes a second or two, so its graph is made once and the ZooModel
    # itself goes to non-torch backends on the first platform only.
    tflite = getattr(backend, "source_format", "onnx") == "tflite"
    executes = not getattr(backend, "deterministic", False)
    tiny = load(tiny_model())
    spec = MeasureSpec(seed=0)
    if tflite:
        tflite_subjects = _tflite_subjects(backend.dtypes)
        _require(
            _refuses(backend, tiny, platforms[0], spec),
            f"{platforms[0].name}: an ONNX graph was not refused as unsupported",
        )
    else:
        zoo, zoo_graph = _nb201()
    for index, platform in enumerate(platforms):
        if tflite:
            subjects = [s for s in tflite_subjects if s[0].split()[0] == platform.dtype]
        else:
            subjects = [("tiny graph", tiny, tiny), ("nb201 graph", zoo_graph, zoo_graph)]
            if index == 0 or backend.runs_zoo_modules:
                subjects.append(("nb201 zoo model", zoo, zoo_graph))
        ran = 0
        for label, subject, graph in subjects:
            where = f"{platform.name} / {label}"
            try:
                prepared = backend.prepare(subject, platform, spec)
            except BackendUnavailableError:
                continue  # this host lacks a converter for this kind of model: allowed
            try:
                _check_run(prepared, graph, random_inputs(graph, seed=0), where, executes)
                threads = prepared.threads_in_use()
                if platform.threads == 1:
                    _require(threads in (1, None), f"{where}: asked for 1 thread, runs {threads}")
            finally:
                prepared.close()
            ran += 1
        _require(ran > 0, f"{platform.name}: ran none of the models (all unsupported)")

    # 4. failures are results, through the runner
    registry: Registry[Any] = Registry("backend")  # just this backend, this very instance
    registry.register(backend.name, lambda: backend)
    platform = platforms[0]
    broken = measure(
        custom_domain_op(),
        platform,
        CHECK_SPEC.model_copy(update={"batch_size": 2}),
        backends=registry,
    )
    _require(
        broken.status in ("failed", "unsupported") and bool(broken.error),
        f"{platform.name}: a custom-domain operator gave status {broken.status!r}, "
        f"error {broken.error!r}; expected a failed or unsupported result with a message",
    )
    if tflite:
        good = next(s[1] for s in tflite_subjects if s[0].split()[0] == platform.dtype)
    else:
        good = zoo if backend.runs_zoo_modules else tiny
    fine = measure(good, platform, CHECK_SPEC, backends=registry)
    _require(fine.status == "ok", f"{platform.name}: a good model gave {fine.status}: {fine.error}")
    if executes:
        _require(fine.stats is not None and fine.stats.n >= CHECK_SPEC.min_runs, "too few runs")
    else:
        _require(
            fine.deterministic and fine.stats is not None and fine.stats.n == 1,
            f"{platform.name}: a deterministic estimate must be one sample marked deterministic",
        )


def _tflite_subjects(dtypes: tuple[str, ...]) -> list[tuple[str, Any, Any]]:
    """Hand-written TFLite models, one per precision: (label, graph, graph)."""
    from nnlat.graph import load
    from nnlat.testing.tflite_models import handmade_tflite

    found = []
    for dtype, tflite_dtype in (("int8", "int8"), ("fp32", "float32")):
        if dtype in dtypes:
            graph = load(handmade_tflite("ADD", (1, 8, 8, 16), tflite_dtype))
            found.append((f"{dtype} tflite add", graph, graph))
    return found


def _refuses(backend: Backend, graph: Any, platform: Any, spec: MeasureSpec) -> bool:
    try:
        backend.prepare(graph, platform, spec).close()
    except BackendUnavailableError:
        return True
    return False
