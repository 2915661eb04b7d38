"""The function :mod:`symgrad.symbolic.codegen` generates: called on arrays (one sample, a
batch, or leading batch dimensions), and written out as C source."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from sympy.printing.c import C99CodePrinter

from symgrad._silent import quiet
from symgrad.symbolic.chunked import evaluate_dask, joined_batch
from symgrad.tensor import Tensor

__all__ = ["CompiledFunction", "REDUCTIONS"]

REDUCTIONS = ("mean", "sum", "none")

# SymPy's C printer uses these POSIX names, which strict C99's <math.h> does not define
_C99_CONSTANTS = [
    f"#ifndef {name}\n#define {name} {value}\n#endif"
    for name, value in (
        ("M_PI", "3.14159265358979323846"),
        ("M_E", "2.71828182845904523536"),
        ("M_SQRT2", "1.41421356237309504880"),
        ("M_1_PI", "0.31830988618379067154"),
        ("M_2_PI", "0.63661977236758134308"),
        ("M_2_SQRTPI", "1.12837916709551257390"),
        ("M_SQRT1_2", "0.70710678118654752440"),
        ("M_LN2", "0.69314718055994530942"),
        ("M_LN10", "2.30258509299404568402"),
        ("M_PI_2", "1.57079632679489661923"),
        ("M_PI_4", "0.78539816339744830962"),
    )
]

# the stable kernels of symgrad.prim.special's functions, in C (nan in, nan out)
_C_HELPERS = {
    "sigmoid": (
        "static double symgrad_sigmoid(double x) {\n"
        "    const double e = exp(-fabs(x));\n"
        "    return x >= 0 ? 1 / (1 + e) : e / (1 + e);\n"
        "}"
    ),
    "softplus": (
        "static double symgrad_softplus(double x) {\n"
        "    return (x > 0 ? x : 0.0) + log1p(exp(-fabs(x)));\n"
        "}"
    ),
    "logaddexp": (
        "static double symgrad_logaddexp(double x, double y) {\n"
        "    if (isnan(x) || isnan(y)) return x + y;\n"
        "    const double m = x > y ? x : y;\n"
        "    if (isinf(m)) return m;\n"
        "    return m + log1p(exp(-fabs(x - y)));\n"
        "}"
    ),
}


class _CPrinter(C99CodePrinter):
    """C99 with the stable functions as calls of helpers; records which helpers it used."""

    def __init__(self) -> None:
        super().__init__()
        self.helpers: set[str] = set()

    def _print_sigmoid(self, e: Any) -> str:
        self.helpers.add("sigmoid")
        return f"symgrad_sigmoid({self._print(e.args[0])})"

    def _print_softplus(self, e: Any) -> str:
        self.helpers.add("softplus")
        return f"symgrad_softplus({self._print(e.args[0])})"

    def _print_logsumexp(self, e: Any) -> str:
        self.helpers.add("logaddexp")
        out = self._print(e.args[0])
        for a in e.args[1:]:
            out = f"symgrad_logaddexp({out}, {self._print(a)})"
        return out


def _is_dask(a: Any) -> bool:
    """Whether ``a`` is a Dask collection (its protocol: no need to import Dask to tell)."""
    return callable(getattr(type(a), "__dask_graph__", None)) and a.__dask_graph__() is not None


def _float_dtype(arrays: list) -> np.dtype:
    """The floating dtype of the arrays that carry one (NumPy arrays and scalars, tensors),
    float64 when none does (Python numbers and lists)."""
    typed = [a.dtype for a in arrays if hasattr(a, "dtype") and a.dtype.kind == "f"]
    return np.result_type(*typed) if typed else np.dtype(np.float64)


class CompiledFunction:
    """A closed form as one NumPy function, called with one array per leaf.

    It computes in float64 and returns the floating dtype of its arguments (float32 in,
    float32 out: at least as accurate as the engine's float32 kernels); Python numbers and
    lists are float64. Without a batch, the arrays may carry extra leading dimensions, which
    broadcast. With a batch (``compile_gradient(..., batch=...)``), the arrays of the batch
    tensors carry one leading dimension of samples, the others have their own shapes, and the
    result is reduced over the samples as ``reduction`` says.

    Attributes
    ----------
    source : str
        The generated Python source (readable; arguments ``a0, a1, ...`` are the leaves'
        elements in order, see ``arguments``; ``t1, t2, ...`` the graph's intermediates and
        ``c0, c1, ...`` the other sub-terms used more than once, each computed once).
    arguments : list of (str, sympy.Symbol)
        Which generated argument stands for which symbol.
    extra_tensors : list of Tensor
        For ``compile_gradient``: the named tensors the function takes after ``xs``.
    batch_arguments : list of int
        The arguments that hold a batch of samples (empty without a batch).
    reduction : str or None
        ``"mean"``, ``"sum"`` or ``"none"`` with a batch, else None.

    Examples
    --------
    >>> import numpy as np
    >>> import symgrad
    >>> from symgrad.symbolic import compile_gradient
    >>> z = symgrad.tensor([0.0, 0.0], requires_grad=True, name="z")
    >>> f = compile_gradient(symgrad.logsumexp(z, 0), z)
    >>> print(f.source)
    def _lambdifygenerated(a0, a1):
        t0 = logsumexp(a0, a1)
        c0 = -t0
        return [exp(c0 + a0), exp(c0 + a1)]
    <BLANKLINE>
    >>> f(np.array([1000.0, 0.0], dtype=np.float32))
    array([1., 0.], dtype=float32)
    """

    def __init__(
        self,
        fn: Any,
        leaves: list,
        arg_names: list,
        program: Any,
        shapes: list,
        single: bool,
        source: str | None = None,
    ) -> None:
        self._fn = quiet(fn)  # inf and nan come out silently, as from the engine's kernels
        self._leaves = leaves  # (symbols, shape) per leaf
        self._shapes = shapes
        self._single = single
        # (assignments, expressions) in the generated names, or a function making them
        self._program = program
        self.source = inspect.getsource(fn) if source is None else source
        self.extra_tensors: list = []
        self.arguments = [(n, s) for n, s in zip(arg_names, (s for ss, _ in leaves for s in ss))]
        self.batch_arguments: list[int] = []
        self.reduction: str | None = None
        self._per_sample_outputs: list[bool] = []

    def _set_batch(
        self, arguments: list[int], per_sample_outputs: list[bool], reduction: str
    ) -> None:
        """Evaluate over a batch: ``arguments`` hold samples; an output that is True in
        ``per_sample_outputs`` is the gradient of a per-sample tensor (one per sample)."""
        self.batch_arguments = list(arguments)
        self._per_sample_outputs = list(per_sample_outputs)
        self.reduction = reduction

    def __call__(self, *arrays: Any) -> Any:
        if len(arrays) != len(self._leaves):
            raise TypeError(
                f"this function takes {len(self._leaves)} arrays (one per leaf), got {len(arrays)}"
            )
        dtype = _float_dtype([a._data if isinstance(a, Tensor) else a for a in arrays])
        if any(_is_dask(a) for a in arrays):
            return evaluate_dask(self, arrays, dtype)
        data = [np.asarray(a._data if isinstance(a, Tensor) else a) for a in arrays]
        results, batch = self._evaluate(data)
        if self.reduction is not None:
            results = quiet(self._reduce)(results, batch[0])
        results = [r.astype(dtype, copy=False) for r in results]
        return results[0] if self._single else results

    def _evaluate(self, data: list) -> tuple[list, tuple]:
        """The outputs in float64, one per sample (not reduced), and the batch's shape."""
        args = []
        batch: tuple = ()
        for k, (a, (_, shape)) in enumerate(zip(data, self._leaves)):
            a = a.astype(np.float64, copy=False)
            lead = self._leading(k, a, shape)
            batch = joined_batch(batch, lead, k)
            args.extend(a[(...,) + index] for index in np.ndindex(*shape))
        flat = self._fn(*args)
        results, start = [], 0
        for shape in self._shapes:
            n = int(np.prod(shape)) if shape else 1
            values = [
                np.broadcast_to(np.asarray(v, dtype=np.float64), batch)
                for v in flat[start : start + n]
            ]
            start += n
            out = (
                np.stack(values, axis=-1).reshape(batch + shape)
                if values
                else np.zeros(batch + shape)
            )
            results.append(out)
        return results, batch

    def _leading(self, k: int, a: np.ndarray, shape: tuple) -> tuple:
        """The leading (batch) dimensions of argument ``k``, checked against its shape."""
        if self.reduction is None:
            if a.shape[a.ndim - len(shape) :] != shape if shape else False:
                raise ValueError(
                    f"argument {k} must have shape {list(shape)} (with optional leading batch "
                    f"dimensions), got {list(a.shape)}"
                )
            return a.shape[: a.ndim - len(shape)]
        if k in self.batch_arguments:
            if a.ndim != len(shape) + 1 or a.shape[1:] != shape:
                wanted = ", ".join(["N", *map(str, shape)])
                raise ValueError(
                    f"argument {k} holds a batch of samples of shape {list(shape)}: its shape "
                    f"must be [{wanted}] for N samples, got {list(a.shape)}"
                )
            return a.shape[:1]
        if a.shape != shape:
            raise ValueError(
                f"argument {k} is shared by all samples: its shape must be {list(shape)}, got "
                f"{list(a.shape)} (pass it in batch= if it holds one value per sample)"
            )
        return ()

    def _reduce(self, results: list, n: int, wrap: Any = np.asarray) -> list:
        """Per-sample gradients reduced to those of the mean or the sum of the samples' losses:
        a shared tensor's over the samples, a per-sample tensor's scaled by 1/n for the mean
        (each reduced array passed through ``wrap``: NumPy's, or another backend's)."""
        if self.reduction == "none":
            return results
        out = []
        for r, per_sample in zip(results, self._per_sample_outputs):
            if per_sample:
                out.append(r / n if self.reduction == "mean" else r)
            else:
                out.append(wrap(r.mean(axis=0) if self.reduction == "mean" else r.sum(axis=0)))
        return out

    def c_source(self, name: str = "f") -> str:
        """C99 source of the same computation: ``void name(const double *in0, ...,
        double *out0, ...)`` with each array flattened in row-major order, one sample at a
        time (sigmoid, softplus and logsumexp by stable helper functions)."""
        if not name.isidentifier():
            raise ValueError(f"the C function name must be an identifier, got {name!r}")
        printer = _CPrinter()
        ins = [f"const double *in{k}" for k in range(len(self._leaves))]
        outs = [f"double *out{k}" for k in range(len(self._shapes))]
        body = [f"void {name}({', '.join(ins + outs)}) {{"]
        a = 0
        for k, (symbols, _) in enumerate(self._leaves):
            for j in range(len(symbols)):
                body.append(f"    const double a{a} = in{k}[{j}];")
                a += 1
        if callable(self._program):  # made when first asked for: only C source needs it
            self._program = self._program()
        assignments, exprs = self._program
        for s, e in assignments:
            body.append(f"    const double {s} = {printer.doprint(e)};")
        start = 0
        for k, shape in enumerate(self._shapes):
            n = int(np.prod(shape)) if shape else 1
            for j in range(n):
                body.append(f"    out{k}[{j}] = {printer.doprint(exprs[start + j])};")
            start += n
        body.append("}")
        helpers = [_C_HELPERS[h] for h in _C_HELPERS if h in printer.helpers]
        head = ["#include <math.h>", *_C99_CONSTANTS, "", *(h + "\n" for h in helpers)]
        return "\n".join(head + body) + "\n"
