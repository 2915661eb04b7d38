"""The Tensor methods of layouts and dtypes symgrad does not have: the sparse layouts
(``to_sparse``, ``coalesce``, ...), answered as PyTorch answers them for a dense tensor where it
does (``to_dense``, ``sparse_dim``, ``dense_dim``) and refused clearly where it would make a
sparse tensor; the conversions to bfloat16 and complex dtypes, refused with a TypeError; and
``as_subclass``.

Examples
--------
>>> import symgrad
>>> x = symgrad.ones(2, 3)
>>> x.sparse_dim(), x.dense_dim()
(0, 2)
"""

from __future__ import annotations

import weakref
from typing import Any

from symgrad import dtypes
from symgrad._assign import check_requires_grad
from symgrad.tensor import Tensor, _init, bind_methods, link_view, live_aliases

__all__: list[str] = []


def to_dense(self: Tensor, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
    """The tensor itself (it is dense already), or converted to ``dtype``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2)
    >>> x.to_dense() is x, x.to_dense(symgrad.float64).dtype
    (True, symgrad.float64)
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype, "to_dense", position=1)
    if dtype is None or dtype is self.dtype:
        return self
    return self.to(dtype)


def sparse_dim(self: Tensor) -> int:
    """The number of sparse dimensions: 0 for a dense tensor.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2, 3).sparse_dim()
    0
    """
    return 0


def dense_dim(self: Tensor) -> int:
    """The number of dense dimensions: all of a dense tensor's.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2, 3).dense_dim()
    2
    """
    return self.ndim


def _to_sparse(layout: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        raise NotImplementedError(
            f"{layout}(): symgrad has no sparse layouts (its tensors are all dense, "
            "symgrad.strided); keep the tensor dense, or use PyTorch for sparse tensors"
        )

    method.__name__ = method.__qualname__ = layout
    method.__doc__ = f"""Refused: symgrad has no sparse tensors (NotImplementedError).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2, 2).{layout}()
    Traceback (most recent call last):
    ...
    NotImplementedError: {layout}(): symgrad has no sparse layouts ...
    """
    return method


def _sparse_only(op: str) -> Any:
    def method(self: Tensor) -> Any:
        raise RuntimeError(f"{op} expected sparse coordinate tensor layout but got Strided")

    method.__name__ = method.__qualname__ = op
    method.__doc__ = f"""Only for sparse tensors: a dense one raises PyTorch's RuntimeError.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2).{op}()
    Traceback (most recent call last):
    ...
    RuntimeError: {op} expected sparse coordinate tensor layout but got Strided
    """
    return method


def _unsupported_dtype(op: str, name: str) -> Any:
    def method(self: Tensor, memory_format: Any = None) -> Tensor:
        raise TypeError(
            f"{op}(): symgrad does not support the dtype {name}; its dtypes are the float, int, "
            "unsigned and bool ones (use float() or double() instead)"
        )

    method.__name__ = method.__qualname__ = op
    method.__doc__ = f"""``self.to({name})``: symgrad has no {name} dtype, so this raises a
    TypeError saying so.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2).{op}()
    Traceback (most recent call last):
    ...
    TypeError: {op}(): symgrad does not support the dtype {name}; ...
    """
    return method


_SLOTS = tuple(s for s in Tensor.__slots__ if s not in ("__weakref__", "__dict__"))


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """This tensor as an instance of ``cls``, a subclass of :class:`symgrad.Tensor`, sharing
    its memory (recorded as ``AliasBackward0`` when it requires grad).

    Examples
    --------
    >>> import symgrad
    >>> class Named(symgrad.Tensor):
    ...     pass
    >>> y = symgrad.ones(2, requires_grad=True).as_subclass(Named)
    >>> type(y).__name__, type(y.grad_fn).__name__
    ('Named', 'AliasBackward0')
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
            "possible. Make sure your class inherits from Tensor."
        )
    alias = self[...]
    if cls is Tensor:
        return alias
    result = object.__new__(cls)
    for slot in _SLOTS:
        setattr(result, slot, getattr(alias, slot))
    root, _, _ = live_aliases(alias)
    if root is not None and root._views is not None:  # the views list holds the new object
        root._views.append(weakref.ref(result))
    return result


def make_subclass(cls: type, data: Tensor, require_grad: bool = False, *args: Any) -> Tensor:
    """A new ``cls`` instance sharing ``data``'s memory without its history: a leaf that
    requires grad if ``require_grad`` (PyTorch's ``Tensor._make_subclass``, how a class such
    as Parameter is built). Later arguments (PyTorch's dispatch flags) change nothing here.

    Examples
    --------
    >>> import symgrad
    >>> class Weight(symgrad.Tensor):
    ...     def __new__(cls, data):
    ...         return symgrad.Tensor._make_subclass(cls, data, True)
    >>> Weight(symgrad.ones(2))
    Weight([1., 1.], requires_grad=True)
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
            "possible. Make sure your class inherits from Tensor."
        )
    if not isinstance(data, Tensor):
        raise TypeError(
            f"_make_subclass(): argument 'data' (position 2) must be Tensor, not "
            f"{type(data).__name__}"
        )
    if type(require_grad) is not bool:
        raise TypeError(
            "_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
            f"{type(require_grad).__name__}"
        )
    result = object.__new__(cls)
    _init(result, data._data, None)
    result._requires_grad = False
    link_view(data, result, "alias")  # shares data's memory and version counter, as detach()
    check_requires_grad(result, require_grad, "Only Tensors of floating point and complex dtype")
    result._requires_grad = require_grad
    return result


Tensor._make_subclass = staticmethod(make_subclass)

bind_methods(
    {
        "to_dense": to_dense,
        "sparse_dim": sparse_dim,
        "dense_dim": dense_dim,
        "coalesce": _sparse_only("coalesce"),
        "is_coalesced": _sparse_only("is_coalesced"),
        **{
            name: _to_sparse(name)
            for name in (
                "to_sparse",
                "to_sparse_coo",
                "to_sparse_csr",
                "to_sparse_csc",
                "to_sparse_bsr",
                "to_sparse_bsc",
            )
        },
        "bfloat16": _unsupported_dtype("bfloat16", "bfloat16"),
        "cdouble": _unsupported_dtype("cdouble", "complex128"),
        "cfloat": _unsupported_dtype("cfloat", "complex64"),
        "chalf": _unsupported_dtype("chalf", "complex32"),
        "as_subclass": as_subclass,
    }
)
