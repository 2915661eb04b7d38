"""SparseAdam: Adam for sparse gradients. symgrad's gradients are all dense, so it takes
PyTorch's arguments and refuses to step as PyTorch does given a dense gradient."""

from __future__ import annotations

from typing import Any

from symgrad.optim.adam import check_adam_like
from symgrad.optim.optimizer import Optimizer
from symgrad.tensor import Tensor

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """``torch.optim.SparseAdam``'s constructor (its defaults, groups and argument checks).
    PyTorch's SparseAdam updates only the entries a sparse gradient holds and refuses dense
    gradients; every symgrad gradient is dense, ``nn.Embedding(sparse=True)``'s included (a
    dense gradient cannot tell a looked-up row whose gradient is zero from a row not looked
    up, and SparseAdam treats them differently), so :meth:`step` raises PyTorch's
    RuntimeError for any gradient. Use :class:`~symgrad.optim.Adam` instead.

    Examples
    --------
    >>> import symgrad
    >>> emb = symgrad.nn.Embedding(4, 2, sparse=True)
    >>> opt = symgrad.optim.SparseAdam(emb.parameters(), lr=0.1)
    >>> opt.defaults
    {'lr': 0.1, 'betas': (0.9, 0.999), 'eps': 1e-08, 'maximize': False}
    >>> emb(symgrad.tensor([1])).sum().backward()
    >>> opt.step()
    Traceback (most recent call last):
    ...
    RuntimeError: SparseAdam does not support dense gradients, please consider Adam instead ...
    """

    def __init__(
        self,
        params: Any,
        lr: float | Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        # unlike Adam's, SparseAdam's learning rate and epsilon must be positive
        for what, value in (("learning rate", lr), ("epsilon value", eps)):
            if not 0.0 < value:
                raise ValueError(f"Invalid {what}: {value}")
        check_adam_like(lr, betas, eps, 0.0)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict) -> None:
        raise RuntimeError(
            "SparseAdam does not support dense gradients, please consider Adam instead "
            "(symgrad has no sparse gradients: nn.Embedding(sparse=True) and "
            "nn.EmbeddingBag(sparse=True) give dense ones)"
        )
