"""Text layout of tensors, reproducing ``repr`` of a PyTorch tensor character for character.

The rules follow ``torch/_tensor_str.py``: one formatter per tensor decides, from the (possibly
summarised) values, between integer-valued float mode (``2.``), fixed-point mode (``2.5000``)
and scientific mode (``2.5000e+10``) and a common field width; rows are then wrapped to the
line width and nested dimensions are separated by blank lines. Only NumPy and the standard
library are used so that this module works on its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

__all__ = ["format_tensor", "set_printoptions"]

_PREFIX = "tensor("


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTIONS = _PrintOptions()


# precision, threshold, edgeitems, linewidth
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, float("inf"), 3, 80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set the options used to print tensors, like :func:`torch.set_printoptions`.

    Options left as ``None`` keep their current value, except `sci_mode`, which is always
    assigned (PyTorch does the same, so any call without it restores automatic choice).

    Parameters
    ----------
    precision : int, optional
        Digits after the decimal point for floating-point values (default 4).
    threshold : float, optional
        Tensors with more elements than this are summarised with ``...`` (default 1000).
    edgeitems : int, optional
        Items kept at the start and end of each summarised dimension (default 3).
    linewidth : int, optional
        Characters per line used for wrapping rows and suffixes (default 80).
    profile : str, optional
        ``"default"``, ``"short"`` or ``"full"``: PyTorch's presets, applied before the other
        options (another name changes nothing, as in PyTorch).
    sci_mode : bool, optional
        Force (``True``) or forbid (``False``) scientific notation; ``None`` (default) lets the
        values decide.

    Examples
    --------
    >>> import numpy as np
    >>> from symgrad._printing import format_tensor, set_printoptions
    >>> set_printoptions(precision=2)
    >>> format_tensor(np.array([1.12345], dtype=np.float32))
    'tensor([1.12])'
    >>> set_printoptions(threshold=5)
    >>> format_tensor(np.arange(10))
    'tensor([0, 1, 2,  ..., 7, 8, 9])'
    >>> set_printoptions(precision=4, threshold=1000)
    >>> format_tensor(np.array([1.12345], dtype=np.float32))
    'tensor([1.1235])'
    """
    if profile in _PROFILES:  # any other profile is ignored, as PyTorch ignores it
        (
            _OPTIONS.precision,
            _OPTIONS.threshold,
            _OPTIONS.edgeitems,
            _OPTIONS.linewidth,
        ) = _PROFILES[profile]
    if precision is not None:
        _OPTIONS.precision = precision
    if threshold is not None:
        _OPTIONS.threshold = threshold
    if edgeitems is not None:
        _OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTIONS.linewidth = linewidth
    _OPTIONS.sci_mode = sci_mode


class _Formatter:
    """Chooses the number style and field width shared by every element of one tensor."""

    def __init__(self, sample: np.ndarray) -> None:
        self.floating = sample.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        values = sample.reshape(-1)
        if not self.floating:
            self.max_width = max([1, *(len(str(v)) for v in values.tolist())])
            return
        # Zeros and non-finite values never influence the mode or the width, so a column
        # of "nan" or "-0.0000" may stick out of the field; PyTorch prints it that way too.
        finite = values[np.isfinite(values) & (values != 0)]
        if finite.size == 0:
            return
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = self._wants_sci(np.abs(finite.astype(np.float64)))
        self.max_width = max(len(self._plain(v)) for v in finite.tolist())

    @staticmethod
    def _wants_sci(magnitudes: np.ndarray) -> bool:
        if _OPTIONS.sci_mode is not None:
            return bool(_OPTIONS.sci_mode)
        lo, hi = magnitudes.min(), magnitudes.max()
        with np.errstate(over="ignore"):
            ratio = hi / lo
        return bool(ratio > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)

    def _plain(self, value: float) -> str:
        """Unpadded text of a finite non-zero value, as used to measure the field width."""
        if self.sci_mode:
            return f"{value:.{_OPTIONS.precision}e}"
        if self.int_mode:
            return f"{value:.0f}."
        return f"{value:.{_OPTIONS.precision}f}"

    def format(self, value: float | int | bool) -> str:
        """Return `value` right-aligned in the shared field width."""
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{_OPTIONS.precision}e}"
        elif self.int_mode:
            # The trailing dot marks a float; "nan." or "inf." would not be valid literals.
            text = f"{value:.0f}" + ("." if np.isfinite(value) else "")
        else:
            text = f"{value:.{_OPTIONS.precision}f}"
        return text.rjust(self.max_width)


