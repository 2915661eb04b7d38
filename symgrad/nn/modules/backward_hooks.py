"""A module's backward hooks: ``register_full_backward_hook`` and
``register_full_backward_pre_hook``.

As in PyTorch, a module with backward hooks passes its tensor inputs and its outputs through
an identity node, ``BackwardHookFunctionBackward``: the outputs' node sees the gradients of the
outputs (``grad_output``, which pre-hooks may replace), the inputs' node those of the inputs
(``grad_input``, which hooks may replace). The call puts the two nodes in place after the
forward pre-hooks and after the forward hooks, as PyTorch's ``Module.__call__`` does.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from symgrad.autograd.function import Function
from symgrad.autograd.node import RemovableHandle
from symgrad.nn.modules import _global_hooks
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor

__all__ = [
    "register_full_backward_hook",
    "register_full_backward_pre_hook",
    "register_backward_hook",
]


class _Call:
    """One call of the module: what its backward hooks need to see."""

    __slots__ = (
        "module",
        "n_inputs",
        "input_places",
        "inputs_need_grad",
        "n_outputs",
        "output_places",
        "grad_output",
    )

    def __init__(self, module: Any) -> None:
        self.module = module
        # the hooks see one entry per positional argument and per output, None where it is
        # not a tensor; the nodes carry only the tensors, found at these places
        self.n_inputs = self.n_outputs = 0
        self.input_places: list = []
        self.output_places: list = []
        self.inputs_need_grad = False
        self.grad_output: tuple | None = None


class BackwardHookFunction(Function):
    """Identity on ``tensors``, whose backward runs the module's hooks (``side``: "inputs" or
    "outputs")."""

    @staticmethod
    def forward(ctx: Any, call: _Call, side: str, *tensors: Tensor) -> Any:
        ctx.call, ctx.side = call, side
        # as PyTorch: an output no gradient reached shows as None, an input as zeros
        ctx.set_materialize_grads(side == "inputs")
        outs = tuple(t.view_as(t) for t in tensors)
        ctx.mark_non_differentiable(*(o for o, t in zip(outs, tensors) if not t.requires_grad))
        return outs

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        call = ctx.call
        if ctx.side == "outputs":
            grad_output = _padded(grads, call.output_places, call.n_outputs)
            call.grad_output = grad_output = _run_pre_hooks(call.module, grad_output)
            if not call.inputs_need_grad:  # no inputs' node runs: the hooks run here
                _run_hooks_without_inputs(call.module, call.n_inputs, grad_output)
            grads = tuple(grad_output[i] for i in call.output_places)
        elif call.grad_output is None:
            # no gradient came through the module's outputs (none were tensors, or a double
            # backward reaches the inputs directly): PyTorch runs no hook
            return (None, None, *grads)
        else:
            grad_input = _padded(grads, call.input_places, call.n_inputs)
            grad_input = _run_hooks(call.module, grad_input, call.grad_output)
            call.grad_output = None
            grads = tuple(grad_input[i] for i in call.input_places)
        return (None, None, *grads)


def _padded(grads: tuple, places: list, n: int) -> tuple:
    """``grads`` (one per tensor) at their ``places`` among ``n`` entries, None elsewhere."""
    full: list = [None] * n
    for i, g in zip(places, grads):
        full[i] = g
    return tuple(full)


def _run_pre_hooks(module: Any, grad_output: tuple) -> tuple:
    for hook in [*_global_hooks.BACKWARD_PRE, *module.__dict__.get("_backward_pre_hooks", ())]:
        result = hook(module, grad_output)
        if result is not None:
            result = result if isinstance(result, tuple) else (result,)
            if len(result) != len(grad_output):
                raise RuntimeError(
                    f"Backward pre hook returned an invalid number of grad_output, got "
                    f"{len(result)}, but expected {len(grad_output)}"
                )
            grad_output = result
    return grad_output


def _run_hooks(module: Any, grad_input: tuple, grad_output: tuple) -> tuple:
    for hook in [*_global_hooks.BACKWARD, *module.__dict__.get("_backward_hooks", ())]:
        result = hook(module, grad_input, grad_output)
        if result is not None:
            result = result if isinstance(result, tuple) else (result,)
            if len(result) != len(grad_input):
                raise RuntimeError(
                    f"Backward hook returned an invalid number of grad_input, got "
                    f"{len(result)}, but expected {len(grad_input)}"
                )
            grad_input = result
    return grad_input


def _run_hooks_without_inputs(module: Any, n_inputs: int, grad_output: tuple) -> None:
    warnings.warn(
        "Full backward hook is firing when gradients are computed with respect to module "
        "outputs since no inputs require gradients. See "
        "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
        "#torch.nn.Module.register_full_backward_hook for more details.",
        UserWarning,
        stacklevel=2,
    )
    for hook in [*_global_hooks.BACKWARD, *module.__dict__.get("_backward_hooks", ())]:
        result = hook(module, (None,) * n_inputs, grad_output)
        if result is not None and not (
            isinstance(result, tuple) and all(g is None for g in result)
        ):
            raise RuntimeError(
                "Backward hook for Modules where no input requires gradient should always "
                "return None or None for all gradients."
            )


def _tensor_places(values: tuple) -> list:
    return [i for i, v in enumerate(values) if isinstance(v, Tensor)]


def _wrap(call: _Call, side: str, values: tuple) -> tuple:
    """``values`` with their tensors passed through one hook node."""
    places = _tensor_places(values)
    if not places:
        return values
    wrapped = BackwardHookFunction.apply(call, side, *(values[i] for i in places))
    out = list(values)
    for i, w in zip(places, wrapped if isinstance(wrapped, tuple) else (wrapped,)):
        out[i] = w
    return tuple(out)


def _before_forward(module: Any, args: tuple) -> tuple | None:
    if not (
        module.__dict__.get("_backward_hooks")
        or module.__dict__.get("_backward_pre_hooks")
        or _global_hooks.BACKWARD
        or _global_hooks.BACKWARD_PRE
    ):
        return None
    call = _Call(module)
    module.__dict__.setdefault("_backward_calls", []).append(call)
    call.n_inputs, call.input_places = len(args), _tensor_places(args)
    call.inputs_need_grad = any(args[i].requires_grad for i in call.input_places)
    return _wrap(call, "inputs", args) if call.inputs_need_grad else None


def _after_forward(module: Any, args: tuple, output: Any) -> Any:
    _attach_node_hooks(module, args, output)
    calls = module.__dict__.get("_backward_calls")
    if not calls:
        return None
    call = calls.pop()
    if not isinstance(output, (Tensor, tuple)):
        return None
    outputs = output if isinstance(output, tuple) else (output,)
    call.n_outputs, call.output_places = len(outputs), _tensor_places(outputs)
    wrapped = _wrap(call, "outputs", outputs)
    return wrapped if isinstance(output, tuple) else wrapped[0]


def _attach_node_hooks(module: Any, args: tuple, result: Any) -> None:
    """The hooks of ``register_backward_hook`` on the node of the output (the first tensor
    found in it, as PyTorch)."""
    hooks = module.__dict__.get("_node_backward_hooks")
    if not hooks:
        return
    output = result
    while not isinstance(output, Tensor):
        output = (
            next(v for v in output.values() if isinstance(v, Tensor))
            if isinstance(output, dict)
            else output[0]
        )
    if output.grad_fn is not None:
        for hook in hooks:
            output.grad_fn.register_hook(lambda gi, go, hook=hook: hook(module, gi, go))
        _warn_partial(args, result, output.grad_fn)


_DEPRECATED = "is deprecated and will be removed in future versions. This hook will be missing some"
_USE_FULL = "Please use register_full_backward_hook to get the documented behavior."


def _warn_partial(args: tuple, result: Any, node: Any) -> None:
    """PyTorch's FutureWarning when the hooked node does not see all the module's inputs and
    outputs (its forward is more than one node, or they are not all tensors), in its words."""
    outputs = result if isinstance(result, tuple) else (result,)
    if not all(isinstance(t, Tensor) for t in outputs):
        message = (
            "Using non-full backward hooks on a Module that does not return a single Tensor or "
            f"a tuple of Tensors {_DEPRECATED} of the grad_output. {_USE_FULL}"
        )
    elif not all(isinstance(t, Tensor) for t in args):
        message = (
            "Using non-full backward hooks on a Module that does not take as input a single "
            f"Tensor or a tuple of Tensors {_DEPRECATED} of the grad_input. {_USE_FULL}"
        )
    elif {t.grad_fn for t in outputs if t.grad_fn is not None} != {node}:
        message = (
            "Using a non-full backward hook when outputs are generated by different autograd "
            f"Nodes {_DEPRECATED} grad_output. {_USE_FULL}"
        )
    elif {t.grad_fn for t in args if t.grad_fn is not None} != {n for n, _ in node._edges}:
        message = (
            "Using a non-full backward hook when the forward contains multiple autograd Nodes "
            f"{_DEPRECATED} grad_input. {_USE_FULL}"
        )
    else:
        return
    warnings.warn(message, FutureWarning, stacklevel=4)


_MIXED = (
    "Cannot use both regular backward hooks and full backward hooks on a single Module. Please "
    "use only one of them."
)


def _register(module: Any, table: str, hook: Callable, prepend: bool) -> RemovableHandle:
    node_hooks = table == "_node_backward_hooks"
    other = ("_backward_hooks", "_backward_pre_hooks") if node_hooks else ("_node_backward_hooks",)
    if any(module.__dict__.get(name) for name in other):
        raise RuntimeError(_MIXED)
    hooks = module.__dict__.setdefault(table, [])
    # run by the call after every forward pre-hook and forward hook, as in PyTorch
    module.__dict__["_backward_hook_setup"] = (_before_forward, _after_forward)
    entry = hook if not any(h is hook for h in hooks) else (lambda *a: hook(*a))
    hooks.insert(0, entry) if prepend else hooks.append(entry)
    return RemovableHandle(hooks, entry)


def register_full_backward_hook(
    self: Any, hook: Callable, prepend: bool = False
) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` once the gradients of the module's tensor
    inputs are known (None for an input that needs none); a non-None result replaces
    ``grad_input``.

    Examples
    --------
    >>> import symgrad
    >>> lin = symgrad.nn.Linear(2, 1)
    >>> seen = []
    >>> h = lin.register_full_backward_hook(lambda m, gi, go: seen.append(gi[0].shape))
    >>> lin(symgrad.ones(3, 2, requires_grad=True)).sum().backward()
    >>> seen
    [symgrad.Size([3, 2])]
    """
    return _register(self, "_backward_hooks", hook, prepend)


