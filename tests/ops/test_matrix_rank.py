"""linalg.matrix_rank: PyTorch's tolerances (default, atol, rtol, the older tol), batches,
hermitian, empty matrices, errors; cross-checked against PyTorch when installed."""

from __future__ import annotations

import pytest

import symgrad


def _ranks(lib):
    a = lib.tensor([[1.0, 2.0], [2.0, 4.0], [0.0, 1e-3]], dtype=lib.float64)
    b = lib.tensor([[3.0, 0.0, 0.0], [0.0, 1e-5, 0.0], [0.0, 0.0, 0.0]])
    return [
        int(lib.linalg.matrix_rank(a)),
        int(lib.linalg.matrix_rank(a, atol=1e-2)),
        int(lib.linalg.matrix_rank(a, rtol=0.5)),
        lib.linalg.matrix_rank(lib.stack([a, a * 0])).tolist(),
        int(lib.linalg.matrix_rank(a, 1e-12)),
        int(lib.linalg.matrix_rank(a, atol=1e-12, rtol=1e-1)),
        int(lib.linalg.matrix_rank(b)),
        int(lib.linalg.matrix_rank(b, atol=1e-4)),
        int(lib.linalg.matrix_rank(-lib.eye(3), hermitian=True)),
        lib.linalg.matrix_rank(lib.zeros(0, 3)).tolist(),
        lib.linalg.matrix_rank(lib.ones(2, 2, requires_grad=True)).requires_grad,
        str(lib.linalg.matrix_rank(lib.eye(2)).dtype).split(".")[1],
    ]


def test_ranks():
    assert _ranks(symgrad) == [2, 1, 1, [2, 0], 2, 1, 2, 1, 3, 0, False, "int64"]


def test_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        symgrad.linalg.matrix_rank(symgrad.ones(3))
    with pytest.raises(RuntimeError, match="doesn't handle types other than float and double"):
        symgrad.linalg.matrix_rank(symgrad.ones(3, 3, dtype=symgrad.int64))


def test_against_torch():
    torch = pytest.importorskip("torch")
    assert _ranks(symgrad) == _ranks(torch)
