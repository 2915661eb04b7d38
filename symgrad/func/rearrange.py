"""``rearrange`` of :mod:`symgrad.func`: einops-style patterns such as ``"b (h w) c -> b c h w"``,
done as PyTorch does them: one strided view that splits the input's dimensions and orders
the pieces (``AsStridedBackward0``), then a ``reshape`` that joins the output's groups (a
view where the layout allows, else a copy), then a sum over the input's unit axes.

Patterns are parsed here character by character; nothing in them is ever evaluated.
"""

from __future__ import annotations

import keyword
import math
import warnings
from typing import Any

from symgrad.ops.joining import stack
from symgrad.tensor import Tensor

__all__ = ["rearrange", "DimensionBindError"]

_ELLIPSIS = "\u2026"  # "..." once parsed: one character, so it is never an identifier


class DimensionBindError(Exception):
    """Sizes a pattern cannot give its axes (the name of PyTorch's error)."""


class _Side:
    """One side of a pattern: ``groups`` in order, each a list of axis names (``[]`` for a
    unit axis ``1`` or ``()``), or the ellipsis on its own."""

    def __init__(self, text: str) -> None:
        self.names: set = set()
        self.groups: list = []
        self.has_ellipsis = False
        self.ellipsis_in_group = False
        self.big_anonymous = False
        if "." in text:
            if "..." not in text:
                raise ValueError("Expression may contain dots only inside ellipsis (...)")
            if text.count("...") != 1 or text.count(".") != 3:
                raise ValueError(
                    "Expression may contain dots only inside ellipsis (...); only one ellipsis "
                    "for tensor "
                )
            text = text.replace("...", _ELLIPSIS)
            self.has_ellipsis = True
        self._parse(text)

    def _parse(self, text: str) -> None:
        group: list | None = None
        word = ""
        for char in text + " ":
            if char.isalnum() or char in ("_", _ELLIPSIS):
                word += char
                continue
            if char not in "() ":
                raise ValueError(f"Unknown character '{char}'")
            if word:
                self._add(word, group)
                word = ""
            if char == "(":
                if group is not None:
                    raise ValueError(
                        "Axis composition is one-level (brackets inside brackets not allowed)"
                    )
                group = []
            elif char == ")":
                if group is None:
                    raise ValueError("Brackets are not balanced")
                self.groups.append(group)
                group = None
        if group is not None:
            raise ValueError(f"Imbalanced parentheses in expression: '{text}'")

    def _add(self, word: str, group: list | None) -> None:
        if word in self.names:
            raise ValueError(f"Indexing expression contains duplicate dimension '{word}'")
        if word == _ELLIPSIS:
            self.names.add(word)
            self.ellipsis_in_group = group is not None
            (self.groups if group is None else group).append(word)
            return
        if word.isdecimal():
            if int(word) == 1:
                if group is None:
                    self.groups.append([])
                return
            if int(word) < 1:
                raise ValueError(f"Anonymous axis should have positive length, not {int(word)}")
            # a numbered axis is never equal to another, as einops: it only fails validation
            self.big_anonymous = True
            word = f"{word}#{len(self.names)}"
        else:
            _check_name(word)
        self.names.add(word)
        if group is None:
            self.groups.append([word])
        else:
            group.append(word)


def _check_name(name: str) -> None:
    if not name.isidentifier():
        reason = "not a valid python identifier"
    elif name[0] == "_" or name[-1] == "_":
        reason = "axis name should should not start or end with underscore"
    else:
        if keyword.iskeyword(name):
            warnings.warn(
                f"It is discouraged to use axes names that are keywords: {name}",
                RuntimeWarning,
                stacklevel=4,
            )
        if name == "axis":
            warnings.warn(
                "It is discouraged to use 'axis' as an axis name and will raise an error in future",
                FutureWarning,
                stacklevel=4,
            )
        return
    raise ValueError(f"Invalid axis identifier: {name}\n{reason}")


def _parse(pattern: str, lengths: dict, ndim: int) -> tuple:
    sides = pattern.split("->")
    if len(sides) != 2:
        raise ValueError("Pattern must contain a single '->' separator")
    left, right = _Side(sides[0]), _Side(sides[1])
    if right.has_ellipsis and not left.has_ellipsis:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    if left.has_ellipsis and left.ellipsis_in_group:
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    for length in lengths.values():
        if type(length) is not int:
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(length)}")
    if left.big_anonymous or right.big_anonymous:
        raise ValueError("rearrange only supports unnamed axes of size 1")
    one_sided = left.names ^ right.names
    if one_sided:
        raise ValueError(
            f"Identifiers only on one side of rearrange expression (should be on both): {one_sided}"
        )
    unknown = lengths.keys() - left.names
    if unknown:
        raise ValueError(f"Identifiers not found in rearrange expression: {set(unknown)}")
    given = len(left.groups) - (1 if left.has_ellipsis else 0)
    if left.has_ellipsis and given > ndim:
        raise ValueError(
            f"Number of dimensions in pattern ({given}) must be less than or equal to the "
            f"number of dimensions in the tensor ({ndim})"
        )
    if not left.has_ellipsis and given != ndim:
        raise ValueError(
            f"Number of dimensions in pattern ({given}) must be equal to the number of "
            f"dimensions in the tensor ({ndim})"
        )
    return left, right


