"""PyTorch's older, hook-based ``torch.nn.utils.spectral_norm``: the weight moves to the
parameter ``<name>_orig``, the power method's vectors are the buffers ``<name>_u`` and
``<name>_v``, and a forward pre-hook sets ``module.<name> = W / sigma`` before every call
(running the power method first in training mode). The parametrization
:func:`symgrad.nn.utils.parametrizations.spectral_norm` is the newer form."""

from __future__ import annotations

from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.module import Module
from symgrad.nn.normalization import normalize
from symgrad.nn.parameter import Parameter
from symgrad.nn.utils.spectral import as_matrix, check_iterations, default_dim, random_unit
from symgrad.nn.utils.weight_norm_hook import find_hook, remove_hook
from symgrad.tensor import Tensor

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm`."""

    _version = 1  # the layout of the state dict, recorded in its metadata as PyTorch's

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        check_iterations(n_power_iterations)
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        matrix = as_matrix(weight, self.dim)
        if do_power_iteration:  # v first, then u (the parametrization goes the other way)
            with no_grad():
                for _ in range(self.n_power_iterations):
                    normalize(matrix.mT.mv(u), dim=0, eps=self.eps, out=v)
                    normalize(matrix.mv(v), dim=0, eps=self.eps, out=u)
                u, v = u.clone(), v.clone()
        return weight / u.dot(matrix.mv(v))

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))


class _StateDictHook:
    """Records ``<name>.version`` under ``spectral_norm`` in a state dict's metadata, as
    PyTorch's ``SpectralNormStateDictHook`` does (its loader reads it)."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module: Module, state_dict: Any, prefix: str, local_metadata: dict) -> None:
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: Any = None,
) -> Module:
    """Divide ``module.<name>`` by its largest singular value (the weight seen as a matrix
    with rows along ``dim``: 0, or 1 for a transposed convolution), estimated by the power
    method before every call: the parameter becomes ``<name>_orig``, the vectors the buffers
    ``<name>_u`` and ``<name>_v`` (random unit vectors at first); in evaluation mode they stay
    fixed.

    Examples
    --------
    >>> import symgrad
    >>> lin = symgrad.nn.utils.spectral_norm(symgrad.nn.Linear(3, 2))
    >>> [n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()]
    (['bias', 'weight_orig'], ['weight_u', 'weight_v'])
    """
    dim = default_dim(module) if dim is None else dim
    if find_hook(module, SpectralNorm, name) is not None:
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    hook = SpectralNorm(name, n_power_iterations, dim, eps)
    weight = module._parameters[name]
    if weight is None:
        raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
    h, w = as_matrix(weight.detach(), dim).shape
    u, v = random_unit(h, weight, eps), random_unit(w, weight, eps)
    delattr(module, name)
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(hook)
    module._register_state_dict_hook(_StateDictHook(hook))
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`spectral_norm`: ``module.<name>`` is a parameter again, holding
    ``W / sigma`` with the current vectors.

    Examples
    --------
    >>> import symgrad
    >>> lin = symgrad.nn.utils.spectral_norm(symgrad.nn.Linear(3, 2))
    >>> lin = symgrad.nn.utils.remove_spectral_norm(lin)
    >>> [n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()]
    (['bias', 'weight'], [])
    """
    module = remove_hook(module, SpectralNorm, name, "spectral_norm")
    hooks = module.__dict__.get("_state_dict_hooks", [])
    hooks[:] = [h for h in hooks if not (isinstance(h, _StateDictHook) and h.fn.name == name)]
    return module
