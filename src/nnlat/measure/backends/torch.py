"""PyTorch eager: fp32 on the CPU, fp16 on a CUDA GPU.

A zoo model runs from its own PyTorch definition, built with the module's normal
(seeded) initialisation — not uninitialised memory, whose NaNs and denormals would
distort the timing. Any other model is an ONNX graph, converted with ``onnx2torch``
when that is installed; onnx2torch imports torchvision, so without both the result is
``unsupported`` with a message saying what to install.

CPU runs set ``torch.set_num_threads(threads)`` (restored by ``close``). GPU runs move
the module and its float inputs to the device in half precision, and synchronise the
device before and after each timed inference.

torch is imported inside the methods, so importing this module is cheap.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from nnlat.measure.backends.base import Availability, BackendUnavailableError, RunResult
from nnlat.measure.environment import detect_hardware
from nnlat.measure.inputs import materialize_weights
from nnlat.measure.types import MeasureSpec
from nnlat.platform import Platform, UnknownPlatformError


class TorchPrepared:
    """A module in eval mode on its device, ready to be timed."""

    def __init__(
        self, module: Any, input_names: list[str], device: str, half: bool, threads: int | None
    ) -> None:
        import torch

        self.module = module
        self.input_names = input_names
        self.device = device
        self.half = half
        self._previous_threads = torch.get_num_threads()
        if threads:
            torch.set_num_threads(threads)
        self._cached: tuple[int, list[Any]] | None = None

    def _tensors(self, inputs: Mapping[str, np.ndarray]) -> list[Any]:
        # The same arrays come back on every run: convert (and copy to the GPU) once.
        import torch

        if self._cached is not None and self._cached[0] == id(inputs):
            return self._cached[1]
        tensors = []
        for name in self.input_names:
            tensor = torch.from_numpy(np.ascontiguousarray(inputs[name])).to(self.device)
            if self.half and tensor.is_floating_point():
                tensor = tensor.half()
            tensors.append(tensor)
        self._cached = (id(inputs), tensors)
        return tensors

    def run(self, inputs: Mapping[str, np.ndarray]) -> RunResult:
        """One timed forward pass under ``torch.inference_mode``."""
        import torch

        tensors = self._tensors(inputs)
        cuda = self.device.startswith("cuda")
        with torch.inference_mode():
            if cuda:
                torch.cuda.synchronize()
            start = time.perf_counter_ns()
            output = self.module(*tensors)
            if cuda:
                torch.cuda.synchronize()
            elapsed = time.perf_counter_ns() - start
        return RunResult(elapsed / 1e6, tuple(_to_numpy(t) for t in _flatten(output)))

    def threads_in_use(self) -> int | None:
        """``torch.get_num_threads()`` for CPU runs; None on a GPU."""
        import torch

        return None if self.device.startswith("cuda") else torch.get_num_threads()

    def close(self) -> None:
        """Restore the thread count and free the module (and GPU memory)."""
        import torch

        torch.set_num_threads(self._previous_threads)
        self.module = None
        self._cached = None
        if self.device.startswith("cuda"):
            torch.cuda.empty_cache()


def _flatten(output: Any) -> list[Any]:
    if isinstance(output, dict):
        return [t for v in output.values() for t in _flatten(v)]
    if isinstance(output, list | tuple):
        return [t for v in output for t in _flatten(v)]
    return [output]


def _to_numpy(tensor: Any) -> np.ndarray:
    if tensor.is_floating_point():
        tensor = tensor.float()
    return tensor.detach().cpu().numpy()


class TorchBackend:
    """PyTorch eager mode.

    Example:
        >>> TorchBackend().platform(1, "fp32").name.split("-")[1].startswith("torch")
        True
    """

    name = "torch"
    dtypes = ("fp32", "fp16")
    runs_zoo_modules = True

    def available(self) -> Availability:
        """torch is importable."""
        try:
            import torch  # noqa: F401
        except ImportError as exc:
            return Availability(False, f"torch is not installed ({exc}): pip install torch")
        return Availability(True)

    def onnx_support(self) -> Availability:
        """Whether ONNX models (not only zoo modules) can run here: onnx2torch and torchvision.

        Checked without importing them (onnx2torch imports torchvision, which is slow).
        """
        missing = [m for m in ("onnx2torch", "torchvision") if importlib.util.find_spec(m) is None]
        if missing:
            return Availability(False, f"ONNX models need {' and '.join(missing)}")
        return Availability(True)

    def _cuda(self) -> bool:
        import torch

        return bool(torch.cuda.is_available())

    def platforms(self) -> list[Platform]:
        """fp32 on 1 CPU thread, and fp16 on the GPU when there is one."""
        if not self.available():
            return []
        found = [self.platform(1, "fp32")]
        if self._cuda():
            found.append(self.platform(None, "fp16"))
        return found

    def platform(self, threads: int | None, dtype: str) -> Platform:
        """fp32 → the CPU with ``threads``; fp16 → the first CUDA GPU (threads ignored)."""
        if dtype not in self.dtypes:
            raise UnknownPlatformError(f"torch runs {', '.join(self.dtypes)}, not {dtype}")
        hardware = detect_hardware()
        version = importlib.metadata.version("torch").split("+")[0]
        if dtype == "fp16":
            if not hardware.gpu_hardware:
                raise UnknownPlatformError(
                    "torch fp16 runs on a CUDA GPU and this host has none; use torch fp32"
                )
            return Platform(
                hardware=hardware.gpu_hardware,
                runtime=self.name,
                runtime_version=version,
                dtype=dtype,
                device="cuda",
            )
        return Platform(
            hardware=hardware.hardware,
            runtime=self.name,
            runtime_version=version,
            dtype=dtype,
            threads=threads,
        )

    def prepare(self, model: Any, platform: Platform, spec: MeasureSpec) -> TorchPrepared:
        """Build (zoo) or convert (ONNX) the module, move it to its device and dtype.

        Raises:
            BackendUnavailableError: an ONNX model and onnx2torch/torchvision are missing,
                or a GPU platform on a host without CUDA.
        """
        import torch

        from nnlat.measure.backends.base import graph_for
        from nnlat.zoo.family import ZooModel

        half = platform.dtype == "fp16"
        device = "cuda" if platform.device == "cuda" else "cpu"
        if device == "cuda" and not torch.cuda.is_available():
            raise BackendUnavailableError(f"{platform.name} needs a CUDA GPU; this host has none")
        # Seeded initialisation without touching the caller's global random state.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(spec.seed)
            if isinstance(model, ZooModel):
                # The variant's own family, registered or not (COBRA's generated layers).
                module = model.definition.build(model.config)
                names = ["input"]  # the one input of every zoo model (see ZooModel.to_onnx)
            else:
                convert = _onnx2torch_convert()  # fail early, before any conversion work
                graph = graph_for(model, spec)
                module = convert(materialize_weights(graph.onnx_bytes, spec.seed))
                names = [s.name for s in graph.inputs]
        module = module.eval().to(device)
        if half:
            module = module.half()
        return TorchPrepared(module, names, device, half, platform.threads)


def _onnx2torch_convert() -> Any:
    """``onnx2torch.convert``, or BackendUnavailableError saying what to install."""
    try:
        import onnx2torch
    except ImportError as exc:
        raise BackendUnavailableError(
            "unsupported on this host: running an ONNX model in PyTorch needs onnx2torch, "
            f"which needs torchvision ({exc}); pip install onnx2torch torchvision, or "
            "measure a zoo model, which runs from its own PyTorch definition"
        ) from None
    return onnx2torch.convert
