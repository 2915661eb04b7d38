"""The ``out=`` keyword of PyTorch's functions: the result written into a given tensor.

The public functions listed here take ``out=``; the package's own code calls the plain ones.
As in PyTorch: ``out`` is resized to the result's shape (with PyTorch's deprecation warning
when it had elements), the result is cast to ``out``'s dtype when that does not lose its kind
(float into int is refused), ``out``'s version counter is bumped, and ``out`` is returned.
With grad mode on, ``out=`` is refused when any argument or ``out`` requires grad.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import creation, dtypes
from symgrad._memory_format import empty_strided, target_strides
from symgrad._tracing import TRACE, write
from symgrad._version import check_writable
from symgrad.autograd import dual
from symgrad.autograd.grad_mode import is_grad_enabled
from symgrad.ops import (
    bitwise,
    comparisons,
    fused_products,
    gathering,
    joining,
    linalg,
    math,
    reductions,
    sampling,
    scans,
)
from symgrad.ops.index_keys import warn_at_user
from symgrad.tensor import Tensor

_RESIZED = (
    "An output with one or more elements was resized since it had shape {old}, which does not "
    "match the required output shape {new}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0)."
)
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2}


def _requires_grad(value: Any) -> bool:
    if isinstance(value, Tensor):
        return value._requires_grad
    if isinstance(value, (list, tuple)):
        return any(_requires_grad(v) for v in value)
    return False


def _write(name: str, result: Tensor, out: Tensor, joining: bool = False) -> None:
    if TRACE.log is not None:
        write(out, f"{name}(out=...)")
    source, target = result._data.dtype, out._data.dtype
    if _KIND_RANK[source.kind] > _KIND_RANK[target.kind]:
        names = [dtypes.from_numpy_dtype(d).scalar_type for d in (source, target)]
        if joining:  # PyTorch's cat refuses with a TypeError
            raise TypeError(
                f"torch.cat(): input types can't be cast to the desired output type {names[1]}"
            )
        raise RuntimeError(
            f"result type {names[0]} can't be cast to the desired output type {names[1]}"
        )
    check_writable(out)
    if out._data.shape != result._data.shape:
        if out._data.size:
            warn_at_user(_RESIZED.format(old=list(out.shape), new=list(result.shape)))
        # laid out as the result is, as PyTorch resizes an output to the op's own strides
        strides = target_strides(result._data, None)
        shape = result._data.shape
        out._data = (
            np.empty(shape, target) if strides is None else empty_strided(shape, target, strides)
        )
    out._data[...] = result._data
    out._counter.value += 1


def _check_out_type(name: str, out: Any) -> None:
    if isinstance(out, (tuple, list)) and all(isinstance(o, Tensor) for o in out):
        return  # the outputs of a function with several (linalg.slogdet, linalg.qr, ...)
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")


def _write_results(
    name: str, result: Any, out: Any, exact: bool | str = False, joining: bool = False
) -> Any:
    """``result`` written into ``out``: one tensor, or each of several into its own (of the
    result's own dtype where ``exact``, else cast to out's)."""
    if not isinstance(result, tuple):
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        if exact is True:
            _same_dtype_as(name, result, out)
        _write(name, result, out, joining)
        return out
    if not isinstance(out, (tuple, list)) or len(out) != len(result):
        raise TypeError(
            f"{name}(): argument 'out' must be tuple of {len(result)} Tensors, not "
            f"{type(out).__name__}"
        )
    if exact:
        for r, o in zip(result, out):
            _same_dtype_as(name, r, o)
    for r, o in zip(result, out):
        _write(name, r, o)
    if not hasattr(result, "_fields"):
        return tuple(out)
    kind = type(result)  # (torch.linalg's are named for it: linalg_eigh_out)
    return _out_type(kind, kind.__name__ if kind.__name__.startswith("linalg_") else name)(*out)


def _same_dtype_as(name: str, result: Tensor, out: Tensor) -> None:
    """PyTorch's refusal of ``out`` of a dtype other than the result's (the functions whose
    kernels write their own dtype only: reductions to values and indices, rounding, ...);
    ``all`` and ``any`` also write into uint8."""
    found, expected = out._data.dtype, result._data.dtype
    if found == expected or (name in ("all", "any") and found == np.uint8):
        return
    names = [dtypes.cpp_name(dtypes.from_numpy_dtype(d)) for d in (expected, found)]
    raise RuntimeError(
        f"Expected out tensor to have dtype {names[0]}, but got {names[1]} instead ({name}() "
        f"writes its result's dtype only: pass out= of dtype {dtypes.from_numpy_dtype(expected)})"
    )


@functools.cache
def _out_type(kind: type, name: str) -> type:
    """The named tuple function ``name`` returns with ``out=`` (PyTorch's ``sort_out`` for
    ``sort``): the same fields, printed under the ``_out`` name."""
    op = f"{name}_out"

    def __repr__(self: Any) -> str:
        inner = ",\n".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"symgrad.return_types.{op}(\n{inner})"

    namespace = {"__slots__": (), "op": op, "__repr__": __repr__, "__module__": kind.__module__}
    return type(op, (kind,), namespace)


def with_out(
    fn: Callable,
    check: Callable | None = None,
    *,
    differentiable: bool = True,
    dtype_of_out: bool = False,
    exact: bool | str = False,
    joining: bool = False,
) -> Callable:
    """``fn`` taking PyTorch's ``out=`` keyword as well (``check(args, kwargs, out)``
    refusing the calls PyTorch has no ``out=`` overload for). A function that is not
    ``differentiable`` (a comparison) takes arguments that require grad; with
    ``dtype_of_out`` (sums, products, scans) ``out``'s dtype is the ``dtype=`` it computes in;
    an ``exact`` one writes only into ``out`` of its result's dtype (``"tuple"``: where it
    returns several tensors, as ``max(x, dim)``, not ``max(x)``); a ``joining`` one (cat)
    refuses a cast with PyTorch's TypeError."""
    name = fn.__name__
    prim = getattr(fn, "_prim", None)  # a one-input op that only calls its primitive

    @functools.wraps(fn)
    def call(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is None:
            if prim is not None and len(args) == 1 and not kwargs and type(args[0]) is Tensor:
                return prim(args[0])  # one call fewer, on the path of every exp(x)
            return fn(*args, **kwargs)
        _check_out_type(name, out)
        if check is not None:
            check(args, kwargs, out)
        if dtype_of_out:
            _dtype_of_out(kwargs, out)
        if (
            differentiable
            and is_grad_enabled()
            and (
                _requires_grad(out) or _requires_grad(args) or _requires_grad(list(kwargs.values()))
            )
        ):
            raise RuntimeError(
                f"{name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )
        if dual.active() and _has_tangent([out, *args, *kwargs.values()]):
            raise NotImplementedError(
                f"Trying to use forward AD with {name}_out that does not support it because it "
                "is an out= function"
            )
        return _write_results(name, fn(*args, **kwargs), out, exact, joining)

    call._takes_out = True  # type: ignore[attr-defined]
    return call


def _has_tangent(values: list) -> bool:
    for v in values:
        if isinstance(v, Tensor) and dual.tangent_of(v) is not None:
            return True
        if isinstance(v, (list, tuple)) and _has_tangent(list(v)):
            return True
    return False


def _dtype_of_out(kwargs: dict, out: Tensor) -> None:
    wanted = kwargs.get("dtype")
    if wanted is not None and dtypes.as_dtype(wanted) is not out.dtype:
        names = [dtypes.cpp_name(d) for d in (dtypes.as_dtype(wanted), out.dtype)]
        raise RuntimeError(
            f"Expected out tensor to have dtype {names[0]}, but got {names[1]} instead"
        )
    kwargs["dtype"] = out.dtype


def _floating_out(args: tuple, kwargs: dict, out: Tensor) -> None:
    """PyTorch's nansum and nanmean have no kernel writing integers; a ``dtype=`` must be
    ``out``'s, and without one a floating input is summed in ``out``'s dtype."""
    if out.dtype.is_floating_point is False:
        raise NotImplementedError(
            f"\"nansum_cpu\" not implemented for '{out.dtype.scalar_type}': give out= of a "
            "floating dtype"
        )
    wanted = kwargs.get("dtype")
    if wanted is not None and dtypes.as_dtype(wanted) is not out.dtype:
        raise RuntimeError(
            "nansum: provided dtype must match dtype of result. Got "
            f"{out.dtype.scalar_type} and {dtypes.as_dtype(wanted).scalar_type}."
        )
    if args and isinstance(args[0], Tensor) and args[0].dtype.is_floating_point:
        kwargs["dtype"] = out.dtype


def _mean_dtype(args: tuple, kwargs: dict, out: Tensor) -> None:
    """PyTorch's refusal of a mean's ``dtype=`` other than ``out``'s."""
    wanted = kwargs.get("dtype")
    if wanted is not None and dtypes.as_dtype(wanted) is not out.dtype:
        names = [dtypes.cpp_name(d) for d in (dtypes.as_dtype(wanted), out.dtype)]
        raise RuntimeError(
            f"Expected out tensor to have dtype {names[0]}, but got {names[1]} instead"
        )


def _full_sum(args: tuple, kwargs: dict, out: Tensor) -> None:
    if len(args) < 2 and "dim" not in kwargs:  # PyTorch's full sum has no out= overload
        raise TypeError(
            "sum() received an invalid combination of arguments - got (Tensor, out=Tensor): "
            "sum(input, dim, keepdim=False, *, dtype=None, out=None) takes out= with a dim"
        )


sum = with_out(reductions.sum, _full_sum, dtype_of_out=True)  # noqa: A001 - PyTorch's name
add = with_out(math.add)
sub = with_out(math.sub)
mul = with_out(math.mul)
div = with_out(math.div)
pow = with_out(math.pow)  # noqa: A001
neg = with_out(math.neg, exact=True)
clamp = with_out(math.clamp)
where = with_out(math.where)
exp = with_out(math.exp)
log = with_out(math.log)
sqrt = with_out(math.sqrt)
abs = with_out(math.abs, exact=True)  # noqa: A001
tanh = with_out(math.tanh)
sigmoid = with_out(math.sigmoid)
mean = with_out(reductions.mean, _mean_dtype)
prod = with_out(reductions.prod, dtype_of_out=True)
cumsum = with_out(scans.cumsum, dtype_of_out=True)
cumprod = with_out(scans.cumprod, dtype_of_out=True)
gather = with_out(gathering.gather, exact=True)
index_select = with_out(gathering.index_select, exact=True)
eq = with_out(comparisons.eq, differentiable=False)
ne = with_out(comparisons.ne, differentiable=False)
lt = with_out(comparisons.lt, differentiable=False)
le = with_out(comparisons.le, differentiable=False)
gt = with_out(comparisons.gt, differentiable=False)
ge = with_out(comparisons.ge, differentiable=False)
logical_and = with_out(comparisons.logical_and, differentiable=False)
logical_or = with_out(comparisons.logical_or, differentiable=False)
logical_not = with_out(comparisons.logical_not, differentiable=False)
matmul = with_out(linalg.matmul, exact=True)
mm = with_out(linalg.mm, exact=True)
bmm = with_out(linalg.bmm, exact=True)
cat = with_out(joining.cat, joining=True)
stack = with_out(joining.stack)
bitwise_and = with_out(bitwise.bitwise_and)
bitwise_or = with_out(bitwise.bitwise_or)
bitwise_xor = with_out(bitwise.bitwise_xor)
bitwise_left_shift = with_out(bitwise.bitwise_left_shift)
bitwise_right_shift = with_out(bitwise.bitwise_right_shift)
bitwise_not = with_out(bitwise.bitwise_not)
addmm = with_out(fused_products.addmm, exact=True)
addmv = with_out(fused_products.addmv, exact=True)
addr = with_out(fused_products.addr)
baddbmm = with_out(fused_products.baddbmm, exact=True)
addbmm = with_out(fused_products.addbmm, exact=True)


def random_out(fn: Callable, dtype_of_out: bool = True) -> Callable:
    """A factory (``zeros``, ``arange``, a random one) taking ``out=``: the values are made in
    ``out``'s dtype (refused if ``dtype=`` says otherwise) and written into ``out``, resized
    silently as PyTorch's factories do; ``requires_grad=True`` sets it on ``out``."""
    name = fn.__name__
    prim = getattr(fn, "_prim", None)  # a one-input op that only calls its primitive

    @functools.wraps(fn)
    def call(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is None:
            if prim is not None and len(args) == 1 and not kwargs and type(args[0]) is Tensor:
                return prim(args[0])  # one call fewer, on the path of every exp(x)
            return fn(*args, **kwargs)
        _check_out_type(name, out)
        if out._requires_grad and is_grad_enabled():
            raise RuntimeError(
                f"{name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )
        requires_grad = kwargs.pop("requires_grad", False)
        if dtype_of_out:
            wanted = kwargs.get("dtype")
            if wanted is not None and dtypes.as_dtype(wanted) is not out.dtype:
                raise RuntimeError(
                    f"dtype {dtypes.as_dtype(wanted).scalar_type} does not match dtype of out "
                    f"parameter ({out.dtype.scalar_type})"
                )
            kwargs["dtype"] = out.dtype
        result = fn(*args, **kwargs)
        check_writable(out)
        if out._data.shape != result._data.shape:
            out._data = np.empty(result._data.shape, out._data.dtype)
        out._data[...] = result._data
        out._counter.value += 1
        if requires_grad:
            out.requires_grad_(True)
        return out

    return call


rand = random_out(creation.rand)
randn = random_out(creation.randn)
randint = random_out(creation.randint)
randperm = random_out(creation.randperm)
normal = random_out(sampling.normal, dtype_of_out=False)
bernoulli = random_out(sampling.bernoulli, dtype_of_out=False)

# PyTorch's functions that take out= beyond those above, wrapped where their namespace is
# assembled (add_out): the result cast into out's dtype, as element-wise kernels write
CAST_OUT = (
    "acos acosh addcdiv addcmul angle arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin "
    "asinh atan atan2 atanh cholesky cholesky_inverse cholesky_solve copysign cos cosh deg2rad "
    "diff digamma divide erf erfc erfinv exp2 expm1 floor_divide fmax fmin fmod "
    "gcd geqrf ger greater greater_equal hypot i0 igamma igammac kron lcm ldexp lerp less "
    "less_equal lgamma log10 log1p log2 logaddexp logaddexp2 logical_xor logit logsumexp "
    "maximum minimum multiply mvlgamma nextafter not_equal outer polygamma "
    "orgqr rad2deg reciprocal remainder rsqrt sin sinc sinh square std subtract "
    "tan true_divide var xlogy"
).split()
# those that write their result's own dtype only (reductions to values and indices, rounding,
# the matrix products and solves...)
EXACT_OUT = (
    "absolute all amax amin aminmax any argmax argmin bucketize ceil clamp_max clamp_min clip "
    "conj_physical cross cummax cummin diag dot fix float_power floor frac frexp heaviside histc "
    "index_add inner inverse isneginf isposinf kthvalue logcumsumexp masked_select "
    "matrix_power median mode msort mv nan_to_num nanmedian nanquantile narrow_copy negative "
    "nonzero norm quantile renorm round searchsorted sgn sign signbit sort svd take "
    "take_along_dim topk triangular_solve tril triu trunc vdot"
    " chain_matmul lu_solve lu_unpack ormqr qr slogdet tensordot"
).split()
JOINING_OUT = "column_stack concat concatenate dstack hstack row_stack vstack".split()
FACTORIES_OUT = "arange empty eye full linspace logspace ones range zeros".split()


_WRAPPED: dict = {}  # each function's one wrapper


def add_out(namespace: dict, names: Any = None, **options: Any) -> None:
    """Give the functions of ``namespace`` (a module's globals) named in the tables above, or
    those in ``names`` (with ``with_out``'s ``options``), PyTorch's ``out=`` keyword."""
    tables = (
        [(names, options)]
        if names is not None
        else [
            (CAST_OUT, {}),
            (EXACT_OUT, {"exact": True}),
            (JOINING_OUT, {"joining": True}),
            (("max", "min"), {"exact": "tuple"}),  # max(x, dim)'s values and indices
            (("nansum", "nanmean"), {"check": _floating_out}),
        ]
    )
    for table, options in tables:
        for name in table:
            fn = namespace.get(name)
            if fn is not None and not hasattr(fn, "_takes_out"):
                # (modules that share a function share its wrapper: symgrad.functional.norm)
                wrapper = _WRAPPED.get(fn)
                if wrapper is None:
                    wrapper = _WRAPPED[fn] = with_out(fn, **options)
                namespace[name] = wrapper
    if names is None:
        for name in FACTORIES_OUT:
            namespace[name] = random_out(namespace[name])


__all__ = [
    "add", "sub", "mul", "div", "pow", "neg", "clamp", "where", "exp", "log", "sqrt", "abs",
    "tanh", "sigmoid", "sum", "mean", "prod", "matmul", "mm", "bmm", "cat", "stack",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "bitwise_not", "rand", "randn", "randint", "randperm", "normal", "bernoulli", "addmm",
    "addmv", "addr", "baddbmm", "addbmm", "cumsum", "cumprod", "gather", "index_select", "eq",
    "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not",
]  # fmt: skip
