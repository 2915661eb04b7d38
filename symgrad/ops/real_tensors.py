"""PyTorch's complex-number API on real tensors, which are all symgrad has: the predicates
(``is_complex``, ``is_conj``, ``is_neg`` are False, ``isreal`` True everywhere), ``real`` and
the conjugates (the tensor itself, as PyTorch returns it), ``imag`` (refused), the conjugate
transposes ``H``, ``mH``, ``adjoint`` (transposes), and the sign predicates ``is_signed``,
``isneginf``, ``isposinf``, ``is_same_size``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad.ops.inplace import inplace
from symgrad.ops.math_special import require_tensor
from symgrad.ops.shape import transpose
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor, bind_methods

__all__ = [
    "is_complex", "is_conj", "is_neg", "is_signed", "is_same_size", "isneginf", "isposinf",
    "isreal", "real", "imag", "conj", "resolve_conj", "resolve_neg", "conj_physical", "adjoint",
]  # fmt: skip


def is_complex(input: Tensor) -> bool:
    """Whether ``input`` has a complex dtype: never, symgrad's dtypes are real.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.is_complex(symgrad.tensor([1.0]))
    False
    """
    return False


def is_conj(input: Tensor) -> bool:
    """Whether ``input`` is a lazily conjugated view: never, for a real tensor.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1.0]).is_conj()
    False
    """
    return False


def is_neg(input: Tensor) -> bool:
    """Whether ``input`` is a lazily negated view: never, for a real tensor.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.is_neg(symgrad.tensor([1.0]))
    False
    """
    return False


def is_signed(input: Tensor) -> bool:
    """Whether ``input``'s dtype holds negative numbers (not bool nor the unsigned ones).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1]).is_signed(), symgrad.tensor([1], dtype=symgrad.uint8).is_signed()
    (True, False)
    """
    return input.dtype.is_signed


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether two tensors have the same shape.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2, 3).is_same_size(symgrad.zeros(2, 3, dtype=symgrad.int64))
    True
    """
    require_tensor("is_same_size", "other", 1, other)
    return tuple(input.shape) == tuple(other.shape)


def _predicate(name: str, test: Any, doc: str, example: str) -> Any:
    def op(input: Tensor) -> Tensor:
        return Tensor._make(np.asarray(test(input._data)))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{doc} (a bool tensor, not differentiable).\n\n    Examples\n    --------\n"
        f"    >>> import symgrad\n    >>> inf = float('inf')\n"
        f"    >>> symgrad.{name}(symgrad.tensor([-inf, 1.0, inf]))\n    {example}\n"
    )
    return op


isneginf = _predicate(
    "isneginf", np.isneginf, "Where ``input`` is -inf", "tensor([ True, False, False])"
)
isposinf = _predicate(
    "isposinf", np.isposinf, "Where ``input`` is +inf", "tensor([False, False,  True])"
)
isreal = _predicate(
    "isreal",
    lambda a: np.ones(np.shape(a), dtype=np.bool_),
    "Where ``input`` is real: everywhere",
    "tensor([True, True, True])",
)


def _itself(name: str, doc: str) -> Any:
    def op(input: Tensor) -> Tensor:
        return input

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{doc}: for a real tensor, the tensor itself (no copy, no node), as in PyTorch.\n\n"
        f"    Examples\n    --------\n    >>> import symgrad\n"
        f"    >>> x = symgrad.tensor([1.0, -2.0])\n    >>> symgrad.{name}(x) is x\n    True\n"
    )
    return op


real = _itself("real", "The real part")
conj = _itself("conj", "The complex conjugate")
resolve_conj = _itself("resolve_conj", "The conjugate bit resolved")
resolve_neg = _itself("resolve_neg", "The negative bit resolved")
conj_physical = _itself("conj_physical", "The complex conjugate, computed")


def imag(input: Tensor) -> Tensor:
    """The imaginary part: PyTorch refuses it for a real tensor.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.imag(symgrad.tensor([1.0]))
    Traceback (most recent call last):
    ...
    RuntimeError: imag is not implemented for tensors with non-complex dtypes.
    """
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


# PyTorch records conj_physical_ of a real tensor too, as the identity
_CONJ_PHYSICAL = Structural(
    "conj_physical_",
    lambda xp, a: a,
    lambda xp, g, ctx: (g,),
    backward="ConjPhysicalBackward1",
    kernel=lambda xp, a: np.array(a),
    jvp="linear",
)


def conj_physical_(self: Tensor) -> Tensor:
    """Conjugate the tensor in place: its values stay, its version and history move on
    (also the function ``symgrad.conj_physical_(input)``).

    Examples
    --------
    >>> import symgrad
    >>> y = symgrad.tensor([1.0, -2.0], requires_grad=True) * 1
    >>> y.conj_physical_()
    tensor([ 1., -2.], grad_fn=<ConjPhysicalBackward1>)
    """
    return inplace(self, "conj_physical_", _CONJ_PHYSICAL)


def _deprecated_0d(input: Tensor, what: str) -> Tensor:
    warnings.warn(
        f"{what} is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=3
    )
    return input


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of (a batch of) matrices: for real ones, the last two
    dimensions swapped (a view, ``TransposeBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.adjoint(symgrad.ones(2, 3)).shape
    symgrad.Size([3, 2])
    """
    if input.ndim == 0:
        return _deprecated_0d(input, "adjoint()")
    if input.ndim == 1:
        raise RuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    return transpose(input, -2, -1)


def _matrix_h(self: Tensor) -> Tensor:
    """The conjugate transpose of a matrix: for a real one, its transpose.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([[1, 2], [3, 4]]).H
    tensor([[1, 3],
            [2, 4]])
    """
    if self.ndim == 0:
        return _deprecated_0d(self, "Tensor.H")
    if self.ndim != 2:
        extra = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor."
            + extra
        )
    return transpose(self, 0, 1)


def _batch_h(self: Tensor) -> Tensor:
    """The conjugate transpose of (a batch of) matrices: the last two dimensions swapped.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2, 3, 4).mH.shape
    symgrad.Size([2, 4, 3])
    """
    if self.ndim == 0:
        return _deprecated_0d(self, "Tensor.mH")
    if self.ndim == 1:
        raise RuntimeError(
            "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    return transpose(self, -2, -1)


def _imag(self: Tensor) -> Tensor:
    """The imaginary part: PyTorch refuses it for a real tensor.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1.0]).imag
    Traceback (most recent call last):
    ...
    RuntimeError: imag is not implemented for tensors with non-complex dtypes.
    """
    return imag(self)


bind_methods(
    {
        **{name: globals()[name] for name in __all__ if name not in ("real", "imag")},
        "conj_physical_": conj_physical_,
        "real": property(real),
        "imag": property(_imag),
        "H": property(_matrix_h),
        "mH": property(_batch_h),
    }
)
