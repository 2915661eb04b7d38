"""``symgrad.linalg``: values and gradients with plain expected numbers, PyTorch's errors,
closed forms against SymPy, and (when PyTorch is installed) values, gradients and second
derivatives against ``torch.linalg`` on random and ill-conditioned inputs.

Gradient checks by finite differences, forward-mode tangents and the sweep of unusual shapes
run on the entries of ``op_db_linalg.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.autograd import grad
from symgrad.symbolic import expression, gradient

L = symgrad.linalg


def _t(data, requires_grad=False):
    return symgrad.tensor(data, dtype=symgrad.float64, requires_grad=requires_grad)


def _grad(y, x):
    (g,) = grad(y, x)
    return g.numpy()


# -- values and gradients, without PyTorch ------------------------------------------------------
def test_det_and_its_gradient_the_cofactor_matrix():
    a = _t([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], True)
    d = L.det(a)
    assert d.item() == pytest.approx(18.0)
    cofactor = np.linalg.det(a.detach().numpy()) * np.linalg.inv(a.detach().numpy()).T
    np.testing.assert_allclose(_grad(d, a), cofactor, atol=1e-12)
    assert d.grad_fn.name() == "LinalgDetBackward0"


def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix():
    # d det / dA is the cofactor matrix everywhere; at rank n-1 it is not zero
    a = _t([[1.0, 2.0], [2.0, 4.0]], True)
    np.testing.assert_allclose(_grad(L.det(a), a), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
    b = _t([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], True)
    expected = [[4.0, 4.0, -4.0], [-2.0, -2.0, 2.0], [0.0, 0.0, 0.0]]
    np.testing.assert_allclose(_grad(L.det(b), b), expected, atol=1e-12)
    # and the second derivative there too (PyTorch's formula from the SVD)
    (g,) = grad(L.det(b), b, create_graph=True)
    (h,) = grad(g[0, 0], b)
    np.testing.assert_allclose(h.numpy(), [[0, 0, 0], [0, 1, 0], [0, -6, 4]], atol=1e-10)


def test_det_of_empty_and_one_by_one_matrices():
    assert L.det(_t(np.zeros((0, 0)))).item() == 1.0
    assert L.det(_t(np.zeros((0, 2, 2)))).shape == (0,)
    x = _t([[5.0]], True)
    (g,) = grad(L.det(x), x, create_graph=True)
    assert g.tolist() == [[1.0]] and not g.requires_grad


def test_det_is_exact_where_the_elimination_is():
    # PyTorch's det is the product of the LU factors' diagonal, so a matrix whose
    # elimination is exact has its exact determinant (printed tensor(-2.)); NumPy's det,
    # exp(log|det|), gives -2.0000000000000004 for this one
    assert L.det(_t([[1.0, 2.0], [3.0, 4.0]])).item() == -2.0
    assert L.det(_t([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])).item() == 18.0
    batch = symgrad.tensor([[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]])
    assert L.det(batch).tolist() == [-2.0, -1.0] and L.det(batch).dtype == symgrad.float32
    assert L.det(_t([[1.0, 2.0], [2.0, 4.0]])).item() == 0.0  # singular: a zero pivot
    assert repr(L.det(_t([[1.0, 2.0], [3.0, 4.0]]))) == "tensor(-2., dtype=symgrad.float64)"


@pytest.mark.torch
def test_det_rounds_as_pytorch_on_small_matrices():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((40, 2, 2))
    ours, theirs = L.det(_t(a)).numpy(), torch.linalg.det(torch.tensor(a)).numpy()
    # LU of the transposed matrix, as PyTorch's (OpenBLAS may fuse a multiply-add, so a few
    # last bits may still differ)
    assert np.mean(ours == theirs) >= 0.7
    np.testing.assert_allclose(ours, theirs, rtol=1e-14)


def test_slogdet_and_logdet():
    a = _t([[0.0, 2.0], [1.0, 0.0]], True)
    sign, logabs = L.slogdet(a)
    assert sign.item() == -1.0 and logabs.item() == pytest.approx(np.log(2.0))
    assert sign.grad_fn is logabs.grad_fn and logabs.output_nr == 1
    np.testing.assert_allclose(_grad(logabs, a), [[0.0, 0.5], [1.0, 0.0]])  # A^-T
    assert np.isnan(symgrad.logdet(a).item())
    assert symgrad.logdet(_t([[1.0, 2.0], [2.0, 4.0]])).item() == -np.inf
    assert symgrad.logdet(_t([[2.0, 0.0], [0.0, 3.0]])).item() == pytest.approx(np.log(6.0))
    assert "linalg_slogdet(\nsign=" in repr(L.slogdet(a))


def test_inv_solve_and_their_gradients():
    a = _t([[2.0, 1.0], [1.0, 3.0]], True)
    inverse = np.array([[0.6, -0.2], [-0.2, 0.4]])
    np.testing.assert_allclose(L.inv(a).detach().numpy(), inverse)
    np.testing.assert_allclose(_grad(L.inv(a).sum(), a), -inverse.sum(0)[:, None] * inverse.sum(1))
    b = _t([1.0, 2.0], True)
    x = L.solve(a, b)
    np.testing.assert_allclose(x.detach().numpy(), [0.2, 0.6])
    (ga, gb) = grad(x.sum(), (a, b))
    np.testing.assert_allclose(gb.numpy(), inverse.T @ [1.0, 1.0])
    np.testing.assert_allclose(ga.numpy(), -np.outer(gb.numpy(), x.detach().numpy()))
    right = L.solve(a, _t([[1.0, 2.0]]), left=False)  # X A = B
    np.testing.assert_allclose(right.detach().numpy(), [[1.0, 2.0]] @ inverse)
    assert L.inv_ex(a).info.item() == 0 and L.solve_ex(a, b).info.item() == 0


def test_matrix_power_in_pytorchs_order():
    a = _t([[1.0, 1.0], [0.0, 1.0]], True)
    np.testing.assert_allclose(L.matrix_power(a, 5).detach().numpy(), [[1, 5], [0, 1]])
    np.testing.assert_allclose(L.matrix_power(a, -2).detach().numpy(), [[1, -2], [0, 1]])
    assert L.matrix_power(a, 0).grad_fn.name().endswith("CopyBackwards")
    assert L.matrix_power(a, 1).grad_fn.name() == "CloneBackward0"
    assert L.matrix_power(a, -1).grad_fn.name() == "LinalgInvExBackward0"
    np.testing.assert_allclose(_grad(L.matrix_power(a, 0).sum(), a), np.zeros((2, 2)))


def test_decompositions_rebuild_their_matrix():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 4, 3))
    u, s, vh = L.svd(_t(x), full_matrices=False)
    np.testing.assert_allclose((u.numpy() * s.numpy()[..., None, :]) @ vh.numpy(), x, atol=1e-12)
    assert list(s.numpy()[0]) == sorted(s.numpy()[0], reverse=True)
    q, r = L.qr(_t(x))
    np.testing.assert_allclose(q.numpy() @ r.numpy(), x, atol=1e-12)
    np.testing.assert_allclose(np.tril(r.numpy(), -1), 0.0)
    spd = x.swapaxes(-1, -2) @ x + np.eye(3)
    low = L.cholesky(_t(spd)).numpy()
    np.testing.assert_allclose(low @ low.swapaxes(-1, -2), spd, atol=1e-12)
    values, vectors = L.eigh(_t(spd))
    rebuilt = (vectors.numpy() * values.numpy()[..., None, :]) @ vectors.numpy().swapaxes(-1, -2)
    np.testing.assert_allclose(rebuilt, spd, atol=1e-12)
    assert L.qr(_t(x), mode="r").Q.shape == (0,)
    assert L.svd(_t(np.zeros((0, 3)))).Vh.shape == (3, 3)


def test_gradients_of_decompositions_known_in_closed_form():
    rng = np.random.default_rng(1)
    a = _t(rng.normal(size=(3, 4)), True)
    u, s, vh = L.svd(a, full_matrices=False)
    # the nuclear norm's gradient is U Vh
    np.testing.assert_allclose(_grad(s.sum(), a), (u @ vh).detach().numpy(), atol=1e-12)
    sym = _t([[2.0, 1.0], [1.0, 2.0]], True)
    values, vectors = L.eigh(sym)
    # an eigenvalue's gradient is v v^T
    v = vectors[:, 1].detach().numpy()
    np.testing.assert_allclose(_grad(values[1], sym), np.outer(v, v), atol=1e-12)
    # the values' gradient stays finite at repeated eigenvalues (the vectors' is nan)
    eye = symgrad.eye(3, dtype=symgrad.float64, requires_grad=True)
    weighted = (L.eigvalsh(eye) * _t([1.0, 2.0, 3.0])).sum()
    np.testing.assert_allclose(_grad(weighted, eye), np.diag([1.0, 2.0, 3.0]))
    assert np.isnan(_grad(L.eigh(eye).eigenvectors[:, 0].sum(), eye)).all()


def test_matrix_exp_pinv_cross_multi_dot_norms():
    nilpotent = _t([[0.0, 1.0], [0.0, 0.0]])
    np.testing.assert_allclose(L.matrix_exp(nilpotent).numpy(), [[1.0, 1.0], [0.0, 1.0]])
    np.testing.assert_allclose(
        L.matrix_exp(_t(np.diag([1.0, -2.0]))).numpy(), np.diag(np.exp([1, -2]))
    )
    d = _t([[0.0, 1.0], [0.0, 0.0]], True)  # d/dA sum(exp(A)) at a nilpotent A
    np.testing.assert_allclose(_grad(L.matrix_exp(d).sum(), d), [[1.5, 1.0], [2.0 + 1 / 6, 1.5]])
    np.testing.assert_allclose(L.pinv(_t([[2.0, 0.0], [0.0, 0.0]])).numpy(), [[0.5, 0], [0, 0]])
    np.testing.assert_allclose(L.cross(_t([1.0, 0.0, 0.0]), _t([0.0, 1.0, 0.0])).numpy(), [0, 0, 1])
    chain = L.multi_dot([_t([1.0, 2.0]), _t([[1.0, 0.0], [0.0, 1.0]]), _t([3.0, 4.0])])
    assert chain.item() == 11.0 and chain.shape == ()
    m = _t([[1.0, -2.0], [3.0, 4.0]])
    assert L.matrix_norm(m, 1).item() == 6.0 and L.matrix_norm(m, float("inf")).item() == 7.0
    assert L.norm(m).item() == pytest.approx(np.sqrt(30.0))
    assert L.matrix_norm(m, "nuc").item() == pytest.approx(
        np.linalg.svd([[1, -2], [3, 4]])[1].sum()
    )
    assert L.vector_norm(_t([3.0, -4.0]), 1).item() == 7.0


def test_tensor_methods_and_top_level_names():
    a = _t([[4.0, 2.0], [2.0, 5.0]])
    assert a.det().item() == pytest.approx(16.0)
    np.testing.assert_allclose(a.inverse().numpy(), np.linalg.inv(a.numpy()))
    np.testing.assert_allclose(a.cholesky().numpy(), [[2.0, 0.0], [1.0, 2.0]])
    np.testing.assert_allclose(symgrad.svd(a).V.numpy(), L.svd(a).Vh.numpy().T)
    assert symgrad.cross(_t([0.0, 1.0, 0.0]), _t([0.0, 0.0, 1.0]), dim=0).tolist() == [1, 0, 0]
    from symgrad.ops import matrix_functions

    matrix_functions._WARNED.discard("cross")  # (it warns once per process, as PyTorch)
    with pytest.warns(UserWarning, match="without specifying the dim"):
        symgrad.cross(_t([0.0, 1.0, 0.0]), _t([0.0, 0.0, 1.0]))


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: L.det(_t(np.ones((2, 3)))),
            RuntimeError,
            "batches of square matrices, but they are 2 by 3",
        ),
        (lambda: L.det(_t([1.0])), RuntimeError, "at least 2 dimensions"),
        (lambda: L.det(symgrad.ones(2, 2, dtype=symgrad.int64)), RuntimeError, "Got Long"),
        (lambda: L.inv(_t([[1.0, 2.0], [2.0, 4.0]])), L.LinAlgError, "diagonal element 2 is zero"),
        (
            lambda: L.inv(_t(np.array([np.eye(2), [[1.0, 2.0], [2.0, 4.0]]]))),
            L.LinAlgError,
            r"\(Batch element 1\): The diagonal element 2",
        ),
        (lambda: L.solve(_t([[1.0, 2.0], [2.0, 4.0]]), _t([1.0, 1.0])), L.LinAlgError, "singular"),
        (lambda: L.solve(symgrad.eye(2), symgrad.ones(3)), RuntimeError, r"\(2x2 and 3x1\)"),
        (lambda: L.solve(symgrad.eye(3), symgrad.ones(3), left=False), RuntimeError, "XA = B"),
        (lambda: L.solve(symgrad.eye(2), _t([1.0, 1.0])), RuntimeError, "same dtype"),
        (lambda: L.cholesky(_t([[1.0, 2.0], [2.0, 1.0]])), L.LinAlgError, "minor of order 2"),
        (lambda: L.qr(_t(np.ones((2, 2))), mode="x"), RuntimeError, "unrecognized mode 'x'"),
        (lambda: L.eigh(symgrad.eye(2), UPLO="X"), RuntimeError, "'L' or 'U', but got X"),
        (lambda: L.cross(symgrad.ones(2), symgrad.ones(2)), RuntimeError, "must have length 3"),
        (lambda: L.multi_dot([symgrad.ones(2, 2)]), RuntimeError, "at least 2 tensors"),
        (
            lambda: L.multi_dot([symgrad.ones(2, 2), symgrad.ones(2, 2, 2)]),
            RuntimeError,
            "last tensor",
        ),
        (lambda: L.pinv(symgrad.ones(3)), RuntimeError, "2 or more dimensions"),
        (lambda: L.matrix_norm(symgrad.eye(2), "bad"), RuntimeError, "Order bad not supported"),
        (lambda: L.norm(symgrad.ones(2, 2, 2), 1), RuntimeError, "must be 1D or 2D. Got 3D"),
        (lambda: L.det(symgrad.eye(2, dtype=symgrad.float16)), NotImplementedError, "Half"),
    ],
)
def test_errors_are_pytorchs(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_linalg_error_is_a_runtime_error():
    assert issubclass(L.LinAlgError, RuntimeError)


@pytest.mark.parametrize(
    ("mode", "shape", "message"),
    [("r", (4, 3), "mode='r'"), ("complete", (4, 3), "nrows > ncols")],
)
def test_qr_backward_refused_where_pytorch_refuses(mode, shape, message):
    x = _t(np.random.default_rng(2).normal(size=shape), True)
    with pytest.raises(RuntimeError, match=message):
        L.qr(x, mode=mode).R.sum().backward()


# -- closed forms ---------------------------------------------------------------------------------
def test_closed_forms_of_det_inv_solve_against_sympy():
    a = symgrad.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True, name="A")
    b = symgrad.tensor([1.0, 2.0], requires_grad=True, name="b")
    m = sp.Matrix(2, 2, lambda i, j: expression(a[int(i), int(j)]))
    assert sp.simplify(expression(L.det(a)) - m.det()) == 0
    assert sp.simplify(sp.Matrix(gradient(L.det(a), a)) - m.adjugate().T) == sp.zeros(2, 2)
    y = L.solve(a, b).sum()
    bs = sp.Matrix([expression(b[0]), expression(b[1])])
    assert sp.simplify(expression(y) - sum(m.inv() * bs)) == 0
    logabs = L.slogdet(a).logabsdet
    assert sp.simplify(sp.Matrix(gradient(logabs, a)) - m.inv().T) == sp.zeros(2, 2)


def test_matrix_form_of_det_and_solve():
    a = symgrad.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True, name="A")
    x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    assert str(gradient(L.det(a), a, form="matrix")) == "Determinant(A)*A.T**(-1)"
    assert str(gradient(L.slogdet(a).logabsdet, a, form="matrix")) == "A.T**(-1)"
    assert "A.T**(-1)" in str(gradient(L.solve(a, x).sum(), x, form="matrix"))


def test_no_closed_form_for_decompositions_or_large_symbolic_matrices():
    a = symgrad.tensor(np.eye(3) * 2, requires_grad=True, name="A")
    for y in (L.svdvals(a).sum(), L.eigvalsh(a).sum(), L.cholesky(a).sum(), L.pinv(a).sum()):
        with pytest.raises(NotImplementedError, match="has no closed form"):
            expression(y)
    with pytest.raises(NotImplementedError, match="has no closed form"):
        expression(L.matrix_exp(a).sum())
    big = symgrad.tensor(np.eye(7) * 2, requires_grad=True, name="B")
    with pytest.raises(NotImplementedError, match="up to 6 x 6"):
        expression(L.det(big))


# -- PyTorch's values, gradients and second derivatives -----------------------------------------
_R = np.random.default_rng(5)


def _spd(n):
    a = _R.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def _sym(n):
    a = _R.normal(size=(n, n))
    return a + a.T


def _fixed(T, shape, like):
    return T.tensor(np.random.default_rng(7).normal(size=shape), dtype=like.dtype)


TORCH_CASES = {
    "det": (lambda T, a: T.linalg.det(a), _R.normal(size=(2, 4, 4))),
    "det_singular": (
        lambda T, a: T.linalg.det(a),
        np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]),
    ),
    "slogdet": (lambda T, a: T.linalg.slogdet(a).logabsdet, _R.normal(size=(3, 3))),
    "logdet": (lambda T, a: T.logdet(a), _spd(3)),
    "inv": (lambda T, a: T.linalg.inv(a), _R.normal(size=(2, 3, 3))),
    "solve": (lambda T, a: T.linalg.solve(a, _fixed(T, (2, 3, 2), a)), _R.normal(size=(3, 3))),
    "solve_right": (
        lambda T, a: T.linalg.solve(a, _fixed(T, (2, 3), a), left=False),
        _R.normal(size=(3, 3)),
    ),
    "cholesky": (lambda T, a: T.linalg.cholesky(a, upper=True), _spd(4)),
    "qr_tall": (lambda T, a: T.linalg.qr(a).Q * 2 + T.linalg.qr(a).R.sum(), _R.normal(size=(4, 3))),
    "qr_wide": (lambda T, a: T.linalg.qr(a).Q.sum() + T.linalg.qr(a).R, _R.normal(size=(3, 5))),
    "eigh": (
        lambda T, a: T.linalg.eigh(a).eigenvectors.abs() + T.linalg.eigh(a).eigenvalues,
        _sym(4),
    ),
    "svd": (
        lambda T, a: (lambda u, s, vh: u.abs().sum(-1) * 2 + vh.abs().sum() + s.sum())(
            *T.linalg.svd(a, full_matrices=False)
        ),
        _R.normal(size=(4, 3)),
    ),
    "svd_full_wide": (
        lambda T, a: (lambda u, s, vh: vh[:3].abs().sum() + s.prod())(*T.linalg.svd(a)),
        _R.normal(size=(3, 5)),
    ),
    "pinv": (lambda T, a: T.linalg.pinv(a), _R.normal(size=(3, 5))),
    "matrix_exp": (lambda T, a: T.linalg.matrix_exp(a), _R.normal(size=(3, 3)) * 2),
    "matrix_power": (lambda T, a: T.linalg.matrix_power(a, 6), _R.normal(size=(3, 3))),
    "multi_dot": (lambda T, a: T.linalg.multi_dot([a, a.mT, a, a.mT]), _R.normal(size=(3, 4))),
    "norm_nuc": (lambda T, a: T.linalg.matrix_norm(a, "nuc"), _R.normal(size=(3, 4))),
    "norm_inf": (lambda T, a: T.linalg.matrix_norm(a, float("inf")), _R.normal(size=(3, 4))),
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(TORCH_CASES))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_gradients_and_second_derivatives_are_pytorchs(case, dtype):
    torch = pytest.importorskip("torch")
    fn, a = TORCH_CASES[case]
    results = []
    for T in (torch, symgrad):
        x = T.tensor(a, dtype=getattr(T, dtype), requires_grad=True)
        y = fn(T, x)
        w = T.tensor(np.random.default_rng(1).normal(size=tuple(y.shape)), dtype=y.dtype)
        (g,) = T.autograd.grad(y, x, w, create_graph=True)
        v = T.tensor(np.random.default_rng(2).normal(size=a.shape), dtype=x.dtype)
        (gg,) = T.autograd.grad(g, x, v, allow_unused=True, materialize_grads=True)
        gg = np.zeros(a.shape) if getattr(gg, "_is_zerotensor", lambda: False)() else gg.numpy()
        results.append((y.detach().numpy(), g.detach().numpy(), gg, y.grad_fn.name()))
    tol = 1e-8 if dtype == "float64" else 2e-3
    for wanted, found in zip(results[0][:3], results[1][:3]):
        np.testing.assert_allclose(found, wanted, rtol=tol, atol=tol * (1 + np.abs(wanted).max()))
    assert results[0][3] == results[1][3]


def test_movedim_takes_sequences_of_dims():
    x = symgrad.zeros(2, 3, 4)
    assert tuple(x.movedim((0, 1), (-1, -2)).shape) == (4, 3, 2)
    assert tuple(symgrad.movedim(x, [2, 0], [0, 1]).shape) == (4, 2, 3)
    with pytest.raises(RuntimeError, match="same number of dims"):
        x.movedim((0, 1), (1,))
    with pytest.raises(RuntimeError, match="repeated dim in `source`"):
        x.movedim((0, 0), (1, 2))


def test_logabsdet_gradient_of_a_singular_matrix_is_lapacks_inf_and_nan():
    # PyTorch solves A^T X = g I with the LU factors of A^T: a zero pivot gives inf and nan
    inf, nan = np.inf, np.nan
    for a, wanted in [
        (np.zeros((2, 2)), [[nan, nan], [nan, inf]]),
        ([[1.0, 2.0], [2.0, 4.0]], [[-inf, inf], [inf, -inf]]),
    ]:
        x = _t(a, True)
        for out in (L.slogdet(x).logabsdet, symgrad.logdet(x)):
            (g,) = symgrad.autograd.grad(out, x, symgrad.tensor(2.0, dtype=x.dtype))
            np.testing.assert_array_equal(g.numpy(), wanted)
    x = _t(np.arange(1.0, 10.0).reshape(3, 3), True)  # its last pivot: -1.6e-16, not 0
    (g,) = symgrad.autograd.grad(L.slogdet(x).logabsdet, x)
    np.testing.assert_array_equal(g.numpy()[:2], [[nan, nan, nan], [inf, -inf, inf]])


@pytest.mark.torch
def test_logabsdet_gradient_of_singular_matrices_is_pytorchs():
    torch = pytest.importorskip("torch")
    matrices = [
        np.zeros((2, 2)),
        [[1.0, 2.0], [3.0, 6.0]],
        [[0.0, 1.0, 2.0], [0.0, 3.0, 4.0], [0.0, 5.0, 7.0]],
    ]
    results = []
    for T in (torch, symgrad):
        found = []
        for a in matrices + [np.arange(1.0, 10.0).reshape(3, 3)]:
            x = T.tensor(a, dtype=T.float64, requires_grad=True)
            (g,) = T.autograd.grad(T.linalg.slogdet(x).logabsdet, x, T.tensor(-2.5, dtype=x.dtype))
            found.append(str(g.tolist()))
        results.append(found)
    assert results[0] == results[1]
