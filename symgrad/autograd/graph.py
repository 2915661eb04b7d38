"""``torch.autograd.graph``: hooks on the tensors the graph saves for backward, and the graph's
node class.

While :class:`saved_tensors_hooks` is active, every node that records hands each tensor it
saves for its backward (an input or output its derivative formula reads) to ``pack_hook`` and
keeps only what that returns; the backward gets the tensor back from ``unpack_hook``. A node's
saved values can be read as ``grad_fn._saved_self``, ``grad_fn._saved_result`` and so on
(PyTorch's names), and hooks set on one of them with
``grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from symgrad._version import is_inference
from symgrad.autograd import saved
from symgrad.autograd.edges import GradientEdge
from symgrad.autograd.multi_grad_hooks import register_multi_grad_hook
from symgrad.autograd.node import Node, accumulator_of
from symgrad.autograd.saved_names import SavedTensor
from symgrad.tensor import Tensor

__all__ = [
    "Node",
    "SavedTensor",
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "GradientEdge",
    "get_gradient_edge",
    "increment_version",
    "register_multi_grad_hook",
]


class saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """Pack and unpack hooks for the tensors saved for backward, inside a ``with`` block.

    ``pack_hook(tensor)`` runs when an op records a node that saves ``tensor``, and may return
    anything; what it returns is kept instead of the tensor. ``unpack_hook(packed)`` runs each
    time the backward (or ``grad_fn._saved_*``) reads it, and must return a tensor with the
    same values as the one given to ``pack_hook``. Neither hook may change its input in place.
    Blocks nest: only the innermost pair packs. The hooks are thread-local.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.graph import saved_tensors_hooks
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> with saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
    ...     y = x.pow(2)
    >>> y.sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        saved.push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc: object) -> None:
        saved.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 (PyTorch's name)
    """Keep the tensors saved for backward in CPU memory, and move them back to their device
    when the backward reads them. symgrad's tensors are all on the CPU already: with
    ``pin_memory=True`` each saved tensor is kept as a copy (PyTorch's pinned copy), otherwise
    as it is. ``device_type`` is accepted for compatibility.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.graph import save_on_cpu
    >>> w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> with save_on_cpu(pin_memory=True):
    ...     y = (w * w).sum()
    >>> y.backward()
    >>> w.grad
    tensor([2., 4.])
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple:
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            return (tensor.device, tensor.detach().clone())

        def unpack_from_cpu(packed: tuple) -> Any:
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Refuse saved-tensor hooks inside a ``with`` block (or a function it decorates):
    entering :class:`saved_tensors_hooks` there raises ``RuntimeError(error_message)``, and so
    does entering this block while hooks are active.

    Examples
    --------
    >>> from symgrad.autograd.graph import disable_saved_tensors_hooks, saved_tensors_hooks
    >>> with disable_saved_tensors_hooks("no hooks in this block"):
    ...     try:
    ...         with saved_tensors_hooks(lambda t: t, lambda t: t):
    ...             pass
    ...     except RuntimeError as e:
    ...         print(e)
    no hooks in this block
    """
    previous = saved.STATE.disabled
    try:
        if saved.STATE.hooks:
            raise RuntimeError(error_message)
        saved.STATE.disabled = error_message
        yield
    finally:
        saved.STATE.disabled = previous


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge of the graph ``tensor``'s gradient flows along: its node and output (the
    ``AccumulateGrad`` node of a leaf), to give ``autograd.grad`` instead of the tensor.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.graph import get_gradient_edge
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> get_gradient_edge(x).node
    <AccumulateGrad object at 0x...>
    """
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    if tensor.grad_fn is None:
        return GradientEdge(accumulator_of(tensor), 0)
    return GradientEdge(tensor.grad_fn, tensor._output_nr)


def increment_version(tensor: Any) -> None:
    """Count one more in-place change of ``tensor`` (or of each tensor of an iterable), as an
    in-place op would: a node that saved it then refuses to run its backward. For changes
    made behind symgrad's back (through ``tensor.numpy()``, say). An inference tensor has no
    version to count.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.graph import increment_version
    >>> x = symgrad.tensor([1.0, 2.0])
    >>> increment_version(x)
    >>> x._version
    1
    """
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if not is_inference(t):
            t._counter.value += 1


Node.__module__ = __name__  # its public home, as torch.autograd.graph.Node
