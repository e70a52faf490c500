"""COBRA's model: tokenizer, encoder pre-training, GCN, save/load, predict_code, domain notes."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from nnlat.code import CodeError, interpret_module
from nnlat.predictor.code.api import predict_code
from nnlat.predictor.code.encoder import EncoderConfig
from nnlat.predictor.code.model import CobraError, CobraModel
from nnlat.predictor.code.pretraining import (
    PretrainSettings,
    parameter_perplexity,
    pretrain_encoder,
)
from nnlat.predictor.code.tokenizer import latency_text, parameter_positions, train_tokenizer
from nnlat.testing.cobra import toy_cobra_model
from nnlat.zoo.cobra.layers import LAYERS, layer_snippet

SMALL = EncoderConfig(vocab_size=0, dim=32, layers=1, heads=2, ffn=64)


def _layers(n: int) -> tuple[list[str], list[float]]:
    """Random ReLU layers whose 'latency' is their size: a latency that parameters decide."""
    rng = random.Random(0)
    texts, latencies = [], []
    for _ in range(n):
        c, h = rng.randrange(1, 60), rng.randrange(1, 60)
        texts.append(layer_snippet({"type": "ReLU", "h": h, "w": 8, "c": c}))
        latencies.append(c * h * 8 / 1000)
    return texts, latencies


def test_numbers_are_parameter_tokens_but_digits_of_names_are_not() -> None:
    text = layer_snippet(LAYERS.sample(random.Random(3)))
    tokenizer = train_tokenizer([text], 512)
    tokens = tokenizer.encode(text).tokens
    positions = parameter_positions(tokenizer, text, 512)
    assert len(positions) > 0
    assert all(tokens[p].removeprefix("##").isdigit() for p in positions)
    x_zero = tokens.index("x") + 1  # the 0 of x0 is a name
    assert tokens[x_zero] == "0" and x_zero not in positions.tolist()


def test_pretraining_learns_parameter_tokens_with_and_without_the_appended_latency() -> None:
    # Whether the appended latency lowers the perplexity (COBRA's Figure 5) is a study
    # result (reports/cobra/): at this toy scale the two differ by less than the run-to-run
    # spread of torch's thread count, so the test checks only that both modes learn.
    texts, latencies = _layers(240)
    vocabulary = 512
    tokenizer = train_tokenizer(
        [t + "\n" + latency_text(ms) for t, ms in zip(texts, latencies, strict=True)],
        vocabulary,
    )
    train, valid = (texts[:200], latencies[:200]), (texts[200:], latencies[200:])
    for append in (True, False):
        settings = PretrainSettings(epochs=25, patience=25, append_latency=append, lr=2e-3)
        encoder, result = pretrain_encoder(tokenizer, train, valid, settings, SMALL)
        assert result.history[-1][1] < result.history[0][1]  # the training loss fell
        # far better than guessing among the vocabulary's tokens
        assert parameter_perplexity(encoder, tokenizer, *valid, settings) < vocabulary / 4


def test_pretraining_stopped_after_an_epoch_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    """A time limit kills the pre-training process between epochs: the next run goes on
    from the last epoch and ends where an uninterrupted run ends."""
    texts, latencies = _layers(80)
    tokenizer = train_tokenizer(texts, 256)
    train, valid = (texts[:64], latencies[:64]), (texts[64:], latencies[64:])
    settings = PretrainSettings(epochs=3, patience=3, batch_size=16)
    whole, whole_result = pretrain_encoder(tokenizer, train, valid, settings, SMALL)
    checkpoint = tmp_path / "encoder.ckpt"
    first = PretrainSettings(epochs=1, patience=3, batch_size=16)
    _, stopped = pretrain_encoder(tokenizer, train, valid, first, SMALL, checkpoint=checkpoint)
    assert len(stopped.history) == 1 and checkpoint.exists()
    seen: list[int] = []
    resumed, result = pretrain_encoder(
        tokenizer, train, valid, settings, SMALL, lambda row: seen.append(row[0]), checkpoint
    )
    assert seen == [2, 3]  # epoch 1 was not trained again
    assert [row[:3] for row in result.history] == pytest.approx(
        [row[:3] for row in whole_result.history]
    )
    for name, value in whole.state_dict().items():
        assert torch.allclose(resumed.state_dict()[name], value), name
    # Another run's checkpoint (other data) is not resumed.
    seen.clear()
    pretrain_encoder(
        tokenizer,
        (texts[:60], latencies[:60]),
        valid,
        settings,
        SMALL,
        lambda row: seen.append(row[0]),
        checkpoint,
    )
    assert seen == [1, 2, 3]


def test_a_saved_model_loads_and_predicts_the_same(tmp_path: Path) -> None:
    model = toy_cobra_model()
    graph = interpret_module(
        torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU()), {"input": (1, 3, 8, 8)}
    )
    before = model.predict([graph])
    loaded = CobraModel.load(model.save(tmp_path / "cobra"))
    assert np.allclose(loaded.predict([graph]), before, rtol=1e-5)
    assert loaded.domain == model.domain


def test_a_model_with_another_format_is_refused(tmp_path: Path) -> None:
    directory = toy_cobra_model().save(tmp_path / "cobra")
    sidecar = directory / "cobra.json"
    sidecar.write_text(sidecar.read_text().replace('"format_version": 1', '"format_version": 99'))
    with pytest.raises(CobraError, match="format 99"):
        CobraModel.load(directory)


LSTM_TAGGER = """\
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.lstm = nn.LSTM(8, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 5)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.out(y)
"""


def test_code_outside_the_training_domain_is_said_to_be(tmp_path: Path) -> None:
    (tmp_path / "tagger.py").write_text(LSTM_TAGGER)
    p = predict_code(
        f"{tmp_path}/tagger.py::Tagger", {"x": (1, 7, 8)}, {"hidden": 16}, model=toy_cobra_model()
    )
    assert not p.in_domain
    assert any("never seen in training: LSTM" in n and "tagger.py:" in n for n in p.notes)
    assert p.kinds == {"LSTM": 1, "Linear": 1}


def test_code_inside_the_training_domain_has_no_notes(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(
        textwrap.dedent("""\
        import torch
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
                self.skip = torch.nn.Conv2d(3, 8, 1)
                self.relu = torch.nn.ReLU()
            def forward(self, x):
                return self.relu(self.conv(x) + self.skip(x))
        """)
    )
    model = toy_cobra_model()
    p = predict_code(f"{tmp_path}/net.py::Net", {"x": (1, 3, 8, 8)}, model=model)
    assert p.latency_ms > 0
    low, high = model.domain.latency_ms
    assert p.in_domain == (low / 2 <= p.latency_ms <= 2 * high), p.notes
    larger = predict_code(f"{tmp_path}/net.py::Net", {"x": (1, 3, 64, 64)}, model=model)
    assert any("over 1.5x the largest seen" in n for n in larger.notes)


def test_code_the_interpreter_cannot_follow_is_an_error_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(
        textwrap.dedent("""\
        import torch
        class Net(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x
                return -x
        """)
    )
    with pytest.raises(CodeError, match=r"bad\.py:4"):
        predict_code(f"{tmp_path}/bad.py::Net", {"x": (1, 3)}, model=toy_cobra_model())


def test_without_a_model_the_error_says_how_to_train_one(tmp_path: Path) -> None:
    with pytest.raises(CobraError, match=r"cobra_study\.py"):
        predict_code(f"{tmp_path}/x.py::Net", {"x": (1,)}, model=tmp_path / "none")
