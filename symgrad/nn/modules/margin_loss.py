"""The margin loss modules (``MultiMarginLoss``, ``MultiLabelMarginLoss``,
``MultiLabelSoftMarginLoss``, ``SoftMarginLoss``, ``CosineEmbeddingLoss``,
``TripletMarginWithDistanceLoss``) and PyTorch's deprecated ``NLLLoss2d``: each keeps its
options and calls the function of :mod:`symgrad.nn.functional` of the same name; as in
PyTorch, ``reduction`` is checked when the loss is called."""

from __future__ import annotations

import warnings
from typing import Any

from symgrad.nn import functional as F
from symgrad.nn.modules.extra_layers import PairwiseDistance
from symgrad.nn.modules.loss import NLLLoss, _WeightedLoss
from symgrad.nn.modules.regression_loss import _LooseLoss
from symgrad.tensor import Tensor

__all__ = [
    "MultiMarginLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "SoftMarginLoss",
    "CosineEmbeddingLoss",
    "TripletMarginWithDistanceLoss",
    "NLLLoss2d",
]


class _LooseWeightedLoss(_WeightedLoss, _LooseLoss):
    """A loss with a ``weight`` buffer whose ``reduction`` is checked when it is called."""


class MultiMarginLoss(_LooseWeightedLoss):
    """The multi-class hinge loss ``F.multi_margin_loss`` with ``p`` (1 or 2), ``margin``
    and per-class ``weight`` (a buffer).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.MultiMarginLoss()(symgrad.tensor([[0.1, 0.2, 0.4, 0.8]]), symgrad.tensor([3]))
    tensor(0.3250)
    """

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight: Tensor | None = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                "MultiMarginLoss: expected weight to be None or 1D tensor, got "
                f"{weight.dim()}D instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(
            input, target, p=self.p, margin=self.margin, weight=self.weight,
            reduction=self.reduction,
        )  # fmt: skip


class MultiLabelMarginLoss(_LooseLoss):
    """The multi-label hinge loss ``F.multilabel_margin_loss`` (targets: class indices
    ended by -1).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> x = symgrad.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> nn.MultiLabelMarginLoss()(x, symgrad.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_LooseWeightedLoss):
    """The per-class logistic loss ``F.multilabel_soft_margin_loss``, averaged over the
    classes, with per-class ``weight`` (a buffer).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.MultiLabelSoftMarginLoss()(symgrad.zeros(1, 2), symgrad.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class SoftMarginLoss(_LooseLoss):
    """The two-class logistic loss ``F.soft_margin_loss`` for targets of 1 or -1.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.SoftMarginLoss()(symgrad.zeros(2), symgrad.tensor([1.0, -1.0]))
    tensor(0.6931)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_LooseLoss):
    """``F.cosine_embedding_loss`` with its ``margin``: ``1 - cos`` for pairs of target 1,
    ``max(0, cos - margin)`` for pairs of target -1.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> a = symgrad.tensor([[1.0, 0.0]])
    >>> nn.CosineEmbeddingLoss()(a, symgrad.tensor([[0.0, 1.0]]), symgrad.tensor([1.0]))
    tensor(1.)
    """

    def __init__(
        self,
        margin: float = 0.0,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class TripletMarginWithDistanceLoss(_LooseLoss):
    """``F.triplet_margin_with_distance_loss`` with its options; the distance function is
    a :class:`PairwiseDistance` submodule unless one is given.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> loss = nn.TripletMarginWithDistanceLoss(margin=0.5)
    >>> a = symgrad.zeros(1, 2)
    >>> loss(a, a, symgrad.tensor([[3.0, 4.0]]))
    tensor(0.)
    """

    def __init__(
        self,
        *,
        distance_function: Any = None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(
                "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead"
            )
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction,
        )  # fmt: skip


class NLLLoss2d(NLLLoss):
    """PyTorch's deprecated name of :class:`NLLLoss` (which takes ``(N, C, H, W)`` inputs
    itself), with its ``FutureWarning`` when made.

    Examples
    --------
    >>> import warnings
    >>> from symgrad import nn
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     isinstance(nn.NLLLoss2d(), nn.NLLLoss)
    True
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for "
            "more details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
