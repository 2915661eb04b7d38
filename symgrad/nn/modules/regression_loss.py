"""The loss modules beyond classification and ``MSELoss``/``L1Loss``: each keeps its options
and calls the :mod:`symgrad.nn.functional` function of the same name."""

from __future__ import annotations

from typing import Any

from symgrad.nn import functional as F
from symgrad.nn._arguments import _reduction
from symgrad.nn.modules.loss import _Loss
from symgrad.tensor import Tensor

__all__ = [
    "KLDivLoss",
    "SmoothL1Loss",
    "HuberLoss",
    "PoissonNLLLoss",
    "GaussianNLLLoss",
    "MarginRankingLoss",
    "HingeEmbeddingLoss",
    "TripletMarginLoss",
]


class _LooseLoss(_Loss):
    """A loss that accepts any ``reduction`` string here and checks it when called, as
    PyTorch (``kl_div``'s 'batchmean')."""

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean"):
        super(_Loss, self).__init__()
        if size_average is not None or reduce is not None:
            reduction = _reduction(reduction, size_average, reduce)
        self.reduction = reduction


class KLDivLoss(_LooseLoss):
    """The Kullback-Leibler divergence of log-probabilities from ``target``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> p = symgrad.tensor([[0.25, 0.75]])
    >>> nn.KLDivLoss(reduction="batchmean")(p.log(), p)
    tensor(0.)
    """

    def __init__(
        self,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        log_target: bool = False,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class SmoothL1Loss(_LooseLoss):
    """Squared error below ``beta``, absolute error above it.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.SmoothL1Loss()(symgrad.tensor([0.5, 3.0]), symgrad.zeros(2))
    tensor(1.3125)
    """

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean", beta=1.0
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_LooseLoss):
    """Squared error below ``delta``, ``delta`` times the absolute error above it.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.HuberLoss(delta=2.0)(symgrad.tensor([3.0]), symgrad.zeros(1))
    tensor(4.)
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class PoissonNLLLoss(_LooseLoss):
    """The Poisson negative log-likelihood of rates (logs of rates with ``log_input``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.PoissonNLLLoss()(symgrad.zeros(2), symgrad.ones(2))
    tensor(1.)
    """

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average: Any = None,
        eps: float = 1e-8,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input, target, self.log_input, self.full, eps=self.eps, reduction=self.reduction
        )


class GaussianNLLLoss(_LooseLoss):
    """The Gaussian negative log-likelihood of ``target`` given means and variances.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.GaussianNLLLoss()(symgrad.ones(2), symgrad.ones(2), symgrad.ones(2))
    tensor(0.)
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(reduction=reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Any) -> Tensor:
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class MarginRankingLoss(_LooseLoss):
    """``max(0, -target * (x1 - x2) + margin)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.MarginRankingLoss()(symgrad.tensor([1.0]), symgrad.tensor([2.0]), symgrad.ones(1))
    tensor(1.)
    """

    def __init__(
        self, margin: float = 0.0, size_average: Any = None, reduce: Any = None, reduction="mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class HingeEmbeddingLoss(_LooseLoss):
    """``x`` where the target is 1, ``max(0, margin - x)`` where it is -1.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.HingeEmbeddingLoss()(symgrad.tensor([0.25]), symgrad.tensor([-1.0]))
    tensor(0.7500)
    """

    def __init__(
        self, margin: float = 1.0, size_average: Any = None, reduce: Any = None, reduction="mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_LooseLoss):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> a = symgrad.zeros(1, 2)
    >>> nn.TripletMarginLoss(eps=0.0)(a, a, symgrad.tensor([[0.6, 0.8]]))
    tensor(0.)
    """

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )
