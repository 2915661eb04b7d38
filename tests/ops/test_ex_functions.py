"""``linalg.inv_ex`` and ``linalg.solve_ex`` report a singular matrix in ``info`` (the
position of the first zero pivot of its LU factorization) instead of raising, as PyTorch's
``_ex`` functions do; the other matrices of a batch keep their values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

SINGULAR = [[1.0, 2.0], [2.0, 4.0]]


def test_inv_ex_of_a_singular_matrix() -> None:
    found = symgrad.linalg.inv_ex(symgrad.tensor(SINGULAR))
    assert found.info.item() == 2 and found.info.dtype == symgrad.int32
    assert np.isnan(found.inverse.numpy()).all()
    with pytest.raises(symgrad.linalg.LinAlgError):
        symgrad.linalg.inv_ex(symgrad.tensor(SINGULAR), check_errors=True)


def test_batch_with_one_singular_matrix() -> None:
    a = symgrad.stack([symgrad.tensor(SINGULAR), symgrad.eye(2) * 2]).requires_grad_()
    found = symgrad.linalg.inv_ex(a)
    assert found.info.tolist() == [2, 0]
    np.testing.assert_array_equal(found.inverse[1].detach().numpy(), np.eye(2) / 2)
    found.inverse[1].sum().backward()
    np.testing.assert_array_equal(a.grad.numpy()[1], np.full((2, 2), -0.25))
    solved = symgrad.linalg.solve_ex(a.detach(), symgrad.ones(2, 2))
    assert solved.info.tolist() == [2, 0]
    assert np.isnan(solved.result.numpy()[0]).all()
    np.testing.assert_array_equal(solved.result.numpy()[1], [0.5, 0.5])


def test_invertible_matrices_unchanged() -> None:
    found = symgrad.linalg.solve_ex(symgrad.eye(2), symgrad.ones(2))
    assert found.info.item() == 0 and found.result.tolist() == [1.0, 1.0]
