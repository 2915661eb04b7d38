"""Tensor methods and operators that delegate to the functions in ``symgrad.ops``."""

from __future__ import annotations

import sys
from typing import Any


class _Ops:
    """``symgrad.ops`` resolved on first use (it imports Tensor, so it loads after it)."""

    def __getattr__(self, name: str) -> Any:
        value = getattr(sys.modules["symgrad.ops"], name)
        setattr(self, name, value)
        return value


_ops = _Ops()


class TensorMethods:
    """The op methods of :class:`symgrad.Tensor` (a mixin; see the functions for docs)."""

    __slots__ = ()

    # -- operators ------------------------------------------------------------------------
    def __add__(self, other: Any) -> Any:
        return _ops.add(self, other)

    def __radd__(self, other: Any) -> Any:
        # addition commutes; PyTorch puts the tensor first, which next_functions shows
        return _ops.add(self, other)

    def __sub__(self, other: Any) -> Any:
        return _ops.sub(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _ops.sub(other, self)

    def __mul__(self, other: Any) -> Any:
        return _ops.mul(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _ops.mul(self, other)  # as __radd__

    def __truediv__(self, other: Any) -> Any:
        return _ops.div(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        if type(other) in (int, float) and self.dtype.is_floating_point:
            # number / x is x.reciprocal() * number in PyTorch (a MulBackward0 node)
            return _ops.mul(_ops.reciprocal(self), other)
        return _ops.div(other, self)

    def __floordiv__(self, other: Any) -> Any:
        return _ops.div(self, other, rounding_mode="floor")

    def __pow__(self, other: Any) -> Any:
        return _ops.pow(self, other)

    def __rpow__(self, other: Any) -> Any:
        return _ops.pow(other, self)

    def __matmul__(self, other: Any) -> Any:
        return _ops.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _ops.matmul(other, self)

    def __neg__(self) -> Any:
        return _ops.neg(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return _ops.abs(self)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return _ops.eq(self, other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return _ops.ne(self, other)

    def __lt__(self, other: Any) -> Any:
        return _ops.lt(self, other)

    def __le__(self, other: Any) -> Any:
        return _ops.le(self, other)

    def __gt__(self, other: Any) -> Any:
        return _ops.gt(self, other)

    def __ge__(self, other: Any) -> Any:
        return _ops.ge(self, other)

    def __invert__(self) -> Any:
        return _ops.logical_not(self)

    def __and__(self, other: Any) -> Any:
        return _ops.logical_and(self, other)

    def __or__(self, other: Any) -> Any:
        return _ops.logical_or(self, other)

    def __getitem__(self, key: Any) -> Any:
        return _ops.getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        _ops.setitem(self, key, value)

    def __iadd__(self, other: Any) -> Any:
        return self.add_(other)

    def __isub__(self, other: Any) -> Any:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Any:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Any:
        return self.div_(other)

    # -- element-wise -----------------------------------------------------------------------
    def add(self, other: Any, *, alpha: Any = 1) -> Any:
        return _ops.add(self, other, alpha=alpha)

    def sub(self, other: Any, *, alpha: Any = 1) -> Any:
        return _ops.sub(self, other, alpha=alpha)

    def mul(self, other: Any) -> Any:
        return _ops.mul(self, other)

    def div(self, other: Any, *, rounding_mode: Any = None) -> Any:
        return _ops.div(self, other, rounding_mode=rounding_mode)

    def pow(self, exponent: Any) -> Any:
        return _ops.pow(self, exponent)

    def neg(self) -> Any:
        return _ops.neg(self)

    def exp(self) -> Any:
        return _ops.exp(self)

    def expm1(self) -> Any:
        return _ops.expm1(self)

    def log(self) -> Any:
        return _ops.log(self)

    def log1p(self) -> Any:
        return _ops.log1p(self)

    def log2(self) -> Any:
        return _ops.log2(self)

    def log10(self) -> Any:
        return _ops.log10(self)

    def sqrt(self) -> Any:
        return _ops.sqrt(self)

    def rsqrt(self) -> Any:
        return _ops.rsqrt(self)

    def square(self) -> Any:
        return _ops.square(self)

    def reciprocal(self) -> Any:
        return _ops.reciprocal(self)

    def abs(self) -> Any:
        return _ops.abs(self)

    def sign(self) -> Any:
        return _ops.sign(self)

    def sin(self) -> Any:
        return _ops.sin(self)

    def cos(self) -> Any:
        return _ops.cos(self)

    def tan(self) -> Any:
        return _ops.tan(self)

    def tanh(self) -> Any:
        return _ops.tanh(self)

    def sigmoid(self) -> Any:
        return _ops.sigmoid(self)

    def relu(self) -> Any:
        return _ops.relu(self)

    def erf(self) -> Any:
        return _ops.erf(self)

    def clamp(self, min: Any = None, max: Any = None) -> Any:
        return _ops.clamp(self, min, max)

    clip = clamp

    def clamp_min(self, min: Any) -> Any:
        return _ops.clamp_min(self, min)

    def clamp_max(self, max: Any) -> Any:
        return _ops.clamp_max(self, max)

    def maximum(self, other: Any) -> Any:
        return _ops.maximum(self, other)

    def minimum(self, other: Any) -> Any:
        return _ops.minimum(self, other)

    def where(self, condition: Any, other: Any) -> Any:
        return _ops.where(condition, self, other)

    def masked_fill(self, mask: Any, value: Any) -> Any:
        return _ops.masked_fill(self, mask, value)

    def floor(self) -> Any:
        return _ops.floor(self)

    def ceil(self) -> Any:
        return _ops.ceil(self)

    def round(self) -> Any:
        return _ops.round(self)

    def eq(self, other: Any) -> Any:
        return _ops.eq(self, other)

    def ne(self, other: Any) -> Any:
        return _ops.ne(self, other)

    def lt(self, other: Any) -> Any:
        return _ops.lt(self, other)

    def le(self, other: Any) -> Any:
        return _ops.le(self, other)

    def gt(self, other: Any) -> Any:
        return _ops.gt(self, other)

    def ge(self, other: Any) -> Any:
        return _ops.ge(self, other)

    def isnan(self) -> Any:
        return _ops.isnan(self)

    def isinf(self) -> Any:
        return _ops.isinf(self)

    def isfinite(self) -> Any:
        return _ops.isfinite(self)

    def logical_not(self) -> Any:
        return _ops.logical_not(self)

    def softmax(self, dim: Any, dtype: Any = None) -> Any:
        return _ops.softmax(self, dim, dtype)

    def log_softmax(self, dim: Any, dtype: Any = None) -> Any:
        return _ops.log_softmax(self, dim, dtype)

    # -- reductions ---------------------------------------------------------------------------
    def sum(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
        return _ops.sum(self, dim, keepdim, dtype=dtype)

    def mean(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
        return _ops.mean(self, dim, keepdim, dtype=dtype)

    def prod(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
        return _ops.prod(self, dim, keepdim, dtype=dtype)

    def max(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.max(self, dim, keepdim)

    def min(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.min(self, dim, keepdim)

    def amax(self, dim: Any = (), keepdim: bool = False) -> Any:
        return _ops.amax(self, dim, keepdim)

    def amin(self, dim: Any = (), keepdim: bool = False) -> Any:
        return _ops.amin(self, dim, keepdim)

    def argmax(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.argmax(self, dim, keepdim)

    def argmin(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.argmin(self, dim, keepdim)

    def var(
        self,
        dim: Any = None,
        unbiased: Any = None,
        keepdim: bool = False,
        *,
        correction: Any = None,
    ) -> Any:
        return _ops.var(self, dim, unbiased, keepdim, correction=correction)

    def std(
        self,
        dim: Any = None,
        unbiased: Any = None,
        keepdim: bool = False,
        *,
        correction: Any = None,
    ) -> Any:
        return _ops.std(self, dim, unbiased, keepdim, correction=correction)

    def logsumexp(self, dim: Any, keepdim: bool = False) -> Any:
        return _ops.logsumexp(self, dim, keepdim)

    def norm(self, p: Any = "fro", dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.norm(self, p, dim, keepdim)

    def all(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.all(self, dim, keepdim)

    def any(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _ops.any(self, dim, keepdim)

    # -- shape --------------------------------------------------------------------------------
    def reshape(self, *shape: Any) -> Any:
        return _ops.reshape(self, *shape)

    def view(self, *shape: Any) -> Any:
        return _ops.reshape(self, *shape)

    def view_as(self, other: Any) -> Any:
        return _ops.reshape(self, other.shape)

    def reshape_as(self, other: Any) -> Any:
        return _ops.reshape(self, other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Any:
        return _ops.flatten(self, start_dim, end_dim)

    def transpose(self, dim0: int, dim1: int) -> Any:
        return _ops.transpose(self, dim0, dim1)

    swapaxes = transpose

    def permute(self, *dims: Any) -> Any:
        return _ops.permute(self, *dims)

    def t(self) -> Any:
        return _ops.t(self)

    @property
    def T(self) -> Any:  # noqa: N802 - the PyTorch name
        """The dimensions reversed (the transpose of a matrix)."""
        n = self.ndim
        return self if n < 2 else _ops.permute(self, tuple(range(n - 1, -1, -1)))

    @property
    def mT(self) -> Any:  # noqa: N802 - the PyTorch name
        """The last two dimensions swapped."""
        return _ops.transpose(self, -2, -1)

    def squeeze(self, dim: Any = None) -> Any:
        return _ops.squeeze(self, dim)

    def unsqueeze(self, dim: int) -> Any:
        return _ops.unsqueeze(self, dim)

    def expand(self, *sizes: Any) -> Any:
        return _ops.expand(self, *sizes)

    def expand_as(self, other: Any) -> Any:
        return _ops.expand(self, other.shape)

    def broadcast_to(self, size: Any) -> Any:
        return _ops.broadcast_to(self, size)

    def sum_to_size(self, *size: Any) -> Any:
        return _ops.sum_to_size(self, *size)

    def flip(self, *dims: Any) -> Any:
        return _ops.flip(self, dims[0] if len(dims) == 1 else dims)

    def split(self, split_size: Any, dim: int = 0) -> Any:
        return _ops.split(self, split_size, dim)

    def chunk(self, chunks: int, dim: int = 0) -> Any:
        return _ops.chunk(self, chunks, dim)

    def unbind(self, dim: int = 0) -> Any:
        return _ops.unbind(self, dim)

    def narrow(self, dim: int, start: int, length: int) -> Any:
        return _ops.narrow(self, dim, start, length)

    def movedim(self, source: int, destination: int) -> Any:
        return _ops.movedim(self, source, destination)

    def clone(self) -> Any:
        return _ops.clone(self)

    def contiguous(self) -> Any:
        return self

    def gather(self, dim: int, index: Any) -> Any:
        return _ops.gather(self, dim, index)

    def index_select(self, dim: int, index: Any) -> Any:
        return _ops.index_select(self, dim, index)

    def matmul(self, other: Any) -> Any:
        return _ops.matmul(self, other)

    def mm(self, other: Any) -> Any:
        return _ops.mm(self, other)

    def mv(self, other: Any) -> Any:
        return _ops.mv(self, other)

    def dot(self, other: Any) -> Any:
        return _ops.dot(self, other)

    def bmm(self, other: Any) -> Any:
        return _ops.bmm(self, other)

    # -- in place -------------------------------------------------------------------------------
    def add_(self, other: Any, *, alpha: Any = 1) -> Any:
        return _ops.inplace(self, "add_", lambda x: _ops.add(x, other, alpha=alpha), other)

    def sub_(self, other: Any, *, alpha: Any = 1) -> Any:
        return _ops.inplace(self, "sub_", lambda x: _ops.sub(x, other, alpha=alpha), other)

    def mul_(self, other: Any) -> Any:
        return _ops.inplace(self, "mul_", lambda x: _ops.mul(x, other), other)

    def div_(self, other: Any) -> Any:
        return _ops.inplace(self, "div_", lambda x: _ops.div(x, other), other)

    def pow_(self, exponent: Any) -> Any:
        return _ops.inplace(self, "pow_", lambda x: _ops.pow(x, exponent), exponent)

    def clamp_(self, min: Any = None, max: Any = None) -> Any:
        return _ops.inplace(self, "clamp_", lambda x: _ops.clamp(x, min, max), min, max)

    def neg_(self) -> Any:
        return _ops.inplace(self, "neg_", _ops.neg)

    def exp_(self) -> Any:
        return _ops.inplace(self, "exp_", _ops.exp)

    def fill_(self, value: Any) -> Any:
        return _ops.fill_(self, value)

    def zero_(self) -> Any:
        return _ops.zero_(self)

    def copy_(self, src: Any) -> Any:
        return _ops.copy_(self, src)

    def masked_fill_(self, mask: Any, value: Any) -> Any:
        return _ops.inplace(self, "masked_fill_", lambda x: _ops.masked_fill(x, mask, value), value)
