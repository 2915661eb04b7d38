"""PyTorch's module path as each layer class's home, whichever file of symgrad defines it:
``type(nn.GELU()).__module__`` is ``symgrad.nn.modules.activation`` as PyTorch's is
``torch.nn.modules.activation``, so reprs, ``typename`` and pickles name PyTorch's layout.
Each of these modules holds its classes, the private bases (``_MaxPoolNd``,
``_ConvTransposeNd``) too, so ``from symgrad.nn.modules.activation import
MultiheadAttention`` works as PyTorch's; a module that only holds classes kept elsewhere
(``flatten``, ``fold``, ...) lists their public names in its ``__all__``.

Examples
--------
>>> from symgrad import nn
>>> str(type(nn.GELU())), nn.modules.pooling.MaxPool2d is nn.MaxPool2d
("<class 'symgrad.nn.modules.activation.GELU'>", True)
"""

from __future__ import annotations

import importlib

from symgrad.nn.modules import channel_layers as _channel_layers
from symgrad.nn.modules import conv as _conv
from symgrad.nn.modules import conv_transposed as _conv_transposed
from symgrad.nn.modules import ctc_loss as _ctc_loss
from symgrad.nn.modules import embedding_bag as _embedding_bag
from symgrad.nn.modules import extra_layers as _extra_layers
from symgrad.nn.modules import factory as _factory
from symgrad.nn.modules import lazy as _lazy
from symgrad.nn.modules import lazy_conv as _lazy_conv
from symgrad.nn.modules import linear as _linear
from symgrad.nn.modules import linear_cross_entropy as _linear_cross_entropy
from symgrad.nn.modules import margin_loss as _margin_loss
from symgrad.nn.modules import normalization as _normalization
from symgrad.nn.modules import parameter_containers as _parameter_containers
from symgrad.nn.modules import pointwise as _pointwise
from symgrad.nn.modules import rearranging as _rearranging
from symgrad.nn.modules import regression_loss as _regression_loss
from symgrad.nn.modules import sparse as _sparse
from symgrad.nn.modules import sync_batchnorm as _sync_batchnorm
from symgrad.nn.modules import transformer as _transformer
from symgrad.nn.modules import transformer_decoder as _transformer_decoder

__all__ = ["HOMES"]

