"""The code interpreter: a PyTorch module's source → its layers' snippets and call graph.

COBRA's first stage (paper §3, Figure 1). Given ``path/to/model.py::ClassName``, the
constructor's arguments and the shapes of ``forward``'s inputs:

1. the file is imported and the class built on the meta device (**this runs the file's
   code**, see :mod:`nnlat.code.loader`); no weights are allocated;
2. ``torch.fx`` traces ``forward`` symbolically (user modules are traced through; the
   ``torch.nn`` layers stay calls), recording the source line of every call;
3. the traced graph runs on meta tensors of the given shapes, which makes every shape
   concrete (and every ``x.size(0)`` a number) without computing anything;
4. every call that computes a tensor becomes a :class:`~nnlat.code.graph.Snippet`
   (:mod:`nnlat.code.snippet`); indexing into a tuple of results is no call of its own,
   and a chain of additions whose partial sums are used only by the next addition is one
   M-input addition (``y=x0+x1+x2``), as in COBRA's layer dataset.

Code the tracer cannot follow — ``if``/``for``/``while`` on a tensor's values, ``len()``
or ``int()`` of a traced tensor, calls outside torch that take tensors — raises a
:class:`~nnlat.code.errors.CodeError` naming ``file:line``.

Example:
    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU())
    >>> g = interpret_module(net, {"input": (1, 3, 16, 16)})
    >>> [s.kind for s in g.snippets], g.edges
    (['Conv2d', 'ReLU'], ((0, 1),))
"""

from __future__ import annotations

import operator
import sys
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from torch import fx

from nnlat.code.errors import CodeError, one_line, user_line, where
from nnlat.code.graph import CodeGraph, Snippet
from nnlat.code.loader import load_module
from nnlat.code.snippet import (
    BINARY_OPERATORS,
    UNARY_OPERATORS,
    TensorMeta,
    constructor_text,
    qualified_name,
    render_snippet,
    render_value,
)

MAX_NODES = 50_000
ADD_TARGETS = (operator.add, torch.add, operator.iadd)
_TORCH_DIR = str(Path(torch.__file__).resolve().parent)
_CONTROL_FLOW_HINT = (
    "the code branches or loops on a tensor's values (if/while/for, bool(), len(), int() "
    "of a traced tensor), which a tracer cannot follow; make it depend on constructor "
    "arguments or shapes known at construction"
)


def interpret_file(
    target: str,
    input_shapes: Mapping[str, Sequence[int]],
    init_args: Mapping[str, Any] | None = None,
    *,
    input_dtypes: Mapping[str, torch.dtype] | None = None,
) -> CodeGraph:
    """Interpret ``path/to/model.py::ClassName``; **imports the file and runs its code**.

    Args:
        target: the source file and the ``nn.Module`` class, ``path.py::ClassName``.
        input_shapes: ``forward`` parameter name → concrete shape (batch included).
        init_args: keyword arguments of the class's constructor (JSON-able values).
        input_dtypes: name → dtype for inputs that are not float32 (token ids: int64).

    Returns:
        The snippets and the call graph.

    Raises:
        CodeError: the file, class, constructor, tracing or shapes fail; the message names
            ``file:line``.
    """
    module, filename = load_module(target, init_args, device="meta")
    return interpret_module(module, input_shapes, input_dtypes=input_dtypes, source=filename)


def interpret_module(
    module: torch.nn.Module,
    input_shapes: Mapping[str, Sequence[int]],
    *,
    input_dtypes: Mapping[str, torch.dtype] | None = None,
    source: str = "",
) -> CodeGraph:
    """Interpret a module object (see the module docstring, steps 2-4).

    Args:
        module: the network; its parameters may live on the meta device.
        input_shapes: ``forward`` parameter name → concrete shape.
        input_dtypes: name → dtype of non-float32 inputs.
        source: the file that defines the module, named in errors and locations.

    Raises:
        CodeError: tracing or shape propagation fails, or the inputs do not match
            ``forward``'s parameters.
    """
    traced = _trace(module, source)
    values = _propagate(traced, input_shapes, input_dtypes or {}, source)
    return _code_graph(traced, values, input_shapes, source)


def _location(exc: BaseException, source: str) -> str:
    """``file:line`` of the user's code in a traceback (the last frame outside torch)."""
    if source:
        return where(source, user_line(exc, source))
    import traceback

    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(_TORCH_DIR)
    ]
    return where(frames[-1].filename, frames[-1].lineno) if frames else "<module>"


