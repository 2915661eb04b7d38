"""The check of a new program against its function run eagerly: values and gradients on
perturbed arguments, where a difference is a graph break (some value the trace took for a
constant depends on the arguments)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._tracing import GraphBreak
from symgrad.autograd import grad_mode
from symgrad.autograd.engine import grad
from symgrad.compiler.emit import ShapeChanged
from symgrad.compiler.trace import flatten, rebuild
from symgrad.tensor import Tensor

__all__ = ["check"]

_RTOL = {"float16": 1e-2, "float32": 1e-4, "float64": 1e-9, "complex64": 1e-4, "complex128": 1e-9}


def check(fn: Any, entry: Any, leaves: list, spec: Any) -> None:
    """Compare the program with ``fn`` run eagerly on perturbed arguments (values, and the
    gradients of a random weighting of the outputs); a difference is a graph break: some
    value the trace took for a constant depends on the arguments."""
    rng = np.random.default_rng(0)
    for strong in (False, True):
        data = [_perturb(t._data, rng, strong) for t in leaves]
        _check_at(fn, entry, leaves, spec, data, rng)


def _check_at(fn: Any, entry: Any, leaves: list, spec: Any, data: list, rng: Any) -> None:

    def fresh() -> list:
        return [Tensor._make(d.copy(), None, t._requires_grad) for d, t in zip(data, leaves)]

    eager_in, compiled_in = fresh(), fresh()
    args, kwargs = rebuild(spec, eager_in)
    with grad_mode.set_grad_enabled(True):
        try:
            eager = fn(*args, **kwargs)
        except Exception:  # noqa: BLE001 - perturbed arguments outside fn's domain: no verdict
            return
        try:
            compiled = entry.run(compiled_in)
        except ShapeChanged:  # the program does not hold for these arguments: no verdict
            return
    e_outs: list = []
    c_outs: list = []
    flatten(eager, e_outs)
    flatten(compiled, c_outs)
    if len(e_outs) != len(c_outs):
        raise GraphBreak("the function's outputs depend on its arguments' values")
    for e, c in zip(e_outs, c_outs):
        _same(e._data, c._data, "values")
    wrt = [k for k, t in enumerate(leaves) if t._requires_grad]
    ext = [t for t in entry.externals if t._requires_grad]
    pairs = [(e, c) for e, c in zip(e_outs, c_outs) if e._requires_grad and c._requires_grad]
    if not pairs or not (wrt or ext):
        return
    weights = [
        Tensor._make(rng.standard_normal(e._data.shape).astype(e._data.dtype)) for e, _ in pairs
    ]
    e_wrt, c_wrt = [eager_in[k] for k in wrt] + ext, [compiled_in[k] for k in wrt] + ext
    ge = grad([e for e, _ in pairs], e_wrt, weights, allow_unused=True)
    gc = grad([c for _, c in pairs], c_wrt, weights, allow_unused=True)
    for a, b in zip(ge, gc):
        if (a is None) != (b is None):
            raise GraphBreak("the function's gradients depend on its arguments' values")
        if a is not None:
            _same(a._data, b._data, "gradients")


def _perturb(d: np.ndarray, rng: Any, strong: bool) -> np.ndarray:
    """New values for an argument: close to the traced ones, or (``strong``) of other signs
    and sizes, so that masks and comparisons taken for constants change."""
    if d.dtype.kind in "fc":
        if strong:
            factor = rng.choice([-1.5, -0.5, 0.5, 1.5], d.shape)
            return (d * factor + rng.standard_normal(d.shape)).astype(d.dtype)
        noise = rng.standard_normal(d.shape)
        return (d + (np.abs(d) + 1) * 0.01 * noise).astype(d.dtype)
    return rng.permutation(d.reshape(-1)).reshape(d.shape) if d.size else d.copy()


def _same(a: np.ndarray, b: np.ndarray, what: str) -> None:
    if a.shape != b.shape or a.dtype != b.dtype:
        raise GraphBreak(f"the compiled {what} differ in shape or dtype from the eager ones")
    if a.dtype.kind not in "fc":
        same = np.array_equal(a, b)
    else:
        rtol = _RTOL.get(a.dtype.name, 1e-4)
        finite = np.abs(a[np.isfinite(a)])
        atol = rtol * (float(finite.max()) if finite.size else 1.0)
        same = np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    if not same:
        raise GraphBreak(
            f"the compiled {what} differ from the eager ones on perturbed arguments: a value "
            "the trace took for a constant depends on the arguments"
        )
