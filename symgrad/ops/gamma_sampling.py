"""Gamma and Dirichlet draws with PyTorch's private names: ``_standard_gamma``,
``_standard_gamma_grad``, ``_sample_dirichlet`` and ``_dirichlet_grad``.

A ``_standard_gamma`` sample is reparameterized: its node (``StandardGammaBackward0``)
passes ``g * _standard_gamma_grad(alpha, sample)``, the implicit derivative of the sample at
a fixed CDF value (:mod:`symgrad.ops.gamma_gradients`). As in PyTorch,
``_standard_gamma_grad`` and ``_dirichlet_grad`` have no derivative of their own and
``_sample_dirichlet`` has none at all (``torch.distributions.Dirichlet`` differentiates its
samples with ``_dirichlet_grad`` instead). The draws come from symgrad's generators
(Marsaglia and Tsang's method, NumPy's, for shapes of at least 1, and PyTorch's boost below
it): reproducible under ``manual_seed``, though not PyTorch's numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor
from symgrad._cpu_generator import CpuStream
from symgrad._cpu_rejection import gamma_draws
from symgrad._lazy import sympy as sp
from symgrad.ops import gamma_gradients as GG
from symgrad.prim.elementwise import Elementwise
from symgrad.prim.structural import Structural, without_derivative
from symgrad.random import numpy_generator
from symgrad.tensor import Tensor

__all__ = ["_standard_gamma", "_standard_gamma_grad", "_sample_dirichlet", "_dirichlet_grad"]


def _not_implemented(name: str) -> Any:
    def vjp(*args: Any) -> Any:
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")

    return vjp


def _implicit_gamma_derivative(a: Any, x: Any) -> Any:
    """``-(dP(a, x)/da) / (dP(a, x)/dx)``, SymPy's meaning of the kernel."""
    cdf = sp.lowergamma(a, x) / sp.gamma(a)
    return -sp.diff(cdf, a) / sp.diff(cdf, x)


STANDARD_GAMMA_GRAD = Elementwise(
    "_standard_gamma_grad",
    "a x",
    _implicit_gamma_derivative,
    kernel=GG.standard_gamma_grad,
    vjp_kernels={
        0: _not_implemented("_standard_gamma_grad"),
        1: _not_implemented("_standard_gamma_grad"),
    },
    exact=False,
    backward="StandardGammaGradBackward0",
)


def _gamma_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (g * xp.elementwise(STANDARD_GAMMA_GRAD, (c.inputs[0], c.out)),)


def _no_forward_derivative(xp: Any, tangents: tuple, ctx: Any) -> Any:
    # PyTorch declares no forward-mode rule for the gamma draw
    raise NotImplementedError(
        "Trying to use forward AD with _standard_gamma that does not support it because it "
        "has not been implemented yet."
    )


_STANDARD_GAMMA = Structural(
    "_standard_gamma",
    lambda xp, alpha, values: xp.constant(values),
    _gamma_vjp,
    saves=(0,),
    saves_out=True,
    backward="StandardGammaBackward0",
    jvp=_no_forward_derivative,
    text="a gamma sample (implicit reparameterization)",
)


_SAMPLE_DIRICHLET = without_derivative("_sample_dirichlet")


def _floating(t: Tensor, kernel: str) -> None:
    if not t.dtype.is_floating_point or t.dtype is dtypes.float16:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{t.dtype.scalar_type}'")


def _gamma_draws(alpha: Tensor, generator: Any, single: bool) -> np.ndarray:
    """Gamma(alpha, 1) draws in float64, PyTorch's (``symgrad._cpu_rejection``), element by
    element in row-major order; ``single``: PyTorch's float32 steps for float32
    concentrations. Inf at an infinite concentration, 0 at 0 and below or nan (then
    clamped to the smallest normal number, as PyTorch's)."""
    rng = numpy_generator(generator, alpha)
    a = alpha._data
    if type(rng) is not CpuStream:  # a meta tensor: nothing drawn
        return np.zeros(np.shape(a))
    alphas = np.asarray(a, dtype=np.float64).ravel().tolist()
    draws = gamma_draws(rng, alphas, single)
    return np.asarray(draws, dtype=np.float64).reshape(np.shape(a))


def _smallest_normal(values: np.ndarray, dtype: dtypes.dtype) -> np.ndarray:
    tiny = np.finfo(dtype.numpy).tiny
    return np.fmax(values.astype(dtype.numpy), tiny)  # (nan too: PyTorch's max(tiny, nan))