class _LineTracer(fx.Tracer):
    """An fx tracer that notes each call's ``file:line`` in ``node.meta["location"]``.

    It walks the Python frames itself: fx's own ``record_stack_traces`` symbolises whole
    tracebacks (and imports torch._inductor), seconds for a large network.
    """

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def create_node(self, *args: Any, **kwargs: Any) -> fx.Node:
        node = super().create_node(*args, **kwargs)
        frame = sys._getframe(1)
        fallback = ""
        while frame is not None:
            name = frame.f_code.co_filename
            if name == self.source:
                node.meta["location"] = f"{name}:{frame.f_lineno}"
                return node
            if not fallback and not name.startswith(_TORCH_DIR) and name != __file__:
                fallback = f"{name}:{frame.f_lineno}"
            frame = frame.f_back
        node.meta["location"] = fallback
        return node


def _trace(module: torch.nn.Module, source: str) -> fx.GraphModule:
    tracer = _LineTracer(source)
    try:
        graph = tracer.trace(module)
    except fx.proxy.TraceError as exc:
        raise CodeError(
            f"{_location(exc, source)}: cannot follow this code: {_CONTROL_FLOW_HINT} "
            f"(torch.fx: {one_line(str(exc), 160)})"
        ) from None
    except Exception as exc:
        hint = _CONTROL_FLOW_HINT if "Proxy" in str(exc) else "a call torch.fx cannot trace"
        raise CodeError(
            f"{_location(exc, source)}: cannot follow this code: {hint} "
            f"({type(exc).__name__}: {one_line(str(exc), 200)})"
        ) from None
    if len(graph.nodes) > MAX_NODES:
        raise CodeError(f"{source or 'module'}: {len(graph.nodes)} calls, over {MAX_NODES}")
    return fx.GraphModule(tracer.root, graph)


def _node_location(node: fx.Node, source: str) -> str:
    """``file:line`` of the call in the user's code ("" if unknown)."""
    return str(node.meta.get("location", ""))


def _as_meta(value: Any) -> Any:
    """Tensors replaced by meta tensors of the same shape and dtype (no memory kept)."""
    return torch.utils._pytree.tree_map(
        lambda v: (
            torch.empty(v.shape, dtype=v.dtype, device="meta") if isinstance(v, torch.Tensor) else v
        ),
        value,
    )


class _Recorder(fx.Interpreter):
    """Runs the traced graph and keeps every node's result (tensors as meta tensors)."""

    def __init__(self, module: fx.GraphModule, source: str) -> None:
        super().__init__(module)
        self.source = source
        self.values: dict[fx.Node, Any] = {}

    def run_node(self, n: fx.Node) -> Any:
        if n.op == "call_function" and not _is_toolbox(n.target):
            tensors = [a for a in n.all_input_nodes if _has_tensor(self.values.get(a))]
            if tensors:
                at = _node_location(n, self.source) or self.source or "module"
                raise CodeError(
                    f"{at}: unsupported call {qualified_name(n.target)}() on a tensor: the "
                    "interpreter follows calls to torch and Python operators only"
                )
        try:
            result = super().run_node(n)
        except CodeError:
            raise
        except Exception as exc:
            at = _node_location(n, self.source) or self.source or "module"
            raise CodeError(
                f"{at}: running {n.name} with the given input shapes failed: "
                f"{type(exc).__name__}: {one_line(str(exc), 240)}; check --input-shape"
            ) from None
        self.values[n] = _as_meta(result)
        return result


def _is_toolbox(target: Any) -> bool:
    """Calls the interpreter understands: torch's, and Python's operators and builtins."""
    module = getattr(target, "__module__", None) or "builtins"
    return module.split(".")[0] in ("torch", "operator", "_operator", "builtins")


def _propagate(
    traced: fx.GraphModule,
    input_shapes: Mapping[str, Sequence[int]],
    input_dtypes: Mapping[str, torch.dtype],
    source: str,
) -> dict[fx.Node, Any]:
    placeholders = [n for n in traced.graph.nodes if n.op == "placeholder"]
    names = [n.target for n in placeholders]
    given = set(input_shapes)
    required = {n.target for n in placeholders if not n.args}  # args hold a default
    if not required <= given or not given <= set(names):
        raise CodeError(
            f"{source or 'module'}: forward takes {', '.join(map(str, names)) or 'nothing'}; "
            f"shapes were given for {', '.join(sorted(given)) or 'nothing'} "
            "(pass --input-shape NAME=D1,D2,... for each input)"
        )
    device = next((t.device for t in traced.parameters()), None) or next(
        (t.device for t in traced.buffers()), torch.device("meta")
    )
    inputs = []
    for node in placeholders:
        if node.target in input_shapes:
            dtype = input_dtypes.get(str(node.target), torch.float32)
            shape = tuple(int(d) for d in input_shapes[str(node.target)])
            inputs.append(torch.zeros(shape, dtype=dtype, device=device))
        else:
            inputs.append(node.args[0])
    recorder = _Recorder(traced, source)
    recorder.extra_traceback = False  # our messages are one line; fx would append the graph
    with torch.no_grad():
        recorder.run(*inputs)
    return recorder.values


