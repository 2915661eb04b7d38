"""Spectral normalization: a weight divided by its largest singular value ``sigma``,
estimated by power iteration on the weight seen as a matrix (dimension ``dim`` its rows).

The vectors ``u`` and ``v`` of the power method are buffers; in training mode each
computation of the weight runs ``n_power_iterations`` steps first, in place and without
recording, and ``sigma = u . (W v)`` is then differentiated with ``u`` and ``v`` held fixed,
as in PyTorch. :func:`symgrad.nn.utils.parametrizations.spectral_norm` is the
parametrization; :func:`symgrad.nn.utils.spectral_norm` PyTorch's older, hook-based form.
"""

from __future__ import annotations

from typing import Any

from symgrad import creation
from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.module import Module
from symgrad.nn.normalization import normalize
from symgrad.tensor import Tensor

__all__ = ["as_matrix", "default_dim", "random_unit"]


def as_matrix(weight: Tensor, dim: int) -> Tensor:
    """``weight`` as a matrix whose rows run along ``dim``."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.ndim) if d != dim))
    return weight.reshape(weight.shape[0], -1)


def random_unit(size: int, like: Tensor, eps: float) -> Tensor:
    """A random unit vector (normal entries, normalized) of ``like``'s dtype."""
    return normalize(creation.randn(size, dtype=like.dtype), dim=0, eps=eps)


def default_dim(module: Module) -> int:
    """PyTorch's default: 1 for a transposed convolution (its outputs), else 0."""
    from symgrad.nn.modules.conv_transposed import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


def check_iterations(n_power_iterations: int) -> None:
    if n_power_iterations <= 0:
        raise ValueError(
            "Expected n_power_iterations to be positive, but "
            f"got n_power_iterations={n_power_iterations}"
        )


class _SpectralNorm(Module):
    """``weight / sigma``, ``sigma`` the power method's estimate of the largest singular
    value (a 1-d weight is normalized instead); buffers ``_u`` and ``_v``, set up with 15
    steps of the power method."""

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] "
                f"but got {dim})"
            )
        check_iterations(n_power_iterations)
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = as_matrix(weight, self.dim)
            h, w = matrix.shape
            self.register_buffer("_u", random_unit(h, weight, eps))
            self.register_buffer("_v", random_unit(w, weight, eps))
            self._power_method(matrix, 15)

    def _power_method(self, matrix: Tensor, steps: int) -> None:
        with no_grad():
            for _ in range(steps):
                normalize(matrix.mv(self._v), dim=0, eps=self.eps, out=self._u)
                normalize(matrix.mT.mv(self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        matrix = as_matrix(weight, self.dim)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / u.dot(matrix.mv(v))

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: Any = None,
) -> Module:
    """Reparametrize ``module.<name>`` as ``W / sigma(W)``, ``sigma`` the largest singular
    value of ``W`` seen as a matrix with rows along ``dim`` (0, or 1 for a transposed
    convolution), estimated by ``n_power_iterations`` steps of the power method at each
    computation in training mode; the vectors are the buffers
    ``module.parametrizations.<name>[0]._u`` and ``._v``. In evaluation mode they stay fixed.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.parametrizations import spectral_norm
    >>> lin = spectral_norm(symgrad.nn.Linear(3, 2))
    >>> lin.parametrizations.weight[0]._u.shape
    symgrad.Size([2])
    >>> s = symgrad.linalg.svdvals(lin.weight.detach())
    >>> round(s[0].item(), 4)
    1.0
    """
    from symgrad.nn.utils import parametrize

    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    dim = default_dim(module) if dim is None else dim
    parametrization = _SpectralNorm(weight, n_power_iterations, dim, eps)
    parametrize.register_parametrization(module, name, parametrization)
    return module
