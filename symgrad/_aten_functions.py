"""The ``torch.nn.functional`` ops that PyTorch also has at the top level (``torch.celu``,
``torch.batch_norm``, ``torch.embedding``, ``torch.dropout``), with ATen's signatures where they
differ from the functional ones: ``torch.embedding(weight, indices, padding_idx=-1, ...)``
takes the table first, ``torch.batch_norm`` takes every argument by position and a
``cudnn_enabled`` flag (ignored: there is no cuDNN), the dropouts take ``train`` with no
default. Each calls the implementation of :mod:`symgrad.nn.functional`, so values, gradients
and nodes are the functional op's.

Examples
--------
>>> import symgrad
>>> w = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> symgrad.embedding(w, symgrad.tensor([1, 0]))
tensor([[3., 4.],
        [1., 2.]])
"""

from __future__ import annotations

from typing import Any

from symgrad._arguments import require_tensor
from symgrad.nn import activations as _activations
from symgrad.nn import instance_norm as _instance_norm
from symgrad.nn import normalization as _normalization
from symgrad.nn import sparse as _sparse
from symgrad.nn import threshold_rrelu as _threshold_rrelu
from symgrad.nn.channel_ops import channel_shuffle, feature_dropout_impl, native_channel_shuffle
from symgrad.nn.conv_tbc import conv_tbc, convolution
from symgrad.nn.convolution import conv1d, conv2d, conv3d  # ATen's signature is the functional one
from symgrad.nn.convolution_transposed import conv_transpose1d, conv_transpose2d, conv_transpose3d
from symgrad.nn.extras import prelu, rms_norm  # torch.rms_norm takes F.rms_norm's arguments
from symgrad.nn.normalization import cosine_similarity, pairwise_distance  # both F's own
from symgrad.nn.rearranging import pixel_shuffle, pixel_unshuffle
from symgrad.nn.sparse import bilinear
from symgrad.nn.threshold_rrelu import threshold_
from symgrad.tensor import Tensor

