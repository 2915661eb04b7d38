"""The layer classes of :mod:`symgrad.nn`."""

from symgrad.nn.modules.activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from symgrad.nn.modules import conv as _conv
from symgrad.nn.modules.container import DataParallel, ModuleDict, ModuleList, Sequential
from symgrad.nn.modules.linear import Bilinear, Flatten, Identity, Linear
from symgrad.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
)
from symgrad.nn.modules.module import Module
from symgrad.nn.modules import backward_hooks as _backward_hooks
from symgrad.nn.modules import normalization as _normalization
from symgrad.nn.modules import pointwise as _pointwise
from symgrad.nn.modules import regression_loss as _regression_loss
from symgrad.nn.modules import rnn as _rnn
from symgrad.nn.modules import sparse as _sparse
from symgrad.nn.modules.conv import *  # noqa: F403
from symgrad.nn.modules.normalization import *  # noqa: F403
from symgrad.nn.modules.pointwise import *  # noqa: F403
from symgrad.nn.modules.regression_loss import *  # noqa: F403
from symgrad.nn.modules.rnn import *  # noqa: F403
from symgrad.nn.modules.sparse import *  # noqa: F403
from symgrad.nn.modules import transformer as _transformer
from symgrad.nn.modules.transformer import *  # noqa: F403
from symgrad.nn.modules import extra_layers as _extra_layers
from symgrad.nn.modules import transformer_decoder as _transformer_decoder
from symgrad.nn.modules.transformer_decoder import *  # noqa: F403
from symgrad.nn.modules import instancenorm as _instancenorm
from symgrad.nn.modules.instancenorm import *  # noqa: F403
from symgrad.nn.modules import embedding_bag as _embedding_bag
from symgrad.nn.modules.embedding_bag import *  # noqa: F403
from symgrad.nn.modules import ctc_loss as _ctc_loss
from symgrad.nn.modules.ctc_loss import *  # noqa: F403
from symgrad.nn.modules.extra_layers import *  # noqa: F403
from symgrad.nn.modules import conv_transposed as _conv_transposed
from symgrad.nn.modules.conv_transposed import *  # noqa: F403
from symgrad.nn.modules import upsampling as _upsampling
from symgrad.nn.modules.upsampling import *  # noqa: F403
from symgrad.nn.modules import rearranging as _rearranging
from symgrad.nn.modules.rearranging import *  # noqa: F403
from symgrad.nn.modules.activation import RReLU, Threshold
from symgrad.nn.modules import lazy as _lazy
from symgrad.nn.modules.lazy import *  # noqa: F403
from symgrad.nn.modules import lazy_conv as _lazy_conv
from symgrad.nn.modules.lazy_conv import *  # noqa: F403
from symgrad.nn.modules.adaptive import AdaptiveLogSoftmaxWithLoss
from symgrad.nn.modules import margin_loss as _margin_loss
from symgrad.nn.modules.margin_loss import *  # noqa: F403
from symgrad.nn.modules import channel_layers as _channel_layers
from symgrad.nn.modules.channel_layers import *  # noqa: F403
from symgrad.nn.modules import padding as _padding
from symgrad.nn.modules import pooling as _pooling
from symgrad.nn.modules.padding import *  # noqa: F403
from symgrad.nn.modules.pooling import *  # noqa: F403
from symgrad.nn.modules import utils  # noqa: F401  (torch.nn.modules.utils)
from symgrad.nn.modules.sync_batchnorm import SyncBatchNorm
from symgrad.nn.modules import linear_cross_entropy as _linear_cross_entropy
from symgrad.nn.modules.linear_cross_entropy import *  # noqa: F403
from symgrad.nn.modules.factory import Container, factory_kwargs
from symgrad.nn.modules import _homes  # noqa: F401  (every layer under PyTorch's module path)

__all__ = [
    "Module",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "Linear",
    "Identity",
    "Flatten",
    "ReLU",
    "Tanh",
    "Sigmoid",
    "Softmax",
    "LogSoftmax",
    "MSELoss",
    "L1Loss",
    "CrossEntropyLoss",
    "NLLLoss",
    "BCEWithLogitsLoss",
    "BCELoss",
    "Bilinear",
    "DataParallel",
    *_conv.__all__,
    *_normalization.__all__,
    *_pointwise.__all__,
    *_regression_loss.__all__,
    *_rnn.__all__,
    *_sparse.__all__,
    *_transformer.__all__,
    *_extra_layers.__all__,
    *_transformer_decoder.__all__,
    *_instancenorm.__all__,
    *_embedding_bag.__all__,
    *_ctc_loss.__all__,
    *_conv_transposed.__all__,
    *_upsampling.__all__,
    *_rearranging.__all__,
    "Threshold",
    "RReLU",
    *_lazy.__all__,
    *_lazy_conv.__all__,
    "AdaptiveLogSoftmaxWithLoss",
    *_margin_loss.__all__,
    *_channel_layers.__all__,
    *_pooling.__all__,
    *_padding.__all__,
    "SyncBatchNorm",
    *_linear_cross_entropy.__all__,
    "Container",
    "factory_kwargs",
]
