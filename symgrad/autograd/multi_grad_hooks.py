"""``register_multi_grad_hook`` of :mod:`symgrad.autograd.graph`: one hook over the
gradients of several tensors, called once per backward pass."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from symgrad.autograd.current_pass import CURRENT
from symgrad.autograd.node import AccumulateGrad, accumulator_of
from symgrad.tensor import Tensor

__all__ = ["register_multi_grad_hook"]


class _MultiHandle:
    """The handles of the tensor hooks a multi-grad hook is made of, removed together."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __enter__(self) -> _MultiHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _node_of(t: Tensor) -> Any:
    if not t.requires_grad:
        raise AssertionError("Expected gradient function to be set")
    return t.grad_fn if t.grad_fn is not None else accumulator_of(t)


def _will_run(run: Any, node: Any) -> bool:
    """Whether the backward pass ``run`` runs ``node`` (PyTorch's
    ``_will_engine_execute_node``)."""
    if run.targets is not None:
        if isinstance(node, AccumulateGrad):
            raise RuntimeError(
                "A leaf node was passed to _will_engine_execute_node but we are currently "
                "running autograd.grad(). This is currently not supported."
            )
        outputs = range(node.num_outputs)
        return node in run.useful or any((node, nr) in run.targets for nr in outputs)
    if run.reached is None:  # made once per pass, when a hook first asks
        run.reached = {*run.nodes, *run.pending}
    return node in run.reached


def _current_pass() -> Any:
    run = CURRENT.run
    if run is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return run


def register_multi_grad_hook(
    tensors: Sequence[Tensor], fn: Callable, *, mode: str = "all"
) -> _MultiHandle:
    """Call ``fn`` once per backward pass that reaches any of ``tensors``.

    With ``mode="all"`` (every tensor must require grad), ``fn(grads)`` runs once the pass has
    computed the gradients of all of ``tensors`` it computes at all: ``grads`` holds them in
    order, None for a tensor the pass does not reach. With ``mode="any"``, ``fn(grad)`` runs
    with the first gradient the pass computes. ``fn``'s return value is ignored. The returned
    handle's ``remove()`` unregisters it.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.graph import register_multi_grad_hook
    >>> a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> b = symgrad.tensor(3.0, requires_grad=True)
    >>> seen = []
    >>> handle = register_multi_grad_hook((a, b), seen.append)
    >>> (a * b).sum().backward()
    >>> (a * 2).sum().backward()
    >>> seen
    [[tensor([3., 3.]), tensor(3.)], [tensor([2., 2.]), None]]
    >>> handle.remove()
    """
    modes = ("all", "any")
    if mode not in modes:
        raise ValueError(f"Expects mode to be one of {modes} but got {mode}")
    if mode == "any":
        return _MultiHandle(_any_hooks(tensors, fn))
    nodes = [_node_of(t) for t in tensors]
    waiting: dict = {}  # id of a pass: [gradients so far, how many are still to come]

    def hook_of(index: int) -> Callable:
        def hook(grad: Tensor) -> None:
            run = _current_pass()
            entry = waiting.get(id(run))
            if entry is None:
                expected = sum(_will_run(run, node) for node in nodes)
                entry = waiting[id(run)] = [[None] * len(nodes), expected]
            entry[0][index] = grad
            entry[1] -= 1
            if entry[1] == 0:
                del waiting[id(run)]
                fn(entry[0])

        return hook

    return _MultiHandle(tuple(t.register_hook(hook_of(i)) for i, t in enumerate(tensors)))


def _any_hooks(tensors: Sequence[Tensor], fn: Callable) -> tuple:
    ran: list = []  # the pass that last called fn (a pass object, so never a reused id)

    def hook(grad: Tensor) -> None:
        run = _current_pass()
        if ran and ran[0] is run:
            return
        ran[:] = [run]
        fn(grad)

    return tuple(t.register_hook(hook) for t in tensors if t.requires_grad)