def _standard_gamma(input: Tensor, generator: Any = None) -> Tensor:
    """Samples of ``Gamma(input, 1)``, element by element, differentiable in ``input``
    (``StandardGammaBackward0``: the implicit reparameterization gradient).

    Examples
    --------
    >>> import symgrad
    >>> _ = symgrad.manual_seed(0)
    >>> alpha = symgrad.full((1000,), 3.0, requires_grad=True)
    >>> x = symgrad._standard_gamma(alpha)
    >>> x.grad_fn.name()
    'StandardGammaBackward0'
    >>> bool(abs(x.mean() - 3.0) < 0.3)
    True
    """
    require_tensor("_standard_gamma", "input", 1, input)
    _floating(input, "gamma_cpu")
    single = input.dtype is dtypes.float32
    values = _smallest_normal(_gamma_draws(input, generator, single), input.dtype)
    return _STANDARD_GAMMA(input, values=values)


def _standard_gamma_grad(input: Tensor, output: Tensor) -> Tensor:
    """``d output / d input`` for a ``Gamma(input, 1)`` sample ``output`` held at its CDF
    value: ``-(dP(input, output)/d input) / density``. Not differentiable (as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad._standard_gamma_grad(symgrad.tensor([1.0]), symgrad.tensor([1.0]))
    tensor([1.1736])
    """
    require_tensor("_standard_gamma_grad", "self", 1, input)
    require_tensor("_standard_gamma_grad", "output", 2, output)
    _floating(input, "_standard_gamma_grad_cpu")
    if output.dtype is not input.dtype:
        raise RuntimeError(
            f"Found dtype {output.dtype.scalar_type} but expected {input.dtype.scalar_type}"
        )
    return STANDARD_GAMMA_GRAD(input, output)


def _sample_dirichlet(input: Tensor, generator: Any = None) -> Tensor:
    """Dirichlet samples along the last dimension of the concentrations ``input``: gamma
    draws divided by their sum. No derivative (PyTorch's ``NotImplemented`` node); the
    reparameterized samples are ``Dirichlet(...).rsample()``.

    Examples
    --------
    >>> import symgrad
    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad._sample_dirichlet(symgrad.tensor([[1.0, 2.0, 3.0]]))
    >>> x.shape, bool(abs(x.sum() - 1) < 1e-6)
    (symgrad.Size([1, 3]), True)
    """
    require_tensor("_sample_dirichlet", "input", 1, input)
    _floating(input, "dirichlet")
    # PyTorch's kernel: float64 draws (kept at or above float64's smallest normal number),
    # each divided by its row's sum, then rounded and kept strictly inside (0, 1)
    draws = np.maximum(_gamma_draws(input, generator, False), np.finfo(np.float64).tiny)
    kind = input.dtype.numpy
    with np.errstate(invalid="ignore"):
        values = (draws / draws.sum(-1, keepdims=True)).astype(kind)
    tiny = np.finfo(kind).tiny  # (nan too: PyTorch's max(tiny, nan) is tiny)
    values = np.clip(
        np.where(np.isnan(values), tiny, values), tiny, np.nextafter(kind.type(1), kind.type(0))
    )
    if not input._requires_grad:
        return Tensor._make(values)
    return _SAMPLE_DIRICHLET(input, values=values)


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """The derivative PyTorch's Dirichlet samples use: for ``x`` a sample of
    ``Beta(alpha, total - alpha)``, ``dx/dalpha / (1 - x)`` with ``total - alpha`` fixed.
    Not differentiable.

    Examples
    --------
    >>> import symgrad
    >>> one = symgrad.tensor([1.0])
    >>> symgrad._dirichlet_grad(symgrad.tensor([0.5]), one, 2 * one)  # log 2
    tensor([0.6931])
    """
    for position, (name, t) in enumerate((("x", x), ("alpha", alpha), ("total", total))):
        require_tensor("_dirichlet_grad", name, position + 1, t)
    _floating(x, "_dirichlet_grad_cpu")
    for t in (alpha, total):
        if t.dtype is not x.dtype:
            raise RuntimeError(
                f"Found dtype {t.dtype.scalar_type} but expected {x.dtype.scalar_type}"
            )
    values = GG.dirichlet_grad(x._data, alpha._data, total._data).astype(x.dtype.numpy)
    if not (x._requires_grad or alpha._requires_grad or total._requires_grad):
        return Tensor._make(values)
    return _DIRICHLET_GRAD(x, alpha, total, values=values)


_DIRICHLET_GRAD = without_derivative("_dirichlet_grad")
