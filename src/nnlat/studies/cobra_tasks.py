"""The COBRA study's units of work, run in this process or in a pool of worker processes.

On one core the study runs every task in turn (:class:`Inline`). On a machine with many
cores (and a GPU) :func:`pool` starts ``workers`` spawned processes, one torch thread
each: interpreting the networks and exporting their ONNX graphs (NNLP's features) are
CPU-bound and split into chunks, while the two encoders and the fifteen GCN fits share
the GPU, each driven by its own process (small graphs in batches of 8: a fit is bound by
the Python and kernel-launch overhead of one core, not by the GPU). Spawned, not forked:
a forked child cannot use CUDA once its parent has.

Tasks read the study's data from a pickle written once (:func:`share`); what they make
(encoder weights, the COBRA model) they save in the results directory themselves, and
they hand back summaries, which only the parent writes to its JSON files.
"""

from __future__ import annotations

import multiprocessing
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

_SHARED: dict[str, Any] = {}  # path of a shared pickle → its data, per process


class Inline:
    """A pool of no processes: each task runs when it is submitted.

    Example:
        >>> Inline().apply_async(sum, ([1, 2],)).get()
        3
    """

    def apply_async(self, fn: Callable[..., Any], args: tuple = ()) -> _Done:
        """Run ``fn(*args)`` now; its outcome (or its error) comes back from ``get()``."""
        try:
            return _Done(fn(*args), None)
        except Exception as exc:  # raised again by get(), as Pool's is
            return _Done(None, exc)

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        """``[fn(item) for item in items]``."""
        return [fn(item) for item in items]

    def terminate(self) -> None:
        """Nothing runs in the background: nothing to stop."""

    def close(self) -> None:
        """As :meth:`terminate`."""