def register_full_backward_pre_hook(
    self: Any, hook: Callable, prepend: bool = False
) -> RemovableHandle:
    """``hook(module, grad_output)`` once the gradients of the module's outputs are known,
    before those of its inputs are computed; a non-None result replaces ``grad_output``.

    Examples
    --------
    >>> import symgrad
    >>> lin = symgrad.nn.Linear(2, 1)
    >>> h = lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
    >>> x = symgrad.ones(1, 2, requires_grad=True)
    >>> lin(x).sum().backward()
    >>> x.grad
    tensor([[0., 0.]])
    """
    return _register(self, "_backward_pre_hooks", hook, prepend)


def register_backward_hook(self: Any, hook: Callable) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` when the node that made the module's output
    has run its backward (deprecated in PyTorch for :meth:`register_full_backward_hook`):
    ``grad_input`` holds the gradients of that node's inputs, which are the module's inputs
    and parameters only when its forward is one op; a non-None result replaces them.

    Examples
    --------
    >>> import symgrad
    >>> relu = symgrad.nn.ReLU()
    >>> h = relu.register_backward_hook(lambda m, gi, go: (gi[0].clamp(min=0),))
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> (relu(x) * symgrad.tensor([-1.0, 3.0])).sum().backward()
    >>> x.grad
    tensor([0., 3.])
    """
    return _register(self, "_node_backward_hooks", hook, False)


def get_parameter(self: Any, target: str) -> Any:
    """The parameter at dotted path ``target`` (``"fc.bias"``); AttributeError if none."""
    return _member(self, target, "_parameters", "an nn.Parameter")


def get_buffer(self: Any, target: str) -> Any:
    """The buffer at dotted path ``target`` (``"bn.running_mean"``); AttributeError if none."""
    return _member(self, target, "_buffers", "a buffer")


def _member(self: Any, target: str, table: str, what: str) -> Any:
    """The entry ``target`` of a submodule's ``table``, with PyTorch's errors."""
    module_path, _, name = target.rpartition(".")
    module = self.get_submodule(module_path) if module_path else self
    members = getattr(module, table)
    if name not in members:
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        raise AttributeError(f"`{name}` is not {what}")
    return members[name]


Module.register_full_backward_hook = register_full_backward_hook  # type: ignore[attr-defined]
Module.register_backward_hook = register_backward_hook  # type: ignore[attr-defined]
Module.register_full_backward_pre_hook = register_full_backward_pre_hook  # type: ignore[attr-defined]
Module.get_parameter = get_parameter  # type: ignore[attr-defined]
Module.get_buffer = get_buffer  # type: ignore[attr-defined]
_global_hooks.BACKWARD_SETUP.append((_before_forward, _after_forward))
