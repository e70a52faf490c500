"""``hf-vision``: image models of the ``transformers`` package, random weights.

ViT, DeiT, BEiT, DINOv2, Swin, Swin V2, ConvNeXt (V1, V2), ResNet, RegNet, MobileNet V1
and V2, MobileViT, SegFormer, LeViT, PoolFormer, FocalNet, Hiera, YOLOS, DETR and DPT —
bare backbones, classifiers, segmentation, detection and depth heads, exported at the
opsets each supports (9–18).

Scaled down from the published models: input 64–224 px, widths a quarter to a half of
the published ones, 1–3 blocks per stage, so that one inference takes at most tens of
milliseconds on one core. Input: ``pixel_values`` (1, 3, R, R), float32.
"""

from __future__ import annotations

import random

import torch

from nnlat.zoo.corpus.export import no_module
from nnlat.zoo.corpus.hf import Arch, hf_export, sample_common
from nnlat.zoo.family import Config, Family

CLASSIFY = ("Model", "ForImageClassification")


def _stages(rng: random.Random, n: int = 4) -> tuple[list[int], list[int]]:
    """Widths doubling per stage from 16–64, and 1–3 blocks per stage."""
    base = rng.choice([16, 24, 32, 48, 64])
    return [base * 2**i for i in range(n)], [rng.randint(1, 3) for _ in range(n)]


