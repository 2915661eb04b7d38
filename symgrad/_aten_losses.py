"""The losses, ``embedding_bag`` and the grid samplers that PyTorch also has at the top level,
with ATen's signatures: ``reduction`` is ATen's number (0 none, 1 mean, 2 sum), the modes of
``embedding_bag`` and ``grid_sampler`` are numbers too, and ``embedding_bag`` returns ATen's
four tensors. PyTorch's Python binding reads the declared default ``reduction=Mean`` as 0, so
a call without ``reduction`` returns the unreduced loss, as here.

Examples
--------
>>> import symgrad
>>> x = symgrad.tensor([0.5, -2.0])
>>> symgrad.hinge_embedding_loss(x, symgrad.tensor([1.0, -1.0]), 1.0, 2)
tensor(3.5000)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor
from symgrad.nn import ctc as _ctc
from symgrad.nn import embedding_bag as _embedding_bag
from symgrad.nn import functional as _functional
from symgrad.nn import grid_sample as _grid_sample
from symgrad.nn import grid_sampling as _grid_sampling
from symgrad.nn import margin_losses as _margin_losses
from symgrad.nn import regression as _regression
from symgrad.ops.pdist import pdist
from symgrad.tensor import Tensor

__all__ = [
    "cosine_embedding_loss", "ctc_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "kl_div", "poisson_nll_loss", "triplet_margin_loss", "embedding_bag",
    "affine_grid_generator", "grid_sampler", "pdist", "binary_cross_entropy_with_logits",
]  # fmt: skip


def _reduction(reduction: int) -> str:
    """ATen's apply_loss_reduction: 1 mean, 2 sum, any other number no reduction."""
    return {1: "mean", 2: "sum"}.get(int(reduction), "none")


def _reduce(loss: Tensor, reduction: int) -> Tensor:
    r = _reduction(reduction)
    return loss.mean() if r == "mean" else loss.sum() if r == "sum" else loss


