"""Graph → features a predictor learns from: raw values, vocabulary, scalers.

``raw_features(graph)`` reads numbers off the IR (cacheable by graph hash);
``FeatureSchema.fit(raws)`` learns the operator vocabulary and scalers on training
data; ``schema.encode(raw)`` gives the :class:`GraphFeatures` a model consumes. This
package imports numpy only.
"""

from nnlat.features.raw import GRAPH_COLUMNS, NODE_COLUMNS, RawFeatures, raw_features
from nnlat.features.schema import (
    FEATURE_SCHEMA_VERSION,
    OTHER,
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
    "FeatureSchema",
    "FeatureSchemaError",
    "GraphFeatures",
    "RawFeatures",
    "Standardizer",
    "raw_features",
]
