"""The real-architecture corpus (nnlat.zoo.corpus): seeded, JSON-able, exportable, distinct.

Exports of library model classes and quantized models take seconds each: those tests are
marked slow; the fast ones export the cheapest generators only.
"""

from __future__ import annotations

import importlib
import json
import random

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from nnlat.errors import ExportError
from nnlat.graph import graph_key, load
from nnlat.measure.inputs import random_inputs
from nnlat.zoo import CORPUS_FAMILY_MODULES, get_family
from nnlat.zoo.corpus import audio_preproc, face
from nnlat.zoo.corpus.hf import build_hf
from nnlat.zoo.corpus.hf_text import ARCHS, sample_sized
from nnlat.zoo.corpus.sizes import Sizes
from nnlat.zoo.corpus.tiny import KINDS
from nnlat.zoo.family import Family
from nnlat.zoo.generate import generate_variants

NAMES = [importlib.import_module(f"nnlat.zoo.{m}").FAMILY.name for m in CORPUS_FAMILY_MODULES]


@pytest.mark.parametrize("name", NAMES)
def test_sampling_is_seeded_json_able_and_diverse(name: str) -> None:
    family = get_family(name)
    configs = [family.sample(random.Random(seed)) for seed in range(50)]
    assert configs == [family.sample(random.Random(seed)) for seed in range(50)]
    assert len({json.dumps(c, sort_keys=True) for c in configs}) >= 45
    for config in configs:
        assert json.loads(json.dumps(config)) == config
        assert "num_classes" in config
        assert family.export_onnx is not None


def _distinct_exports(name: str, seeds: range) -> list[onnx.ModelProto]:
    family = get_family(name)
    models = [family.model(family.sample(random.Random(s))).to_onnx() for s in seeds]
    hashes = {graph_key(load(m)).digest for m in models}
    assert len(hashes) == len(models)
    return models


@pytest.mark.parametrize(
    "name", ["rnn-control-flow", "audio-frontend", "audio-preproc", "tiny-heads", "face-cnn"]
)
def test_cheap_generators_export_distinct_valid_models(name: str) -> None:
    for model in _distinct_exports(name, range(3)):
        onnx.checker.check_model(model)


def test_face_models_of_every_kind_use_prelu_and_run() -> None:
    family = get_family("face-cnn")
    seen = set()
    for seed in range(30):
        config = family.sample(random.Random(seed))
        if config["kind"] in seen or config.get("resolution", 0) > 112:
            continue  # one model of each kind, a small one
        seen.add(config["kind"])
        model = family.model(config).to_onnx()
        assert "PRelu" in {n.op_type for n in model.graph.node}, config
        session = ort.InferenceSession(model.SerializeToString())
        image = np.random.default_rng(0).random(face.input_shape(config), dtype=np.float32)
        assert np.isfinite(session.run(None, {"input": image})[0]).all()
    assert seen == set(face.KINDS)


def test_control_flow_puts_recurrent_ops_inside_if_and_loop() -> None:
    family = get_family("rnn-control-flow")
    kinds = {}
    for seed in range(30):
        config = family.sample(random.Random(seed))
        kinds.setdefault(config["kind"], config)
    for kind, config in kinds.items():
        graph = family.model(config).to_onnx().graph
        outer = next(n for n in graph.node if n.op_type in ("If", "Loop"))
        inner = {n.op_type for a in outer.attribute if a.g.node for n in a.g.node}
        assert inner & {"LSTM", "GRU", "RNN"}, kind


