"""``symgrad.testing.assert_close``: PyTorch's check that two results agree, with its default
tolerances per dtype, its handling of nested sequences and mappings, and its messages.

Examples
--------
>>> import symgrad
>>> symgrad.testing.assert_close(symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 2.0000001]))
>>> symgrad.testing.assert_close(symgrad.tensor([1.0]), symgrad.tensor([1.5]))
Traceback (most recent call last):
...
AssertionError: Tensor-likes are not close!
<BLANKLINE>
Mismatched elements: 1 / 1 (100.0%)
Greatest absolute difference: 0.5 at index (0,) (up to 1e-05 allowed)
Greatest relative difference: 0.3333333432674408 at index (0,) (up to 1.3e-06 allowed)
"""

from __future__ import annotations

import collections.abc as abc
from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]

# (rtol, atol) by dtype, as PyTorch's defaults; exact for integers and bools
_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


class _Mismatch(AssertionError):
    pass


def _tolerances(dtype_name: str, rtol: Any, atol: Any) -> tuple:
    if rtol is not None:
        return rtol, atol
    return _TOLERANCES.get(dtype_name, (0.0, 0.0))


def _number_kind(value: Any) -> type:
    """``bool``, ``int`` or ``float``: the kinds of number PyTorch refuses to compare across."""
    return next(kind for kind in (bool, int, float) if isinstance(value, kind))