class _Done:
    """The outcome of a task that :class:`Inline` already ran (``AsyncResult``'s API)."""

    def __init__(self, value: Any, error: Exception | None) -> None:
        self.value, self.error = value, error

    def ready(self) -> bool:
        return True

    def get(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


def _one_thread() -> None:
    import torch

    torch.set_num_threads(1)  # many workers share the cores


def pool(workers: int) -> Any:
    """:class:`Inline` for ``workers`` ≤ 1, else a pool of that many spawned processes."""
    if workers <= 1:
        return Inline()
    return multiprocessing.get_context("spawn").Pool(workers, initializer=_one_thread)


def chunks(items: Sequence[Any], parts: int) -> list[list[Any]]:
    """``items`` in at most ``parts`` contiguous chunks of near-equal length.

    Example:
        >>> chunks([1, 2, 3, 4, 5], 2)
        [[1, 2, 3], [4, 5]]
    """
    size = -(-len(items) // max(parts, 1))
    return [list(items[i : i + size]) for i in range(0, len(items), size)] if items else []


def share(data: dict[str, Any], path: Path, inline: bool) -> Path:
    """Make ``data`` readable by tasks as ``path``: kept in memory when tasks run here,
    written as a pickle for worker processes."""
    if inline:
        _SHARED[str(path)] = data
    else:
        with path.open("wb") as handle:
            pickle.dump(data, handle, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def forget(path: Path) -> None:
    """Drop what :func:`share` kept in memory for ``path``."""
    _SHARED.pop(str(path), None)


def _shared(path: Path) -> dict[str, Any]:
    if str(path) not in _SHARED:
        with path.open("rb") as handle:
            _SHARED[str(path)] = pickle.load(handle)
    return _SHARED[str(path)]


def interpret(items: Sequence[tuple[str, int]]) -> list[Any]:
    """The code graphs of (source, resolution) pairs of generated networks."""
    from nnlat.zoo.cobra.networks import code_graph

    return [code_graph(source, resolution) for source, resolution in items]


def onnx_features(records: Sequence[dict], cache_dir: Path) -> list[Any]:
    """NNLP's raw features of the exported ONNX graphs of measured networks.

    Each network's features are kept in ``cache_dir`` under its graph hash (an export
    takes a second on one core; 2,000 of them are worth not losing to a stopped run).
    """
    from nnlat.datasets.training import read_raw, save_raw
    from nnlat.features.raw import raw_features
    from nnlat.zoo.cobra.networks import NETWORKS

    every = []
    for record in records:
        path = cache_dir / f"{record['graph_hash']}.npz"
        if path.exists():
            every.append(read_raw(path))
            continue
        raw = raw_features(NETWORKS.model(record["config"]).to_graph())
        save_raw(path, raw)
        every.append(raw)
    return every


def pretrain(
    config: Any, variant: str, append: bool, data_path: Path, split: tuple
) -> dict[str, Any]:
    """Pre-train one encoder variant on the training layers; save its weights in
    ``results_dir``; return its summary (history, best epoch, test PPL, seconds)."""
    import torch

    from nnlat.predictor.code.pretraining import (
        PretrainSettings,
        parameter_perplexity,
        pretrain_encoder,
    )
    from nnlat.predictor.code.tokenizer import load_tokenizer

    layers = _shared(data_path)["layers"]
    train, valid, test = ([layers[i] for i in part] for part in split)
    settings = PretrainSettings(**{**asdict(config.pretrain), "append_latency": append})
    tokenizer = load_tokenizer(config.results_dir / "tokenizer.json")
    encoder, result = pretrain_encoder(
        tokenizer,
        ([r["snippet"] for r in train], [r["latency_ms"] for r in train]),
        ([r["snippet"] for r in valid], [r["latency_ms"] for r in valid]),
        settings,
        config.encoder,
        # a worker's stdout is the study's log
        on_epoch=lambda row: print(f"{variant} epoch {row}", flush=True),
        # what a time limit stops is taken up again by the next run of the study
        checkpoint=config.results_dir / f"encoder-{variant}.ckpt",
    )
    encoder.to(settings.torch_device())  # the test layers' masked passes, on the GPU too
    test_ppl = parameter_perplexity(
        encoder, tokenizer, [r["snippet"] for r in test], [r["latency_ms"] for r in test], settings
    )
    torch.save(encoder.cpu().state_dict(), config.results_dir / f"encoder-{variant}.pt")
    (config.results_dir / f"encoder-{variant}.ckpt").unlink(missing_ok=True)
    return {
        "config": encoder.config.to_dict(),
        "history": result.history,
        "best_epoch": result.best_epoch,
        "test_ppl": test_ppl,
        "seconds": result.seconds,
    }


def cobra_model(config: Any, encoder_config: dict[str, Any]) -> Any:
    """COBRA's tokenizer and frozen with-latency encoder, read from ``results_dir``."""
    import torch

    from nnlat.predictor.code.encoder import EncoderConfig, SnippetEncoder
    from nnlat.predictor.code.model import CobraModel
    from nnlat.predictor.code.tokenizer import load_tokenizer

    encoder = SnippetEncoder(EncoderConfig(**encoder_config))
    weights = config.results_dir / "encoder-with-latency.pt"
    encoder.load_state_dict(torch.load(weights, weights_only=True, map_location="cpu"))
    return CobraModel(load_tokenizer(config.results_dir / "tokenizer.json"), encoder.eval())


def fit(
    config: Any,
    method: str,
    seed: int,
    data_path: Path,
    split: tuple,
    extra: Any = None,
) -> tuple[list[float], float]:
    """Train one method with one seed on the training networks: its predictions of the
    test networks (ms) and the seconds it took.

    ``extra`` is the with-latency encoder's configuration for the COBRA methods, the
    networks' ONNX features for NNLP.
    """
    from nnlat.studies.cobra_baselines import baseline

    data = _shared(data_path)
    graphs, networks = data["graphs"], data["networks"]
    train, valid, test = split
    start = time.perf_counter()
    settings = config.gcn.model_copy(update={"seed": seed})
    if method in ("cobra", "cobra-mean"):
        model = cobra_model(config, extra)
        _embed_all(model, graphs, settings.torch_device())
        pairs = lambda idx: [(graphs[i], networks[i]["latency_ms"]) for i in idx]  # noqa: E731
        readout = {"readout": "mean"} if method == "cobra-mean" else None
        model.fit_gcn(pairs(train), pairs(valid), settings, readout)
        predicted = model.predict([graphs[i] for i in test]).tolist()
        if method == "cobra" and seed == config.seeds[0]:
            model.info["study"] = {"command": config.command, "seed": seed}
            model.info["platform"] = networks[0]["platform"]
            model.save(config.results_dir / "model")
    else:
        predicted = baseline(method, data, split, settings, extra)
    return [float(p) for p in predicted], time.perf_counter() - start


def _embed_all(model: Any, graphs: Sequence[Any], device: Any) -> None:
    """Embed every distinct snippet once, on ``device``; the encoder ends on the CPU."""
    texts = sorted({s.text for g in graphs for s in g.snippets})
    model.encoder.to(device)
    model.snippet_features(texts, batch=1024 if device.type == "cuda" else 128)
    model.encoder.cpu()


def wait_any(running: dict[Any, Any], deadline: float | None) -> list[Any]:
    """The finished of ``running``: waits for one, or until ``deadline`` (monotonic).

    Example:
        >>> wait_any({Inline().apply_async(abs, (-1,)): "task"}, None)[0].get()
        1
    """
    while True:
        done = [r for r in running if r.ready()]
        if done or (deadline is not None and time.monotonic() > deadline):
            return done
        time.sleep(0.2)