def _summary_sample(data: np.ndarray) -> np.ndarray:
    """Flat array of the values that remain visible after summarisation.

    The order of the checks, and ``data[-0:]`` meaning "everything" when `edgeitems` is 0,
    mirror PyTorch so that the formatter sees exactly the same values.
    """
    edge = _OPTIONS.edgeitems
    if data.ndim == 0:
        return data.reshape(-1)
    if data.ndim == 1:
        if data.shape[0] > 2 * edge:
            return np.concatenate((data[:edge], data[-edge:]))
        return data
    if not edge:
        return data[:0].reshape(-1)
    rows = _visible_rows(data.shape[0], summarize=True)
    return np.concatenate([_summary_sample(data[i]) for i in rows])


def _visible_rows(length: int, summarize: bool) -> list[int]:
    """Indices kept along a dimension of `length` items (the gap is shown as ``...``)."""
    edge = _OPTIONS.edgeitems
    if summarize and length > 2 * edge:
        return [*range(edge), *range(length - edge, length)]
    return list(range(length))


def _vector_str(data: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    edge = _OPTIONS.edgeitems
    per_line = max(1, (_OPTIONS.linewidth - indent) // (fmt.max_width + 2))
    if summarize and not edge:
        items = ["..."]
    elif summarize and data.shape[0] > 2 * edge:
        head = [fmt.format(v) for v in data[:edge].tolist()]
        tail = [fmt.format(v) for v in data[-edge:].tolist()]
        # The leading space makes the gap read ",  ...," like PyTorch's.
        items = [*head, " ...", *tail]
    else:
        items = [fmt.format(v) for v in data.tolist()]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(data: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if data.ndim == 0:
        return fmt.format(data.item())
    if data.ndim == 1:
        return _vector_str(data, indent, summarize, fmt)
    kept = _visible_rows(data.shape[0], summarize)
    rows = [_nested_str(data[i], indent + 1, summarize, fmt) for i in kept]
    if len(kept) < data.shape[0]:
        rows.insert(len(kept) // 2, "...")
    # One blank line between matrices, two between 3-D blocks, and so on.
    separator = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def _add_suffixes(text: str, suffixes: Sequence[str], indent: int) -> str:
    parts = [text]
    # PyTorch measures the last line as one character longer than it is (two when the text
    # has a single line); the quirk decides where suffixes wrap, so it is kept.
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > _OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def format_tensor(
    data: np.ndarray,
    suffixes: Sequence[str] = (),
    prefix: str = _PREFIX,
    contents: str | None = None,
) -> str:
    """Return the text PyTorch's ``repr`` prints for a tensor holding `data`.

    Parameters
    ----------
    data : numpy.ndarray
        The values, of any shape (including 0-d and empty); float, integer or bool dtype.
    suffixes : sequence of str, optional
        Already formatted trailing items such as ``"dtype=symgrad.float64"`` or
        ``"grad_fn=<AddBackward0>"``, in PyTorch's order. Deciding whether a dtype item is
        needed is up to the caller (PyTorch shows it for non-default dtypes, and for empty
        tensors of any dtype other than the default float type). A ``size=`` item is
        added here in front of them when PyTorch would show one (empty tensors that are not
        1-D, and every non-empty tensor while ``edgeitems`` is 0).
    prefix : str, optional
        What opens the text: ``"tensor("``, or for a subclass of Tensor its class name and a
        parenthesis, as PyTorch prints one (``"MyTensor("``); nested rows align under it.
    contents : str, optional
        Text shown in place of the values (PyTorch's ``tensor_contents``).

    Returns
    -------
    str
        ``tensor(...)`` laid out with the current print options.

    Examples
    --------
    >>> import numpy as np
    >>> from symgrad._printing import format_tensor
    >>> format_tensor(np.array([2.0, 3.0], dtype=np.float32))
    'tensor([2., 3.])'
    >>> print(format_tensor(np.array([[1.5, -2.0], [1e-5, 4.0]]), ["dtype=symgrad.float64"]))
    tensor([[ 1.5000e+00, -2.0000e+00],
            [ 1.0000e-05,  4.0000e+00]], dtype=symgrad.float64)
    >>> format_tensor(np.zeros((0, 3), dtype=np.float32), ["requires_grad=True"])
    'tensor([], size=(0, 3), requires_grad=True)'
    """
    if type(data).__name__ == "MetaArray":  # no values to show
        items = [contents or "...", "device='meta'", f"size={tuple(data.shape)}", *suffixes]
        return f"{prefix}{', '.join(items)})"
    data = np.asarray(data)
    indent = len(prefix)
    size = [f"size={tuple(data.shape)}"]
    if data.size == 0:
        body = "[]"
        # A 1-D empty tensor is fully described by "[]"; other shapes need their size.
        lead = size if data.ndim != 1 else []
    else:
        summarize = data.size > _OPTIONS.threshold
        if contents is None:
            fmt = _Formatter(_summary_sample(data) if summarize else data)
            body = _nested_str(data, indent, summarize, fmt)
        # With no edge items nothing of the shape survives summarisation, so print it.
        lead = size if not _OPTIONS.edgeitems else []
    body = body if contents is None else contents
    return _add_suffixes(prefix + body, [*lead, *suffixes], indent)
