"""A reduction's or a scan's result is laid out row by row whatever its input's layout, as
PyTorch allocates it: so ``x.permute(...).sum(1).view(-1)`` works as in PyTorch (NumPy's
result follows a transposed input's layout, and ``.view`` refused it)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])

# name -> (op on the (4, 3, 2) permuted input, PyTorch's shape and strides)
CASES = {
    "sum": (lambda T, x: x.sum(1), (4, 2), (2, 1)),
    "sum_keepdim": (lambda T, x: x.sum(1, keepdim=True), (4, 1, 2), (2, 2, 1)),
    "sum_dims": (lambda T, x: x.sum((0, 1)), (2,), (1,)),
    "mean": (lambda T, x: x.mean(1), (4, 2), (2, 1)),
    "prod": (lambda T, x: x.prod(1), (4, 2), (2, 1)),
    "amax": (lambda T, x: x.amax(1), (4, 2), (2, 1)),
    "amin": (lambda T, x: x.amin(0), (3, 2), (2, 1)),
    "std": (lambda T, x: x.std(1), (4, 2), (2, 1)),
    "var": (lambda T, x: x.var(2), (4, 3), (3, 1)),
    "logsumexp": (lambda T, x: x.logsumexp(1), (4, 2), (2, 1)),
    "norm": (lambda T, x: x.norm(dim=1), (4, 2), (2, 1)),
    "vector_norm_3": (lambda T, x: T.linalg.vector_norm(x, 3, dim=1), (4, 2), (2, 1)),
    "nansum": (lambda T, x: x.nansum(1), (4, 2), (2, 1)),
    "nanmean": (lambda T, x: x.nanmean(1), (4, 2), (2, 1)),
    "all": (lambda T, x: (x > 3).all(1), (4, 2), (2, 1)),
    "any": (lambda T, x: (x > 3).any(1), (4, 2), (2, 1)),
    "count_nonzero": (lambda T, x: x.count_nonzero(1), (4, 2), (2, 1)),
    "cumsum": (lambda T, x: x.cumsum(1), (4, 3, 2), (6, 2, 1)),
    "cumprod": (lambda T, x: x.cumprod(1), (4, 3, 2), (6, 2, 1)),
    "logcumsumexp": (lambda T, x: x.logcumsumexp(1), (4, 3, 2), (6, 2, 1)),
    "max_dim": (lambda T, x: x.max(1)[0], (4, 2), (2, 1)),
}


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(CASES))
def test_reduction_of_a_permuted_tensor_is_row_major(lib, name):
    fn, shape, strides = CASES[name]
    base = lib.tensor(np.arange(24.0).reshape(2, 3, 4) / 10, requires_grad=True)
    x = base.permute(2, 1, 0)
    y = fn(lib, x)
    assert tuple(y.shape) == shape and y.stride() == strides
    flat = y.view(-1)  # what failed: "view size is not compatible with input tensor's size"
    assert flat.shape[0] == int(np.prod(shape))
    if y.dtype.is_floating_point:
        flat.sum().backward()
        assert base.grad.shape == base.shape and base.grad.is_contiguous()


def test_values_unchanged_by_the_layout():
    data = np.random.default_rng(0).standard_normal((3, 4, 5))
    x = symgrad.tensor(data).permute(2, 0, 1)
    expected = data.transpose(2, 0, 1)
    assert np.allclose(x.sum(1).numpy(), expected.sum(1))
    assert np.allclose(x.cumsum(2).numpy(), expected.cumsum(2))
    assert np.allclose(x.std(0).numpy(), expected.std(0, ddof=1))