def _compare_scalars(actual: Any, expected: Any, rtol: Any, atol: Any, equal_nan: bool) -> None:
    if _number_kind(actual) is not _number_kind(expected):
        raise _Mismatch(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    exact = isinstance(actual, (bool, int)) and isinstance(expected, (bool, int))
    r, a = _tolerances("int64" if exact else "float64", rtol, atol)
    if actual == expected or (equal_nan and actual != actual and expected != expected):
        return
    diff = abs(actual - expected)
    if not exact and diff <= a + r * abs(expected):
        return
    rel = diff / abs(expected) if expected else float("inf")
    if exact and r == 0 and a == 0:
        raise _Mismatch(
            f"Scalars are not equal!\n\nExpected {expected} but got {actual}.\n"
            f"Absolute difference: {diff}\nRelative difference: {rel}"
        )
    raise _Mismatch(
        f"Scalars are not close!\n\nExpected {expected} but got {actual}.\n"
        f"Absolute difference: {diff} (up to {a} allowed)\n"
        f"Relative difference: {rel} (up to {r} allowed)"
    )


def _compare_tensors(actual: Tensor, expected: Tensor, options: dict) -> None:
    rtol, atol, equal_nan = options["rtol"], options["atol"], options["equal_nan"]
    if actual.shape != expected.shape:
        raise _Mismatch(
            f"The values for attribute 'shape' do not match: {actual.shape} != {expected.shape}."
        )
    if options["check_dtype"] and actual.dtype != expected.dtype:
        raise _Mismatch(
            f"The values for attribute 'dtype' do not match: {actual.dtype} != {expected.dtype}."
        )
    if options["check_stride"] and actual.stride() != expected.stride():
        raise _Mismatch(
            f"The values for attribute 'stride()' do not match: {actual.stride()} != "
            f"{expected.stride()}."
        )
    a, e = actual.detach().numpy(), expected.detach().numpy()
    integral = a.dtype.kind in "biu" and e.dtype.kind in "biu"
    r, t = _tolerances(expected.dtype.name, rtol, atol)
    if a.dtype.kind == "b" or e.dtype.kind == "b":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        if r == 0 and t == 0 and a.dtype.kind in "iu" and e.dtype.kind in "iu":
            close = a == e
        else:
            af, ef = a.astype(np.float64), e.astype(np.float64)
            close = np.isclose(af, ef, rtol=r, atol=t, equal_nan=equal_nan) | (af == ef)
        if close.all():
            return
        if a.ndim == 0:  # PyTorch reports 0-d tensors as Python numbers
            a, e = a.astype(np.float64), e.astype(np.float64)
        if a.dtype.kind == "f":  # in the inputs' floating type, as PyTorch
            work = np.result_type(a, e)
            diff = np.abs(a.astype(work) - e.astype(work))
            rel = diff / np.abs(e.astype(work))
        else:  # integers: the difference exact, the relative one in float32
            diff = np.abs(a.astype(np.int64) - e.astype(np.int64))
            rel = diff.astype(np.float32) / np.abs(e.astype(np.float32))
    total, bad = close.size, int((~close).sum())
    exact = r == 0 and t == 0

    def worst(values: np.ndarray) -> tuple:
        flat = np.where(np.isnan(values), np.inf, values)
        i = int(np.argmax(np.where(close, -np.inf, flat)))
        value = values.flat[i]
        index = np.unravel_index(i, values.shape) if values.ndim else ()
        return value, tuple(int(k) for k in index)

    def show(value: float) -> str:
        return str(int(value)) if integral and value == int(value) else str(float(value))

    (da, ia), (dr, ir) = worst(diff), worst(rel)
    kind = "equal" if exact else "close"
    if a.ndim == 0:  # PyTorch reports 0-d tensors as scalars
        got, want = actual.item(), expected.item()
        raise _Mismatch(
            f"Scalars are not {kind}!\n\nExpected {want} but got {got}.\n"
            f"Absolute difference: {show(da)}" + ("" if exact else f" (up to {t} allowed)") + "\n"
            f"Relative difference: {float(dr)}" + ("" if exact else f" (up to {r} allowed)")
        )
    lines = [
        f"Tensor-likes are not {kind}!",
        "",
        f"Mismatched elements: {bad} / {total} ({100 * bad / total:.1f}%)",
        f"Greatest absolute difference: {show(da)} at index {ia}"
        + ("" if exact else f" (up to {t} allowed)"),
        f"Greatest relative difference: {float(dr)} at index {ir}"
        + ("" if exact else f" (up to {r} allowed)"),
    ]
    raise _Mismatch("\n".join(lines))


def _tensor_likes(actual: Any, expected: Any, allow_subclasses: bool) -> bool:
    """Whether the pair is compared as tensors: two tensors (of one exact type unless
    ``allow_subclasses``: a ``Parameter`` is a tensor subclass), or two NumPy arrays."""
    if isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
        return True
    if not (isinstance(actual, Tensor) and isinstance(expected, Tensor)):
        return False
    return allow_subclasses or type(actual) is type(expected)


def _as_tensor(value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    from symgrad.creation import as_tensor

    return as_tensor(value)


def _compare(actual: Any, expected: Any, path: list, options: dict) -> None:
    rtol, atol, equal_nan = (options[k] for k in ("rtol", "atol", "equal_nan"))
    try:
        if actual is None or expected is None:
            if actual is not expected:
                raise _Mismatch(f"None mismatch: {actual} is not {expected}")
            return
        if _tensor_likes(actual, expected, options["allow_subclasses"]):
            _compare_tensors(_as_tensor(actual), _as_tensor(expected), options)
            return
        if isinstance(actual, (bool, int, float)) and isinstance(expected, (bool, int, float)):
            _compare_scalars(actual, expected, rtol, atol, equal_nan)
            return
    except _Mismatch as error:
        where = "".join(f"[{k!r}]" for k in path)
        suffix = f"\n\nThe failure occurred for item {where}" if path else ""
        raise _Mismatch(str(error) + suffix) from None
    if isinstance(actual, abc.Mapping) and isinstance(expected, abc.Mapping):
        if set(actual) != set(expected):
            raise _Mismatch(
                f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                f"{sorted(set(expected) - set(actual))}\nAdditional keys in the actual mapping: "
                f"{sorted(set(actual) - set(expected))}"
            )
        for key in expected:
            _compare(actual[key], expected[key], [*path, key], options)
        return
    sequences = (list, tuple)
    if isinstance(actual, sequences) and isinstance(expected, sequences):
        if len(actual) != len(expected):
            raise _Mismatch(
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}"
            )
        for i, (x, y) in enumerate(zip(actual, expected)):
            _compare(x, y, [*path, i], options)
        return
    raise TypeError(
        f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}."
    )


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: Any = None,
) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` agree: tensors of the same
    shape and dtype whose elements satisfy ``|actual - expected| <= atol + rtol * |expected|``
    (defaults by dtype: float32 ``rtol=1.3e-6, atol=1e-5``, float64 ``1e-7, 1e-7``, exact for
    integers), numbers, or sequences and mappings of them compared item by item. ``msg``
    replaces the message (a string, or a function of the generated one)."""
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}."
        )
    options = {
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_dtype": check_dtype,
        "check_stride": check_stride,
        "allow_subclasses": allow_subclasses,
    }
    try:
        _compare(actual, expected, [], options)
    except _Mismatch as error:
        text = str(error)
        if msg is not None:
            text = msg(text) if callable(msg) else str(msg)
        raise AssertionError(text) from None


# the deprecated assert_allclose's looser defaults (rtol, atol)
_ALLCLOSE_TOLERANCES = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def assert_allclose(
    actual: Any,
    expected: Any,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = True,
    msg: str = "",
) -> None:
    """PyTorch's deprecated form of :func:`assert_close` (it warns): numbers and sequences
    become tensors (``expected`` in ``actual``'s dtype), dtypes may differ, nan equals nan,
    and the default tolerances are looser (the larger of the two dtypes': float32
    ``rtol=1e-4, atol=1e-5``, float64 ``1e-5, 1e-8``, float16 ``1e-3, 1e-3``).

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> actual = symgrad.tensor([1.0, float("nan")])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.testing.assert_allclose(actual, [1.00001, float("nan")])
    """
    import warnings

    from symgrad.creation import tensor

    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_TOLERANCES.get(t.dtype.name, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_dtype=False,
        msg=msg or None,
    )


def _shape_of(shape: tuple) -> tuple:
    """``make_tensor``'s sizes: given one by one, or as one sequence."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        return tuple(shape[0])
    return tuple(shape)


def _low_high(dtype: Any, low: Any, high: Any) -> tuple:
    """PyTorch's range of values: ``[-9, 9)`` for floats, ``[-9, 10)`` for integers (from 0
    for unsigned ones), clamped to what the dtype holds."""
    import math

    from symgrad import finfo, iinfo

    floating = dtype.is_floating_point
    info = finfo(dtype) if floating else iinfo(dtype)
    top = info.max if floating else info.max + 1
    low = max(info.min, -9 if low is None else low)
    high = min(top, (9 if floating else 10) if high is None else high)
    if math.isnan(low) or math.isnan(high):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if floating and low == high:
        return low, high
    if low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    return low, high


def make_tensor(
    *shape: Any,
    dtype: Any,
    device: Any,
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """A tensor of random values for tests, as PyTorch's: floats uniform in ``[low, high)``
    (``[-9, 9)`` by default), integers in ``[low, high)`` (``[-9, 10)``), bools either way;
    ``noncontiguous`` gives a view that skips every other element, ``exclude_zero`` replaces
    zeros (by 1, or the dtype's smallest normal number), ``memory_format`` lays it out.
    The values come from symgrad's generator, so they differ from PyTorch's.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.testing import make_tensor
    >>> x = make_tensor(2, 3, dtype=symgrad.int64, device="cpu", low=0, high=5)
    >>> x.shape, bool(((x >= 0) & (x < 5)).all())
    (symgrad.Size([2, 3]), True)
    """
    import symgrad

    size = _shape_of(shape)
    if requires_grad and not dtype.is_floating_point:
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
            f"dtype={dtype}"
        )
    wide = (
        (*size[:-1], size[-1] * 2)
        if noncontiguous and size and symgrad.Size(size).numel() > 1
        else size
    )
    if dtype == symgrad.bool:
        values = symgrad.randint(0, 2, wide, device=device).bool()
    elif dtype.is_floating_point:
        low, high = _low_high(dtype, low, high)
        values = (symgrad.rand(wide, dtype=symgrad.float64) * (high - low) + low).to(dtype)
        if low < high:  # rounding to a narrow dtype may reach `high`, which stays out
            below = np.nextafter(np.array(high, dtype.numpy), np.array(low, dtype.numpy))
            values = values.clamp(max=float(below))
    else:
        low, high = _low_high(dtype, low, high)
        values = symgrad.randint(int(low), int(high), wide, dtype=dtype)
    if exclude_zero and dtype != symgrad.bool:
        fill = symgrad.finfo(dtype).tiny if dtype.is_floating_point else 1
        values = values.masked_fill(values == 0, fill)
    if wide != size:
        values = values[..., ::2]
    elif memory_format is not None:
        values = values.contiguous(memory_format=memory_format)
    return values.requires_grad_(requires_grad)
