"""``linalg.inv_ex`` and ``linalg.solve_ex`` report a singular matrix in ``info`` (the
position of the first zero pivot of its LU factorization) instead of raising, as PyTorch's
``_ex`` functions do, its result LAPACK's inf and nan (substitution with the singular
factors); the other matrices of a batch keep their values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

SINGULAR = [[1.0, 2.0], [2.0, 4.0]]


def test_inv_ex_of_a_singular_matrix() -> None:
    found = symgrad.linalg.inv_ex(symgrad.tensor(SINGULAR))
    assert found.info.item() == 2 and found.info.dtype == symgrad.int32
    inf = float("inf")
    assert found.inverse.tolist() == [[-inf, inf], [inf, -inf]]
    with pytest.raises(symgrad.linalg.LinAlgError, match=r"^linalg.inv_ex: The diagonal element 2"):
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
    assert solved.result[0].tolist() == [-float("inf"), float("inf")]
    np.testing.assert_array_equal(solved.result.numpy()[1], [0.5, 0.5])


def test_invertible_matrices_unchanged() -> None:
    found = symgrad.linalg.solve_ex(symgrad.eye(2), symgrad.ones(2))
    assert found.info.item() == 0 and found.result.tolist() == [1.0, 1.0]


def test_singular_results_are_lapack_substitution() -> None:
    a = symgrad.tensor([[[0.0, 0.0], [0.0, 0.0]], SINGULAR, [[1.0, 2.0], [3.0, 4.0]]])
    found = symgrad.linalg.inv_ex(a)
    assert found.info.tolist() == [1, 2, 0]
    inf = np.inf
    np.testing.assert_array_equal(
        found.inverse.numpy()[:2], [[[np.nan, np.nan], [np.nan, inf]], [[-inf, inf], [inf, -inf]]]
    )
    right = symgrad.linalg.solve_ex(symgrad.tensor(SINGULAR), a[2], left=False)
    np.testing.assert_array_equal(right.result.numpy(), [[np.nan, np.nan], [-np.inf, np.inf]])


def test_singular_matrix_has_a_gradient_of_inf_and_nan() -> None:
    a = symgrad.tensor(SINGULAR, requires_grad=True)
    out = symgrad.linalg.inv_ex(a).inverse
    assert type(out.grad_fn).__name__ == "LinalgInvExBackward0"
    out.sum().backward()
    assert np.isnan(a.grad.numpy()).all()
    for upper in (False, True):
        a = symgrad.tensor(SINGULAR, requires_grad=True)
        factor = symgrad.linalg.cholesky_ex(a, upper=upper).L
        factor.sum().backward()  # a zero on the factor's diagonal: nan, no error
        assert np.isnan(a.grad.numpy()).any()


def test_errors_name_the_ex_function_and_the_batch_element() -> None:
    batch = symgrad.tensor([SINGULAR, SINGULAR])
    with pytest.raises(
        symgrad.linalg.LinAlgError,
        match=r"^torch.linalg.solve_ex: \(Batch element 0\): The solver failed because",
    ):
        symgrad.linalg.solve_ex(batch, symgrad.ones(2), check_errors=True)
    with pytest.raises(symgrad.linalg.LinAlgError, match=r"^torch.linalg.solve_ex: The solver"):
        symgrad.linalg.solve_ex(batch[0], symgrad.ones(2), check_errors=True)


def test_nearly_singular_matrix_is_inverted_as_pytorch() -> None:
    # its last pivot is -1.6e-16 in LAPACK's (fused multiply-add) elimination, not 0: no error
    a = symgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], dtype=symgrad.float64)
    assert symgrad.linalg.lu_factor(a).LU[2, 2].item() == -1.5860328923216525e-16
    np.testing.assert_allclose(
        symgrad.linalg.inv(a).numpy()[0],
        [3152519739159346.5, -6305039478318690.0, 3152519739159347.5],
        rtol=1e-12,
    )


@pytest.mark.torch
def test_against_pytorch() -> None:
    torch = pytest.importorskip("torch")
    rs = np.random.RandomState(0)
    near = rs.randn(3, 4, 4)
    near[:, :, 3] = near[:, :, 0] - 2 * near[:, :, 1]
    rounded = np.round(rs.randn(6, 5, 5) * 4) / 4
    matrices = (near, rounded, rs.randn(2, 7, 3), rs.randn(3, 2, 6))
    singular = np.array([SINGULAR, [[3.0, 1.0], [6.0, 2.0]], np.zeros((2, 2))])
    results = []
    for T in (torch, symgrad):
        out = []
        for m in matrices:
            for dtype in (T.float32, T.float64):  # LAPACK's factors, to the bit
                factors = T.linalg.lu_factor_ex(T.tensor(m, dtype=dtype))
                out += [factors.LU.tolist(), factors.pivots.tolist(), factors.info.tolist()]
        # (a float64 pass after a backward: PyTorch's LAPACK gives nan for the whole batch)
        for dtype, backward in ((T.float32, False), (T.float64, True)):
            a = T.tensor(singular, dtype=dtype, requires_grad=True)
            found = T.linalg.inv_ex(a)
            out += [found.info.tolist(), found.inverse.tolist()]
            for left in (True, False):
                solved = T.linalg.solve_ex(a.detach(), T.ones(2, 2, dtype=dtype), left=left)
                out += [solved.result.tolist(), solved.info.tolist()]
            if backward:
                found.inverse.sum().backward()
                out.append(a.grad.tolist())
        results.append(str(out))
    assert results[0] == results[1]
