"""``torch.signal.windows``: SciPy-style window functions of length ``M``.

Each window is composed of symgrad ops exactly as PyTorch composes it (a ``linspace`` of the
sample positions, then ``exp``, ``sin``, a sum of cosines, ...), so with
``requires_grad=True`` the window is the result of those ops, with their nodes, and lengths
0 and 1 give PyTorch's leaves. ``sym=True`` (the default) gives a symmetric window for filter
design, ``sym=False`` a periodic one for spectral analysis. Only float32 and float64 windows
are made; bad arguments raise PyTorch's ``ValueError``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import symgrad
from symgrad import creation, dtypes
from symgrad.tensor import Tensor

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]

_NUTTALL = (0.3635819, 0.4891775, 0.1365995, 0.0106411)


def _checked_dtype(name: str, M: int, dtype: Any, layout: Any) -> Any:
    """The window's dtype, after PyTorch's checks of the length, layout and dtype."""
    dtype = dtypes.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not symgrad.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (dtypes.float32, dtypes.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _constant(M: int, dtype: Any, device: Any, requires_grad: bool, fill: int) -> Tensor:
    """The window of length 0 or 1: an empty tensor, or ``[1]``."""
    make = creation.ones if fill else creation.empty
    return make((M,), dtype=dtype, device=device, requires_grad=requires_grad)


def _positions(start: Any, step: Any, M: int, dtype: Any, device: Any, grad: bool) -> Tensor:
    """``start, start + step, ..., start + (M - 1) * step`` as PyTorch's ``linspace``."""
    return creation.linspace(
        start, start + (M - 1) * step, M, dtype=dtype, device=device, requires_grad=grad
    )


def _span(M: int, sym: bool) -> int:
    """The denominator of the positions: ``M - 1`` for a symmetric window, else ``M``."""
    return M if not sym and M > 1 else M - 1


