"""Graph → features a predictor learns from: raw values, vocabulary, scalers.

``raw_features(graph)`` reads numbers off the IR (cacheable by graph hash);
``FeatureSchema.fit(raws)`` learns the operator vocabulary and scalers on training
data; ``schema.encode(raw)`` gives the :class:`GraphFeatures` a model consumes
(``schema.encode_many(raws)`` a whole batch at once); ``raw_features_many(graphs)``
computes raw features on every allowed core. This package imports numpy only (and
:mod:`nnlat.forked`, the standard library's ``multiprocessing``).
"""

from nnlat.features.parallel import iter_raw_features, raw_features_many
from nnlat.features.raw import GRAPH_COLUMNS, NODE_COLUMNS, RawFeatures, raw_features
from nnlat.features.schema import (
    FEATURE_SCHEMA_VERSION,
    OTHER,
    BatchFeatures,
    FeatureSchema,
    FeatureSchemaError,
    GraphFeatures,
    Standardizer,
)

__all__ = [
    "FEATURE_SCHEMA_VERSION",
    "GRAPH_COLUMNS",
    "NODE_COLUMNS",
    "OTHER",
    "BatchFeatures",
    "FeatureSchema",
    "FeatureSchemaError",
    "GraphFeatures",
    "RawFeatures",
    "Standardizer",
    "iter_raw_features",
    "raw_features",
    "raw_features_many",
]
