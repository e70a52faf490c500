"""The public surface is deliberate: changing it means changing this test."""

import nnlat


def test_public_api_is_pinned() -> None:
    assert sorted(nnlat.__all__) == sorted(
        [
            "Client",
            "Graph",
            "GraphKey",
            "ModelSummary",
            "NnlatError",
            "NnlatWarning",
            "__version__",
            "graph_key",
            "inspect",
            "load",
            "predict",
            "predict_code",
            "query",
        ]
    )


def test_importing_nnlat_does_not_import_torch() -> None:
    import subprocess
    import sys

    code = "import sys, nnlat; print('torch' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_query_is_reachable_lazily() -> None:
    from nnlat.querying.api import query

    assert nnlat.query is query


def test_predict_is_reachable_lazily() -> None:
    from nnlat.predictor.api import predict

    assert nnlat.predict is predict


def test_client_is_reachable_lazily() -> None:
    from nnlat.client import Client

    assert nnlat.Client is Client


def test_predict_code_is_reachable_lazily() -> None:
    from nnlat.predictor.code.api import predict_code

    assert nnlat.predict_code is predict_code