def test_tiny_heads_draw_every_kind_and_run_with_nnlat_inputs() -> None:
    ort = pytest.importorskip("onnxruntime")
    family = get_family("tiny-heads")
    configs = [family.sample(random.Random(seed)) for seed in range(200)]
    assert {c["kind"] for c in configs} == set(KINDS)
    integer = {"MatMulInteger", "ConvInteger", "DynamicQuantizeLSTM", "DynamicQuantizeLinear"}
    for kind in KINDS:
        floats = [c for c in configs if c["kind"] == kind and "int8" not in c][:2]
        int8 = [c for c in configs if c["kind"] == kind and "int8" in c][:1]
        assert floats and int8, kind
        for config in floats + int8:
            model = family.model(config).to_onnx()
            onnx.checker.check_model(model, full_check=True)
            ops = {n.op_type for n in model.graph.node}
            assert bool(ops & integer) == ("int8" in config), (config, ops)
            session = ort.InferenceSession(
                model.SerializeToString(), providers=["CPUExecutionProvider"]
            )
            outputs = session.run(None, random_inputs(load(model)))
            assert len(outputs) == (2 if kind == "rnn-step" else 1)
            assert all(np.isfinite(o).all() for o in outputs), config


def test_a_configuration_regenerates_the_same_graph() -> None:
    family = get_family("rnn-control-flow")
    model = family.model(family.sample(random.Random(4)))
    assert graph_key(model.to_graph()).digest == graph_key(model.to_graph()).digest


def test_generate_variants_skips_configurations_the_exporter_refuses(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def export(config: dict) -> onnx.ModelProto:
        if config["n"] % 2:
            raise ExportError("this opset cannot export that")
        return get_family("rnn-control-flow").model(config["base"]).to_onnx()

    base = [get_family("rnn-control-flow").sample(random.Random(s)) for s in range(8)]
    family = Family(
        "flaky",
        "half export",
        sample=lambda rng: (lambda n: {"n": n, "base": base[n], "num_classes": 1})(
            rng.randrange(8)
        ),
        build=lambda c: None,  # type: ignore[arg-type, return-value]
        export_onnx=export,
    )
    monkeypatch.setattr("nnlat.zoo.generate.get_family", lambda name: family)
    variants = list(generate_variants("flaky", 2, seed=0))
    assert all(json.loads(v.model.config_json)["n"] % 2 == 0 for v in variants)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["det-head", "ocr-crnn", "dense-large"])
def test_own_generators_export_distinct_models(name: str) -> None:
    _distinct_exports(name, range(3))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hf-text", "hf-vision", "hf-speech"])
def test_transformers_families_export_distinct_models(name: str) -> None:
    pytest.importorskip("transformers")
    _distinct_exports(name, range(2))


@pytest.mark.slow
def test_deep_transformers_are_graphs_of_many_small_operators() -> None:
    pytest.importorskip("transformers")
    deep = get_family("hf-deep")
    assert {deep.sample(random.Random(seed))["arch"] for seed in range(200)} == set(ARCHS)
    nodes = [len(model.graph.node) for model in _distinct_exports("hf-deep", range(2))]
    assert min(nodes) > 700, nodes  # hf-text's six layers stay in the hundreds


def test_every_transformer_head_builds_at_the_narrowest_deep_width() -> None:
    # hf-deep draws widths down to 32, below some architectures' fixed sub-widths
    # (MobileBERT's 64-128 embedding once made a negative weight shape mid-campaign)
    pytest.importorskip("transformers")

    def narrowest(rng: random.Random, gqa: bool = False) -> Sizes:
        return Sizes(
            hidden=32, layers=1, heads=2, kv_heads=1 if gqa else 2, ffn=64, vocab=64, seq=4
        )

    configs = {}
    for seed in range(400):
        config = sample_sized(random.Random(seed), narrowest)
        configs.setdefault((config["arch"], config["head"]), config)
    assert {arch for arch, _ in configs} == set(ARCHS)
    for (arch, head), config in sorted(configs.items()):
        assert build_hf(ARCHS[arch], config) is not None, (arch, head)


@pytest.mark.slow
def test_int8_families_contain_integer_kernels() -> None:
    dynamic = {"MatMulInteger", "ConvInteger", "DynamicQuantizeLSTM", "DynamicQuantizeLinear"}
    static = {"QuantizeLinear", "DequantizeLinear", "QLinearConv", "QLinearMatMul"}
    for name, expected in (("int8-dynamic", dynamic), ("int8-qdq", static)):
        family = get_family(name)
        for seed in range(10):
            config = family.sample(random.Random(seed))
            if config["base"] in ("ocr", "audio_frontend"):  # quick to build
                ops = {n.op_type for n in family.model(config).to_onnx().graph.node}
                assert ops & expected, (name, config)
                break


