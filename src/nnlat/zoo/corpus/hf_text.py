"""``hf-text``: encoders and decoders of the ``transformers`` package, random weights.

BERT, RoBERTa, XLM-R, DistilBERT, ALBERT, ELECTRA, DeBERTa (v1, v2), MPNet, MobileBERT,
SqueezeBERT, ConvBERT, RoFormer, ERNIE, T5's encoder, GPT-2, OPT, Llama, Mistral, Qwen2,
Qwen3, Gemma, Phi, Phi-3, Falcon, BLOOM, GPT-Neo, GPT-NeoX, GPT-J, CodeGen, StableLM,
OLMo, Granite — bare, or with a classification, token-classification or language-model
head, exported at opsets 11–18 with eager or sdpa attention.

Scaled down (see :mod:`nnlat.zoo.corpus.sizes`): hidden 64–512, 1–6 layers, sequences of
16–128 tokens, vocabularies of 1,000–8,192, under 1 G multiply-accumulates.
Inputs: ``input_ids`` and usually ``attention_mask`` (and ``token_type_ids`` where the
model has a token-type table), int64, batch 1.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import torch

from nnlat.zoo.corpus.export import no_module
from nnlat.zoo.corpus.hf import Arch, hf_export, sample_common
from nnlat.zoo.corpus.sizes import Sizes, draw_sizes
from nnlat.zoo.family import Config, Family

ENCODER_HEADS = ("Model", "ForSequenceClassification", "ForMaskedLM", "ForTokenClassification")
DECODER_HEADS = ("Model", "ForCausalLM", "ForSequenceClassification")
ACTIVATIONS = ("gelu", "gelu_new", "relu", "silu")


def _bert_like(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {
        "hidden_size": s.hidden,
        "num_hidden_layers": s.layers,
        "num_attention_heads": s.heads,
        "intermediate_size": s.ffn,
        "vocab_size": s.vocab,
        "hidden_act": rng.choice(ACTIVATIONS),
        "pad_token_id": 0,
    }


def _with_embedding(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {**_bert_like(s, rng), "embedding_size": rng.choice([s.hidden // 2, s.hidden, 64])}


def _llama_like(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {
        "hidden_size": s.hidden,
        "num_hidden_layers": s.layers,
        "num_attention_heads": s.heads,
        "num_key_value_heads": s.kv_heads,
        "intermediate_size": s.ffn,
        "vocab_size": s.vocab,
        "pad_token_id": 0,
        "tie_word_embeddings": rng.random() < 0.5,
    }


def _with_head_dim(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {**_llama_like(s, rng), "head_dim": s.head_dim}


def _gpt2(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {
        "n_embd": s.hidden,
        "n_layer": s.layers,
        "n_head": s.heads,
        "n_inner": s.ffn,
        "vocab_size": s.vocab,
        "activation_function": rng.choice(["gelu_new", "relu", "gelu"]),
        "pad_token_id": 0,
        "bos_token_id": 0,
        "eos_token_id": 0,
    }


def _gptj(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {**_gpt2(s, rng), "rotary_dim": min(s.head_dim, rng.choice([16, 32]))}


def _opt(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {
        "hidden_size": s.hidden,
        "num_hidden_layers": s.layers,
        "num_attention_heads": s.heads,
        "ffn_dim": s.ffn,
        "word_embed_proj_dim": s.hidden,
        "vocab_size": s.vocab,
        "do_layer_norm_before": rng.random() < 0.8,
        "pad_token_id": 0,
    }


def _distilbert(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {
        "dim": s.hidden,
        "n_layers": s.layers,
        "n_heads": s.heads,
        "hidden_dim": s.ffn,
        "vocab_size": s.vocab,
        "activation": rng.choice(["gelu", "relu"]),
        "pad_token_id": 0,
    }


def _t5(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {
        "d_model": s.hidden,
        "num_layers": s.layers,
        "num_heads": s.heads,
        "d_kv": s.head_dim,
        "d_ff": s.ffn,
        "vocab_size": s.vocab,
        "feed_forward_proj": rng.choice(["relu", "gated-gelu"]),
    }


def _bloom(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {
        "hidden_size": s.hidden,
        "n_layer": s.layers,
        "n_head": s.heads,
        "vocab_size": s.vocab,
        "pad_token_id": 0,
    }


def _falcon(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {
        "hidden_size": s.hidden,
        "num_hidden_layers": s.layers,
        "num_attention_heads": s.heads,
        "vocab_size": s.vocab,
        "multi_query": rng.random() < 0.5,
        "parallel_attn": rng.random() < 0.5,
        "pad_token_id": 0,
    }


def _gpt_neo(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {
        "hidden_size": s.hidden,
        "num_layers": s.layers,
        "num_heads": s.heads,
        "intermediate_size": s.ffn,
        "vocab_size": s.vocab,
        "attention_types": [[["global"], s.layers]],
        "max_position_embeddings": 256,
        "window_size": 32,
        "pad_token_id": 0,
    }


def _squeezebert(s: Sizes, rng: random.Random) -> dict[str, object]:
    groups = rng.choice([g for g in (1, 2, 4) if s.hidden % g == 0 and s.ffn % g == 0])
    return {
        **_bert_like(s, rng),
        "embedding_size": s.hidden,
        "q_groups": groups,
        "k_groups": groups,
        "v_groups": groups,
        "post_attention_groups": groups,
        "intermediate_groups": groups,
        "output_groups": groups,
    }


def _mobilebert(s: Sizes, rng: random.Random) -> dict[str, object]:
    bottleneck = rng.choice([32, 64, 128])
    return {
        **_bert_like(s, rng),
        # its masked-LM head maps hidden - embedding features: no wider than the hidden
        # size (hf-deep's are 32-128 wide)
        "embedding_size": min(rng.choice([64, 128]), s.hidden),
        "intra_bottleneck_size": bottleneck,
        "true_hidden_size": bottleneck,
        "num_attention_heads": rng.choice([2, 4]),
        "num_feedforward_networks": rng.choice([1, 2, 4]),
        "intermediate_size": bottleneck * 4,
        "normalization_type": rng.choice(["no_norm", "layer_norm"]),
        "hidden_act": "relu",
    }


def _convbert(s: Sizes, rng: random.Random) -> dict[str, object]:
    return {
        **_bert_like(s, rng),
        "embedding_size": s.hidden,
        "head_ratio": rng.choice([1, 2]),
        "conv_kernel_size": rng.choice([3, 5, 9]),
    }


ENC, DEC = ENCODER_HEADS, DECODER_HEADS
# name → (Arch, token-type table?). Names are the configuration's "arch" value.
ARCHS: dict[str, Arch] = {
    "bert": Arch("Bert", ENC, _bert_like),
    "roberta": Arch("Roberta", ENC, _bert_like),
    "xlm-roberta": Arch("XLMRoberta", ENC, _bert_like),
    "distilbert": Arch("DistilBert", ENC, _distilbert),
    "albert": Arch("Albert", ENC, _with_embedding),
    "electra": Arch("Electra", ENC, _with_embedding),
    "deberta": Arch("Deberta", ENC, _bert_like, sdpa=False),
    "deberta-v2": Arch("DebertaV2", ENC, _bert_like, sdpa=False),
    "mpnet": Arch("MPNet", ENC, _bert_like, sdpa=False),
    "mobilebert": Arch("MobileBert", ENC, _mobilebert, sdpa=False),
    "squeezebert": Arch("SqueezeBert", ENC, _squeezebert, sdpa=False),
    "convbert": Arch("ConvBert", ENC, _convbert, sdpa=False),
    "roformer": Arch("RoFormer", ENC, _with_embedding, sdpa=False),
    "ernie": Arch("Ernie", ENC, _bert_like),
    "t5-encoder": Arch("T5", ("EncoderModel",), _t5, sdpa=False),
    "gpt2": Arch("GPT2", ("Model", "LMHeadModel", "ForSequenceClassification"), _gpt2),
    "opt": Arch("OPT", DEC, _opt),
    "llama": Arch("Llama", DEC, _llama_like),
    "mistral": Arch("Mistral", DEC, _llama_like),
    "qwen2": Arch("Qwen2", DEC, _llama_like),
    "qwen3": Arch("Qwen3", DEC, _with_head_dim),
    "gemma": Arch("Gemma", DEC, _with_head_dim),
    "phi": Arch("Phi", DEC, _llama_like),
    "phi3": Arch("Phi3", DEC, _llama_like),
    "stablelm": Arch("StableLm", DEC, _llama_like),
    "olmo": Arch("Olmo", DEC, _llama_like),
    "granite": Arch("Granite", ("Model", "ForCausalLM"), _llama_like),
    "falcon": Arch("Falcon", DEC, _falcon),
    "bloom": Arch("Bloom", DEC, _bloom, sdpa=False),
    "gpt-neo": Arch("GPTNeo", DEC, _gpt_neo, sdpa=False),
    "gpt-neox": Arch("GPTNeoX", DEC, _llama_like),
    "gptj": Arch("GPTJ", ("Model", "ForCausalLM"), _gptj),
    "codegen": Arch("CodeGen", ("Model", "ForCausalLM"), _gptj, sdpa=False),
}

# Models with a token-type table: their exports often take ``token_type_ids`` too.
TOKEN_TYPES = frozenset(
    {"bert", "albert", "electra", "ernie", "mobilebert", "convbert", "roformer", "squeezebert"}
)
# Decoders build their causal mask from the attention mask; without one, transformers
# looks for packed sequences with ``torch.diff``, which the TorchScript exporter lacks.
DECODERS = frozenset(
    name for name, arch in ARCHS.items() if {"ForCausalLM", "LMHeadModel"} & set(arch.heads)
)
GQA = frozenset(
    {"llama", "mistral", "qwen2", "qwen3", "gemma", "phi3", "stablelm", "olmo", "granite"}
)


def sample(rng: random.Random) -> Config:
    """Draw an architecture, a head, its sizes, an opset and its inputs.

    Example:
        >>> c = sample(random.Random(0))
        >>> c["inputs"][0], c["seq"] >= 16
        ('input_ids', True)
    """
    return sample_sized(rng, draw_sizes)


def sample_sized(rng: random.Random, draw: Callable[..., Sizes]) -> Config:
    """:func:`sample` with the sizes drawn by ``draw`` (called as ``draw(rng, gqa=...)``).

    Example:
        >>> from nnlat.zoo.corpus.sizes import draw_deep_sizes
        >>> sample_sized(random.Random(0), draw_deep_sizes)["seq"] <= 32
        True
    """
    name = rng.choice(sorted(ARCHS))
    arch = ARCHS[name]
    sizes = draw(rng, gqa=name in GQA)
    config = sample_common(rng, name, arch, arch.sample(sizes, rng))
    inputs = ["input_ids", "attention_mask"]
    if name in TOKEN_TYPES and rng.random() < 0.5:
        inputs.append("token_type_ids")
    elif name not in DECODERS and rng.random() < 0.2:
        inputs = ["input_ids"]  # many encoder exports take the ids alone
    if config["head"] in ("ForSequenceClassification", "ForTokenClassification"):
        config["hf"]["num_labels"] = rng.choice([2, 3, 5, 9])
    return {
        **config,
        "seq": sizes.seq,
        "inputs": inputs,
        "num_classes": config["hf"].get("num_labels", sizes.vocab),
    }


def inputs(config: Config) -> dict[str, torch.Tensor]:
    """Example inputs: ids in the vocabulary, an all-ones mask, zero token types."""
    seq = config["seq"]
    tensors = {
        "input_ids": torch.arange(seq, dtype=torch.int64).remainder(50).unsqueeze(0) + 1,
        "attention_mask": torch.ones(1, seq, dtype=torch.int64),
        "token_type_ids": torch.zeros(1, seq, dtype=torch.int64),
    }
    return {name: tensors[name] for name in config["inputs"]}


FAMILY = Family(
    name="hf-text",
    summary="transformers encoders/decoders (BERT to Llama), random weights, opsets 11-18",
    sample=sample,
    build=no_module,
    input_shape=lambda c: (1, c["seq"]),
    output_shape=lambda c: (1, c["seq"]),
    export_onnx=hf_export(ARCHS, inputs),
)
