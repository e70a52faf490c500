"""The snippet: one layer's implementation as a few lines of runnable PyTorch, COBRA style.

COBRA's interpreter turns every call to the deep-learning toolbox into a *snippet*, with
the call's arguments passed by name in a fixed order and white space removed (paper §3).
Here a snippet is also runnable code, so the same text that the encoder reads is what a
layer campaign times (:class:`SnippetModule`)::

    layer=torch.nn.Conv2d(in_channels=64,out_channels=128,kernel_size=(3,3),...)
    x0=torch.randn(1,64,56,56)
    y=layer(x0)
    assert(y.shape==(1,128,56,56))

* ``layer=`` (modules only): the constructor with every parameter of its ``__init__``
  that the instance keeps, by name, in the signature's order;
* ``xN=``: each tensor input, with its concrete shape (``torch.randn`` for floats,
  ``torch.zeros(...,dtype=...)`` otherwise), numbered in order of first use;
* ``y=``: the call, functions with their arguments normalised to keywords where torch
  knows the schema, Python operators as operators (``y=x0+x1+x2``);
* ``assert``: the output shape(s).

No white space other than the line breaks; numbers and names are as ``repr`` writes them.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

TensorMeta = tuple[tuple[int, ...], torch.dtype]

# Python operators rendered as operators: they are toolbox calls all the same.
BINARY_OPERATORS = {
    operator.add: "+",
    operator.sub: "-",
    operator.mul: "*",
    operator.truediv: "/",
    operator.floordiv: "//",
    operator.mod: "%",
    operator.pow: "**",
    operator.matmul: "@",
}
UNARY_OPERATORS = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}

# Where a function is looked up to give it its public name (torch.add, not its C path).
_NAMESPACES = ("torch", "torch.nn.functional", "torch.special", "torch.linalg", "torch.fft")
# Constructor parameters that say where, not what: never part of a snippet.
_SKIPPED_PARAMETERS = {"self", "device", "dtype"}
# The only builtins a snippet's expressions may name (they hold no statements).
_BUILTINS = {"slice": slice, "float": float, "tuple": tuple, "Ellipsis": Ellipsis}
_LINE = re.compile(r"^(layer|x\d+|y)=(.+)$")


def render_value(value: Any) -> str:
    """A constant as snippet text: ``repr`` without spaces, tuples kept tuples.

    Example:
        >>> render_value((3, 3)), render_value(1e-05), render_value([1, (2,)])
        ('(3,3)', '1e-05', '[1,(2,)]')
    """
    if isinstance(value, tuple):
        inner = ",".join(render_value(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ",".join(render_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + ",".join(f"{render_value(k)}:{render_value(v)}" for k, v in value.items()) + "}"
        )
    if isinstance(value, slice):
        parts = [value.start, value.stop, value.step]
        text = ":".join("" if p is None else render_value(p) for p in parts)
        return text[:-1] if text.endswith(":") and value.step is None else text
    if isinstance(value, float) and not math.isfinite(value):
        return f"float('{value}')"
    if isinstance(value, torch.dtype | torch.memory_format | torch.layout):
        return str(value)
    if isinstance(value, torch.Size):
        return render_value(tuple(value))
    if isinstance(value, nn.Module):
        return f"{qualified_name(type(value))}()"
    if callable(value) and not isinstance(value, type):
        return qualified_name(value)
    if value is Ellipsis:
        return "..."
    return "".join(repr(value).split())


def qualified_name(thing: Any) -> str:
    """The public dotted name of a torch function or class (``torch.nn.Conv2d``).

    Example:
        >>> qualified_name(torch.nn.Conv2d), qualified_name(torch.nn.functional.relu)
        ('torch.nn.Conv2d', 'torch.nn.functional.relu')
    """
    import importlib

    name = getattr(thing, "__name__", type(thing).__name__)
    public = ("torch.nn",) if isinstance(thing, type) else _NAMESPACES
    for namespace in public:
        if getattr(importlib.import_module(namespace), name, None) is thing:
            return f"{namespace}.{name}"
    module = getattr(thing, "__module__", None) or "builtins"
    return name if module == "builtins" else f"{module}.{name}"


def _init_parameters(cls: type) -> list[tuple[str, Any]]:
    """Named ``__init__`` parameters of ``cls`` and its bases up to ``nn.Module``, in order.

    A base counts only when the class passes ``*args``/``**kwargs`` on to it, as
    ``nn.LSTM(*args, **kwargs)`` does to ``RNNBase``.
    """
    import inspect

    found: dict[str, Any] = {}
    for klass in cls.__mro__:
        if klass is nn.Module or klass is object:
            break
        if "__init__" not in vars(klass):
            continue
        try:
            signature = inspect.signature(klass.__init__)
        except (TypeError, ValueError):
            continue
        forwards = False
        for name, parameter in signature.parameters.items():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                forwards = True
            elif name not in _SKIPPED_PARAMETERS:
                found.setdefault(name, parameter)
        if not forwards:  # the base's parameters are not this class's to take
            break
    return list(found.items())


def constructor_text(module: nn.Module) -> str:
    """``torch.nn.Conv2d(in_channels=3,...)``: the module's constructor, concretely.

    Every ``__init__`` parameter the instance keeps as an attribute of the same name is
    passed by name, in the signature's order; a tensor attribute stands for a boolean
    flag (``bias=True`` when the layer has a bias).

    Example:
        >>> constructor_text(torch.nn.ReLU())
        'torch.nn.ReLU(inplace=False)'
    """
    arguments = []
    for name, parameter in _init_parameters(type(module)):
        if not hasattr(module, name):
            continue
        value = getattr(module, name)
        if isinstance(value, torch.Tensor) or (
            value is None and isinstance(parameter.default, bool)
        ):
            value = value is not None
        arguments.append((name, render_value(value)))
    head = qualified_name(type(module))
    # A wrapper that fixes a base's parameter itself (nn.LSTM passes mode="LSTM") refuses
    # it by name: leave such parameters out, so that the text builds what it says.
    for _ in range(len(arguments) + 1):
        text = f"{head}({','.join(f'{k}={v}' for k, v in arguments)})"
        refused = _refused_argument(text)
        if refused is None:
            return text
        arguments = [(k, v) for k, v in arguments if k != refused]
    return text


@functools.lru_cache(maxsize=4096)
def _refused_argument(text: str) -> str | None:
    """The argument a constructor text gives twice, found by building it on meta."""
    try:
        with torch.device("meta"):
            eval(text, _namespace())
    except TypeError as exc:
        match = re.search(r"(?:multiple values for|unexpected keyword) argument '(\w+)'", str(exc))
        return match.group(1) if match else None
    except Exception:
        return None
    return None


def input_text(name: str, meta: TensorMeta) -> str:
    """The line declaring one input tensor.

    Example:
        >>> input_text("x0", ((1, 8), torch.float32)), input_text("x1", ((4,), torch.int64))
        ('x0=torch.randn(1,8)', 'x1=torch.zeros(4,dtype=torch.int64)')
    """
    shape, dtype = meta
    dims = ",".join(str(d) for d in shape) if shape else "()"
    if dtype == torch.float32:
        return f"{name}=torch.randn({dims})"
    return f"{name}=torch.zeros({dims},dtype={dtype})"


def shape_check(output: Any) -> str | None:
    """``assert(y.shape==(...))`` for a tensor, or for a flat tuple/list of tensors.

    Example:
        >>> shape_check(torch.empty(2, 3))
        'assert(y.shape==(2,3))'
    """
    if isinstance(output, torch.Tensor):
        return f"assert(y.shape=={render_value(tuple(output.shape))})"
    if (
        isinstance(output, tuple | list)
        and output
        and all(isinstance(t, torch.Tensor) for t in output)
    ):
        shapes = render_value([tuple(t.shape) for t in output])
        return f"assert[tuple(t.shape)for(t)in(y)]=={shapes}"
    return None


def render_snippet(
    call: str, inputs: Sequence[TensorMeta], output: Any, constructor: str | None = None
) -> str:
    """Assemble a snippet from its parts (see the module docstring).

    Args:
        call: the expression computing ``y`` from ``layer`` and ``x0``, ``x1``, ...
        inputs: shape and dtype of ``x0``, ``x1``, ...
        output: the call's result (a tensor, or a tuple of tensors), for the shape check.
        constructor: the module's constructor text, for a module call.

    Example:
        >>> print(render_snippet("x0+x1", [((2,), torch.float32)] * 2, torch.empty(2)))
        x0=torch.randn(2)
        x1=torch.randn(2)
        y=x0+x1
        assert(y.shape==(2,))
    """
    lines = [f"layer={constructor}"] if constructor else []
    lines += [input_text(f"x{i}", meta) for i, meta in enumerate(inputs)]
    lines.append(f"y={call}")
    check = shape_check(output)
    if check:
        lines.append(check)
    return "\n".join(lines)


def snippet_inputs(text: str) -> list[tuple[str, str]]:
    """``[(name, expression)]`` of the input lines of a snippet, in order.

    Example:
        >>> snippet_inputs("x0=torch.randn(2)\\ny=x0*2")
        [('x0', 'torch.randn(2)')]
    """
    found = []
    for line in text.splitlines():
        match = _LINE.match(line)
        if match and match.group(1).startswith("x"):
            found.append((match.group(1), match.group(2)))
    return found


def _namespace() -> dict[str, Any]:
    return {"torch": torch, "operator": operator, "__builtins__": _BUILTINS}


def snippet_input_shapes(text: str) -> list[tuple[int, ...]]:
    """The shape of each input of a snippet, evaluated on the meta device.

    Example:
        >>> snippet_input_shapes("x0=torch.randn(1,3)\\nx1=torch.randn(())\\ny=x0+x1")
        [(1, 3), ()]
    """
    with torch.device("meta"):
        return [tuple(eval(expr, _namespace()).shape) for _, expr in snippet_inputs(text)]


class SnippetModule(nn.Module):
    """A snippet as a module: ``layer`` built once, ``x0`` the input, other inputs buffers.

    Timing a snippet times its ``y=`` line alone (one layer call), on inputs of its
    declared shapes. Inputs after the first are held as buffers (seeded by torch's RNG
    at construction), so the module has the one input every zoo model has.

    Args:
        text: a snippet (module docstring). **It is executed**: build it only from
            snippets nnlat rendered (the layer generator, the interpreter).

    Raises:
        ValueError: a line that is not ``layer=``, ``xN=``, ``y=`` or ``assert``.

    Example:
        >>> m = SnippetModule("layer=torch.nn.ReLU()\\nx0=torch.randn(2)\\ny=layer(x0)")
        >>> m(torch.tensor([-1.0, 2.0])).tolist()
        [0.0, 2.0]
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        call = None
        names: list[str] = []
        for line in text.splitlines():
            match = _LINE.match(line)
            if line.startswith("assert"):
                continue
            if match is None:
                raise ValueError(f"not a snippet line: {line!r}")
            target, expression = match.groups()
            if target == "layer":
                self.layer = eval(expression, _namespace())
            elif target == "y":
                call = expression
            elif names:
                self.register_buffer(target, eval(expression, _namespace()))
                names.append(target)
            else:
                names.append(target)  # x0: the forward's input
        if call is None:
            raise ValueError("a snippet needs a 'y=' line")
        self._names = names
        self._call = compile(call, "<snippet>", "eval")

    def forward(self, x: torch.Tensor) -> Any:
        """The layer call on ``x`` (as ``x0``) and the buffered other inputs."""
        scope = _namespace()
        scope["layer"] = getattr(self, "layer", None)
        for name in self._names[1:]:
            scope[name] = getattr(self, name)
        if self._names:
            scope[self._names[0]] = x
        return eval(self._call, scope)
