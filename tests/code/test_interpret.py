"""The code interpreter on small hand-written modules: snippets, call graph, errors by line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch

from nnlat.code import CodeError, SnippetModule, interpret_file, interpret_module

RESIDUAL = """\
import torch
from torch import nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)) + x)


class Net(nn.Module):
    def __init__(self, width=8, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, width, 3, stride=2)
        self.block = Block(width)
        self.fc = nn.Linear(width, classes)

    def forward(self, image):
        x = self.block(self.stem(image))
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)
"""


def write(tmp_path: Path, text: str, name: str = "model.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_residual_net_gives_one_snippet_per_call_and_its_data_flow(tmp_path: Path) -> None:
    path = write(tmp_path, RESIDUAL)
    graph = interpret_file(f"{path}::Net", {"image": (1, 3, 33, 33)}, {"width": 16})
    kinds = [s.kind for s in graph.snippets]
    assert kinds == [
        "Conv2d", "Conv2d", "BatchNorm2d", "add", "relu", "adaptive_avg_pool2d", "flatten",
        "Linear",
    ]  # fmt: skip
    # stem feeds the block's conv and the shortcut addition; the rest is a chain.
    assert graph.edges == ((0, 1), (0, 3), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7))
    assert graph.adjacency().sum() == len(graph.edges)
    assert all(i < j for i, j in graph.edges)
    stem = graph.snippets[0]
    assert stem.output_shapes == ((1, 16, 16, 16),)
    assert "in_channels=3,out_channels=16,kernel_size=(3,3),stride=(2,2)" in stem.text
    assert "x0=torch.randn(1,3,33,33)" in stem.text
    assert stem.location == f"{path}:24"
    assert graph.snippets[1].location == f"{path}:13"  # inside Block.forward
    assert graph.snippets[-1].text.endswith("assert(y.shape==(1,10))")
    assert graph.inputs == (("image", (1, 3, 33, 33)),)
    assert not any(c.isspace() and c != "\n" for s in graph.snippets for c in s.text)


def test_every_snippet_runs_as_written_and_checks_its_own_output_shape(tmp_path: Path) -> None:
    graph = interpret_file(f"{write(tmp_path, RESIDUAL)}::Net", {"image": (2, 3, 20, 20)})
    for snippet in graph.snippets:
        exec(snippet.text, {"torch": torch})  # the assert line checks the shape
        module = SnippetModule(snippet.text)
        x0 = torch.randn(*snippet_shape(snippet.text))
        out = module(x0)
        assert tuple(out.shape) == snippet.output_shapes[0]


def snippet_shape(text: str) -> tuple[int, ...]:
    from nnlat.code import snippet_input_shapes

    return snippet_input_shapes(text)[0]


def test_a_chain_of_additions_is_one_m_input_add() -> None:
    class Sum(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
            s = a + b + c
            return torch.relu(s + s)

    shapes = {"a": (1, 4), "b": (1, 4), "c": (1, 4)}
    graph = interpret_module(Sum(), shapes)
    assert [s.kind for s in graph.snippets] == ["add", "add", "relu"]
    assert "y=x0+x1+x2" in graph.snippets[0].text
    assert "y=x0+x0" in graph.snippets[1].text  # s is read twice: not absorbed
    assert graph.edges == ((0, 1), (1, 2))


def test_sizes_read_in_forward_become_numbers_and_tuple_indexing_is_no_layer() -> None:
    class Tagger(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = torch.nn.Embedding(100, 8)
            self.lstm = torch.nn.LSTM(8, 16, batch_first=True)
            self.out = torch.nn.Linear(16, 5)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            hidden, _ = self.lstm(self.embed(tokens))
            return self.out(hidden).view(tokens.size(0), -1)

    graph = interpret_module(Tagger(), {"tokens": (2, 7)}, input_dtypes={"tokens": torch.int64})
    assert [s.kind for s in graph.snippets] == ["Embedding", "LSTM", "Linear", "view"]
    assert graph.edges == ((0, 1), (1, 2), (2, 3))
    assert "x0=torch.zeros(2,7,dtype=torch.int64)" in graph.snippets[0].text
    assert "y=x0.view(2,-1)" in graph.snippets[3].text
    assert "input_size=8,hidden_size=16" in graph.snippets[1].text


def test_branching_on_tensor_values_is_refused_with_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        import torch

        class Gate(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x * 2
                return x
        """,
    )
    with pytest.raises(CodeError, match=rf"^{path}:5: cannot follow this code: .*branches"):
        interpret_file(f"{path}::Gate", {"x": (1, 3)})