def _vit(rng: random.Random, res: int) -> dict[str, object]:
    hidden = rng.choice([64, 96, 128, 192, 256])
    # at most 256 patches: attention over more would take 100+ ms per inference
    patch = rng.choice([p for p in (8, 16) if (res // p) ** 2 <= 256])
    return {
        "hidden_size": hidden,
        "num_hidden_layers": rng.randint(1, 6),
        "num_attention_heads": hidden // rng.choice([32, 64]) or 1,
        "intermediate_size": hidden * rng.choice([2, 4]),
        "image_size": res,
        "patch_size": patch,
        "hidden_act": rng.choice(["gelu", "gelu_new", "relu"]),
    }


def _dinov2(rng: random.Random, res: int) -> dict[str, object]:
    vit = _vit(rng, res)
    return {**vit, "mlp_ratio": vit.pop("intermediate_size") // vit["hidden_size"]}


def _swin(rng: random.Random, res: int) -> dict[str, object]:
    embed = rng.choice([16, 24, 32, 48])
    window = rng.choice([2, 4])
    # every stage's grid (res/4, halved per stage) must hold a whole number of windows
    fits = [
        n
        for n in (2, 3, 4)
        if (res // 4) // 2 ** (n - 1) >= window and ((res // 4) // 2 ** (n - 1)) % window == 0
    ]
    stages = rng.choice(fits)
    return {
        "embed_dim": embed,
        "depths": [rng.randint(1, 2) for _ in range(stages)],
        "num_heads": [max(1, embed * 2**i // 16) for i in range(stages)],
        "image_size": res,
        "patch_size": 4,
        "window_size": window,
        "mlp_ratio": rng.choice([2.0, 4.0]),
    }


def _convnext(rng: random.Random, res: int) -> dict[str, object]:
    widths, depths = _stages(rng)
    return {"hidden_sizes": widths, "depths": depths, "image_size": res}


def _resnet(rng: random.Random, res: int) -> dict[str, object]:
    widths, depths = _stages(rng)
    return {
        "hidden_sizes": [w * 4 for w in widths] if rng.random() < 0.5 else widths,
        "depths": depths,
        "embedding_size": widths[0],
        "layer_type": rng.choice(["basic", "bottleneck"]),
        "downsample_in_first_stage": rng.random() < 0.5,
    }


def _regnet(rng: random.Random, res: int) -> dict[str, object]:
    group = rng.choice([8, 16])
    widths = [group * rng.choice([2, 3, 4]) * 2**i for i in range(4)]
    return {
        "hidden_sizes": widths,
        "depths": [rng.randint(1, 3) for _ in range(4)],
        "embedding_size": rng.choice([16, 32]),
        "groups_width": group,
        "layer_type": rng.choice(["x", "y"]),
    }


def _mobilenet_v1(rng: random.Random, res: int) -> dict[str, object]:
    return {
        "image_size": res,
        "depth_multiplier": rng.choice([0.25, 0.5, 0.75, 1.0]),
        "tf_padding": rng.random() < 0.5,
    }


def _mobilenet_v2(rng: random.Random, res: int) -> dict[str, object]:
    return {
        **_mobilenet_v1(rng, res),
        "expand_ratio": rng.choice([4, 6]),
        "finegrained_output": rng.random() < 0.5,
    }


def _mobilevit(rng: random.Random, res: int) -> dict[str, object]:
    # the xx-small widths, halved or not: its unfold/fold reshapes cost 200+ ms at 128 px
    scale = rng.choice([0.5, 1.0])
    return {
        "image_size": res,
        "hidden_sizes": [int(h * scale) for h in (64, 80, 96)],
        "neck_hidden_sizes": [int(n * scale) for n in (16, 16, 24, 48, 64, 80, 320)],
        "num_attention_heads": rng.choice([2, 4]),
        "expand_ratio": rng.choice([2.0, 4.0]),
        "mlp_ratio": 2.0,
    }


def _segformer(rng: random.Random, res: int) -> dict[str, object]:
    widths, depths = _stages(rng)
    return {
        "hidden_sizes": [min(w, 256) for w in widths],
        "depths": [min(d, 2) for d in depths],
        "num_attention_heads": [1, 2, 4, 8],
        "decoder_hidden_size": rng.choice([64, 128, 256]),
        "num_labels": rng.choice([2, 19, 21]),
    }


def _levit(rng: random.Random, res: int) -> dict[str, object]:
    heads = [rng.choice([2, 3, 4]) * (i + 1) for i in range(3)]
    key = rng.choice([16, 32])
    return {
        "image_size": res,
        "hidden_sizes": [h * key for h in heads],
        "num_attention_heads": heads,
        "depths": [rng.randint(1, 3) for _ in range(3)],
        "key_dim": [key] * 3,
    }


def _poolformer(rng: random.Random, res: int) -> dict[str, object]:
    widths, depths = _stages(rng)
    return {"hidden_sizes": widths, "depths": depths, "pool_size": rng.choice([3, 5])}


def _focalnet(rng: random.Random, res: int) -> dict[str, object]:
    embed = rng.choice([16, 24, 32])
    return {
        "embed_dim": embed,
        "depths": [rng.randint(1, 2) for _ in range(4)],
        "image_size": res,
        "focal_levels": [rng.choice([2, 3])] * 4,
    }


def _hiera(rng: random.Random, res: int) -> dict[str, object]:
    embed = rng.choice([16, 32])
    return {
        "embed_dim": embed,
        "depths": [rng.randint(1, 2) for _ in range(4)],
        "num_heads": [1, 2, 4, 8],
        "image_size": [res, res],
    }


def _yolos(rng: random.Random, res: int) -> dict[str, object]:
    vit = _vit(rng, res)
    return {**vit, "image_size": [res, res], "num_detection_tokens": rng.choice([10, 20, 50])}


def _detr(rng: random.Random, res: int) -> dict[str, object]:
    widths, depths = _stages(rng)
    d_model = rng.choice([64, 128, 256])
    return {
        "use_timm_backbone": False,
        "use_pretrained_backbone": False,
        "backbone_config": {
            "model_type": "resnet",
            "hidden_sizes": widths,
            "depths": depths,
            "embedding_size": widths[0],
            "out_features": ["stage4"],
        },
        "d_model": d_model,
        "encoder_layers": rng.randint(1, 3),
        "decoder_layers": rng.randint(1, 3),
        "encoder_attention_heads": d_model // 32,
        "decoder_attention_heads": d_model // 32,
        "encoder_ffn_dim": d_model * 2,
        "decoder_ffn_dim": d_model * 2,
        "num_queries": rng.choice([20, 50, 100]),
    }


def _dpt(rng: random.Random, res: int) -> dict[str, object]:
    hidden = rng.choice([64, 96, 128])
    neck = rng.choice([16, 32])
    return {
        "hidden_size": hidden,
        "num_hidden_layers": 4,
        "num_attention_heads": hidden // 32,
        "intermediate_size": hidden * 2,
        "image_size": res,
        "patch_size": 16,
        "neck_hidden_sizes": [neck, neck * 2, neck * 4, neck * 4],
        "fusion_hidden_size": neck * 2,
        "backbone_out_indices": [0, 1, 2, 3],
    }


ARCHS: dict[str, Arch] = {
    "vit": Arch("ViT", CLASSIFY, _vit),
    "deit": Arch("DeiT", CLASSIFY, _vit),
    "beit": Arch("Beit", CLASSIFY, _vit, sdpa=False),
    "dinov2": Arch("Dinov2", CLASSIFY, _dinov2),
    "swin": Arch("Swin", CLASSIFY, _swin, sdpa=False),
    "swinv2": Arch("Swinv2", CLASSIFY, _swin, sdpa=False),
    "convnext": Arch("ConvNext", CLASSIFY, _convnext, min_opset=9, sdpa=False),
    "convnextv2": Arch("ConvNextV2", CLASSIFY, _convnext, min_opset=9, sdpa=False),
    "resnet": Arch("ResNet", CLASSIFY, _resnet, min_opset=9, sdpa=False),
    "regnet": Arch("RegNet", CLASSIFY, _regnet, min_opset=9, sdpa=False),
    "mobilenet-v1": Arch("MobileNetV1", CLASSIFY, _mobilenet_v1, min_opset=9, sdpa=False),
    "mobilenet-v2": Arch(
        "MobileNetV2",
        (*CLASSIFY, "ForSemanticSegmentation"),
        _mobilenet_v2,
        min_opset=11,
        sdpa=False,
    ),
    "mobilevit": Arch("MobileViT", (*CLASSIFY, "ForSemanticSegmentation"), _mobilevit, sdpa=False),
    "segformer": Arch("Segformer", ("Model", "ForSemanticSegmentation"), _segformer, sdpa=False),
    "levit": Arch("Levit", ("Model", "ForImageClassification"), _levit, sdpa=False),
    "poolformer": Arch("PoolFormer", CLASSIFY, _poolformer, min_opset=9, sdpa=False),
    "focalnet": Arch("FocalNet", CLASSIFY, _focalnet, sdpa=False),
    "hiera": Arch("Hiera", CLASSIFY, _hiera, sdpa=False),
    "yolos": Arch("Yolos", ("Model", "ForObjectDetection"), _yolos),
    "detr": Arch("Detr", ("Model", "ForObjectDetection"), _detr, sdpa=False),
    "dpt": Arch("DPT", ("ForDepthEstimation",), _dpt, sdpa=False),
}

# Windowed and patch models need a resolution their patch/window grid divides.
RESOLUTIONS = (64, 96, 128, 160, 192, 224)
SIZED_RESOLUTIONS = {
    "swin": (64, 128, 224),
    "swinv2": (64, 128, 224),
    "hiera": (64, 128, 224),
    "dpt": (64, 128, 192),
    "mobilevit": (64, 96),
}


def sample(rng: random.Random) -> Config:
    """Draw an architecture, a head, its sizes, a resolution and an opset.

    Example:
        >>> c = sample(random.Random(0))
        >>> c["resolution"] in RESOLUTIONS
        True
    """
    name = rng.choice(sorted(ARCHS))
    arch = ARCHS[name]
    resolution = rng.choice(SIZED_RESOLUTIONS.get(name, RESOLUTIONS))
    config = sample_common(rng, name, arch, arch.sample(rng, resolution))
    if config["head"] == "ForImageClassification":
        config["hf"]["num_labels"] = rng.choice([10, 100, 1000])
    return {**config, "resolution": resolution, "num_classes": config["hf"].get("num_labels", 2)}


def _published(rng: random.Random, name: str) -> dict[str, object]:
    """Keyword arguments of a published-size model at 224 px (Swin-T/S, ViT and DeiT
    Ti/S/B, DINOv2-S, ConvNeXt-T), its width sometimes halved."""
    if name == "swin":
        embed = rng.choice([48, 64, 96])
        return {
            "embed_dim": embed,
            "depths": rng.choice([[2, 2, 2, 2], [2, 2, 6, 2], [2, 2, 18, 2]]),
            "num_heads": [embed // 32 * 2**i for i in range(4)],
            "image_size": 224,
            "patch_size": 4,
            "window_size": 7,
        }
    if name == "convnext":
        base = rng.choice([48, 64, 96])
        depths = rng.choice([[2, 2, 6, 2], [3, 3, 9, 3]])
        widths = [base * 2**i for i in range(4)]
        return {"hidden_sizes": widths, "depths": depths, "image_size": 224}
    hidden = rng.choice([192, 384, 768])
    kwargs: dict[str, object] = {
        "hidden_size": hidden,
        "num_hidden_layers": 6 if hidden == 768 else 12,  # ViT-B at half depth: < 10 GMACs
        "num_attention_heads": hidden // 64,
        "image_size": 224,
        "patch_size": 14 if name == "dinov2" else 16,
    }
    if name == "dinov2":
        return {**kwargs, "mlp_ratio": 4}
    return {**kwargs, "intermediate_size": 4 * hidden}


PUBLISHED = ("convnext", "deit", "dinov2", "swin", "vit")


def sample_published(rng: random.Random) -> Config:
    """An ``hf-vision`` configuration at a published model's size and 224 px.

    Example:
        >>> c = sample_published(random.Random(0))
        >>> c["resolution"], c["arch"] in PUBLISHED
        (224, True)
    """
    name = rng.choice(PUBLISHED)
    config = sample_common(rng, name, ARCHS[name], _published(rng, name))
    if config["head"] == "ForImageClassification":
        config["hf"]["num_labels"] = rng.choice([2, 10, 1000])
    return {**config, "resolution": 224, "num_classes": config["hf"].get("num_labels", 2)}


def inputs(config: Config) -> dict[str, torch.Tensor]:
    """``pixel_values``: one image at the configuration's resolution."""
    r = config["resolution"]
    return {"pixel_values": torch.rand(1, 3, r, r)}


FAMILY = Family(
    name="hf-vision",
    summary="transformers image models (ViT to DETR), random weights, opsets 9-18",
    sample=sample,
    build=no_module,
    output_shape=lambda c: (1, c["num_classes"]),
    export_onnx=hf_export(ARCHS, inputs),
)
