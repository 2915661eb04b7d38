"""PyTorch's module paths of the layer classes: ``from torch.nn.modules.activation import
MultiheadAttention`` (and ``...pooling import MaxPool2d``, ``...loss import KLDivLoss``) names
classes symgrad keeps in other files. Each module of PyTorch's layout answers the names it
has in PyTorch from ``symgrad.nn``, on first use (no import cycle between the files)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# the names each module of torch.nn.modules has that symgrad keeps in another file
_ELSEWHERE = {
    "activation": (
        "Hardtanh ReLU6 Hardsigmoid SiLU Mish Hardswish ELU CELU SELU GLU GELU Hardshrink "
        "LeakyReLU LogSigmoid Softplus Softshrink MultiheadAttention PReLU Softsign Tanhshrink "
        "Softmin Softmax2d"
    ),
    "channelshuffle": "ChannelShuffle",
    "container": "Container ParameterList ParameterDict",
    "conv": (
        "ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d LazyConv2d LazyConv3d "
        "LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d"
    ),
    "distance": "PairwiseDistance CosineSimilarity",
    "flatten": "Flatten Unflatten",
    "fold": "Fold Unfold",
    "instancenorm": "LazyInstanceNorm1d LazyInstanceNorm2d LazyInstanceNorm3d",
    "linear": "LazyLinear",
    "loss": (
        "NLLLoss2d PoissonNLLLoss GaussianNLLLoss KLDivLoss HingeEmbeddingLoss "
        "MultiLabelMarginLoss SmoothL1Loss HuberLoss SoftMarginLoss LinearCrossEntropyLoss "
        "MultiLabelSoftMarginLoss CosineEmbeddingLoss MarginRankingLoss MultiMarginLoss "
        "TripletMarginLoss TripletMarginWithDistanceLoss CTCLoss"
    ),
    "normalization": "LocalResponseNorm CrossMapLRN2d RMSNorm",
    "padding": (
        "ConstantPad1d ConstantPad2d ReflectionPad1d ReflectionPad2d ReplicationPad1d "
        "ReplicationPad2d ZeroPad1d ZeroPad2d"
    ),
    "pixelshuffle": "PixelShuffle PixelUnshuffle",
    "pooling": (
        "MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveMaxPool1d "
        "AdaptiveMaxPool2d AdaptiveAvgPool1d AdaptiveAvgPool2d"
    ),
    "sparse": "EmbeddingBag",
    "transformer": "Transformer TransformerDecoder TransformerDecoderLayer",
}


def names_elsewhere(module: str) -> tuple[str, ...]:
    """The names PyTorch's ``module`` (``"symgrad.nn.modules.pooling"``) has and symgrad
    keeps in another file."""
    return tuple(_ELSEWHERE.get(module.rsplit(".", 1)[-1], "").split())


def forward_names(module: str) -> Callable[[str], Any]:
    """The module-level ``__getattr__`` of ``module``: its PyTorch names from ``symgrad.nn``.

    Examples
    --------
    >>> from symgrad.nn.modules.activation import MultiheadAttention
    >>> from symgrad.nn.modules.pooling import MaxPool2d
    >>> import symgrad
    >>> MultiheadAttention is symgrad.nn.MultiheadAttention, MaxPool2d is symgrad.nn.MaxPool2d
    (True, True)
    """
    names = frozenset(names_elsewhere(module))

    def __getattr__(name: str) -> Any:
        if name in names:
            import symgrad.nn

            return getattr(symgrad.nn, name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