def exponential(
    M: int,
    *,
    center: float | None = None,
    tau: float = 1.0,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``; ``center`` defaults to
    the middle and may only be given for a periodic window (``sym=False``).

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.exponential(4, tau=2.0)
    tensor([0.4724, 0.7788, 0.7788, 0.4724])
    """
    dtype = _checked_dtype("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _constant(0, dtype, device, requires_grad, 0)
    if center is None:
        center = _span(M, sym) / 2.0
    k = _positions(-center / tau, 1 / tau, M, dtype, device, requires_grad)
    return symgrad.exp(-symgrad.abs(k))


def cosine(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The cosine (sine) window ``sin(pi (n + 0.5) / M)``, SciPy's.

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.cosine(4)
    tensor([0.3827, 0.9239, 0.9239, 0.3827])
    """
    dtype = _checked_dtype("cosine", M, dtype, layout)
    if M == 0:
        return _constant(0, dtype, device, requires_grad, 0)
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    return symgrad.sin(_positions(0.5 * constant, constant, M, dtype, device, requires_grad))


def gaussian(
    M: int,
    *,
    std: float = 1.0,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Gaussian window ``exp(-(n - c)**2 / (2 std**2))`` about the middle ``c``.

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.gaussian(3, std=2.0)
    tensor([0.8825, 1.0000, 0.8825])
    """
    dtype = _checked_dtype("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _constant(0, dtype, device, requires_grad, 0)
    constant = 1 / (std * math.sqrt(2))
    start = -_span(M, sym) / 2.0
    k = _positions(start * constant, constant, M, dtype, device, requires_grad)
    return symgrad.exp(-(k**2))


def kaiser(
    M: int,
    *,
    beta: float = 12.0,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2n / N - 1)**2)) / I0(beta)``, ``N = M - 1``
    (``M`` for a periodic window).

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.kaiser(3, beta=1.0)
    tensor([0.7898, 1.0000, 0.7898])
    """
    dtype = _checked_dtype("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _constant(M, dtype, device, requires_grad, 1)
    # beta in the window's dtype, as PyTorch, so the square root never sees a negative
    value = creation.tensor(beta, dtype=dtype)
    step = 2.0 * value / (M if not sym else M - 1)
    end = (-value + (M - 1) * step).minimum(value)
    k = creation.linspace(
        -value.item(), end.item(), M, dtype=dtype, device=device, requires_grad=requires_grad
    )
    beta = creation.tensor(beta, dtype=dtype, device=device)
    return symgrad.i0(symgrad.sqrt(beta * beta - k.pow(2))) / symgrad.i0(beta)


def general_cosine(
    M: int,
    *,
    a: Iterable,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The sum of cosines ``sum_i (-1)**i a[i] cos(2 pi i n / (M - 1))``: Hann, Hamming,
    Blackman and Nuttall windows are such sums.

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.general_cosine(5, a=[0.5, 0.5])
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    dtype = _checked_dtype("general_cosine", M, dtype, layout)
    if M <= 1:
        return _constant(M, dtype, device, requires_grad, 1)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = _positions(0, constant, M, dtype, device, requires_grad)
    weights = creation.tensor(
        [(-1) ** i * w for i, w in enumerate(a)],
        dtype=dtype,
        device=device,
        requires_grad=requires_grad,
    )
    i = creation.arange(weights.shape[0], dtype=dtype, device=device, requires_grad=requires_grad)
    return (weights.unsqueeze(-1) * symgrad.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(
    M: int,
    *,
    alpha: float = 0.54,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The window ``alpha - (1 - alpha) cos(2 pi n / (M - 1))``.

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.general_hamming(3, alpha=0.6)
    tensor([0.2000, 1.0000, 0.2000])
    """
    options = {"sym": sym, "dtype": dtype, "layout": layout, "device": device}
    return general_cosine(M, a=[alpha, 1.0 - alpha], requires_grad=requires_grad, **options)


def hamming(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hamming window ``0.54 - 0.46 cos(2 pi n / (M - 1))``.

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.hamming(3)
    tensor([0.0800, 1.0000, 0.0800])
    """
    options = {"sym": sym, "dtype": dtype, "layout": layout, "device": device}
    return general_hamming(M, requires_grad=requires_grad, **options)


def hann(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (M - 1))``.

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.hann(4, sym=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    options = {"sym": sym, "dtype": dtype, "layout": layout, "device": device}
    return general_hamming(M, alpha=0.5, requires_grad=requires_grad, **options)


def blackman(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))``.

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.blackman(3)  # the ends zero up to rounding, as PyTorch's
    tensor([-1.4901e-08,  1.0000e+00, -1.4901e-08])
    """
    dtype = _checked_dtype("blackman", M, dtype, layout)
    options = {"sym": sym, "dtype": dtype, "layout": layout, "device": device}
    return general_cosine(M, a=[0.42, 0.5, 0.08], requires_grad=requires_grad, **options)


def bartlett(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Bartlett (triangular) window ``1 - |2n / (M - 1) - 1|``.

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.bartlett(5)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    dtype = _checked_dtype("bartlett", M, dtype, layout)
    if M <= 1:
        return _constant(M, dtype, device, requires_grad, 1)
    k = _positions(-1, 2 / (M if not sym else M - 1), M, dtype, device, requires_grad)
    return 1 - symgrad.abs(k)


def nuttall(
    M: int,
    *,
    sym: bool = True,
    dtype: Any = None,
    layout: Any = symgrad.strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Nuttall's minimum 4-term Blackman-Harris window.

    Examples
    --------
    >>> from symgrad.signal import windows
    >>> windows.nuttall(3)
    tensor([3.6280e-04, 1.0000e+00, 3.6280e-04])
    """
    options = {"sym": sym, "dtype": dtype, "layout": layout, "device": device}
    return general_cosine(M, a=list(_NUTTALL), requires_grad=requires_grad, **options)
