"""The snippet encoder: a small BERT-like transformer with a masked-token and a latency head.

COBRA's second stage (paper §3, Figure 2). Token and learned position embeddings (as
BERT's) feed a pre-norm ``torch.nn.TransformerEncoder``; its output ``H`` (tokens × C)
goes to two heads used in pre-training:

* the masked-token head, one linear layer C × D over the vocabulary;
* the latency head, an MLP with one hidden layer of 256 on the mean of the token
  embeddings ``x = Hᵀ1/K`` (padding excluded), regressing the standardised log-latency.

After pre-training the encoder is frozen; :meth:`SnippetEncoder.embed` gives the snippet
embedding ``x`` that the GCN reads. The paper's encoder is 4 layers of width 512 with 16
heads over up to 600 tokens; the default here is narrower (:class:`EncoderConfig`),
sized for one CPU core and snippets of ~60 tokens.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class EncoderConfig:
    """The encoder's shape and the log-latency scaling of its latency head.

    Attributes:
        vocab_size: D, the tokenizer's vocabulary.
        dim: C, the embedding and hidden width.
        layers: attention blocks.
        heads: attention heads per block.
        ffn: the feed-forward inner width.
        max_len: K, the most tokens of a snippet (longer ones are cut).
        dropout: dropout in the blocks.
        head_hidden: the latency head's hidden width (the paper's 256).
        log_mean, log_std: the training latencies' log(ms) mean and standard deviation;
            the latency head predicts ``(log(ms) - log_mean) / log_std``.

    Example:
        >>> EncoderConfig(vocab_size=10).to_dict()["dim"]
        64
    """

    vocab_size: int
    dim: int = 64
    layers: int = 4
    heads: int = 4
    ffn: int = 128
    max_len: int = 160
    dropout: float = 0.1
    head_hidden: int = 256
    log_mean: float = 0.0
    log_std: float = 1.0

    def to_dict(self) -> dict[str, object]:
        """JSON-able form, for the checkpoint sidecar."""
        return asdict(self)


class SnippetEncoder(nn.Module):
    """The transformer encoder with its two pre-training heads (module docstring).

    Example:
        >>> enc = SnippetEncoder(EncoderConfig(vocab_size=20, dim=16, heads=2, ffn=32))
        >>> ids = torch.tensor([[2, 5, 6, 0], [2, 7, 0, 0]])
        >>> logits, log_ms = enc.eval()(ids)
        >>> logits.shape, log_ms.shape, enc.embed(ids).shape
        (torch.Size([2, 4, 20]), torch.Size([2]), torch.Size([2, 16]))
    """

    def __init__(self, config: EncoderConfig) -> None:
        super().__init__()
        self.config = config
        self.tokens = nn.Embedding(config.vocab_size, config.dim, padding_idx=0)
        self.positions = nn.Embedding(config.max_len, config.dim)
        block = nn.TransformerEncoderLayer(
            config.dim,
            config.heads,
            config.ffn,
            config.dropout,
            batch_first=True,
            norm_first=True,  # layer normalisation before attention, as the paper's
        )
        self.encoder = nn.TransformerEncoder(
            block, config.layers, norm=nn.LayerNorm(config.dim), enable_nested_tensor=False
        )
        self.token_head = nn.Linear(config.dim, config.vocab_size)
        self.latency_head = nn.Sequential(
            nn.Linear(config.dim, config.head_hidden), nn.ReLU(), nn.Linear(config.head_hidden, 1)
        )

    def hidden(self, ids: torch.Tensor) -> torch.Tensor:
        """H: batch × tokens × C for padded token ids (id 0 is padding)."""
        positions = torch.arange(ids.shape[1], device=ids.device)
        h = self.tokens(ids) + self.positions(positions)[None]
        return self.encoder(h, src_key_padding_mask=ids == 0)

    @staticmethod
    def pool(h: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """The mean of the token embeddings, padding excluded: batch × C."""
        keep = (ids != 0).unsqueeze(-1).to(h.dtype)
        return (h * keep).sum(1) / keep.sum(1).clamp(min=1)

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """The snippet embeddings x (batch × C) that the GCN reads."""
        return self.pool(self.hidden(ids), ids)

    def log_latency(self, embedding: torch.Tensor) -> torch.Tensor:
        """log(ms) predicted by the latency head from embeddings (batch)."""
        scaled = self.latency_head(embedding).squeeze(-1)
        return scaled * self.config.log_std + self.config.log_mean

    def forward(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(token logits batch × tokens × D, standardised log-latency batch)."""
        h = self.hidden(ids)
        return self.token_head(h), self.latency_head(self.pool(h, ids)).squeeze(-1)