def _has_tensor(value: Any) -> bool:
    return any(isinstance(v, torch.Tensor) for v in torch.utils._pytree.tree_leaves(value))


def _is_alias(node: fx.Node, values: Mapping[fx.Node, Any]) -> bool:
    """Indexing into a tuple/list of results: no computation of its own."""
    if node.target is not operator.getitem:
        return False
    container = node.args[0]
    return isinstance(container, fx.Node) and not isinstance(values.get(container), torch.Tensor)


def _is_add(node: fx.Node, values: Mapping[fx.Node, Any]) -> bool:
    return (
        node.op == "call_function"
        and node.target in ADD_TARGETS
        and not node.kwargs
        and len(node.args) == 2
        and all(
            isinstance(values.get(a), torch.Tensor) for a in node.args if isinstance(a, fx.Node)
        )
        and all(isinstance(a, fx.Node) for a in node.args)
    )


class _Inputs:
    """Names the tensor inputs of one snippet ``x0``, ``x1``, ... in order of first use."""

    def __init__(self, values: Mapping[fx.Node, Any]) -> None:
        self.values = values
        self.names: dict[tuple[fx.Node, int | None], str] = {}
        self.metas: list[TensorMeta] = []
        self.nodes: list[fx.Node] = []

    def name(self, node: fx.Node, index: int | None = None) -> str:
        key = (node, index)
        if key not in self.names:
            value = self.values[node] if index is None else self.values[node][index]
            self.names[key] = f"x{len(self.metas)}"
            self.metas.append((tuple(value.shape), value.dtype))
            self.nodes.append(node)
        return self.names[key]

    def text(self, arg: Any) -> str:
        """An argument as snippet text: tensors by name, everything else concretely."""
        if isinstance(arg, fx.Node):
            value = self.values[arg]
            if isinstance(value, torch.Tensor):
                return self.name(arg)
            if (
                isinstance(value, tuple | list)
                and value
                and all(isinstance(v, torch.Tensor) for v in value)
            ):
                names = [self.name(arg, i) for i in range(len(value))]
                return render_value(tuple(_Raw(n) for n in names))
            return render_value(value)
        if isinstance(arg, tuple | list):
            return render_value(type(arg)(_Raw(self.text(a)) for a in arg))
        if isinstance(arg, slice):
            parts = (arg.start, arg.stop, arg.step)
            if any(isinstance(p, fx.Node) for p in parts):
                return ":".join("" if p is None else self.text(p) for p in parts)
        if isinstance(arg, dict):
            return "{" + ",".join(f"{render_value(k)}:{self.text(v)}" for k, v in arg.items()) + "}"
        return render_value(arg)


class _Raw(str):
    """Text already rendered: ``render_value`` writes it as is."""

    def __repr__(self) -> str:
        return str(self)


def _index_text(inputs: _Inputs, index: Any) -> str:
    if isinstance(index, tuple):
        return ",".join(_index_text(inputs, i) for i in index) or "()"
    return inputs.text(index)