def _bind(group: list, size: int, lengths: dict, first: int) -> list:
    """The sizes of the axes of one input group of ``size`` (``first`` numbers the group's
    first axis in PyTorch's messages)."""
    sizes = [lengths.get(name) for name in group]
    unknown = [i for i, s in enumerate(sizes) if s is None]
    if len(unknown) > 1:
        a, b = (f"d{first + i}" for i in unknown[:2])
        raise DimensionBindError(f"cannot infer the sizes of two dimensions at once {a} and {b}")
    known = math.prod(s for s in sizes if s is not None)
    if unknown:
        if known == 0 or size % known:
            shown = tuple("?" if s is None else s for s in sizes)
            raise DimensionBindError(
                f"inferred dimension does not evenly fit into larger dimension: {size} vs {shown}"
            )
        sizes[unknown[0]] = size // known
    elif known != size:
        pack = ", ".join(f"d{first + i}" for i in range(len(group)))
        pack += "," if len(group) == 1 else ""
        raise DimensionBindError(
            f"Dimension sizes to do not match ({size} != {known}) when matching dimension "
            f"pack ({pack})"
        )
    return sizes


def _axes(tensor: Tensor, left: _Side, lengths: dict, spread: int) -> tuple[dict, list]:
    """Each named axis's (size, stride) in ``tensor``, and the unit axes' (those summed);
    the ellipsis spans ``spread`` dimensions."""
    shape, strides = tuple(tensor.shape), tensor.stride()
    axes: dict = {}
    units: list = []
    dim = first = 0
    for group in left.groups:
        if group == _ELLIPSIS:
            axes[_ELLIPSIS] = [(shape[dim + i], strides[dim + i]) for i in range(spread)]
            dim, first = dim + spread, first + spread
            continue
        if not group:
            units.append((shape[dim], strides[dim]))
            dim, first = dim + 1, first + 1
            continue
        sizes = _bind(group, shape[dim], lengths, first)
        stride = strides[dim]
        for name, size in reversed(list(zip(group, sizes))):
            axes[name] = (size, stride)
            stride *= size
        dim, first = dim + 1, first + len(group)
    return axes, units


def rearrange(tensor: Any, pattern: str, **axes_lengths: int) -> Tensor:
    """Reorder, split, join, add or drop (unit) axes of ``tensor`` by an einops pattern,
    as ``torch.func.rearrange``: ``"b h w c -> b c h w"`` permutes, ``"b h w c -> b (h w c)"``
    flattens, ``"b (h h1) w -> b h h1 w"`` splits (give all but one size of a group as
    ``h1=2``), ``...`` stands for the dimensions not named, ``1`` or ``()`` for a unit axis.
    A list or tuple of tensors is stacked first.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import rearrange
    >>> images = symgrad.zeros(8, 30, 40, 3)
    >>> rearrange(images, "b h w c -> b c h w").shape
    symgrad.Size([8, 3, 30, 40])
    >>> rearrange(images, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2).shape
    symgrad.Size([8, 15, 20, 12])
    >>> rearrange(symgrad.arange(6).reshape(2, 3), "a b -> b a")
    tensor([[0, 3],
            [1, 4],
            [2, 5]])
    """
    if not isinstance(tensor, Tensor):
        tensor = stack(tensor)
    left, right = _parse(pattern, axes_lengths, tensor.ndim)
    spread = tensor.ndim - (len(left.groups) - 1) if left.has_ellipsis else 0
    no_axes = spread == 0 and all(group == _ELLIPSIS for group in left.groups)
    if no_axes or left.groups == right.groups == [_ELLIPSIS]:
        # a pattern without axes (a 0-d tensor's) and "... -> ...": PyTorch hands the tensor
        # back as it is, whatever the right side adds
        return tensor
    axes, units = _axes(tensor, left, axes_lengths, spread)
    order: list = []
    shape: list = []
    for group in right.groups:
        if group == _ELLIPSIS:
            order += axes[_ELLIPSIS]
            shape += [size for size, _ in axes[_ELLIPSIS]]
            continue
        pieces = [p for name in group for p in (axes[name] if name == _ELLIPSIS else [axes[name]])]
        order += pieces
        shape.append(math.prod(size for size, _ in pieces))
    order += units
    shape += [size for size, _ in units]
    view = tensor.as_strided(
        [size for size, _ in order], [stride for _, stride in order], tensor.storage_offset()
    )
    out = view.reshape(shape)
    if units:
        out = out.sum(tuple(range(len(shape) - len(units), len(shape))))
    return out
