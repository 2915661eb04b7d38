"""Layers over the channels of an input: ``LocalResponseNorm``, the legacy
``CrossMapLRN2d``, ``FeatureAlphaDropout``, ``ChannelShuffle`` and ``Softmax2d``."""

from __future__ import annotations

from symgrad.nn import cross_map_lrn
from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.nn.modules.sparse import _DropoutNd
from symgrad.tensor import Tensor

__all__ = [
    "LocalResponseNorm",
    "CrossMapLRN2d",
    "FeatureAlphaDropout",
    "ChannelShuffle",
    "Softmax2d",
]


class LocalResponseNorm(Module):
    """``F.local_response_norm``: each channel divided by ``(k + alpha * mean of the squares
    of size neighbouring channels) ** beta``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    >>> nn.LocalResponseNorm(2, alpha=1.0, beta=1.0)(symgrad.tensor([[[1.0], [3.0]]]))
    tensor([[[0.6667],
             [0.5000]]])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """PyTorch's legacy local response normalization of 4-d inputs, one
    ``CrossMapLRN2dBackward`` node (see :mod:`symgrad.nn.cross_map_lrn` for its windows).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.CrossMapLRN2d(3)
    CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)
    >>> nn.CrossMapLRN2d(1, alpha=1.0, beta=1.0)(symgrad.ones(1, 1, 1, 1))
    tensor([[[[0.5000]]]])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return cross_map_lrn.CrossMapLRN2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class FeatureAlphaDropout(_DropoutNd):
    """In training, alpha dropout of whole channels ``input[n, c]`` (``F.feature_alpha_dropout``);
    in evaluation, the identity.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> drop = nn.FeatureAlphaDropout(0.2).eval()
    >>> drop
    FeatureAlphaDropout(p=0.2, inplace=False)
    >>> drop(symgrad.ones(1, 2))
    tensor([[1., 1.]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)


class ChannelShuffle(Module):
    """``F.channel_shuffle(input, groups)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.ChannelShuffle(2)(symgrad.arange(4.0).reshape(1, 4, 1)).flatten()
    tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of a 3-d or 4-d input.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Softmax2d()(symgrad.zeros(2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3, _stacklevel=5)
