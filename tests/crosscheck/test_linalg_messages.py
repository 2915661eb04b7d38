"""What linear algebra says when it refuses or warns, as PyTorch says it: norms named by a
string on a vector, an inf norm of nothing, the deprecation warnings of the older functions
(their whole text, once per process), and a write at a 0-d bool mask (``Dirichlet.mode``).

Each case runs the same code with ``T`` either symgrad or torch; the table holds the expected
plain data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import warnings

import pytest
from _torch_table import table_tests


def _error(fn):
    """The exception's type name and its first line."""
    try:
        fn()
    except Exception as error:  # the type and message are the expected answer
        return type(error).__name__, str(error).splitlines()[0]
    return None


def _matrix_norm_error(T, ord):
    return _error(lambda: T.linalg.norm(T.ones(3), ord))


CASES = {
    "norm_fro_of_a_vector": (
        lambda T: _matrix_norm_error(T, "fro"),
        ("RuntimeError", "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    ),
    "norm_nuc_of_a_vector": (
        lambda T: _matrix_norm_error(T, "nuc"),
        ("RuntimeError", "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    ),
    "norm_fro_over_three_dims": (
        lambda T: _error(lambda: T.linalg.norm(T.ones(3, 3), "fro", dim=(0, 1, 2))),
        (
            "RuntimeError",
            "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 2]",
        ),
    ),
    "norm_nuc_over_one_dim": (
        lambda T: _error(lambda: T.linalg.norm(T.ones(3, 3), "nuc", dim=0)),
        ("RuntimeError", "linalg.matrix_norm: dim must be a 2-tuple. Got 0"),
    ),
    "matrix_norm_over_three_dims": (
        lambda T: _error(lambda: T.linalg.matrix_norm(T.ones(3, 3, 3), dim=(0, 1, 2))),
        ("RuntimeError", "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"),
    ),
    "inf_norm_of_nothing": (
        lambda T: _error(lambda: T.linalg.vector_norm(T.zeros(0), float("inf"))),
        (
            "RuntimeError",
            "linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
            "operation does not have an identity",
        ),
    ),
    "inf_norm_of_an_empty_dim": (
        lambda T: _error(lambda: T.linalg.vector_norm(T.zeros(2, 0), float("inf"), dim=1)),
        (
            "RuntimeError",
            "linalg.vector_norm cannot compute the inf norm on the dimension 1because this "
            "dimension is empty and the operation does not have an identity",
        ),
    ),
    "dirichlet_mode": (
        lambda T: T.distributions.Dirichlet(T.tensor([2.0, 0.5, 1.0], requires_grad=True)).mode,
        ([1.0, 0.0, 0.0], "float32", "CopySlices"),
    ),
    "write_at_a_0d_true_mask": (
        lambda T: _write_at(T, True),
        ([[0.0, 0.0], [0.0, 0.0]], "float32", "CopySlices"),
    ),
    "write_at_a_0d_false_mask": (
        lambda T: _write_at(T, False),
        ([[1.0, 1.0], [1.0, 1.0]], "float32", "CopySlices"),
    ),
}


def _half(T):
    return T.eye(2, dtype=T.float16)


# float16 matrices: PyTorch names the CPU kernel that has no float16 version
for _name, _fn, _kernel in [
    ("eigh", lambda T: T.linalg.eigh(_half(T)), "linalg_eigh_cpu"),
    ("eigvalsh", lambda T: T.linalg.eigvalsh(_half(T)), "linalg_eigh_cpu"),
    ("svd", lambda T: T.linalg.svd(_half(T)), "linalg_svd_cpu"),
    ("svdvals", lambda T: T.linalg.svdvals(_half(T)), "linalg_svd_cpu"),
    ("old_svd", lambda T: T.svd(_half(T)), "linalg_svd_cpu"),
    ("qr", lambda T: T.linalg.qr(_half(T)), "geqrf_cpu"),
    ("cholesky", lambda T: T.linalg.cholesky(_half(T)), "cholesky_cpu"),
    ("cholesky_ex", lambda T: T.linalg.cholesky_ex(_half(T)), "cholesky_cpu"),
    ("det", lambda T: T.linalg.det(_half(T)), "lu_cpu"),
    ("solve", lambda T: T.linalg.solve(_half(T), _half(T)), "lu_cpu"),
    ("lu_factor", lambda T: T.linalg.lu_factor(_half(T)), "lu_cpu"),
    ("lu_factor_ex", lambda T: T.linalg.lu_factor_ex(_half(T)), "lu_cpu"),
]:
    CASES[f"half_{_name}"] = (
        lambda T, fn=_fn: _error(lambda: fn(T)),
        ("NotImplementedError", f"\"{_kernel}\" not implemented for 'Half'"),
    )
CASES["half_lu_solve"] = (
    lambda T: _error(
        lambda: T.linalg.lu_solve(_half(T), T.tensor([1, 2], dtype=T.int32), _half(T))
    ),
    ("NotImplementedError", "\"linalg.lu_solve_cpu\" not implemented for 'Half'"),
)
CASES["integer_lu_solve"] = (
    lambda T: _error(
        lambda: T.lu_solve(
            T.eye(2, dtype=T.long), T.eye(2, dtype=T.long), T.tensor([1, 2], dtype=T.int32)
        )
    ),
    (
        "RuntimeError",
        "torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got Long",
    ),
)
for _name, _fn in [
    ("svdvals", lambda T: T.linalg.svdvals(T.eye(2, dtype=T.long))),
    ("old_svd", lambda T: T.svd(T.eye(2, dtype=T.long))),
    ("cond", lambda T: T.linalg.cond(T.eye(2, dtype=T.long))),
]:
    CASES[f"integer_{_name}"] = (
        lambda T, fn=_fn: _error(lambda: fn(T)),
        (
            "RuntimeError",
            "linalg.svd: Expected a floating point or complex tensor as input. Got Long",
        ),
    )
CASES["integer_lu_factor"] = (
    lambda T: _error(lambda: T.linalg.lu_factor(T.eye(2, dtype=T.int32))),
    ("NotImplementedError", "\"lu_cpu\" not implemented for 'Int'"),
)
CASES["dist_of_bools"] = (
    lambda T: _error(lambda: T.dist(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool))),
    (
        "RuntimeError",
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
        "`logical_xor()` operator instead.",
    ),
)
CASES["dist_of_a_bool_and_floats"] = (
    lambda T: _error(lambda: T.dist(T.ones(2, dtype=T.bool), T.ones(2))),
    (
        "RuntimeError",
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
        "to invert a mask, use the `~` or `logical_not()` operator instead.",
    ),
)
CASES["half_logdet"] = (
    lambda T: _error(lambda: T.logdet(_half(T))),
    ("RuntimeError", "logdet: Low precision dtypes not supported. Got Half"),
)


def _write_at(T, flag):
    x = T.ones(2, 2, requires_grad=True) * 1
    x[T.tensor(flag)] = 0.0
    return x


test_symgrad, test_table_is_pytorchs = table_tests(CASES)


def _ones(T):
    return T.tensor([[4.0, 2.0], [2.0, 5.0]])


WARNINGS = {
    "cholesky": (
        lambda T: T.cholesky(_ones(T)),
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
        "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
        "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
        "equivalent results for all valid (symmetric positive definite) inputs.",
    ),
    "qr": (
        lambda T: T.qr(_ones(T)),
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
        "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\n"
        "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
    ),
    "cross": (
        lambda T: T.cross(T.ones(3), T.ones(3)),
        "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass "
        "the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will "
        "change to agree with that of linalg.cross in a future release.",
    ),
    "lu": (
        lambda T: T.lu(_ones(T)),
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
        "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)",
    ),
}


def _warned(T, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(T)
        fn(T)  # (some warn once per process: the first call may have been elsewhere)
    # PyTorch's text ends with the C++ place it was raised at: (Triggered internally at ...)
    return [str(w.message).split(" (Triggered internally")[0] for w in caught], caught


@pytest.fixture
def fresh_warnings(monkeypatch):
    from symgrad.ops import matrix_functions, older_decompositions

    monkeypatch.setattr(older_decompositions, "_WARNED", set())
    monkeypatch.setattr(matrix_functions, "_WARNED", set())


@pytest.mark.parametrize("name", list(WARNINGS))
def test_deprecation_warnings_are_pytorchs(name, fresh_warnings):
    import symgrad

    fn, text = WARNINGS[name]
    messages, caught = _warned(symgrad, fn)
    once = name != "lu"  # TORCH_WARN_ONCE, but torch.lu warns from Python each time
    assert messages == ([text] if once else [text, text])
    assert all(w.filename == __file__ for w in caught)  # the caller's line


@pytest.mark.torch
@pytest.mark.parametrize("name", list(WARNINGS))
def test_deprecation_warnings_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, text = WARNINGS[name]
    messages, _ = _warned(torch, fn)
    assert set(messages) <= {text}
