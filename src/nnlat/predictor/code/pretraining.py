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
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

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


def pad_ids(rows: Sequence[Sequence[int]]) -> torch.Tensor:
    """Token id rows padded with 0 into one batch × longest tensor."""
    width = max(len(r) for r in rows)
    out = torch.zeros(len(rows), width, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return out


@dataclass(frozen=True)
class _Corpus:
    """Token ids of each snippet: plain, with its latency, and how long the snippet part is."""

    plain: list[list[int]]
    with_latency: list[list[int]]
    targets: np.ndarray  # standardised log-latency
    parameters: list[np.ndarray]  # positions of parameter tokens in ``plain``


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
    parameters = [parameter_positions(tokenizer, s, config.max_len) for s in snippets]
    return _Corpus(plain, with_latency, targets.astype(np.float32), parameters)


def _mask(
    rows: Sequence[list[int]],
    candidates: Sequence[np.ndarray],
    prob: float,
    mask_id: int,
    rng: random.Random,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(masked ids, labels: the original id where masked, -100 elsewhere); ≥ 1 per row."""
    masked, labels = [], []
    for row, positions in zip(rows, candidates, strict=True):
        chosen = [int(p) for p in positions if rng.random() < prob]
        if not chosen and len(positions):
            chosen = [int(rng.choice(list(positions)))]
        ids, label = list(row), [-100] * len(row)
        for p in chosen:
            label[p], ids[p] = ids[p], mask_id
        masked.append(ids)
        labels.append(label)
    ids_t = pad_ids(masked)
    labels_t = torch.full_like(ids_t, -100)
    for i, label in enumerate(labels):
        labels_t[i, : len(label)] = torch.tensor(label)
    return ids_t, labels_t


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


def _snippet_positions(corpus: _Corpus, index: int) -> np.ndarray:
    """Every maskable position of a snippet: its tokens after [CLS] (latency excluded)."""
    return np.arange(1, len(corpus.plain[index]))


def _losses(
    encoder: SnippetEncoder,
    corpus: _Corpus,
    batch: Sequence[int],
    settings: PretrainSettings,
    mask_id: int,
    rng: random.Random,
    parameters_only: bool,
) -> tuple[torch.Tensor, torch.Tensor, int]:
    """(summed token cross-entropy, summed squared latency error, masked tokens)."""
    rows = [corpus.with_latency[i] if settings.append_latency else corpus.plain[i] for i in batch]
    candidates = [
        corpus.parameters[i] if parameters_only else _snippet_positions(corpus, i) for i in batch
    ]
    ids, labels = _mask(rows, candidates, settings.mask_prob, mask_id, rng)
    device = encoder.tokens.weight.device
    ids, labels = ids.to(device), labels.to(device)
    logits, _ = encoder(ids)
    token_loss = nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]),
        labels.reshape(-1),
        ignore_index=-100,
        reduction="sum",
    )
    _, scaled = encoder(pad_ids([corpus.plain[i] for i in batch]).to(device))
    target = torch.from_numpy(corpus.targets[list(batch)]).to(device)
    return token_loss, ((scaled - target) ** 2).sum(), int((labels != -100).sum())


@torch.no_grad()
def _evaluate(
    encoder: SnippetEncoder, corpus: _Corpus, settings: PretrainSettings, mask_id: int
) -> tuple[float, float, float]:
    """(validation loss, perplexity on parameter tokens, latency-head MAPE)."""
    encoder.eval()
    rng = random.Random(f"{settings.seed}:valid")  # the same masks every epoch
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
) -> tuple[SnippetEncoder, PretrainResult]:
    """Pre-train an encoder on (snippets, latencies in ms); keep the best validation epoch.

    Args:
        tokenizer: the snippet tokenizer.
        train, valid: snippets and their measured latencies (ms).
        settings: how to train.
        config: the encoder's shape (``vocab_size`` and the log scaling are set here).
        on_epoch: called with each epoch's history row.

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
    rng = random.Random(settings.seed)
    result, best, best_state, stale = PretrainResult(), math.inf, None, 0
    start = time.perf_counter()
    for epoch in range(1, settings.epochs + 1):
        encoder.train()
        order = list(range(len(train_corpus.plain)))
        total = 0.0
        for batch in _batches(order, train_corpus.plain, settings.batch_size, rng):
            tokens, latency, masked = _losses(
                encoder, train_corpus, batch, settings, mask_id, rng, False
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
        result.history.append(row)
        if on_epoch is not None:
            on_epoch(row)
        if valid_loss < best:
            best, best_state, stale, result.best_epoch = (
                valid_loss,
                copy.deepcopy(encoder.state_dict()),
                0,
                epoch,
            )
        else:
            stale += 1
            if stale >= settings.patience:
                break
    if best_state is not None:
        encoder.load_state_dict(best_state)
    result.seconds = time.perf_counter() - start
    return encoder.cpu().eval(), result


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
