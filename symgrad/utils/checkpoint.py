"""``symgrad.utils.checkpoint``: PyTorch's activation checkpointing, which keeps only a
segment's inputs and recomputes the rest during backward.

Values and gradients are those of calling the function: the reentrant variant (PyTorch's
default) records one ``CheckpointFunctionBackward`` node and reruns the function in backward
with the random state of the forward pass; the non-reentrant variant records the function's
own graph (on NumPy arrays there is no device memory to save). The warnings and argument
errors are PyTorch 2.13's.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from typing import Any

from symgrad import random
from symgrad.autograd.current_pass import checkpoint_valid
from symgrad.autograd.engine import backward
from symgrad.autograd.function import Function
from symgrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from symgrad.nn.modules.container import Sequential
from symgrad.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn"]

_DETERMINISM_CHECKS = ("default", "none")

_NO_REENTRANT_ARGUMENT = (
    "the use_reentrant parameter should be passed explicitly. {} use_reentrant=False is "
    "recommended, but if you need to preserve the current default behavior, you can pass "
    "use_reentrant=True. Refer to docs for more details on the differences between the two "
    "variants."
)


def noop_context_fn() -> tuple[contextlib.nullcontext, contextlib.nullcontext]:
    """The default ``context_fn`` of :func:`checkpoint`: no context for the forward pass nor
    for the recomputation.

    Examples
    --------
    >>> from symgrad.utils.checkpoint import noop_context_fn
    >>> forward, recompute = noop_context_fn()
    >>> with forward:
    ...     pass
    """
    return contextlib.nullcontext(), contextlib.nullcontext()


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward without a graph, backward reruns the function."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable, preserve_rng_state: bool, *args: Any) -> Any:
        if not any(a.requires_grad for a in args if isinstance(a, Tensor)):
            warnings.warn(
                "None of the inputs have requires_grad=True. Gradients will be None",
                stacklevel=2,
            )
        ctx.run_function, ctx.preserve_rng_state = run_function, preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = random.get_rng_state()
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        if not checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(): set use_reentrant=False, or "
                "call .backward() without the `inputs` argument."
            )
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t.detach().requires_grad_(t.requires_grad)
        with random.fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                random.set_rng_state(ctx.fwd_cpu_state)
            with enable_grad():
                outputs = ctx.run_function(*inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (out, g)
            for out, g in zip(outputs, grads)
            if isinstance(out, Tensor) and out.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        backward([out for out, _ in pairs], [g for _, g in pairs])
        return (None, None, *(a.grad if isinstance(a, Tensor) else None for a in inputs))


def checkpoint(
    function: Callable,
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    **kwargs: Any,
) -> Any:
    """``function(*args, **kwargs)``, checkpointed: the same values and gradients.

    ``use_reentrant`` should be given: without it PyTorch 2.13 warns and takes ``True``.
    The reentrant variant takes no keyword arguments for ``function`` (``ValueError``),
    records a ``CheckpointFunctionBackward`` node, and gives gradients only when a tensor
    argument requires grad (it warns otherwise: parameters used inside get none). The
    non-reentrant one runs ``function`` inside the first context ``context_fn()`` returns.
    ``preserve_rng_state=True`` (a keyword) reruns with the forward pass's random state.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.utils.checkpoint import checkpoint
    >>> layer = symgrad.nn.Linear(2, 1)
    >>> x = symgrad.ones(3, 2, requires_grad=True)
    >>> y = checkpoint(layer, x, use_reentrant=False)
    >>> y.sum().backward()
    >>> bool((y == layer(x)).all()), layer.weight.grad
    (True, tensor([[3., 3.]]))
    """
    if use_reentrant is None:
        warnings.warn(
            "symgrad.utils.checkpoint: "
            + _NO_REENTRANT_ARGUMENT.format(
                "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise "
                "an exception."
            ),
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve, *args)
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(
            f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but got "
            f"{determinism_check}"
        )
    forward_context, _ = context_fn()
    if not is_grad_enabled():
        return function(*args, **kwargs)
    return _run_in(forward_context, function, args, kwargs)


def _run_in(context: Any, function: Callable, args: tuple, kwargs: dict) -> Any:
    """``function(*args, **kwargs)`` inside ``context``, which may not swallow its error."""
    finished = False
    with context:
        result = function(*args, **kwargs)
        finished = True
    if not finished:
        raise RuntimeError(
            "symgrad.utils.checkpoint: the forward context provided by context_fn suppressed an "
            "exception raised during the checkpointed forward. This is not supported because "
            "checkpoint cannot return a value for a failed forward."
        )
    return result


def checkpoint_sequential(
    functions: Any, segments: int, input: Any, use_reentrant: bool | None = None, **kwargs: Any
) -> Any:
    """Run ``functions`` (a :class:`~symgrad.nn.Sequential` or a list of modules or
    functions) one after the other on ``input``, in ``segments`` pieces, each but the last
    checkpointed: the same values and gradients as running them. Like PyTorch it warns
    when ``use_reentrant`` is not given and takes no keyword but ``preserve_rng_state``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.utils.checkpoint import checkpoint_sequential
    >>> net = symgrad.nn.Sequential(symgrad.nn.Linear(2, 2), symgrad.nn.Tanh())
    >>> x = symgrad.ones(1, 2, requires_grad=True)
    >>> y = checkpoint_sequential(net, 2, x, use_reentrant=True)
    >>> bool((y == net(x)).all()), type(y.grad_fn).__name__
    (True, 'TanhBackward0')
    """
    if use_reentrant is None:
        warnings.warn(
            "symgrad.utils.checkpoint.checkpoint_sequential: "
            + _NO_REENTRANT_ARGUMENT.format(
                "In version 2.9 we will raise an exception if use_reentrant is not passed."
            ),
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    chain = list(functions.children()) if isinstance(functions, Sequential) else list(functions)
    size = len(chain) // segments
    done = 0  # every segment but the last is checkpointed; the last runs the rest as it is
    while size and done < size * (segments - 1):
        piece = chain[done : done + size]
        input = checkpoint(
            _in_turn(piece), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
        done += size
    return _in_turn(chain[done:])(input)


def _in_turn(functions: list) -> Callable:
    """One function calling each of ``functions`` on the previous one's result."""

    def run(value: Any) -> Any:
        for fn in functions:
            value = fn(value)
        return value

    return run