def test_audio_preprocessors_use_the_signal_operators_and_run() -> None:
    # one short configuration of every front-end: its operator is in the graph and
    # onnxruntime computes finite (frames × mels) features from a waveform
    family = get_family("audio-preproc")
    operator = {"stft": "STFT", "scan-dft": "DFT", "scan-matmul": "Scan", "conv": "Conv"}
    seen = set()
    for seed in range(60):
        config = family.sample(random.Random(seed))
        if config["frontend"] in seen or config["samples"] > 32_000:
            continue
        seen.add(config["frontend"])
        model = family.model(config).to_onnx()
        ops = {n.op_type for n in model.graph.node}
        assert operator[config["frontend"]] in ops, config
        assert ("Scan" in ops) == config["frontend"].startswith("scan"), config
        wave = np.random.default_rng(0).standard_normal((1, config["samples"]), dtype=np.float32)
        session = ort.InferenceSession(model.SerializeToString())
        features = session.run(None, {"waveform": wave})[0]
        assert features.shape[1 if config["mels_first"] else 2] == config["n_mels"], config
        frames = features.shape[2 if config["mels_first"] else 1]
        padded = config["samples"] + (config["n_fft"] if config["center"] else 0)
        assert frames == (padded - config["n_fft"]) // config["hop"] + 1, config
        assert np.isfinite(features).all(), config
    assert seen == set(audio_preproc.FRONTENDS)


def test_the_scan_framing_cuts_the_frames_a_strided_window_would() -> None:
    # the Scan loop's frames, through a MatMul DFT, equal numpy's power spectrum
    config = {
        **audio_preproc.sample(random.Random(0)),
        "frontend": "scan-matmul", "samples": 4000, "n_fft": 256, "hop": 128, "center": False,
        "second_scan": False, "magnitude": False, "power": "mul", "n_mels": 40, "log": "ln",
        "normalize": False, "mels_first": False, "opset": 13,
    }  # fmt: skip
    wave = np.random.default_rng(1).standard_normal((1, 4000), dtype=np.float32)
    model = audio_preproc.export(config)
    features = ort.InferenceSession(model.SerializeToString()).run(None, {"waveform": wave})[0]
    starts = range(0, 4000 - 256 + 1, 128)
    frames = np.stack([wave[0, s : s + 256] for s in starts]) * np.hanning(257)[:-1]
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    mel = np.random.default_rng(0).random((129, 40), dtype=np.float32)
    expected = np.log(np.maximum(power @ mel, audio_preproc.EPS))
    np.testing.assert_allclose(features[0], expected, rtol=1e-3, atol=1e-3)


@pytest.mark.slow
def test_large_and_4_bit_transformers_hold_their_kernels_and_are_costed() -> None:
    pytest.importorskip("transformers")
    import nnlat
    from nnlat.graph.cost import graph_cost

    for name, kernel in (("int8-large", "MatMulInteger"), ("int4-weight", "MatMulNBits")):
        family = get_family(name)
        config = next(
            c
            for c in (family.sample(random.Random(seed)) for seed in range(50))
            if c["base_config"].get("seq", 0) <= 64 and c["base_config"].get("arch") != "swin"
        )
        model = family.model(config).to_onnx()
        assert kernel in {n.op_type for n in model.graph.node}, config
        cost = graph_cost(nnlat.load(model))
        assert not cost.uncosted_ops and not cost.unknown_ops, config
        # quantizing keeps the multiply-accumulates of the float model it came from
        float_model = get_family("hf-text").model(config["base_config"]).to_onnx()
        assert cost.macs == pytest.approx(graph_cost(nnlat.load(float_model)).macs, rel=0.05)
