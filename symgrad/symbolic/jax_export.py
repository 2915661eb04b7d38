"""Closed forms as JAX functions: ``compile_gradient(..., backend="jax")``.

The same straight-line program as the NumPy backend's (shared sub-terms computed once, the
stable forms of sigmoid, softplus and logsumexp), printed against ``jax.numpy``: the function
is pure, so ``jax.jit``, ``jax.vmap`` and ``jax.grad`` apply to it, and it runs wherever JAX
runs (CPU, GPU, TPU). It computes in its arguments' floating dtype (float32 unless JAX's
64-bit mode is on), where the NumPy backend computes in float64.
"""

from __future__ import annotations

import functools
from typing import Any

from symgrad.symbolic.compiled import CompiledFunction
from symgrad.tensor import Tensor

__all__ = ["JaxFunction"]


def require_jax() -> Any:
    """``jax.numpy``, or an ImportError saying how to install JAX."""
    try:
        import jax.numpy as jnp
    except ImportError as exc:
        raise ImportError(
            "compile_gradient(..., backend='jax') needs JAX, which is not installed: "
            "pip install 'symgrad[jax]' (or pip install jax)"
        ) from exc
    return jnp


def _reduce_pairwise(fn: Any) -> Any:
    return lambda *xs: functools.reduce(fn, xs)


@functools.cache
def jax_modules() -> list:
    """What the generated code calls under JAX: ``jax.numpy``, plus the functions symgrad's
    closed forms name (the stable kernels, PyTorch's sign, the special functions)."""
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as jsp

    return [
        {
            "erf": jsp.erf,
            "erfc": jsp.erfc,
            "erfinv": jsp.erfinv,
            "lgamma": jsp.gammaln,
            "polygamma": jsp.polygamma,
            # PyTorch's sign: 0 at nan
            "sign": lambda x: jnp.where(jnp.isnan(x), 0.0, jnp.sign(x)),
            "sigmoid": jax.nn.sigmoid,
            "softplus": jax.nn.softplus,
            "logsumexp": _reduce_pairwise(jnp.logaddexp),
            "power": jnp.power,
            "select_where": jnp.where,
            "any_of": _reduce_pairwise(jnp.logical_or),
            "all_of": _reduce_pairwise(jnp.logical_and),
        },
        "jax",
    ]


class JaxFunction(CompiledFunction):
    """A closed form as one pure JAX function (see :class:`CompiledFunction` for the
    arguments, the batch and the reduction): arrays in, ``jax.Array`` out, traceable by
    ``jax.jit``.

    Examples
    --------
    >>> import pytest
    >>> jax = pytest.importorskip("jax")  # the example needs JAX installed
    >>> import symgrad
    >>> from symgrad.symbolic import compile_gradient
    >>> w = symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    >>> f = compile_gradient((w * w.sin()).sum(), w, backend="jax")
    >>> g = jax.jit(f)(jax.numpy.array([0.0, 1.0]))
    >>> g.dtype, [round(float(v), 4) for v in g]
    (dtype('float32'), [0.0, 1.3818])
    """

    def __init__(self, fn: Any, *args: Any) -> None:
        super().__init__(fn, *args)
        self._fn = fn  # pure: JAX neither warns nor raises on inf and nan

    def __call__(self, *arrays: Any) -> Any:
        jnp = require_jax()
        if len(arrays) != len(self._leaves):
            raise TypeError(
                f"this function takes {len(self._leaves)} arrays (one per leaf), got {len(arrays)}"
            )
        data = [jnp.asarray(a._data if isinstance(a, Tensor) else a) for a in arrays]
        floating = [a.dtype for a in data if jnp.issubdtype(a.dtype, jnp.floating)]
        dtype = jnp.result_type(*floating) if floating else jnp.result_type(float)
        args = []
        batch: tuple = ()
        for k, (a, (_, shape)) in enumerate(zip(data, self._leaves)):
            a = a.astype(dtype)
            lead = self._leading(k, a, shape)
            try:
                batch = jnp.broadcast_shapes(batch, lead)
            except ValueError:
                raise ValueError(
                    f"argument {k}'s leading dimensions {list(lead)} don't broadcast with the "
                    f"other arguments' {list(batch)}"
                ) from None
            args.extend(a[(...,) + index] for index in _indices(shape))
        flat = self._fn(*args)
        results, start = [], 0
        for shape in self._shapes:
            n = _size(shape)
            values = [
                jnp.broadcast_to(jnp.asarray(v, dtype=dtype), batch)
                for v in flat[start : start + n]
            ]
            start += n
            if values:
                results.append(jnp.stack(values, axis=-1).reshape(batch + shape))
            else:
                results.append(jnp.zeros(batch + shape, dtype))
        if self.reduction is not None:
            results = self._reduce(results, batch[0], wrap=_same)
        return results[0] if self._single else results


def _size(shape: tuple) -> int:
    return functools.reduce(lambda a, b: a * b, shape, 1)


def _indices(shape: tuple) -> list:
    """Every index of an array of ``shape``, in row-major order."""
    out: list = [()]
    for d in shape:
        out = [i + (j,) for i in out for j in range(d)]
    return out


def _same(r: Any) -> Any:
    return r