def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 0
) -> Tensor:
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where it
    is -1 (0 elsewhere), the cosine taken along the last dimension as ATen does.

    Examples
    --------
    >>> import symgrad
    >>> a = symgrad.tensor([[1.0, 0.0], [1.0, 1.0]])
    >>> b = symgrad.tensor([[0.0, 1.0], [1.0, 1.0]])
    >>> symgrad.cosine_embedding_loss(a, b, symgrad.tensor([1.0, -1.0]), 0.5)
    tensor([1.0000, 0.5000])
    """
    return _margin_losses.cosine_embedding_loss(
        input1, input2, target, margin, reduction=_reduction(reduction)
    )


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: int = 0,
) -> Tensor:
    """Binary cross entropy of ``sigmoid(input)`` against ``target``, stable for any logit
    (see :func:`symgrad.nn.functional.binary_cross_entropy_with_logits`), ``pos_weight``
    before ``reduction``, as ATen orders them.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([0.0, 0.0])
    >>> symgrad.binary_cross_entropy_with_logits(x, symgrad.tensor([1.0, 0.0]))
    tensor([0.6931, 0.6931])
    >>> symgrad.binary_cross_entropy_with_logits(x, symgrad.tensor([1.0, 0.0]), reduction=2)
    tensor(1.3863)
    """
    if type(input) is Tensor and type(target) is Tensor and input.shape != target.shape:
        # ATen computes in a tensor of the target's shape, into which the input must broadcast
        try:
            joint = np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
        except ValueError:
            raise RuntimeError(
                f"binary_cross_entropy_with_logits: the input of shape {list(input.shape)} "
                f"doesn't broadcast to the target's shape {list(target.shape)}"
            ) from None
        if joint != tuple(target.shape):
            raise RuntimeError(
                f"output with shape {list(target.shape)} doesn't match the broadcast shape "
                f"{list(joint)}"
            )
        input = input.expand(joint)
    try:
        return _functional.binary_cross_entropy_with_logits(
            input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
        )
    except ValueError as error:  # a weight that does not broadcast: ATen's RuntimeError
        raise RuntimeError(str(error)) from None


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: int = 0,
    zero_infinity: bool = False,
) -> Tensor:
    """The connectionist temporal classification loss (see
    :func:`symgrad.nn.functional.ctc_loss`), ``reduction`` one of ATen's numbers.

    Examples
    --------
    >>> import symgrad
    >>> log_probs = symgrad.zeros(2, 1, 2).log_softmax(2)
    >>> symgrad.ctc_loss(log_probs, symgrad.tensor([[1]]), [2], [1])
    tensor([0.2877])
    """
    return _ctc.ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
        zero_infinity,
    )  # fmt: skip


def hinge_embedding_loss(
    input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0
) -> Tensor:
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.hinge_embedding_loss(symgrad.tensor([0.5, 0.5]), symgrad.tensor([1.0, -1.0]))
    tensor([0.5000, 0.5000])
    """
    if type(input) is not Tensor:
        require_tensor("hinge_embedding_loss", "input", 1, input)
    return _regression.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 0
) -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.margin_ranking_loss(symgrad.tensor([1.0]), symgrad.tensor([2.0]),
    ...                             symgrad.tensor([1.0]))
    tensor([1.])
    """
    return _regression.margin_ranking_loss(
        input1, input2, target, margin, reduction=_reduction(reduction)
    )


def kl_div(
    input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False
) -> Tensor:
    """``target * (log(target) - input)`` (``exp(target) * (target - input)`` with
    ``log_target``); mean reduction divides by every element, without the functional op's
    warning about it.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.kl_div(symgrad.tensor([0.0]), symgrad.tensor([1.0]))
    tensor([0.])
    """
    r = _reduction(reduction)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "reduction: 'mean' divides", UserWarning)
        return _regression.kl_div(input, target, reduction=r, log_target=log_target)


def poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int
) -> Tensor:
    """The Poisson negative log-likelihood (see :func:`symgrad.nn.functional.poisson_nll_loss`),
    every argument given, as ATen's.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.poisson_nll_loss(symgrad.tensor([0.0]), symgrad.tensor([2.0]),
    ...                          True, False, 1e-8, 0)
    tensor([1.])
    """
    return _regression.poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-6,
    swap: bool = False,
    reduction: int = 0,
) -> Tensor:
    """``max(0, d(anchor, positive) - d(anchor, negative) + margin)`` with the ``p``-norm
    distance ``d``.

    Examples
    --------
    >>> import symgrad
    >>> a = symgrad.tensor([[0.0, 0.0]])
    >>> symgrad.triplet_margin_loss(a, a, a + 3.0, eps=0.0)
    tensor([0.])
    """
    return _regression.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )


_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> tuple:
    """ATen's ``embedding_bag``: the bags' sums (``mode=0``), means (1) or maxima (2) of rows
    of ``weight``, and the three index tensors PyTorch's CPU kernel returns beside them
    (``offset2bag``: the bag of each index, ``bag_size``, ``max_indices``).

    Examples
    --------
    >>> import symgrad
    >>> table = symgrad.tensor([[1.0, 0.0], [2.0, 4.0], [0.0, 6.0]])
    >>> out, offset2bag, bag_size, _ = symgrad.embedding_bag(
    ...     table, symgrad.tensor([0, 1, 2]), symgrad.tensor([0, 2]), mode=1)
    >>> out
    tensor([[1.5000, 2.0000],
            [0.0000, 6.0000]])
    >>> offset2bag, bag_size
    (tensor([0, 0, 1]), tensor([2, 1]))
    """
    out = _embedding_bag.embedding_bag(
        indices, weight, offsets, None, 2, scale_grad_by_freq, _BAG_MODES[mode], sparse,
        per_sample_weights, include_last_offset, padding_idx,
    )  # fmt: skip
    aux = _bag_indices(weight, indices, offsets, mode, include_last_offset, padding_idx)
    return (out, *(Tensor._make(a) for a in aux))


def _bag_indices(
    weight: Tensor, indices: Tensor, offsets: Tensor, mode: int, last: bool, padding: Any
) -> tuple:
    """``offset2bag``, ``bag_size`` and ``max_indices`` as PyTorch's CPU kernel fills them."""
    idx = np.asarray(indices._data).reshape(-1)
    starts = np.asarray(offsets._data).reshape(-1)
    bags = len(starts) - 1 if last else len(starts)
    offset2bag = (np.searchsorted(starts[:bags], np.arange(len(idx)), side="right") - 1).clip(0)
    # the sum kernel leaves the sizes zero, one per offset; for float32 without padding it
    # skips offset2bag too
    fast = mode == 0 and weight.dtype is dtypes.float32 and padding is None
    counted = idx != padding if padding is not None else np.ones(len(idx), bool)
    if mode == 0:
        size = np.zeros(len(starts), dtype=np.int64)
        return (offset2bag[:0] if fast else offset2bag), size, size.copy()
    size = np.bincount(offset2bag[counted], minlength=bags)[:bags].astype(np.int64)
    if mode == 1:
        return offset2bag, size, size.copy()
    table = np.asarray(weight._data)
    best = np.zeros((bags, table.shape[1]), dtype=np.int64)
    for bag in range(bags):
        rows = idx[(offset2bag == bag) & counted]
        if len(rows):
            best[bag] = rows[np.argmax(table[rows], axis=0)]
    return offset2bag, size, best


def affine_grid_generator(theta: Tensor, size: Any, align_corners: bool) -> Tensor:
    """The sampling grid of the affine maps ``theta`` (see
    :func:`symgrad.nn.functional.affine_grid`).

    Examples
    --------
    >>> import symgrad
    >>> theta = symgrad.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> symgrad.affine_grid_generator(theta, [1, 1, 1, 2], True)
    tensor([[[[-1.,  0.],
              [ 1.,  0.]]]])
    """
    with warnings.catch_warnings():  # the functional op's warning about unit-size grids
        warnings.filterwarnings("ignore", "Since version 1.3.0, affine_grid", UserWarning)
        return _grid_sampling.affine_grid(theta, size, align_corners)


_INTERPOLATIONS = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


def grid_sampler(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """``input`` sampled at the points of ``grid`` (see
    :func:`symgrad.nn.functional.grid_sample`), the modes given as ATen's numbers:
    interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection.

    Examples
    --------
    >>> import symgrad
    >>> image = symgrad.tensor([[[[1.0, 3.0]]]])
    >>> symgrad.grid_sampler(image, symgrad.zeros(1, 1, 1, 2), 0, 1, True)
    tensor([[[[2.]]]])
    """
    for name, value, names in (
        ("interpolation_mode", interpolation_mode, _INTERPOLATIONS),
        ("padding_mode", padding_mode, _PADDINGS),
    ):
        if not 0 <= value < len(names):
            raise RuntimeError(f"grid_sampler(): {name} must be 0, 1 or 2, but got {value}")
    return _grid_sample.grid_sample(
        input, grid, _INTERPOLATIONS[interpolation_mode], _PADDINGS[padding_mode], align_corners
    )
