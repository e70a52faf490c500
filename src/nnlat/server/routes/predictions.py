"""``POST /v1/predictions``: a latency estimate from the server's predictor."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from nnlat.server.deps import CallerDep, ServiceDep, SettingsDep
from nnlat.server.schemas import PredictRequest

router = APIRouter(tags=["predictions"])


@router.post("/predictions")
def predict(
    body: PredictRequest, service: ServiceDep, settings: SettingsDep, _: CallerDep
) -> dict[str, object]:
    """Predict the latency of a stored model on a platform the predictor knows."""
    from nnlat.predictor.api import predict_many

    stored = service.store.get_model(body.graph_hash)
    if stored is not None and stored.nodes == 0:
        raise HTTPException(
            status.HTTP_400_BAD_REQUEST,
            "the model has no operators left after constant folding: nothing to predict",
        )
    graph = service.graph(body.graph_hash, body.batch_size, body.input_shapes)
    [prediction] = predict_many(
        [graph], body.platform, body.batch_size, predictor=settings.predictor
    )
    return prediction.model_dump()
