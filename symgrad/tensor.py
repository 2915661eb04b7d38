"""The Tensor: a NumPy array, its autograd flags, its version counter and its views.

Its op methods and operators are bound by :mod:`symgrad.ops` (one table), and ``backward`` and
the gradient hooks by :mod:`symgrad.autograd`, so this module imports neither.
"""

from __future__ import annotations

import copy
import threading
import warnings
import weakref
from typing import Any

import numpy as np

from symgrad import _version, dtypes
from symgrad._assign import check_data, check_grad, check_requires_grad
from symgrad._copied_memory import copied_memory
from symgrad._data import HoldsArray, Size, _wrap_dim
from symgrad._legacy_constructor import legacy_array
from symgrad._meta import MetaArray
from symgrad._tensor_names import NAMES
from symgrad._tracing import TRACE, escape
from symgrad._unrecorded import note_data
from symgrad._version import NO_VERSION, Version

__all__ = ["Tensor"]

_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor."
)

# a shape is ints already: a Size made without Size()'s check of its items
_new_size = tuple.__new__


class Tensor(HoldsArray):
    """A multi-dimensional array that can record the ops applied to it for autograd.

    Make tensors with :func:`symgrad.tensor` and the other factories rather than directly.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([2.0], requires_grad=True)
    >>> y = x * x + 1
    >>> y.backward()
    >>> x.grad
    tensor([4.])
    """

    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad",
        "grad_fn",
        "_output_nr",
        "_counter",
        "_name",
        "_retains_grad",
        "_accumulator",
        "_view_base",
        "_views",
        "_origin",
        "_fw",
        "__dict__",  # the user's own attributes (``t.note = ...``), as PyTorch's tensors take
        "__weakref__",
    )
    __array_priority__ = 1000  # so numpy_array * tensor defers to Tensor.__rmul__

    def __init__(self, *args: Any, requires_grad: bool = False) -> None:
        if hasattr(self, "_data"):  # a subclass's __new__ built it (Tensor._make_subclass)
            return
        _init(self, legacy_array(args), None)
        self.requires_grad = requires_grad

    @staticmethod
    def _make(data: np.ndarray, grad_fn: Any = None, requires_grad: bool = False) -> Tensor:
        """Wrap ``data`` (owned, already of a supported dtype) without checks: the op path."""
        # every field of a new tensor, written out here: this runs once per op, and the
        # other ways of making a tensor copy them from here (``_init``)
        t = object.__new__(Tensor)
        t._data = data
        t.grad_fn = grad_fn
        t._requires_grad = requires_grad
        t._grad = None
        t._output_nr = 0
        # the global is the cheap test: only a thread in inference mode makes inference tensors
        t._counter = NO_VERSION if _inference_threads and _version.state.inference else Version()
        t._name = None
        t._retains_grad = False
        t._accumulator = None
        t._view_base = None  # (the tensor whose memory this one shares, whether it is a view)
        t._views = None  # weak references to the tensors that share this one's memory
        t._origin = None  # the op that made it from named tensors, when it recorded no grad_fn
        t._fw = None  # (dual level, tangent) in forward mode (symgrad.autograd.dual)
        return t

    # -- flags -----------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Whether ops on this tensor are recorded so gradients can flow back to it."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        check_requires_grad(self, value)
        self._requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set :attr:`requires_grad` in place and return ``self``."""
        if type(requires_grad) is not bool:
            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{type(requires_grad).__name__}"
            )
        check_requires_grad(self, requires_grad, "only Tensors of floating point dtype")
        self._requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors made by the user (or not requiring grad): ``grad_fn is None``."""
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient (leaves, or tensors after :meth:`retain_grad`)."""
        # PyTorch warns only while a non-leaf's .grad is still unset (backward(inputs=...) or
        # an assignment can fill it without retain_grad)
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:
            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:  # (None, every zero_grad's value, needs no check)
            check_grad(self, value)
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf tensor whose ``.grad`` is kept (see :meth:`retain_grad`)."""
        return self._retains_grad

    @property
    def name(self) -> str | None:
        """An optional name: the symbol this tensor stands for in closed forms."""
        return self._name

    @name.setter
    def name(self, value: str | None) -> None:
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ValueError(f"a tensor name must be a non-empty string, got {value!r}")
        NAMES.give(self, value)
        self._name = value
        NAMES.used = NAMES.used or value is not None
        if self.grad_fn is not None:  # so closed forms and derivations can call it by name
            names = self.grad_fn.metadata.setdefault("names", {})
            if value is None:
                names.pop(self._output_nr, None)
            else:
                names[self._output_nr] = value

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's values have had (PyTorch's ``_version``)."""
        return _version.version_of(self)

    # -- metadata --------------------------------------------------------------------------
    @property
    def data(self) -> Tensor:
        """This tensor's values as a tensor that does not require grad (shares memory)."""
        t = Tensor._make(self._data)
        _version.same_kind(t, self)
        note_data(t, self)
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        check_data(self, value)
        self._data = value._data

    @property
    def dtype(self) -> dtypes.dtype:
        """The element type, e.g. ``symgrad.float32``."""
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def shape(self) -> Size:
        """The size of each dimension (a :class:`symgrad.Size`, a tuple)."""
        return _new_size(Size, self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of dimension ``dim``."""
        if dim is None:
            return _new_size(Size, self._data.shape)
        return self._data.shape[_wrap_dim(dim, self.ndim)]

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def numel(self) -> int:
        """The number of elements."""
        return self._data.size

    def nelement(self) -> int:
        """The number of elements (alias of :meth:`numel`)."""
        return self._data.size

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def element_size(self) -> int:
        return self._data.itemsize

    # -- conversion ------------------------------------------------------------------------
    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if TRACE.log is not None:
            escape(self, "item()")
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        """The values as (nested) Python lists."""
        if TRACE.log is not None:
            escape(self, "tolist()")
        return self._data.tolist()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        data = self.numpy()  # refused for a tensor that requires grad, as in PyTorch
        return data if dtype is None else data.astype(dtype)

    # -- graph -----------------------------------------------------------------------------
    def detach(self) -> Tensor:
        """A tensor with the same values (shared memory) cut from the graph."""
        t = Tensor._make(self._data)
        link_view(self, t, "alias")
        if TRACE.log is not None:
            TRACE.detached(self, t)
        return t

    def detach_(self) -> Tensor:
        """Cut this tensor from the graph in place, making it a leaf (not for a view)."""
        if self._view_base is not None and self._view_base[1] != "alias":
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead: it returns a new tensor "
                f"(this one, of shape {list(self.shape)}, shares its memory with another)."
            )
        self.grad_fn = None
        self._requires_grad = False
        self._fw = None  # its tangent goes too
        return self

    # -- printing --------------------------------------------------------------------------
    def __repr__(self, *, tensor_contents: str | None = None) -> str:
        from symgrad._tensor_text import tensor_text

        return tensor_text(self, self._repr_prefix(), tensor_contents)

    def _repr_prefix(self) -> str:
        # PyTorch opens a subclass's text with its class name: MyTensor([1., 2.])
        return "tensor(" if type(self) is Tensor else f"{type(self).__name__}("

    def __format__(self, spec: str) -> str:
        # PyTorch formats a plain 0-d tensor as its number, spec or not: f"{loss:.4f}"; any
        # other tensor (more elements, a Parameter, meta) only as its repr, without a spec
        if self._data.ndim == 0 and type(self._data) is not MetaArray and type(self) is Tensor:
            return format(self._data.item(), spec)
        if spec:
            raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
        return str(self)

    def __bool__(self) -> bool:
        if TRACE.log is not None:
            escape(self, "bool()")
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if self._data.size
                else "Boolean value of Tensor with no values is ambiguous"
            )
        return bool(self._data)

    def __int__(self) -> int:
        return int(self._scalar())

    def _scalar(self) -> Any:  # float(t), int(t): a ValueError for many elements, as PyTorch
        if TRACE.log is not None:
            escape(self, "float() or int()")
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __iter__(self) -> Any:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __reduce_ex__(self, protocol: int) -> tuple:
        # plain pickle (multiprocessing, a cache on disk): the values, dtype, shape, flag and the
        # user's attributes, as in PyTorch; not the graph, the .grad or the tensors sharing memory
        data = self._data
        values = np.array(data) if type(data) is np.ndarray else data
        args = (type(self), values, self._requires_grad)
        return (_unpickled, args, dict(self.__dict__)) if self.__dict__ else (_unpickled, args)

    def __deepcopy__(self, memo: dict) -> Tensor:
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment"
            )
        t = Tensor._make(copied_memory(self._data, memo), requires_grad=self._requires_grad)
        NAMES.give(t, self._name)
        t._name = self._name
        if self._grad is not None:
            t._grad = Tensor._make(self._grad._data.copy())
        memo[id(self)] = t
        if self.__dict__:  # the user's attributes, copied deeply as PyTorch does
            t.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return t


Tensor.__module__ = "symgrad"  # its public home, as torch.Tensor's is torch

# the slots of a tensor's fields (not its __dict__ and __weakref__), for ``_init``
_FIELDS = tuple(Tensor.__dict__[name] for name in Tensor.__slots__ if not name.startswith("__"))


def _unpickled(cls: type, data: Any, requires_grad: bool) -> Tensor:
    """A tensor (or Parameter) pickled by ``Tensor.__reduce_ex__``."""
    t = object.__new__(cls)
    _init(t, data, None)
    t._requires_grad = requires_grad
    return t


def _init(t: Tensor, data: np.ndarray, grad_fn: Any) -> None:
    """Set up ``t`` (made by ``object.__new__``, of Tensor or a subclass) with the fields
    :meth:`Tensor._make` gives a new tensor."""
    made = Tensor._make(data, grad_fn)
    for field in _FIELDS:
        field.__set__(t, field.__get__(made))


_inference_threads = 0  # how many threads are in inference mode
_inference_lock = threading.Lock()


def count_inference_thread(entering: bool) -> None:
    """Count a thread entering (True) or leaving inference mode."""
    global _inference_threads
    with _inference_lock:
        _inference_threads += 1 if entering else -1


_INHERITED_KINDS = frozenset(("multi", "multi_plain", "function", "no_grad"))


def link_view(base: Tensor, view: Tensor, kind: str = "view") -> None:
    """Remember that ``view`` shares ``base``'s memory: one version counter for both, as in
    PyTorch (so a view of an inference tensor is one too). ``kind`` is "view", "no_grad" (a
    view made under no_grad), "multi" (a piece of split/unbind), "multi_plain" (one of a
    tensor that required no grad) or "alias" (shares the memory
    without being a view: ``detach()``). A plain view of one of the first three is one too,
    as PyTorch's views inherit how their base was made; a "no_grad" view of a tensor that
    requires grad requires grad, as PyTorch's, with no history and no ``.grad`` of its own."""
    shared = base._view_base
    root = shared[0] if shared is not None and shared[1] != "alias" else base
    if kind == "view" and shared is not None and shared[1] in _INHERITED_KINDS:
        kind = shared[1]
    if kind == "no_grad" and base._requires_grad:
        view._requires_grad = True
    view._counter = root._counter
    view._view_base = (root, kind)
    views = root._views
    if views is None:
        root._views = [weakref.ref(view)]
        return
    views.append(weakref.ref(view))
    if len(views) >= 16 and not len(views) & (len(views) - 1):
        views[:] = [r for r in views if r() is not None]  # at powers of two: amortized O(1)


def live_aliases(t: Tensor) -> tuple[Tensor | None, str | None, list]:
    """The tensor whose memory ``t`` shares (None if ``t`` owns its memory), how (see
    :func:`link_view`), and the live tensors sharing that memory (``t``'s own when it owns
    it)."""
    if t._view_base is None:
        root, kind = None, None
        views = t._views
    else:
        root, kind = t._view_base
        views = root._views
    return root, kind, [v for v in (r() for r in views or ()) if v is not None]


def bind_methods(methods: dict) -> None:
    """Make each function of ``methods`` (``{name: function}``) the Tensor method ``name``;
    a ``property`` becomes a Tensor property. The layers above bind their methods this way."""
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
