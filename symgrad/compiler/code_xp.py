"""The code interpreter of the rule vocabulary: a rule run on it writes itself out as lines of
NumPy source, one line per word, for :mod:`symgrad.compiler.emit`.

A value is a :class:`Var`: the name of a temporary of the generated program and the array it
holds in the traced call (a probe of ones for a gradient). Every word computes its result on
those arrays with the NumPy interpreter, so shapes, dtypes and layouts are the ones the program
will meet, and appends the line that computes it; what is known from shapes alone is settled
here and writes nothing (a sum to the shape a value already has, an unsqueeze as a reshape to
its known shape). Numbers and arrays that are not values (a rule's constants, a mask the
parameters hold) go into the program's namespace under generated names; no text but generated
names, ints and NumPy's own attribute names is ever written.

A rule that needs more than the vocabulary and Python's operators (it converts a value to an
array or a number, branches on its elements, or calls NumPy on it directly) raises
:class:`Unemittable`, or the error NumPy raises for an operand that refuses its functions:
that step keeps calling its rule through the NumPy interpreter.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from symgrad.prim.kernels import typed_number
from symgrad.prim.numpy_xp import NP
from symgrad.prim.vocab import VOCABULARY

__all__ = ["CodeXP", "Emitter", "Unemittable", "Var"]


class Unemittable(Exception):
    """A rule did something with a value that the code interpreter can't write out."""


