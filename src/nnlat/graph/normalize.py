"""The normalisation pipeline: a ModelProto in, a canonical weight-free ModelProto out.

Read top to bottom, this is what nnlat does to every model before hashing or costing it.
"""

from __future__ import annotations

import onnx

from nnlat.graph.passes.canonical_attributes import canonical_attributes
from nnlat.graph.passes.eliminate_identity import eliminate_identity
from nnlat.graph.passes.fold_constants import fold_constants
from nnlat.graph.passes.infer_shapes import infer_shapes
from nnlat.graph.passes.options import NormalizeOptions
from nnlat.graph.passes.prune_dead import prune_dead
from nnlat.graph.passes.set_input_shapes import set_input_shapes
from nnlat.graph.passes.strip_weights import strip_weights
from nnlat.graph.passes.toposort import toposort

# Folding can expose new constants (a folded Shape makes a Concat constant, ...); a few
# rounds reach the fixed point on every model seen so far.
MAX_FOLD_ROUNDS = 8


def normalize(
    model: onnx.ModelProto, options: NormalizeOptions | None = None, *, copy: bool = True
) -> onnx.ModelProto:
    """Return a normalised version of ``model``.

    Steps: drop weight values → topological order → static input shapes (overrides,
    batch size, defaults) → shape inference → fold constant sub-graphs (re-inferring
    until nothing folds) → remove no-ops and dead code → fill attribute defaults from the
    schema → final shape inference.

    Args:
        model: any ONNX model; it is not modified unless ``copy`` is False.
        options: batch size and input-shape overrides.
        copy: work on a copy. ``False`` edits ``model`` in place, which spares copying
            the weights of a model the caller owns (they are dropped first thing).

    Returns:
        The normalised, weight-free model.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> m = normalize(tiny_model(), NormalizeOptions(batch_size=4))
        >>> m.graph.input[0].type.tensor_type.shape.dim[0].dim_value
        4
    """
    options = options or NormalizeOptions()
    if copy:
        out = onnx.ModelProto()
        out.CopyFrom(model)
    else:
        out = model
    strip_weights(out, options)
    toposort(out, options)
    set_input_shapes(out, options)
    infer_shapes(out, options)
    for _ in range(MAX_FOLD_ROUNDS):
        if not fold_constants(out, options):
            break
        infer_shapes(out, options)
    eliminate_identity(out, options)
    prune_dead(out, options)
    canonical_attributes(out, options)
    infer_shapes(out, options)
    return out
