"""``nnlat.predict_code()``: a latency from a PyTorch module's source, without running it.

The file is interpreted (:func:`nnlat.code.interpret_file`: **it imports the file and
runs its constructor**, on the meta device; no weights, no computation), and a trained
:class:`~nnlat.predictor.code.model.CobraModel` predicts from the snippets and the call
graph. The answer says plainly when the code lies outside what the model learned
(:meth:`CobraModel.notes`): snippet kinds never seen in training, layers larger than any
seen, more layers than any training network, a latency outside the training range.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from nnlat.predictor.code.model import CobraError, CobraModel

PRETRAINED_DIR = Path(__file__).resolve().parents[1] / "pretrained" / "cobra"


class CodePrediction(BaseModel):
    """A latency predicted from source code.

    Attributes:
        latency_ms: the estimate, in milliseconds, on the platform the model was trained on.
        platform: that platform.
        layers: how many layer calls (snippets) the interpreter found.
        kinds: snippet kind → count.
        in_domain: False when ``notes`` is not empty: the estimate extrapolates.
        notes: where the code lies outside the training data, in words.
        model: where the COBRA model was loaded from.
    """

    model_config = ConfigDict(frozen=True)

    latency_ms: float
    platform: str
    layers: int
    kinds: dict[str, int]
    in_domain: bool
    notes: tuple[str, ...]
    model: str


@functools.cache
def load_cobra(path: str | None = None) -> CobraModel:
    """The COBRA model saved at ``path`` (default: the shipped one), loaded once per process.

    Raises:
        CobraError: nothing saved there (the message says how to train one).
    """
    directory = Path(path) if path else PRETRAINED_DIR
    if not (directory / "cobra.json").exists():
        raise CobraError(
            f"no COBRA model at {directory}: train one with `python scripts/cobra_study.py` "
            "(it saves reports/cobra/runs/model) and pass model=that directory"
        )
    return CobraModel.load(directory)


def predict_code(
    path_and_class: str,
    input_shapes: Mapping[str, Sequence[int]],
    init_args: Mapping[str, Any] | None = None,
    *,
    model: CobraModel | str | Path | None = None,
) -> CodePrediction:
    """Predict the latency of ``path/to/model.py::ClassName`` from its source code.

    **This imports the file and runs the class's constructor** (on the meta device), as
    ``python`` would: only point it at code you would run yourself.

    Args:
        path_and_class: ``path/to/model.py::ClassName``.
        input_shapes: ``forward`` parameter name → concrete shape (batch included).
        init_args: keyword arguments of the constructor.
        model: a :class:`CobraModel`, a saved model's directory, or None for the shipped one.

    Returns:
        The estimate, with ``in_domain`` and ``notes`` saying whether it extrapolates.

    Raises:
        CodeError: code the interpreter cannot follow (the message names ``file:line``).
        CobraError: no model, or code with no layer calls.

    Example:
        >>> import tempfile, torch
        >>> from nnlat.testing.cobra import toy_cobra_model
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "m.py").write_text(
        ...     "import torch\\nclass Net(torch.nn.Module):\\n"
        ...     "    def __init__(self, c=8):\\n        super().__init__()\\n"
        ...     "        self.conv = torch.nn.Conv2d(3, c, 3)\\n"
        ...     "    def forward(self, x):\\n        return torch.relu(self.conv(x))\\n")
        >>> p = predict_code(f"{folder}/m.py::Net", {"x": (1, 3, 16, 16)}, {"c": 4},
        ...                  model=toy_cobra_model())
        >>> p.latency_ms > 0, p.layers, p.kinds
        (True, 2, {'Conv2d': 1, 'relu': 1})
    """
    from nnlat.code.interpret import interpret_file

    chosen = (
        model
        if isinstance(model, CobraModel)
        else load_cobra(None if model is None else str(model))
    )
    graph = interpret_file(path_and_class, input_shapes, init_args)
    if not graph.snippets:
        raise CobraError(f"{path_and_class}: the code makes no layer calls: nothing to predict")
    latency = float(chosen.predict([graph])[0])
    notes = tuple(chosen.notes(graph, latency))
    label = "in-memory" if isinstance(model, CobraModel) else str(model or PRETRAINED_DIR)
    return CodePrediction(
        latency_ms=latency,
        platform=str(chosen.info.get("platform", "")),
        layers=len(graph.snippets),
        kinds=graph.kinds(),
        in_domain=not notes,
        notes=notes,
        model=label,
    )
