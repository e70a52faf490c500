"""``hf-speech``: speech models of the ``transformers`` package, random weights.

Wav2Vec2, HuBERT, WavLM, Data2Vec-Audio, SEW, UniSpeech (raw waveform in; bare, CTC or
classification head), Whisper's and Speech2Text's encoders (log-mel features in) and the
Audio Spectrogram Transformer, exported at opsets 11–18.

Scaled down from the published models: hidden 64–256 instead of 768–1280, 1–4 layers,
narrower convolutional feature encoders, 0.25–1 s of 16 kHz audio (Whisper: 100–400
frames instead of 3,000), so that one inference takes tens of milliseconds on one core.
Inputs: ``input_values`` (1, samples) or ``input_features`` (1, mel, frames), float32.
"""

from __future__ import annotations

import random

import torch

from nnlat.zoo.corpus.export import no_module
from nnlat.zoo.corpus.hf import Arch, hf_export, sample_common
from nnlat.zoo.family import Config, Family

WAVEFORM_HEADS = ("Model", "ForCTC", "ForSequenceClassification")


def _transformer(rng: random.Random) -> dict[str, object]:
    hidden = rng.choice([64, 96, 128, 192, 256])
    return {
        "hidden_size": hidden,
        "num_hidden_layers": rng.randint(1, 4),
        "num_attention_heads": hidden // 32,
        "intermediate_size": hidden * rng.choice([2, 4]),
    }


def _wav2vec2(rng: random.Random) -> dict[str, object]:
    width = rng.choice([32, 64, 128])
    layers = rng.choice([5, 6, 7])  # the published encoder has 7 (strides 5,2,2,2,2,2,2)
    return {
        **_transformer(rng),
        "conv_dim": [width] * layers,
        "conv_stride": [5] + [2] * (layers - 1),
        "conv_kernel": [10] + [3] * (layers - 3) + [2, 2],
        "feat_extract_norm": rng.choice(["group", "layer"]),
        "do_stable_layer_norm": rng.random() < 0.5,
        "num_conv_pos_embeddings": rng.choice([16, 32, 64]),
        "num_conv_pos_embedding_groups": rng.choice([4, 8, 16]),
        "vocab_size": rng.choice([32, 64]),
        "num_labels": rng.choice([2, 12, 35]),
    }


def _sew(rng: random.Random) -> dict[str, object]:
    config = _wav2vec2(rng)
    config.pop("do_stable_layer_norm")
    return {**config, "squeeze_factor": rng.choice([1, 2])}


def _whisper(rng: random.Random) -> dict[str, object]:
    d = rng.choice([64, 128, 192, 256])
    return {
        "d_model": d,
        "encoder_layers": rng.randint(1, 4),
        "encoder_attention_heads": d // 32 or 1,
        "encoder_ffn_dim": d * 4,
        "num_mel_bins": rng.choice([40, 64, 80]),
        "max_source_positions": rng.choice([50, 100, 150, 200]),
    }


def _speech2text(rng: random.Random) -> dict[str, object]:
    d = rng.choice([64, 128, 192, 256])
    return {
        "d_model": d,
        "encoder_layers": rng.randint(1, 4),
        "encoder_attention_heads": d // 32 or 1,
        "encoder_ffn_dim": d * 4,
        "input_feat_per_channel": rng.choice([40, 80]),
        "conv_channels": rng.choice([128, 256]),
        "num_conv_layers": 2,
    }


def _ast(rng: random.Random) -> dict[str, object]:
    return {
        **_transformer(rng),
        "num_mel_bins": rng.choice([64, 128]),
        "max_length": rng.choice([64, 128, 256]),
        "frequency_stride": rng.choice([10, 16]),
        "time_stride": rng.choice([10, 16]),
        "num_labels": rng.choice([10, 35, 527]),
    }


WHISPER = "transformers.models.whisper.modeling_whisper"
S2T = "transformers.models.speech_to_text.modeling_speech_to_text"
ARCHS: dict[str, Arch] = {
    "wav2vec2": Arch("Wav2Vec2", WAVEFORM_HEADS, _wav2vec2),
    "hubert": Arch("Hubert", WAVEFORM_HEADS, _wav2vec2),
    "wavlm": Arch("WavLM", WAVEFORM_HEADS, _wav2vec2, sdpa=False),
    "data2vec-audio": Arch("Data2VecAudio", WAVEFORM_HEADS, _wav2vec2),
    "unispeech": Arch("UniSpeech", WAVEFORM_HEADS, _wav2vec2),
    "sew": Arch("SEW", WAVEFORM_HEADS, _sew),
    "whisper-encoder": Arch("Whisper", ("WhisperEncoder",), _whisper, module=WHISPER),
    "speech2text-encoder": Arch(
        "Speech2Text", ("Speech2TextEncoder",), _speech2text, module=S2T, sdpa=False
    ),
    "ast": Arch("AST", ("Model", "ForAudioClassification"), _ast, sdpa=False),
}


def sample(rng: random.Random) -> Config:
    """Draw an architecture, a head, its sizes, an input length and an opset.

    Example:
        >>> c = sample(random.Random(0))
        >>> c["input"] in ("input_values", "input_features")
        True
    """
    name = rng.choice(sorted(ARCHS))
    arch = ARCHS[name]
    config = sample_common(rng, name, arch, arch.sample(rng))
    hf = config["hf"]
    if name == "whisper-encoder":  # the encoder wants exactly 2 × max_source_positions
        shape = [hf["num_mel_bins"], 2 * hf["max_source_positions"]]
    elif name == "speech2text-encoder":
        shape = [rng.choice([100, 200, 400]), hf["input_feat_per_channel"]]
    elif name == "ast":
        shape = [hf["max_length"], hf["num_mel_bins"]]
    else:
        shape = [rng.choice([4000, 8000, 12000, 16000])]
    feature = name in ("whisper-encoder", "speech2text-encoder", "ast")
    return {
        **config,
        "input": "input_features" if feature else "input_values",
        "shape": shape,
        "num_classes": hf.get("num_labels", 2),
    }


def inputs(config: Config) -> dict[str, torch.Tensor]:
    """One utterance: a waveform or a feature matrix (``input_values`` for AST)."""
    name = "input_values" if config["arch"] == "ast" else config["input"]
    return {name: torch.randn(1, *config["shape"])}


FAMILY = Family(
    name="hf-speech",
    summary="transformers speech models (Wav2Vec2, Whisper encoder...), random weights",
    sample=sample,
    build=no_module,
    input_shape=lambda c: (1, *c["shape"]),
    output_shape=lambda c: (1, c["num_classes"]),
    export_onnx=hf_export(ARCHS, inputs),
)
