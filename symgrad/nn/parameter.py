"""``Parameter``: the tensor a module registers as one of its learnable weights; ``Buffer``,
one it registers as state; and their uninitialized forms, whose shape a lazy module infers at
its first call."""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._assign import check_requires_grad
from symgrad.tensor import NAMES, Tensor, _init, link_view

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


class Parameter(Tensor):
    """A tensor that a :class:`symgrad.nn.Module` lists in ``parameters()`` when assigned
    as one of its attributes. It requires grad unless told otherwise, and shares its memory
    with ``data``; ops on it give plain tensors, as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> p = nn.Parameter(symgrad.tensor([1.0, 2.0]))
    >>> p
    Parameter containing:
    tensor([1., 2.], requires_grad=True)
    >>> type(p * 2).__name__
    'Tensor'
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = Tensor._make(np.zeros((0,), dtypes.get_default_dtype().numpy))
        if not isinstance(data, Tensor):
            _check_detachable(data)
        p = object.__new__(cls)
        _init(p, data._data, None)
        p._requires_grad = False
        link_view(data, p, "alias")  # shares data's memory and version counter, as detach()
        check_requires_grad(p, requires_grad, "Only Tensors of floating point and complex dtype")
        p._requires_grad = requires_grad
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything is done in __new__

    def __repr__(self) -> str:
        text = super().__repr__()
        if type(self) is not Parameter:  # a subclass: Parameter(MyParameter([1., 2.], ...))
            text = f"Parameter({text})"
        return "Parameter containing:\n" + text

    def _repr_prefix(self) -> str:
        return "tensor(" if type(self) is Parameter else f"{type(self).__name__}("

    def __deepcopy__(self, memo: dict) -> Parameter:
        # PyTorch copies the values and the flag, not the gradient
        p = Parameter(Tensor._make(self._data.copy()), self._requires_grad)
        NAMES.give(p, self._name)
        p._name = self._name
        memo[id(self)] = p
        return p


class Buffer(Tensor):
    """A tensor that a :class:`symgrad.nn.Module` registers as a buffer (state that is not
    a parameter: kept in the ``state_dict`` unless ``persistent=False``, converted by
    ``to()``) when assigned as one of its attributes. It shares memory with ``data`` and
    keeps its ``requires_grad``. (In PyTorch its type is ``Tensor``; here it is this
    subclass of ``Tensor``.)

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> m = nn.Module()
    >>> m.mean = nn.Buffer(symgrad.zeros(2))
    >>> m.scratch = nn.Buffer(symgrad.ones(1), persistent=False)
    >>> [name for name, _ in m.named_buffers()], list(m.state_dict())
    (['mean', 'scratch'], ['mean'])
    """

    __slots__ = ("persistent",)

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        if data is None:
            data = Tensor._make(np.zeros((0,), dtypes.get_default_dtype().numpy))
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        b = object.__new__(cls)
        _init(b, data._data, None)
        b._requires_grad = False
        link_view(data, b, "alias")
        b._requires_grad = data._requires_grad
        b.persistent = persistent
        return b

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        pass  # everything is done in __new__

    def _repr_prefix(self) -> str:
        return "tensor("  # PyTorch's buffers are plain tensors


_UNINITIALIZED = (
    "Attempted to use an uninitialized parameter in {where}. This error happens when you are "
    "using a `LazyModule` or explicitly manipulating `torch.nn.parameter.{cls}` objects. When "
    "using LazyModules Call `forward` with a dummy batch to initialize the parameters before "
    "calling torch functions"
)
# what an uninitialized tensor still answers (besides its plain attributes: dtype, device,
# requires_grad, grad, ...): PyTorch's list
_ALLOWED = frozenset(
    "size is_floating_point is_complex half float double char short int long cuda cpu to "
    "get_device copy_ materialize share_memory_".split()
)


class _Inside(threading.local):
    """How deep this thread is in calls of allowed methods: inside them, the tensor's values
    (its empty placeholder array) may be read."""

    depth = 0

    def __enter__(self) -> None:
        self.depth += 1

    def __exit__(self, *exc: object) -> None:
        self.depth -= 1


_inside = _Inside()


class UninitializedTensorMixin:
    """What :class:`UninitializedParameter` and :class:`UninitializedBuffer` share: no
    shape yet; ``materialize(shape)`` gives them one (and their class becomes
    ``cls_to_become``). Any other use raises PyTorch's ``ValueError``; reading ``shape``
    raises ``RuntimeError``."""

    __slots__ = ()
    cls_to_become: type = Tensor

    def __getattribute__(self, name: str) -> Any:
        if _inside.depth:
            return object.__getattribute__(self, name)
        cls = type(self).__name__
        if name == "shape" and not _from_an_op():
            raise RuntimeError(
                "Can't access the shape of an uninitialized parameter or buffer. This error "
                "usually happens in `load_state_dict` when trying to load an uninitialized "
                "parameter into an initialized one. Call `forward` to initialize the "
                "parameters before accessing their attributes."
            )
        if name == "_data" or name == "shape":
            raise ValueError(_UNINITIALIZED.format(where="a symgrad function", cls=cls))
        with _inside:
            value = object.__getattribute__(self, name)
        if getattr(value, "__self__", None) is not self or name.startswith("_"):
            return value
        if name in _ALLOWED:
            return _run_inside(value)
        return _refuse(name, cls)

    def __setattr__(self, name: str, value: Any) -> None:
        with _inside:
            object.__setattr__(self, name, value)

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give the tensor new values of ``shape`` (uninitialized memory: zeros in symgrad)
        and ``dtype`` (default: its own), and turn it into a ``cls_to_become``."""
        from symgrad.creation import empty

        with _inside:
            dtype = self.dtype if dtype is None else dtype
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            device = self.device if device is None else device
            self.data = empty(shape, device=device, dtype=dtype)
            self.__class__ = self.cls_to_become

    def share_memory_(self) -> None:
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`."
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol: int) -> tuple:
        with _inside:
            return (type(self), (self.requires_grad, None, self.dtype))

    def __deepcopy__(self, memo: dict) -> Any:
        with _inside:
            copy = type(self)(self.requires_grad, None, self.dtype)
        memo[id(self)] = copy
        return copy


def _from_an_op() -> bool:
    """Whether the caller (two frames up) is one of symgrad's ops, rather than the user's
    code or the state-dict loader."""
    caller = sys._getframe(2).f_globals.get("__name__", "")
    return caller.startswith("symgrad.") and caller != "symgrad.nn.modules._state_dict"


def _run_inside(method: Any) -> Any:
    def allowed(*args: Any, **kwargs: Any) -> Any:
        with _inside:
            result = method(*args, **kwargs)
            owner = method.__self__
            # a buffer's conversions stay uninitialized (PyTorch keeps a Tensor subclass
            # through its ops; a Parameter gives plain tensors)
            if isinstance(owner, UninitializedBuffer) and isinstance(result, Tensor):
                if result is not owner:
                    result = UninitializedBuffer(result.requires_grad, None, result.dtype)
            return result

    return allowed


def _refuse(name: str, cls: str) -> Any:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(_UNINITIALIZED.format(where=f"Tensor.{name}", cls=cls))

    return refused


def _empty(dtype: Any, device: Any) -> Tensor:
    from symgrad.creation import empty

    return empty(0, dtype=dtype, device=device)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter without a shape yet, as a lazy module (``nn.LazyLinear``) holds until its
    first call infers the shape: ``materialize(shape)`` turns it into a :class:`Parameter`.

    Examples
    --------
    >>> from symgrad import nn
    >>> p = nn.UninitializedParameter()
    >>> p, nn.parameter.is_lazy(p)
    (<UninitializedParameter>, True)
    >>> p.materialize((2, 3))
    >>> type(p).__name__, p.shape
    ('Parameter', symgrad.Size([2, 3]))
    """

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(
        cls, requires_grad: bool = True, device: Any = None, dtype: Any = None
    ) -> UninitializedParameter:
        return Parameter.__new__(cls, _empty(dtype, device), requires_grad)

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass  # everything is done in __new__


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer without a shape yet (a lazy batch norm's running statistics):
    ``materialize(shape)`` turns it into a plain tensor.

    Examples
    --------
    >>> from symgrad import nn
    >>> b = nn.UninitializedBuffer()
    >>> b.materialize(2)
    >>> b
    tensor([0., 0.])
    """

    __slots__ = ()

    def __new__(
        cls, requires_grad: bool = False, device: Any = None, dtype: Any = None
    ) -> UninitializedBuffer:
        b = object.__new__(cls)
        with _inside:
            _init(b, _empty(dtype, device)._data, None)
            b._requires_grad = False
            b.requires_grad = requires_grad
        return b

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> None:
        pass  # everything is done in __new__


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an uninitialized parameter or buffer (its shape not yet known).

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.parameter.is_lazy(nn.UninitializedBuffer()), nn.parameter.is_lazy(None)
    (True, False)
    """
    return isinstance(param, UninitializedTensorMixin)


def _check_detachable(data: Any) -> None:
    """PyTorch calls ``data.detach()``: data without that method fails with Python's own
    AttributeError there; anything else that is not a tensor can't become a Parameter."""
    try:
        data.detach  # noqa: B018 - the attribute lookup is the check
    except AttributeError as error:
        raise AttributeError(
            f"{error}\n(Parameter() takes a tensor: wrap the data first, e.g. "
            "nn.Parameter(symgrad.tensor(data)))"
        ) from None
    raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
