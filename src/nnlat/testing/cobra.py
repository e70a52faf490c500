"""A tiny COBRA model for tests and examples: trained in a second, it predicts nonsense."""

from __future__ import annotations

import functools

import torch

from nnlat.predictor.code.encoder import EncoderConfig, SnippetEncoder
from nnlat.predictor.code.model import CobraModel
from nnlat.predictor.code.tokenizer import train_tokenizer
from nnlat.predictor.training import TrainSettings


@functools.cache
def toy_cobra_model() -> CobraModel:
    """A COBRA model with an untrained 1-layer encoder and a GCN fitted for 2 epochs.

    It has seen ``Conv2d``, ``ReLU`` and ``add`` snippets of two small networks.

    Example:
        >>> sorted(toy_cobra_model().domain.kinds)
        ['Conv2d', 'ReLU', 'add']
    """
    from nnlat.code.interpret import interpret_module

    class Block(torch.nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, c, 3, padding=1)
            self.skip = torch.nn.Conv2d(3, c, 1)
            self.relu = torch.nn.ReLU()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.relu(self.conv(x) + self.skip(x))

    graphs = [interpret_module(Block(c), {"x": (1, 3, 8, 8)}) for c in (4, 8, 16)]
    tokenizer = train_tokenizer([s.text for g in graphs for s in g.snippets], 256)
    torch.manual_seed(0)
    config = EncoderConfig(tokenizer.get_vocab_size(), dim=16, layers=1, heads=2, ffn=32)
    model = CobraModel(tokenizer, SnippetEncoder(config).eval())
    settings = TrainSettings(epochs=2, batch_size=2, loss="mape", device="cpu")
    model.fit_gcn(
        [(graphs[0], 1.0), (graphs[1], 2.0)],
        [(graphs[2], 3.0)],
        settings,
        {"hidden": 8, "layers": 1},
    )
    model.info["platform"] = "toy"
    return model
