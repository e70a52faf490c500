"""A BERT-style text encoder (HuggingFace BertModel export), opset 17.

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import math

import onnx
import torch
from torch import nn

from nnlat.zoo.realworld.export import export_torchscript, seeded


class _EncoderLayer(nn.Module):
    def __init__(self, hidden: int, heads: int, ffn: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.q, self.k, self.v = (
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, hidden),
        )
        self.proj = nn.Linear(hidden, hidden)
        self.norm1, self.norm2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.up, self.down = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)
        self.gelu = nn.GELU()

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        n, s, _ = x.shape
        return x.view(n, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor, mask_bias: torch.Tensor) -> torch.Tensor:
        n, s, hidden = x.shape
        q, k, v = self._split(self.q(x)), self._split(self.k(x)), self._split(self.v(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + mask_bias
        context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(n, s, hidden)
        x = self.norm1(x + self.proj(context))
        return self.norm2(x + self.down(self.gelu(self.up(x))))


class _TinyBert(nn.Module):
    def __init__(
        self,
        vocab: int = 1000,
        hidden: int = 64,
        heads: int = 4,
        layers: int = 2,
        positions: int = 256,
    ) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, hidden)
        self.positions = nn.Embedding(positions, hidden)
        self.segments = nn.Embedding(2, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.layers = nn.ModuleList(_EncoderLayer(hidden, heads, 2 * hidden) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        positions = torch.arange(input_ids.shape[1], dtype=torch.long).unsqueeze(0)
        x = (
            self.tokens(input_ids)
            + self.positions(positions)
            + self.segments(torch.zeros_like(input_ids))
        )
        x = self.norm(x)
        mask_bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        return x, torch.tanh(self.pooler(x[:, 0]))


def bert_encoder() -> onnx.ModelProto:
    """A BERT-style text encoder (HuggingFace BertModel export), opset 17.

    ``input_ids`` and ``attention_mask`` (N, S) int64, dynamic batch and sequence →
    token/position/segment ``Gather`` embeddings (positions from ``Range`` over the
    dynamic length) → ``LayerNormalization`` → two encoder layers of multi-head
    self-attention (``MatMul``, ``Reshape``/``Transpose`` head split, ``Div``, mask
    ``Add``, ``Softmax``) and a GELU feed-forward (exact GELU as ``Erf``/``Mul``/``Add``)
    → ``Tanh`` pooler on the first token.
    """
    with seeded():
        module = _TinyBert()
    ids = torch.ones(1, 8, dtype=torch.long)
    return export_torchscript(
        module,
        (ids, torch.ones_like(ids)),
        opset=17,
        input_names=["input_ids", "attention_mask"],
        output_names=["last_hidden_state", "pooler_output"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "sequence"},
            "attention_mask": {0: "batch", 1: "sequence"},
            "last_hidden_state": {0: "batch", 1: "sequence"},
            "pooler_output": {0: "batch"},
        },
    )
