"""``torch.nn.utils``: gradient clipping, parameters as one vector, batch norm fusion,
parametrizations
(:mod:`~symgrad.nn.utils.parametrize`) and pruning (:mod:`~symgrad.nn.utils.prune`); and,
beyond PyTorch, :func:`name_parameters` (each parameter named after its path, for closed
forms)."""

from symgrad.nn.utils import parametrizations, parametrize, prune, rnn, stateless
from symgrad.nn.utils._naming import name_parameters
from symgrad.nn.utils.clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from symgrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from symgrad.nn.utils.init import skip_init
from symgrad.nn.utils.memory_format import (
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
)
from symgrad.nn.utils.fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from symgrad.nn.utils.spectral_norm_hook import remove_spectral_norm, spectral_norm
from symgrad.nn.utils.weight_norm_hook import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
    "parameters_to_vector",
    "vector_to_parameters",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "parametrize",
    "parametrizations",
    "prune",
    "rnn",
    "stateless",
    "skip_init",
    "convert_conv2d_weight_memory_format",
    "convert_conv3d_weight_memory_format",
    "name_parameters",
    "weight_norm",
    "remove_weight_norm",
    "spectral_norm",
    "remove_spectral_norm",
]
