"""The in-place forms of the fused products: ``addmm_``, ``addmv_``, ``addr_``, ``baddbmm_``
and ``addbmm_``, each ``self = beta * self + alpha * product`` with the out-of-place op's node
(``AddmmBackward0``, ...) over ``self``'s previous history, as PyTorch records them.

As in PyTorch, ``self`` must already have the product's shape (``addr_`` names the sizes its
own way), except for ``addbmm_``, which resizes a ``self`` that broadcasts to the product
(``addbmm_`` of a ``[1, 1]`` tensor makes it ``[n, p]``). symgrad resizes only a tensor whose
memory is its own (no views of it, not a view itself) and says so otherwise.
"""

from __future__ import annotations

from typing import Any

from symgrad._arguments import require_numbers, require_tensor_arguments
from symgrad.autograd import grad_mode
from symgrad.ops import dual_tangents, fused_products
from symgrad.ops.inplace import check_leaf, inplace, rebase, snapshot
from symgrad.prim import batching
from symgrad.tensor import Tensor, live_aliases

__all__ = ["IN_PLACE_METHODS"]


def _product_shape(name: str, m1: Tensor, m2: Tensor) -> tuple | None:
    """The shape of the product, or None where the op itself will refuse its factors."""
    s1, s2 = tuple(m1.shape), tuple(m2.shape)
    if name == "addr":
        return (s1[0], s2[0]) if len(s1) == len(s2) == 1 else None
    if name == "addmv":
        return (s1[0],) if len(s1) == 2 and len(s2) == 1 and s1[1] == s2[0] else None
    if name == "addmm":
        return (s1[0], s2[1]) if len(s1) == len(s2) == 2 and s1[1] == s2[0] else None
    if len(s1) != 3 or len(s2) != 3 or s1[0] != s2[0] or s1[2] != s2[1]:
        return None
    return (s1[0], s1[1], s2[2]) if name == "baddbmm" else (s1[1], s2[2])


def _check_shape(name: str, self: Tensor, m1: Tensor, m2: Tensor, shape: tuple) -> None:
    """PyTorch's errors for a ``self`` that is not the product's shape."""
    if name == "addr":
        if self.ndim != 2:
            raise RuntimeError(f"2D tensor expected, got {self.ndim}D tensor for input")
        if tuple(self.shape) != shape:
            raise RuntimeError(
                f"size mismatch, input: {list(self.shape)}, v1: {list(m1.shape)}, v2: "
                f"{list(m2.shape)}"
            )
    elif tuple(self.shape) != shape:
        raise RuntimeError(
            f"Bad in-place call: input tensor size {list(self.shape)} and output tensor size "
            f"{list(shape)} should match"
        )


def _resized(self: Tensor, op: str, compute: Any, others: tuple) -> Tensor:
    """``self`` takes the result of ``compute`` and its shape (PyTorch's resizing ``addbmm_``)."""
    root, _, aliases = live_aliases(self)
    if root is not None or aliases or batching.any_batched(self, *others):
        raise RuntimeError(
            f"{op}: the tensor of shape {list(self.shape)} would be resized to the product's "
            "shape, which symgrad does only for a tensor that is neither a view nor viewed "
            "(nor inside vmap); give it the product's shape first (expand(...).clone())"
        )
    check_leaf(self, op)
    recording = grad_mode.recording() and (
        self._requires_grad or any(o._requires_grad for o in others)
    )
    if recording and self.dtype.is_floating_point:
        result = compute(snapshot(self))
        rebase(self, result.to(self.dtype))
    else:
        with grad_mode.no_grad():
            result = compute(self).to(self.dtype)
        self._data = result._data
        self._counter.value += 1
    dual_tangents.take_tangent(self, result)
    return self


# the names PyTorch gives the two factors of each method
_FACTORS = {
    "addmm": "mat1 mat2",
    "addmv": "mat vec",
    "addr": "vec1 vec2",
    "baddbmm": "batch1 batch2",
    "addbmm": "batch1 batch2",
}


def _method(name: str) -> Any:
    op = getattr(fused_products, name)

    def method(self: Tensor, m1: Tensor, m2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        if not isinstance(m1, Tensor) or not isinstance(m2, Tensor):
            require_tensor_arguments(f"{name}_", _FACTORS[name], m1, m2)
        if type(beta) is not int or type(alpha) is not int:
            require_numbers(f"{name}_", beta=beta, alpha=alpha)

        def compute(x: Tensor) -> Tensor:
            return op(x, m1, m2, beta=beta, alpha=alpha)

        shape = _product_shape(name, m1, m2)
        if shape is not None and tuple(self.shape) != shape:
            if name == "addbmm":
                fused_products._expandable(self, shape)
                return _resized(self, f"{name}_", compute, (m1, m2))
            _check_shape(name, self, m1, m2, shape)
        return inplace(self, f"{name}_", compute, m1, m2)

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"""In-place :func:`symgrad.{name}`: ``self = beta * self + alpha * ...``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, 2)
    >>> x.addmm_(symgrad.eye(2), symgrad.ones(2, 2), beta=2)
    tensor([[3., 3.],
            [3., 3.]])
    """
    return method


IN_PLACE_METHODS = {
    f"{name}_": _method(name) for name in ("addmm", "addmv", "addr", "baddbmm", "addbmm")
}
