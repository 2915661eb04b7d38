"""Loss modules: each keeps its options (``reduction``, class ``weight``, ...) and calls the
function of :mod:`symgrad.nn.functional` of the same name."""

from __future__ import annotations

from typing import Any

from symgrad.nn import functional as F
from symgrad.nn._arguments import _reduction
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor

__all__ = ["MSELoss", "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss", "BCELoss"]


class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _reduction(reduction, size_average, reduce)
        # kept as given and checked when called, as PyTorch
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error between input and target (``reduction`` 'mean', 'sum', 'none').

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.MSELoss()(symgrad.tensor([1.0, 3.0]), symgrad.tensor([0.0, 0.0]))
    tensor(5.)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error between input and target.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.L1Loss(reduction="sum")(symgrad.tensor([1.0, -3.0]), symgrad.zeros(2))
    tensor(4.)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits (N, C, ...) against class indices or probabilities.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.CrossEntropyLoss()(symgrad.zeros(2, 4), symgrad.tensor([0, 3]))
    tensor(1.3863)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities (N, C, ...) at class indices.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.NLLLoss()(symgrad.tensor([[-1.0, -2.0]]), symgrad.tensor([1]))
    tensor(2.)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of ``sigmoid(input)`` against ``target``, stable for any logit.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.BCEWithLogitsLoss()(symgrad.zeros(2), symgrad.ones(2))
    tensor(0.6931)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction
        )


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities ``input`` against ``target``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.BCELoss()(symgrad.tensor([0.5]), symgrad.tensor([1.0]))
    tensor(0.6931)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)