def test_a_call_outside_torch_on_a_tensor_is_refused_with_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        import math
        import torch

        class Norm(torch.nn.Module):
            def forward(self, x):
                return x / math.sqrt(x.sum())
        """,
    )
    with pytest.raises(CodeError, match=rf"^{path}:6: unsupported call math.sqrt\(\) on a tensor"):
        interpret_file(f"{path}::Norm", {"x": (1, 3)})


def test_a_missing_class_lists_the_classes_of_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, RESIDUAL)
    with pytest.raises(CodeError, match=r"'ResNet' is not defined; .*: Block, Net$"):
        interpret_file(f"{path}::ResNet", {"image": (1, 3, 8, 8)})


def test_bad_init_args_name_the_class_line(tmp_path: Path) -> None:
    path = write(tmp_path, RESIDUAL)
    with pytest.raises(CodeError, match=rf"^{path}:16: Net\(\*\*{{'depth': 3}}\) raised TypeError"):
        interpret_file(f"{path}::Net", {"image": (1, 3, 8, 8)}, {"depth": 3})


def test_an_error_inside_init_names_its_own_line(tmp_path: Path) -> None:
    path = write(tmp_path, RESIDUAL)
    with pytest.raises(CodeError, match=rf"^{path}:19: Net.* raised RuntimeError"):
        interpret_file(f"{path}::Net", {"image": (1, 3, 8, 8)}, {"width": -1})


def test_syntax_and_import_errors_name_the_line(tmp_path: Path) -> None:
    broken = write(tmp_path, "import torch\n\ndef f(:\n", "broken.py")
    with pytest.raises(CodeError, match=rf"^{broken}:3: SyntaxError"):
        interpret_file(f"{broken}::Net", {"x": (1,)})
    raising = write(tmp_path, "import torch\nraise ImportError('no cuda here')\n", "raising.py")
    with pytest.raises(CodeError, match=rf"^{raising}:2: importing the file raised ImportError"):
        interpret_file(f"{raising}::Net", {"x": (1,)})


def test_a_sibling_module_imports_as_it_would_when_run(tmp_path: Path) -> None:
    write(tmp_path, "import torch\nclass Head(torch.nn.Linear):\n    pass\n", "heads.py")
    path = write(
        tmp_path,
        "import torch\nfrom heads import Head\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.h = Head(4, 2)\n"
        "    def forward(self, x):\n        return self.h(x)\n",
    )
    graph = interpret_file(f"{path}::Net", {"x": (3, 4)})
    # A user's module is traced through: its weights become inputs of the functional call.
    assert [s.kind for s in graph.snippets] == ["linear"]
    assert "y=torch.nn.functional.linear(input=x0,weight=x1,bias=x2)" in graph.snippets[0].text
    assert "x1=torch.randn(2,4)" in graph.snippets[0].text


def test_wrong_input_names_and_shapes_say_what_forward_takes(tmp_path: Path) -> None:
    path = write(tmp_path, RESIDUAL)
    with pytest.raises(CodeError, match=r"forward takes image; shapes were given for x"):
        interpret_file(f"{path}::Net", {"x": (1, 3, 8, 8)})
    with pytest.raises(CodeError, match=rf"^{path}:24: running .* failed: .*--input-shape"):
        interpret_file(f"{path}::Net", {"image": (1, 5, 8, 8)})


@pytest.mark.parametrize("target", ["model.py", "model.py::", "::Net", "model.py::not-a-name"])
def test_a_malformed_target_says_what_a_target_looks_like(target: str) -> None:
    with pytest.raises(CodeError, match=r"expected path/to/model\.py::ClassName"):
        interpret_file(target, {})


def test_a_missing_file_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(CodeError, match=r"nope.py: cannot read the file"):
        interpret_file(f"{tmp_path / 'nope.py'}::Net", {})