__all__ = [
    "threshold", "threshold_", "rrelu", "rrelu_", "prelu", "celu", "selu",
    "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
    "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
    "batch_norm", "layer_norm", "group_norm", "instance_norm", "embedding",
    "conv1d", "conv2d", "conv3d", "convolution", "conv_tbc",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "bilinear",
    "cosine_similarity", "pairwise_distance", "rms_norm",
]  # fmt: skip


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``value`` where ``input <= threshold``, else ``input`` (node ``ThresholdBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.threshold(symgrad.tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    return _threshold_rrelu.threshold(input, threshold, value)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    """Randomized leaky ReLU (see :func:`symgrad.nn.functional.rrelu`); the slopes drawn in
    ``training`` come from ``generator`` (a :class:`symgrad.Generator`, None: the default one).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.rrelu(symgrad.tensor([-1.0, 2.0]), 0.2, 0.4)
    tensor([-0.3000,  2.0000])
    """
    if type(input) is not Tensor:
        require_tensor("rrelu", "input", 1, input)
    return _threshold_rrelu.rrelu(input, lower, upper, training, _generator=generator)


def rrelu_(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    """:func:`rrelu` written into ``input`` (node ``RreluWithNoiseBackward1``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([-2.0, 1.0])
    >>> symgrad.rrelu_(x, 0.25, 0.25) is x, x
    (True, tensor([-0.5000,  1.0000]))
    """
    if type(input) is not Tensor:
        require_tensor("rrelu_", "input", 1, input)
    return _threshold_rrelu.rrelu(input, lower, upper, training, True, _generator=generator)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (node ``CeluBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.celu(symgrad.tensor([0.0, 2.0]), 2.0)
    tensor([0., 2.])
    """
    if type(input) is not Tensor:
        require_tensor("celu", "input", 1, input)
    return _activations.celu(input, alpha)


def selu(input: Tensor) -> Tensor:
    """Scaled ELU with PyTorch's constants (node ``EluBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.selu(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 1.0507])
    """
    if type(input) is not Tensor:
        require_tensor("selu", "input", 1, input)
    return _activations.selu(input)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` when
    ``train`` (node ``MulBackward0``); ``input`` itself otherwise or when ``p == 0``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(3)
    >>> symgrad.dropout(x, 0.5, False) is x
    True
    """
    _check_p(p)
    return _sparse.dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """:func:`dropout` written into ``input``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.dropout_(symgrad.ones(3), 1.0, True)
    tensor([0., 0., 0.])
    """
    _check_p(p)
    return _sparse.dropout(input, p, train, inplace=True)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout for SELU networks (see :func:`symgrad.nn.functional.alpha_dropout`).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.alpha_dropout(symgrad.ones(2), 0.5, False)
    tensor([1., 1.])
    """
    _check_p(p)
    return _sparse.alpha_dropout(input, p, train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """:func:`alpha_dropout` written into ``input``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2)
    >>> symgrad.alpha_dropout_(x, 0.0, True) is x
    True
    """
    _check_p(p)
    return _sparse.alpha_dropout(input, p, train, inplace=True)


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature(input: Tensor, p: float, train: bool, alpha: bool, name: str | None) -> Tensor:
    _check_p(p)
    return feature_dropout_impl(input, p, train, alpha, name)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zero whole feature maps ``input[n, c]`` with probability ``p`` and scale the rest by
    ``1 / (1 - p)`` when ``train`` (node ``MulBackward0``); ``input`` at least 2-d.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.feature_dropout(symgrad.ones(1, 2, 2), 0.5, False)
    tensor([[[1., 1.],
             [1., 1.]]])
    """
    return _feature(input, p, train, False, None)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """:func:`feature_dropout` written into ``input``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.feature_dropout_(symgrad.ones(1, 2), 1.0, True)
    tensor([[0., 0.]])
    """
    return _feature(input, p, train, False, "feature_dropout_")


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout of whole feature maps ``input[n, c]`` (node ``AddBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.feature_alpha_dropout(symgrad.ones(1, 2), 0.5, False)
    tensor([[1., 1.]])
    """
    return _feature(input, p, train, True, None)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """:func:`feature_alpha_dropout` written into ``input``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.feature_alpha_dropout_(symgrad.ones(1, 2), 1.0, True)
    tensor([[0., 0.]])
    """
    return _feature(input, p, train, True, "feature_alpha_dropout_")


def batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """Batch normalization in ATen's argument order (``cudnn_enabled`` is ignored).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[1.0], [3.0]])
    >>> symgrad.batch_norm(x, None, None, None, None, True, 0.1, 0.0, False)
    tensor([[-1.],
            [ 1.]])
    >>> symgrad.batch_norm(symgrad.tensor([[1.0]]), None, None, None, None, True, 0.1, 1e-5, False)
    tensor([[0.]])
    """
    return _normalization.batch_norm(
        input, running_mean, running_var, weight, bias, training, momentum, eps, _aten=True
    )


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enable: bool = True,
) -> Tensor:
    """Layer normalization over the last ``normalized_shape`` dimensions (``cudnn_enable`` is
    ignored).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.layer_norm(symgrad.tensor([[1.0, 3.0]]), [2], eps=0.0)
    tensor([[-1.,  1.]])
    """
    return _normalization.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enabled: bool = True,
) -> Tensor:
    """Group normalization (``cudnn_enabled`` is ignored).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.group_norm(symgrad.tensor([[1.0, 3.0]]), 1, eps=0.0)
    tensor([[-1.,  1.]])
    """
    if type(input) is not Tensor:
        require_tensor("group_norm", "input", 1, input)
    return _normalization.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """Instance normalization in ATen's argument order (``cudnn_enabled`` is ignored).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[[1.0, 3.0]]])
    >>> symgrad.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
    tensor([[[-1.0000,  1.0000]]])
    """
    return _instance_norm.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows ``weight[indices]``: the table comes first, and a negative ``padding_idx``
    means none (row ``padding_idx`` gets no gradient otherwise), as ATen's ``embedding``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.embedding(symgrad.tensor([[1.0], [2.0]]), symgrad.tensor([1, 1]))
    tensor([[2.],
            [2.]])
    """
    if type(weight) is not Tensor or type(indices) is not Tensor:
        require_tensor("embedding", "weight", 1, weight)
        require_tensor("embedding", "indices", 2, indices)
    padding = None if padding_idx < 0 else padding_idx
    return _sparse.embedding(
        indices, weight, padding, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse
    )
