"""``EmbeddingBag``: a table of learnable rows reduced over bags of indices, with PyTorch's
options, initialisation, ``repr`` and ``from_pretrained``."""

from __future__ import annotations

from typing import Any

from symgrad import creation
from symgrad.autograd.grad_mode import no_grad
from symgrad.nn import init
from symgrad.nn.embedding_bag import embedding_bag
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = ["EmbeddingBag"]


class EmbeddingBag(Module):
    """Sums, means (the default) or maxima of bags of rows of a table of ``num_embeddings``
    rows of size ``embedding_dim`` (see :func:`symgrad.nn.functional.embedding_bag`); rows
    from N(0, 1), the ``padding_idx`` row zero.

    Examples
    --------
    >>> import symgrad
    >>> bag = symgrad.nn.EmbeddingBag(10, 3, mode="sum")
    >>> bag
    EmbeddingBag(10, 3, mode='sum')
    >>> bag(symgrad.tensor([1, 2, 4, 5, 4]), symgrad.tensor([0, 2])).shape
    symgrad.Size([2, 3])
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight: Tensor | None = None,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx >= num_embeddings or padding_idx < -num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx = padding_idx % num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            shape = (num_embeddings, embedding_dim)
            self.weight = Parameter(creation.empty(shape, device=device, dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError(
                    "Shape of weight does not match num_embeddings and embedding_dim"
                )
            self.weight = Parameter(_weight)
        self.mode, self.sparse = mode, sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self) -> None:
        """Rows from N(0, 1), the padding row zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(
        self,
        input: Tensor,
        offsets: Tensor | None = None,
        per_sample_weights: Tensor | None = None,
    ) -> Tensor:
        return embedding_bag(
            input,
            self.weight,
            offsets,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.mode,
            self.sparse,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx,
        )

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
    ) -> EmbeddingBag:
        """An ``EmbeddingBag`` holding ``embeddings`` (2-D) as its weight, frozen by default.

        Examples
        --------
        >>> import symgrad
        >>> table = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> bag = symgrad.nn.EmbeddingBag.from_pretrained(table)
        >>> bag(symgrad.tensor([[0, 1]])), bag.weight.requires_grad
        (tensor([[2., 3.]]), False)
        """
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(
            num_embeddings=rows,
            embedding_dim=cols,
            _weight=embeddings,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            mode=mode,
            sparse=sparse,
            include_last_offset=include_last_offset,
            padding_idx=padding_idx,
        )
        bag.weight.requires_grad = not freeze
        return bag