def _arg_type(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return torch.Tensor
    if (
        isinstance(value, tuple | list)
        and value
        and all(isinstance(v, torch.Tensor) for v in value)
    ):
        return typing.List[torch.Tensor]  # noqa: UP006 - the schema matcher wants typing.List
    return type(value)


def _concrete(arg: Any, values: Mapping[fx.Node, Any]) -> Any:
    return fx.node.map_arg(arg, lambda n: values[n])


def _keywords(node: fx.Node, values: Mapping[fx.Node, Any]) -> dict[str, Any] | None:
    """The call's arguments, all by name in the signature's order, or None if unknown."""
    from torch.fx.operator_schemas import normalize_function

    concrete = [_concrete(a, values) for a in node.args]
    try:
        normalized = normalize_function(
            node.target,  # type: ignore[arg-type]
            tuple(node.args),
            dict(node.kwargs),
            arg_types=tuple(_arg_type(v) for v in concrete),
            kwarg_types={k: _arg_type(_concrete(v, values)) for k, v in node.kwargs.items()},
            normalize_to_only_use_kwargs=True,
        )
    except Exception:  # ambiguous or unknown schema: keep the call as written
        return None
    return None if normalized is None else dict(normalized.kwargs)


def _call(
    node: fx.Node, traced: fx.GraphModule, values: Mapping[fx.Node, Any], leaves: list[Any]
) -> tuple[str, str, str | None, _Inputs]:
    """(kind, call expression, constructor, inputs) of one layer node."""
    inputs = _Inputs(values)
    if leaves:  # an M-input addition
        return "add", "+".join(inputs.text(a) for a in leaves), None, inputs
    target = node.target
    if node.op == "call_module":
        layer = traced.get_submodule(str(target))
        arguments = [inputs.text(a) for a in node.args]
        arguments += [f"{k}={inputs.text(v)}" for k, v in node.kwargs.items()]
        return (
            type(layer).__name__,
            f"layer({','.join(arguments)})",
            constructor_text(layer),
            inputs,
        )
    if node.op == "call_method":
        receiver, *rest = node.args
        arguments = [inputs.text(a) for a in rest]
        arguments += [f"{k}={inputs.text(v)}" for k, v in node.kwargs.items()]
        text = f"{inputs.text(receiver)}.{target}({','.join(arguments)})"
        return str(target), text, None, inputs
    if target in BINARY_OPERATORS and len(node.args) == 2:
        a, b = node.args
        kind = getattr(target, "__name__", "op").strip("_")
        return kind, f"{inputs.text(a)}{BINARY_OPERATORS[target]}{inputs.text(b)}", None, inputs
    if target in UNARY_OPERATORS and len(node.args) == 1:
        kind = getattr(target, "__name__", "op").strip("_")
        return kind, f"{UNARY_OPERATORS[target]}{inputs.text(node.args[0])}", None, inputs
    if target is operator.getitem:
        return (
            "getitem",
            f"{inputs.text(node.args[0])}[{_index_text(inputs, node.args[1])}]",
            None,
            inputs,
        )
    keywords = _keywords(node, values)
    if keywords is None:
        arguments = [inputs.text(a) for a in node.args]
        arguments += [f"{k}={inputs.text(v)}" for k, v in node.kwargs.items()]
    else:
        arguments = [f"{k}={inputs.text(v)}" for k, v in keywords.items()]
    name = getattr(target, "__name__", str(target))
    return name, f"{qualified_name(target)}({','.join(arguments)})", None, inputs


def _code_graph(
    traced: fx.GraphModule,
    values: Mapping[fx.Node, Any],
    input_shapes: Mapping[str, Sequence[int]],
    source: str,
) -> CodeGraph:
    nodes = list(traced.graph.nodes)
    adds = {n for n in nodes if _is_add(n, values)}
    # A partial sum read only by the next addition is part of that addition.
    absorbed = {
        n
        for n in adds
        if len(n.users) == 1
        and next(iter(n.users)) in adds
        and next(iter(n.users)).args.count(n) == 1
    }

    def add_leaves(node: fx.Node) -> list[Any]:
        return [
            leaf
            for a in node.args
            for leaf in (add_leaves(a) if a in absorbed else [a])  # type: ignore[operator]
        ]

    producers: dict[fx.Node, set[int]] = {}
    snippets: list[Snippet] = []
    edges: set[tuple[int, int]] = set()
    for node in nodes:
        if node.op in ("placeholder", "get_attr", "output"):
            producers[node] = set()
            continue
        sources = {p for a in node.all_input_nodes for p in producers[a]}
        if node in absorbed or _is_alias(node, values) or not _has_tensor(values.get(node)):
            # Not a layer: whatever fed it feeds its users.
            producers[node] = sources if node in absorbed or _is_alias(node, values) else set()
            continue
        leaves = add_leaves(node) if node in adds else []
        kind, call, constructor, inputs = _call(node, traced, values, leaves)
        index = len(snippets)
        text = render_snippet(call, inputs.metas, values[node], constructor)
        outputs = tuple(
            tuple(t.shape)
            for t in torch.utils._pytree.tree_leaves(values[node])
            if isinstance(t, torch.Tensor)
        )
        snippets.append(Snippet(kind, text, _node_location(node, source), outputs))
        edges.update((p, index) for p in sources)
        producers[node] = {index}
    shapes = tuple((str(k), tuple(int(d) for d in v)) for k, v in input_shapes.items())
    return CodeGraph(tuple(snippets), tuple(sorted(edges)), shapes, source)
