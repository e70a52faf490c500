"""The snippet tokenizer: WordPiece trained here, on the snippets themselves.

COBRA tokenises snippets with BERT's uncased English vocabulary (paper §3). Nothing is
downloaded here: a WordPiece model is trained with the ``tokenizers`` package on the
corpus of snippets (and the latencies appended to them in pre-training). Pre-tokenisation
cuts a snippet at white space and punctuation and separates digit runs from letters, so
every number of a snippet (a shape, a channel count, a kernel size, a stride) is a word of
its own: a frequent number becomes one token, a rare one a few ``##`` pieces. A token
made of digits only is a *parameter token* (:func:`parameter_mask`): those are the ones
masked when the encoder's perplexity on parameters is measured (paper Figure 5).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

PAD, UNK, CLS, SEP, MASK = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
SPECIAL_TOKENS = (PAD, UNK, CLS, SEP, MASK)
LATENCY_PREFIX = "latency="


def latency_text(latency_ms: float) -> str:
    """The latency appended to a snippet in pre-training: 3 significant digits, in ms.

    Example:
        >>> latency_text(27.3622), latency_text(0.0087871), latency_text(1234.5)
        ('latency=27.4', 'latency=0.00879', 'latency=1230')
    """
    digits = np.format_float_positional(
        float(latency_ms), precision=3, unique=False, fractional=False, trim="-"
    )
    return LATENCY_PREFIX + digits


def train_tokenizer(texts: Iterable[str], vocab_size: int = 2048) -> Tokenizer:
    """A WordPiece tokenizer trained on ``texts`` (see the module docstring).

    Args:
        texts: the corpus: snippets, with or without their latency lines.
        vocab_size: the most tokens (special tokens included).

    Example:
        >>> tok = train_tokenizer(["layer=torch.nn.ReLU()\\nx0=torch.randn(1,64,56,56)"] * 3)
        >>> tok.encode("x0=torch.randn(1,64,56,56)").tokens[:6]
        ['[CLS]', 'x', '0', '=', 'torch', '.']
    """
    tokenizer = Tokenizer(models.WordPiece(unk_token=UNK, max_input_chars_per_word=32))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.WhitespaceSplit(),
            pre_tokenizers.Punctuation(behavior="isolated"),
            pre_tokenizers.Digits(individual_digits=False),
        ]
    )
    tokenizer.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, min_frequency=1, special_tokens=list(SPECIAL_TOKENS)
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    from tokenizers.processors import TemplateProcessing

    tokenizer.post_processor = TemplateProcessing(
        single=f"{CLS} $A", special_tokens=[(CLS, tokenizer.token_to_id(CLS))]
    )
    return tokenizer


def load_tokenizer(path: Path | str) -> Tokenizer:
    """A tokenizer saved with ``tokenizer.save(path)`` (JSON)."""
    return Tokenizer.from_file(str(path))


def encode(tokenizer: Tokenizer, texts: Sequence[str], max_len: int) -> list[list[int]]:
    """Token ids of each text, cut to ``max_len`` tokens.

    Example:
        >>> tok = train_tokenizer(["y=x0+x1"] * 2)
        >>> encode(tok, ["y=x0+x1"], 4)[0] == tok.encode("y=x0+x1").ids[:4]
        True
    """
    return [e.ids[:max_len] for e in tokenizer.encode_batch(list(texts))]


def parameter_positions(tokenizer: Tokenizer, text: str, max_len: int) -> np.ndarray:
    """Positions of ``text``'s tokens (cut to ``max_len``) that belong to a number.

    A number inside a name (the ``0`` of ``x0``, the ``2`` of ``Conv2d``) is no
    parameter: a digit run counts only when no letter or ``_`` precedes it.

    Example:
        >>> tok = train_tokenizer(["x0=torch.randn(1,64)"] * 2)
        >>> parameter_positions(tok, "x0=torch.randn(1,64)", 32).tolist()
        [8, 10]
    """
    encoding = tokenizer.encode(text)
    found = []
    for position, (token, (start, _)) in enumerate(
        zip(encoding.tokens[:max_len], encoding.offsets[:max_len], strict=True)
    ):
        if not token.removeprefix("##").isdigit():
            continue
        run = start
        while run > 0 and text[run - 1].isdigit():
            run -= 1
        if run == 0 or not (text[run - 1].isalpha() or text[run - 1] == "_"):
            found.append(position)
    return np.array(found, dtype=np.int64)


def parameter_mask(tokenizer: Tokenizer) -> np.ndarray:
    """A boolean per vocabulary id: True for tokens of digits only (``64``, ``##5``).

    Example:
        >>> tok = train_tokenizer(["x0=torch.randn(1,64)"] * 2)
        >>> bool(parameter_mask(tok)[tok.token_to_id("64")]), bool(parameter_mask(tok)[0])
        (True, False)
    """
    vocab = tokenizer.get_vocab()
    mask = np.zeros(len(vocab), dtype=bool)
    for token, index in vocab.items():
        mask[index] = token.removeprefix("##").isdigit()
    return mask