# torch.nn.modules.<file>: the classes PyTorch defines there that symgrad defines elsewhere
HOMES = {
    "activation": (
        _pointwise.Hardtanh,
        _pointwise.ReLU6,
        _pointwise.Hardsigmoid,
        _pointwise.SiLU,
        _pointwise.Mish,
        _pointwise.Hardswish,
        _pointwise.ELU,
        _pointwise.CELU,
        _pointwise.SELU,
        _pointwise.GLU,
        _pointwise.GELU,
        _pointwise.Hardshrink,
        _pointwise.LeakyReLU,
        _pointwise.LogSigmoid,
        _pointwise.Softplus,
        _pointwise.Softshrink,
        _transformer.MultiheadAttention,
        _extra_layers.PReLU,
        _pointwise.Softsign,
        _pointwise.Tanhshrink,
        _pointwise.Softmin,
        _channel_layers.Softmax2d,
    ),
    "batchnorm": (
        _normalization._NormBase,
        _normalization._BatchNorm,
        _lazy._LazyNormBase,
        _normalization.BatchNorm1d,
        _lazy.LazyBatchNorm1d,
        _normalization.BatchNorm2d,
        _lazy.LazyBatchNorm2d,
        _normalization.BatchNorm3d,
        _lazy.LazyBatchNorm3d,
        _sync_batchnorm.SyncBatchNorm,
    ),
    "channelshuffle": (_channel_layers.ChannelShuffle,),
    "container": (
        _factory.Container,
        _parameter_containers.ParameterList,
        _parameter_containers.ParameterDict,
    ),
    "conv": (
        _conv_transposed._ConvTransposeNd,
        _conv_transposed.ConvTranspose1d,
        _conv_transposed.ConvTranspose2d,
        _conv_transposed.ConvTranspose3d,
        _lazy_conv.LazyConv1d,
        _lazy_conv.LazyConv2d,
        _lazy_conv.LazyConv3d,
        _lazy_conv.LazyConvTranspose1d,
        _lazy_conv.LazyConvTranspose2d,
        _lazy_conv.LazyConvTranspose3d,
    ),
    "distance": (
        _extra_layers.PairwiseDistance,
        _extra_layers.CosineSimilarity,
    ),
    "dropout": (
        _sparse._DropoutNd,
        _sparse.Dropout,
        _extra_layers.Dropout1d,
        _extra_layers.Dropout2d,
        _extra_layers.Dropout3d,
        _sparse.AlphaDropout,
        _channel_layers.FeatureAlphaDropout,
    ),
    "flatten": (
        _linear.Flatten,
        _extra_layers.Unflatten,
    ),
    "fold": (
        _rearranging.Fold,
        _rearranging.Unfold,
    ),
    "instancenorm": (
        _lazy.LazyInstanceNorm1d,
        _lazy.LazyInstanceNorm2d,
        _lazy.LazyInstanceNorm3d,
    ),
    "linear": (
        _transformer.NonDynamicallyQuantizableLinear,
        _lazy.LazyLinear,
    ),
    "loss": (
        _margin_loss.NLLLoss2d,
        _regression_loss.PoissonNLLLoss,
        _regression_loss.GaussianNLLLoss,
        _regression_loss.KLDivLoss,
        _regression_loss.HingeEmbeddingLoss,
        _margin_loss.MultiLabelMarginLoss,
        _regression_loss.SmoothL1Loss,
        _regression_loss.HuberLoss,
        _margin_loss.SoftMarginLoss,
        _linear_cross_entropy.LinearCrossEntropyLoss,
        _margin_loss.MultiLabelSoftMarginLoss,
        _margin_loss.CosineEmbeddingLoss,
        _regression_loss.MarginRankingLoss,
        _margin_loss.MultiMarginLoss,
        _regression_loss.TripletMarginLoss,
        _margin_loss.TripletMarginWithDistanceLoss,
        _ctc_loss.CTCLoss,
    ),
    "normalization": (
        _channel_layers.LocalResponseNorm,
        _channel_layers.CrossMapLRN2d,
        _extra_layers.RMSNorm,
    ),
    "padding": (
        _conv.ConstantPad1d,
        _conv.ConstantPad2d,
        _conv.ReflectionPad1d,
        _conv.ReflectionPad2d,
        _conv.ReplicationPad1d,
        _conv.ReplicationPad2d,
        _conv.ZeroPad1d,
        _conv.ZeroPad2d,
    ),
    "pixelshuffle": (
        _rearranging.PixelShuffle,
        _rearranging.PixelUnshuffle,
    ),
    "pooling": (
        _conv._MaxPoolNd,
        _conv.MaxPool1d,
        _conv.MaxPool2d,
        _conv.MaxPool3d,
        _conv._AvgPoolNd,
        _conv.AvgPool1d,
        _conv.AvgPool2d,
        _conv.AvgPool3d,
        _conv.AdaptiveMaxPool1d,
        _conv.AdaptiveMaxPool2d,
        _conv.AdaptiveAvgPool1d,
        _conv.AdaptiveAvgPool2d,
    ),
    "sparse": (_embedding_bag.EmbeddingBag,),
    "transformer": (
        _transformer_decoder.Transformer,
        _transformer_decoder.TransformerDecoder,
        _transformer_decoder.TransformerDecoderLayer,
    ),
}


def _settle() -> None:
    for file, classes in HOMES.items():
        module = importlib.import_module(f"symgrad.nn.modules.{file}")
        for cls in classes:
            if getattr(module, cls.__name__, None) is not cls:
                setattr(module, cls.__name__, cls)
            cls.__module__ = module.__name__
        if not hasattr(module, "__all__"):
            module.__all__ = [c.__name__ for c in classes if not c.__name__.startswith("_")]


_settle()