class Emitter:
    """The lines of one step and the namespace entries they use."""

    def __init__(self, ns: dict, prefix: str, known: dict | None = None) -> None:
        self.ns = ns
        # the program's transposed views: name -> (the array's name, its value, the two axes),
        # so that transposing one again gives the array itself, not a view of a view
        self.known = {} if known is None else known
        self.prefix = prefix  # the step's own prefix: its temporaries never clash with others'
        self.lines: list[str] = []
        self._count = 0
        self._consts: dict[int, str] = {}
        self.scalars: dict[str, Var] = {}  # a 0-d array's name -> its scalar (``_number``)

    def fresh(self) -> str:
        self._count += 1
        return f"{self.prefix}_{self._count}"

    def const(self, obj: Any) -> str:
        """The namespace name holding ``obj`` (a number, an array, a function, a key)."""
        name = self._consts.get(id(obj))
        if name is None:
            name = self._consts[id(obj)] = f"{self.prefix}k{len(self._consts)}"
            self.ns[name] = obj
        return name

    def render(self, obj: Any) -> str:
        """Source for ``obj``: a value's name, a tuple or list holding values, an int, or a
        namespace name."""
        if type(obj) is Var:
            return obj.name
        if type(obj) in (tuple, list) and any(_holds_var(o) for o in obj):
            items = ", ".join(self.render(o) for o in obj)
            return f"({items},)" if type(obj) is tuple else f"[{items}]"
        if obj is None or type(obj) is bool or type(obj) is int:
            return repr(obj)
        return self.const(obj)

    def emit(self, source: str, value: Any) -> Var:
        """A new temporary computed by the expression ``source``, holding ``value`` in the
        traced call."""
        name = self.fresh()
        self.lines.append(f"    {name} = {source}")
        return Var(self, name, value)

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` written as a call of ``fn`` from the namespace; computed at
        once when no argument is a value."""
        result = fn(*[_value(a) for a in args], **{k: _value(v) for k, v in kwargs.items()})
        if not any(_holds_var(a) for a in (*args, *kwargs.values())):
            return result
        given = [self.render(a) for a in args]
        for k, v in kwargs.items():
            if not k.isidentifier():  # pragma: no cover - the rules' own keywords
                raise Unemittable(f"keyword {k!r}")
            given.append(f"{k}={self.render(v)}")
        return self.emit(f"{self.const(fn)}({', '.join(given)})", result)


def _holds_var(obj: Any) -> bool:
    if type(obj) is Var:
        return True
    return type(obj) in (tuple, list) and any(_holds_var(o) for o in obj)


def _value(obj: Any) -> Any:
    if type(obj) is Var:
        return obj.value
    if type(obj) in (tuple, list) and any(_holds_var(o) for o in obj):
        return type(obj)(_value(o) for o in obj)
    return obj


def _number(v: Any) -> Any:
    """A 0-d array value read as NumPy's scalar (once per emitter) for arithmetic, where it
    costs a tenth of the array's; the result is the same (NumPy's scalar either way)."""
    if type(v) is not Var or type(v.value) is not np.ndarray or v.value.ndim:
        return v
    em = v.em
    scalar = em.scalars.get(v.name)
    if scalar is None:
        scalar = em.scalars[v.name] = em.emit(f"{v.name}[()]", v.value[()])
    return scalar


_ADD_REDUCE = np.add.reduce  # (one bound method: the namespace names it once)
_ARITHMETIC = frozenset(("+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!="))


def _binary(symbol: str, op: Any, reflected: bool = False) -> Any:
    typed = symbol in _ARITHMETIC

    def method(self: Var, other: Any) -> Any:
        self, other = _number(self), _number(other)
        if typed and type(other) in (int, float):
            # a number meeting an array: the program holds it as a 0-d array of the array's
            # dtype, which NumPy takes faster and computes with to the same bits
            other = typed_number(other, self.value)
        if reflected:
            value = op(_value(other), self.value)
            source = f"{self.em.render(other)} {symbol} {self.name}"
        else:
            value = op(self.value, _value(other))
            source = f"{self.name} {symbol} {self.em.render(other)}"
        return self.em.emit(source, value)

    return method


def _refuse(self: Var, *args: Any, **kwargs: Any) -> Any:
    raise Unemittable("a rule used a value as an array or a number")


class Var:
    """A temporary of the generated program and its array in the traced call."""

    __slots__ = ("em", "name", "value")
    __array_ufunc__ = None  # NumPy functions called on it refuse it (the step is not written)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, em: Emitter, name: str, value: Any) -> None:
        self.em, self.name, self.value = em, name, value

    shape = property(lambda self: np.shape(self.value))
    ndim = property(lambda self: np.ndim(self.value))
    size = property(lambda self: np.size(self.value))
    dtype = property(lambda self: np.result_type(self.value))
    strides = property(lambda self: np.asarray(self.value).strides)
    itemsize = property(lambda self: np.result_type(self.value).itemsize)

    __array__ = __bool__ = __float__ = __int__ = __index__ = __complex__ = _refuse
    __iter__ = __len__ = __setitem__ = _refuse

    __add__ = _binary("+", operator.add)
    __radd__ = _binary("+", operator.add, True)
    __sub__ = _binary("-", operator.sub)
    __rsub__ = _binary("-", operator.sub, True)
    __mul__ = _binary("*", operator.mul)
    __rmul__ = _binary("*", operator.mul, True)
    __truediv__ = _binary("/", operator.truediv)
    __rtruediv__ = _binary("/", operator.truediv, True)
    __pow__ = _binary("**", operator.pow)
    __rpow__ = _binary("**", operator.pow, True)
    __matmul__ = _binary("@", operator.matmul)
    __rmatmul__ = _binary("@", operator.matmul, True)
    __lt__ = _binary("<", operator.lt)
    __le__ = _binary("<=", operator.le)
    __gt__ = _binary(">", operator.gt)
    __ge__ = _binary(">=", operator.ge)
    __eq__ = _binary("==", operator.eq)  # type: ignore[assignment]
    __ne__ = _binary("!=", operator.ne)  # type: ignore[assignment]
    __and__ = _binary("&", operator.and_)
    __or__ = _binary("|", operator.or_)

    def __neg__(self) -> Var:
        return self.em.emit(f"-{self.name}", -self.value)

    def __invert__(self) -> Var:
        return self.em.emit(f"~{self.name}", ~self.value)

    def __getitem__(self, key: Any) -> Var:
        return self.em.emit(f"{self.name}[{self.em.render(key)}]", self.value[_value(key)])

    def astype(self, dtype: Any) -> Var:
        return self.em.emit(f"{self.name}.astype({self.em.const(dtype)})", self.value.astype(dtype))

    def __repr__(self) -> str:
        return f"Var({self.name})"


class CodeXP:
    """The rule vocabulary writing lines into ``em`` (see the module's docstring)."""

    def __init__(self, em: Emitter) -> None:
        self.em = em

    # -- shapes: settled from the known shapes, one reshape or view at most --------------------
    def reshape(self, a: Any, shape: tuple) -> Any:
        if type(a) is not Var:
            return NP.reshape(a, shape)
        value = NP.reshape(a.value, shape)
        if value.shape == a.shape and type(a.value) is np.ndarray:
            return a
        return self.em.emit(f"{a.name}.reshape({self.em.render(value.shape)})", value)

    def unsqueeze(self, a: Any, dim: int) -> Any:
        if type(a) is not Var:
            return NP.unsqueeze(a, dim)
        return self.reshape(a, NP.unsqueeze(a.value, dim).shape)

    def squeeze(self, a: Any, dim: Any) -> Any:
        if type(a) is not Var:
            return NP.squeeze(a, dim)
        return self.reshape(a, NP.squeeze(a.value, dim).shape)

    def expand(self, a: Any, shape: tuple) -> Any:
        return self.em.call(np.broadcast_to, a, tuple(shape))

    def permute(self, a: Any, dims: tuple) -> Any:
        if type(a) is not Var or type(a.value) is not np.ndarray:
            return self.em.call(NP.permute, a, dims)
        source = f"{a.name}.transpose({self.em.render(tuple(dims))})"
        return self.em.emit(source, a.value.transpose(dims))

    def transpose(self, a: Any, dim0: int, dim1: int) -> Any:
        if type(a) is not Var or type(a.value) is not np.ndarray:
            return self.em.call(NP.transpose, a, dim0, dim1)
        axes = frozenset((dim0 % a.ndim, dim1 % a.ndim))
        seen = self.em.known.get(a.name)
        if seen is not None and seen[2] == axes:  # the transpose of a transposed array
            return Var(self.em, seen[0], seen[1])
        value = a.value.swapaxes(dim0, dim1)
        out = self.em.emit(f"{a.name}.swapaxes({int(dim0)}, {int(dim1)})", value)
        self.em.known[out.name] = (a.name, a.value, axes)
        return out

    # -- reductions ----------------------------------------------------------------------------
    def sum(self, a: Any, dim: Any = None, keepdim: bool = False) -> Any:
        if type(a) is not Var or type(a.value) is not np.ndarray:
            return self.em.call(NP.sum, a, dim, keepdim)
        raw = a.value.sum(axis=dim, keepdims=keepdim)
        # a whole reduction gives NumPy's scalar, kept: arithmetic on it costs a tenth of the
        # same on a 0-d array, and a step's result is made an array at its end (``inline``).
        # The ufunc's reduce is what ndarray.sum calls, through a Python function of NumPy's
        self.em.ns["_add_reduce"] = _ADD_REDUCE
        kept = ", keepdims=True" if keepdim else ""
        return self.em.emit(f"_add_reduce({a.name}, {self.em.render(dim)}{kept})", raw)

    def sum_to_size(self, a: Any, shape: tuple) -> Any:
        shape = tuple(shape)
        if type(a) is not Var:
            return NP.sum_to_size(a, shape)
        if a.shape == shape:
            return a
        g = a.shape
        if len(g) < len(shape) or any(n != 1 and n != m for n, m in zip(shape[::-1], g[::-1])):
            return self.em.call(NP.sum_to_size, a, shape)
        lead = len(g) - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape) if n == 1 and g[lead + i] != 1
        )
        if axes:
            a = self.sum(a, axes, True)
        return self.reshape(a, shape)

    # -- algebra ---------------------------------------------------------------------------------
    def matmul(self, a: Any, b: Any) -> Any:
        if type(a) is Var and type(b) is Var and np.ndim(a.value) and np.ndim(b.value):
            return a @ b
        return self.em.call(np.matmul, a, b)

    def constant(self, a: Any) -> Any:
        return a

    def mul_scalar(self, a: Any, c: Any) -> Any:
        if type(a) is not Var:
            return NP.mul_scalar(a, c)
        return a * c  # (the number held as an array of a's dtype, where it is one)

    def div_scalar(self, a: Any, c: Any) -> Any:
        if type(a) is not Var or np.result_type(a.value) == np.float16:
            return self.em.call(NP.div_scalar, a, c)  # (float16: divided in float32)
        return a / c

    def elementwise(self, prim: Any, args: tuple, params: tuple = ()) -> Any:
        numeric = getattr(prim, "_raw", None) or prim.numeric  # the program runs silenced
        return self.em.call(numeric, *args, *params)

    def elementwise_vjp(
        self, prim: Any, i: int, args: tuple, out: Any, g: Any, params: tuple = ()
    ) -> Any:
        partial = prim.partial_kernels.get(i)
        if partial is not None and type(g) is Var:
            # the fused kernel is ``g * partial``: written out, the program calls the partial
            # alone (one Python call fewer)
            return g * self.em.call(partial, *args, out, *params)
        return self.em.call(prim.vjp_kernel(i), *args, out, g, *params)


def _word(name: str) -> Any:
    fn = getattr(NP, name)

    def word(self: CodeXP, *args: Any, **kwargs: Any) -> Any:
        return self.em.call(fn, *args, **kwargs)

    word.__name__ = name
    return word


for _name in VOCABULARY:  # the other words: a call of the NumPy interpreter's function
    if not hasattr(CodeXP, _name):
        setattr(CodeXP, _name, _word(_name))
