"""Changing a decomposition's output in place, then differentiating: PyTorch's backward reads
the outputs its node saved, so it raises; symgrad's node watches the same outputs (it used to
read the changed values silently). An output PyTorch does not save may change freely."""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
B = np.array([[1.0], [2.0], [3.0]])


def _changed(decompose, k, loss):
    """The gradient of ``loss(outputs)`` after ``outputs[k]`` doubled in place."""

    def program(T):
        a = T.tensor(A, requires_grad=True)
        outputs = decompose(T, a)
        outputs[k].mul_(2)
        loss(outputs).backward()
        return a.grad

    return program


CASES = {
    "qr_r": (
        _changed(lambda T, a: T.linalg.qr(a), 1, lambda o: o[0].sum() + o[1].sum()),
        ("raises", "RuntimeError"),
    ),
    "qr_q_unused_by_the_loss": (
        _changed(lambda T, a: T.linalg.qr(a), 0, lambda o: o[1].sum()),
        ("raises", "RuntimeError"),
    ),
    "eigh_eigenvalues": (
        _changed(lambda T, a: T.linalg.eigh(a), 0, lambda o: o[0].sum()),
        ("raises", "RuntimeError"),
    ),
    "svd_singular_values": (
        _changed(lambda T, a: T.linalg.svd(a), 1, lambda o: o[1].sum()),
        ("raises", "RuntimeError"),
    ),
    "lu_u": (
        _changed(lambda T, a: T.linalg.lu(a), 2, lambda o: o[2].sum()),
        ("raises", "RuntimeError"),
    ),
    "cholesky_ex_l": (
        _changed(lambda T, a: T.linalg.cholesky_ex(a), 0, lambda o: o[0].sum()),
        ("raises", "RuntimeError"),
    ),
    "slogdet_sign": (
        _changed(lambda T, a: T.linalg.slogdet(a), 0, lambda o: o[1].sum()),
        ("raises", "RuntimeError"),
    ),
    "slogdet_log_not_saved": (
        _changed(lambda T, a: T.linalg.slogdet(a), 1, lambda o: o[1].sum()),
        (
            [[0.5599, -0.1785, -0.1221], [-0.1785, 0.728, -0.0282], [-0.1221, -0.0282, 1.0333]],
            "float64",
            None,
        ),
    ),
    "var_mean_not_saved": (
        _changed(lambda T, a: T.var_mean(a, 1), 0, lambda o: o[0].sum() + o[1].sum()),
        (
            [[4.6667, -1.3333, -2.3333], [-0.4667, 3.5333, -2.0667], [-0.4667, -1.0667, 2.5333]],
            "float64",
            None,
        ),
    ),
    "std_mean_std": (
        _changed(lambda T, a: T.std_mean(a, 1), 0, lambda o: o[0].sum()),
        ("raises", "RuntimeError"),
    ),
    "aminmax_min": (
        _changed(lambda T, a: T.aminmax(a), 0, lambda o: o[0] + o[1]),
        ("raises", "RuntimeError"),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
