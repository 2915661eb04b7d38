"""``CTCLoss``: the connectionist temporal classification loss as a module."""

from __future__ import annotations

from typing import Any

from symgrad.nn.ctc import ctc_loss
from symgrad.nn.modules.loss import _Loss
from symgrad.tensor import Tensor

__all__ = ["CTCLoss"]


class CTCLoss(_Loss):
    """:func:`symgrad.nn.functional.ctc_loss` with ``blank``, ``reduction`` and
    ``zero_infinity`` given to the constructor.

    Examples
    --------
    >>> import symgrad
    >>> loss = symgrad.nn.CTCLoss(reduction="sum")
    >>> log_probs = symgrad.full((2, 1, 2), 0.5).log()
    >>> loss(log_probs, symgrad.tensor([[1]]), [2], [1])
    tensor(0.2877)
    """

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(
        self, log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any
    ) -> Tensor:
        return ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )
