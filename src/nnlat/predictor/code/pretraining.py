"""Pre-training of the snippet encoder: masked tokens plus log-latency (paper Figure 2).

Each step has two passes over a batch of snippets:

* the *masked-token* pass: a share (``mask_prob``) of each snippet's tokens is replaced
  by ``[MASK]`` and predicted (cross-entropy). With ``append_latency`` the snippet's
  measured latency is appended as text (``latency=27.4``, never masked), the paper's
  training trick: given the latency, a layer's parameters become dependent and a masked
  one can be inferred from the others;
* the *latency* pass: the plain snippet (no latency appended, nothing masked, as at
  inference) through the latency head, squared error on the standardised log-latency.

The loss is their sum. The epoch kept is the one with the lowest validation loss; every
epoch records the validation *perplexity on parameter tokens* (:func:`parameter_perplexity`:
only tokens of numbers are masked, each with probability ``mask_prob``, at least one per
snippet), the metric of the paper's Figure 5.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tokenizers import Tokenizer
from torch import nn

from nnlat.predictor.code.encoder import EncoderConfig, SnippetEncoder
from nnlat.predictor.code.tokenizer import (
    MASK,
    encode,
    latency_text,
    parameter_positions,
)
from nnlat.predictor.training import torch_device


@dataclass(frozen=True)
class PretrainSettings:
    """How to pre-train (the paper's Table 3, scaled to one CPU core).

    Attributes:
        epochs: the most epochs (the paper's 200).
        batch_size: snippets per step (the paper's 64).
        lr: Adam's learning rate (0.001), decayed by ``lr_decay`` each epoch (0.9).
        clip: gradient-norm clipping (0.5).
        mask_prob: the masking probability (0.1).
        patience: stop after this many epochs without a better validation loss.
        append_latency: append the measured latency to the masked-token pass's input.
        seed: seeds masking, batch order and initial weights.
        device: ``cpu``, ``cuda``, or ``auto`` (cuda when available); the encoder
            comes back on the CPU either way.
    """

    epochs: int = 40
    batch_size: int = 64
    lr: float = 1e-3
    lr_decay: float = 0.95
    clip: float = 0.5
    mask_prob: float = 0.15
    patience: int = 8
    append_latency: bool = True
    seed: int = 0
    device: str = "auto"

    def torch_device(self) -> torch.device:
        """The device to train on."""
        return torch_device(self.device)


@dataclass
class PretrainResult:
    """What pre-training did: per epoch (epoch, train loss, valid loss, valid PPL, valid MAPE)."""

    history: list[tuple[int, float, float, float, float]] = field(default_factory=list)
    best_epoch: int = 0
    seconds: float = 0.0


def pad_ids(rows: Sequence[Sequence[int]], width: int | None = None) -> torch.Tensor:
    """Token id rows padded with 0 into one batch × ``width`` tensor (default: the longest).

    Example:
        >>> pad_ids([[2, 5], [2]]).tolist(), pad_ids([[2]], width=3).tolist()
        ([[2, 5], [2, 0]], [[2, 0, 0]])
    """
    width = max(len(r) for r in rows) if width is None else width
    out = torch.zeros(len(rows), width, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return out


@dataclass(frozen=True)
class _Corpus:
    """The snippets as padded token-id tensors (rows: snippets), built once.

    Masking and padding a batch is then tensor indexing: per-row Python work made the
    pre-training step CPU-bound even on a GPU (~15 ms of a 64 ms step at 256 snippets).
    """

    plain: list[list[int]]  # token ids as lists, for predict_log_ms
    plain_ids: torch.Tensor  # N × max_len, 0-padded
    plain_len: torch.Tensor  # N
    latency_ids: torch.Tensor  # the snippet with its latency appended
    latency_len: torch.Tensor
    maskable_plain: torch.Tensor  # N × max_len bool: snippet tokens after [CLS]
    maskable_latency: torch.Tensor  # the same in the latency rows (latency excluded)
    parameters: torch.Tensor  # N × max_len bool: tokens of numbers (plain positions)
    targets: np.ndarray  # standardised log-latency


def _corpus(
    tokenizer: Tokenizer,
    snippets: Sequence[str],
    latencies_ms: Sequence[float],
    config: EncoderConfig,
) -> _Corpus:
    plain = encode(tokenizer, snippets, config.max_len)
    # The latency goes right after the snippet's (possibly cut) tokens, without [CLS].
    tails = [
        tokenizer.encode(latency_text(ms), add_special_tokens=False).ids for ms in latencies_ms
    ]
    with_latency = [(p[: config.max_len - len(t)] + t) for p, t in zip(plain, tails, strict=True)]
    logs = np.log(np.asarray(latencies_ms, dtype=np.float64))
    targets = (logs - config.log_mean) / config.log_std
    width = max([config.max_len, *map(len, with_latency)])
    positions = torch.arange(width)
    plain_len = torch.tensor([len(p) for p in plain])
    latency_len = torch.tensor([len(w) for w in with_latency])
    tail_len = torch.tensor([len(t) for t in tails])
    parameters = torch.zeros(len(plain), width, dtype=torch.bool)
    for i, text in enumerate(snippets):
        parameters[i, torch.from_numpy(parameter_positions(tokenizer, text, config.max_len))] = True
    return _Corpus(
        plain=plain,
        plain_ids=pad_ids(plain, width),
        plain_len=plain_len,
        latency_ids=pad_ids(with_latency, width),
        latency_len=latency_len,
        maskable_plain=(positions >= 1) & (positions < plain_len[:, None]),
        maskable_latency=(positions >= 1) & (positions < (latency_len - tail_len)[:, None]),
        parameters=parameters,
        targets=targets.astype(np.float32),
    )


def _mask(
    ids: torch.Tensor, candidates: torch.Tensor, prob: float, mask_id: int, rng: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """(masked ids, labels: the original id where masked, -100 elsewhere).

    Each candidate position is masked with ``prob``; a row with candidates but none drawn
    gets one of them, so that every snippet teaches something.

    Example:
        >>> ids = torch.tensor([[2, 7, 8, 9], [2, 5, 0, 0]])
        >>> cands = torch.tensor([[False, True, True, True], [False, True, False, False]])
        >>> masked, labels = _mask(ids, cands, 0.0, 4, torch.Generator().manual_seed(0))
        >>> (masked == 4).sum(dim=1).tolist(), labels[1].tolist()
        ([1, 1], [-100, 5, -100, -100])
    """
    chosen = (torch.rand(ids.shape, generator=rng) < prob) & candidates
    empty = ~chosen.any(dim=1) & candidates.any(dim=1)
    if bool(empty.any()):
        scores = torch.rand(ids.shape, generator=rng).masked_fill(~candidates, -1.0)
        rows = empty.nonzero().squeeze(1)
        chosen[rows, scores[rows].argmax(dim=1)] = True
    labels = torch.where(chosen, ids, torch.full_like(ids, -100))
    return ids.masked_fill(chosen, mask_id), labels


def _batches(
    order: list[int], rows: Sequence[list[int]], size: int, rng: random.Random
) -> list[list[int]]:
    """Shuffled batches of snippets of similar length (a padded batch costs its longest).

    Example:
        >>> sorted(map(len, _batches(list(range(5)), [[1]] * 5, 2, random.Random(0))))
        [1, 2, 2]
    """
    order = list(order)
    rng.shuffle(order)
    pool = size * 16  # sort within pools, so batches still differ between epochs
    batches = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda i: len(rows[i]))
        batches += [chunk[i : i + size] for i in range(0, len(chunk), size)]
    rng.shuffle(batches)
    return batches


def _losses(
    encoder: SnippetEncoder,
    corpus: _Corpus,
    batch: Sequence[int],
    settings: PretrainSettings,
    mask_id: int,
    rng: torch.Generator,
    parameters_only: bool,
) -> tuple[torch.Tensor, torch.Tensor, int]:
    """(summed token cross-entropy, summed squared latency error, masked tokens)."""
    index = torch.as_tensor(list(batch))
    if settings.append_latency:
        rows, lengths, maskable = corpus.latency_ids, corpus.latency_len, corpus.maskable_latency
    else:
        rows, lengths, maskable = corpus.plain_ids, corpus.plain_len, corpus.maskable_plain
    width = int(lengths[index].max())
    candidates = maskable[index, :width]
    if parameters_only:
        candidates = candidates & corpus.parameters[index, :width]
    ids, labels = _mask(rows[index, :width], candidates, settings.mask_prob, mask_id, rng)
    device = encoder.tokens.weight.device
    ids, labels = ids.to(device), labels.to(device)
    logits, _ = encoder(ids)
    token_loss = nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]),
        labels.reshape(-1),
        ignore_index=-100,
        reduction="sum",
    )
    plain = corpus.plain_ids[index, : int(corpus.plain_len[index].max())]
    _, scaled = encoder(plain.to(device))
    target = torch.from_numpy(corpus.targets[list(batch)]).to(device)
    return token_loss, ((scaled - target) ** 2).sum(), int((labels != -100).sum())


@torch.no_grad()
def _evaluate(
    encoder: SnippetEncoder, corpus: _Corpus, settings: PretrainSettings, mask_id: int
) -> tuple[float, float, float]:
    """(validation loss, perplexity on parameter tokens, latency-head MAPE)."""
    encoder.eval()
    rng = torch.Generator().manual_seed(settings.seed + 1)  # the same masks every epoch
    loss = nll = 0.0
    masked = 0
    order = sorted(range(len(corpus.plain)), key=lambda i: len(corpus.plain[i]))
    for start in range(0, len(order), 128):
        batch = order[start : start + 128]
        t_all, l_all, n_all = _losses(encoder, corpus, batch, settings, mask_id, rng, False)
        t_par, _, n_par = _losses(encoder, corpus, batch, settings, mask_id, rng, True)
        loss += float(t_all) / max(n_all, 1) * len(batch) + float(l_all)
        nll += float(t_par)
        masked += n_par
    predicted = predict_log_ms(encoder, corpus.plain)
    truth = corpus.targets * encoder.config.log_std + encoder.config.log_mean
    mape = float(np.mean(np.abs(np.exp(predicted - truth) - 1.0)))
    return loss / len(order), math.exp(nll / max(masked, 1)), mape


@torch.no_grad()
def predict_log_ms(
    encoder: SnippetEncoder, rows: Sequence[list[int]], batch: int = 256
) -> np.ndarray:
    """The latency head's log(ms) for tokenised snippets, in order."""
    encoder.eval()
    device = encoder.tokens.weight.device
    out = [
        encoder.log_latency(encoder.embed(pad_ids(rows[i : i + batch]).to(device))).cpu().numpy()
        for i in range(0, len(rows), batch)
    ]
    return np.concatenate(out) if out else np.zeros(0)


def pretrain_encoder(
    tokenizer: Tokenizer,
    train: tuple[Sequence[str], Sequence[float]],
    valid: tuple[Sequence[str], Sequence[float]],
    settings: PretrainSettings,
    config: EncoderConfig | None = None,
    on_epoch: Callable[[tuple[int, float, float, float, float]], None] | None = None,
    checkpoint: Path | None = None,
) -> tuple[SnippetEncoder, PretrainResult]:
    """Pre-train an encoder on (snippets, latencies in ms); keep the best validation epoch.

    Args:
        tokenizer: the snippet tokenizer.
        train, valid: snippets and their measured latencies (ms).
        settings: how to train.
        config: the encoder's shape (``vocab_size`` and the log scaling are set here).
        on_epoch: called with each epoch's history row.
        checkpoint: where to keep the state after every epoch, and to go on from when it
            holds a run of the same settings and data: a run stopped by a time limit
            resumes at its next epoch instead of starting over.

    Returns:
        The encoder (eval mode) and the training history.
    """
    logs = np.log(np.asarray(train[1], dtype=np.float64))
    base = config or EncoderConfig(vocab_size=tokenizer.get_vocab_size())
    config = EncoderConfig(
        **{
            **base.to_dict(),
            "vocab_size": tokenizer.get_vocab_size(),
            "log_mean": float(logs.mean()),
            "log_std": float(logs.std() or 1.0),
        }
    )
    torch.manual_seed(settings.seed)
    encoder = SnippetEncoder(config).to(settings.torch_device())
    train_corpus = _corpus(tokenizer, train[0], train[1], config)
    valid_corpus = _corpus(tokenizer, valid[0], valid[1], config)
    mask_id = tokenizer.token_to_id(MASK)
    optimiser = torch.optim.Adam(encoder.parameters(), lr=settings.lr)
    schedule = torch.optim.lr_scheduler.ExponentialLR(optimiser, settings.lr_decay)
    state = _State(random.Random(settings.seed), torch.Generator().manual_seed(settings.seed))
    identity = _identity(settings, config, train, valid)
    if checkpoint is not None and checkpoint.exists():
        state.resume(checkpoint, identity, encoder, optimiser, schedule)
    start = time.perf_counter() - state.result.seconds
    for epoch in range(state.epoch + 1, settings.epochs + 1):
        if state.stale >= settings.patience:
            break
        encoder.train()
        order = list(range(len(train_corpus.plain)))
        total = 0.0
        for batch in _batches(order, train_corpus.plain, settings.batch_size, state.order):
            tokens, latency, masked = _losses(
                encoder, train_corpus, batch, settings, mask_id, state.masks, False
            )
            loss = tokens / max(masked, 1) + latency / len(batch)
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(encoder.parameters(), settings.clip)
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        schedule.step()
        valid_loss, ppl, mape = _evaluate(encoder, valid_corpus, settings, mask_id)
        row = (epoch, total / len(order), valid_loss, ppl, mape)
        state.result.history.append(row)
        if on_epoch is not None:
            on_epoch(row)
        if valid_loss < state.best:
            state.best, state.stale, state.result.best_epoch = valid_loss, 0, epoch
            state.best_weights = copy.deepcopy(encoder.state_dict())
        else:
            state.stale += 1
        state.epoch = epoch
        state.result.seconds = time.perf_counter() - start
        if checkpoint is not None:
            state.save(checkpoint, identity, encoder, optimiser, schedule)
    if state.best_weights is not None:
        encoder.load_state_dict(state.best_weights)
    state.result.seconds = time.perf_counter() - start
    return encoder.cpu().eval(), state.result


def _identity(
    settings: PretrainSettings,
    config: EncoderConfig,
    train: tuple[Sequence[str], Sequence[float]],
    valid: tuple[Sequence[str], Sequence[float]],
) -> str:
    """What a checkpoint must match to be resumed: settings (but the epoch budget and the
    device), the encoder's shape and a digest of the data."""
    data = hashlib.sha256()
    for snippets, latencies in (train, valid):
        for text, ms in zip(snippets, latencies, strict=True):
            data.update(f"{text}\0{ms!r}\0".encode())
    kept = {k: v for k, v in asdict(settings).items() if k not in ("epochs", "device")}
    return json.dumps([kept, config.to_dict(), data.hexdigest()], sort_keys=True)


@dataclass
class _State:
    """Everything an epoch leaves for the next: what a checkpoint holds."""

    order: random.Random  # batch order
    masks: torch.Generator  # masked positions
    epoch: int = 0
    best: float = math.inf
    stale: int = 0
    best_weights: dict[str, torch.Tensor] | None = None
    result: PretrainResult = field(default_factory=PretrainResult)

    def save(
        self, path: Path, identity: str, encoder: nn.Module, optimiser: Any, schedule: Any
    ) -> None:
        """Write the state next to ``path``, then move it in place (never half-written)."""
        blob = {
            "identity": identity,
            "epoch": self.epoch,
            "best": self.best,
            "stale": self.stale,
            "best_weights": self.best_weights,
            "history": self.result.history,
            "best_epoch": self.result.best_epoch,
            "seconds": self.result.seconds,
            "order": json.dumps(self.order.getstate()),
            "masks": self.masks.get_state(),
            # dropout draws from torch's global generators
            "torch_rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
            "encoder": encoder.state_dict(),
            "optimiser": optimiser.state_dict(),
            "schedule": schedule.state_dict(),
        }
        partial = path.with_name(path.name + ".partial")
        torch.save(blob, partial)
        os.replace(partial, path)

    def resume(
        self, path: Path, identity: str, encoder: nn.Module, optimiser: Any, schedule: Any
    ) -> None:
        """Load the state of ``path`` if it is a run of ``identity``; else start afresh."""
        blob = torch.load(path, weights_only=True, map_location="cpu")
        if blob["identity"] != identity:
            return
        encoder.load_state_dict(blob["encoder"])
        optimiser.load_state_dict(blob["optimiser"])
        schedule.load_state_dict(blob["schedule"])
        order = json.loads(blob["order"])
        self.order.setstate((order[0], tuple(order[1]), order[2]))
        self.masks.set_state(blob["masks"])
        torch.set_rng_state(blob["torch_rng"])
        if blob["cuda_rng"] and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(blob["cuda_rng"])
        self.epoch, self.best, self.stale = blob["epoch"], blob["best"], blob["stale"]
        self.best_weights = blob["best_weights"]
        self.result = PretrainResult(
            [tuple(row) for row in blob["history"]], blob["best_epoch"], blob["seconds"]
        )


def parameter_perplexity(
    encoder: SnippetEncoder,
    tokenizer: Tokenizer,
    snippets: Sequence[str],
    latencies_ms: Sequence[float],
    settings: PretrainSettings,
) -> float:
    """Perplexity of the masked parameter tokens of ``snippets`` (paper Figure 5).

    Only tokens of numbers are masked (each with ``settings.mask_prob``, at least one per
    snippet); with ``settings.append_latency`` the latency is appended, as in the
    pre-training of that variant.
    """
    corpus = _corpus(tokenizer, snippets, latencies_ms, encoder.config)
    return _evaluate(encoder, corpus, settings, tokenizer.token_to_id(MASK))[1]
