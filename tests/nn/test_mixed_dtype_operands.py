"""Operands of two dtypes where PyTorch's kernel takes one (a float32 model given float64
data, a bias of another dtype): PyTorch's errors rather than a result promoted to the wider
dtype, and the one function here that does promote (``addr``).

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when it is
installed.
"""

from __future__ import annotations

from _torch_table import table_tests


def _f64(T, *shape):
    return T.ones(*shape, dtype=T.float64)


RUNTIME = ("raises", "RuntimeError")
VALUE = ("raises", "ValueError")
CASES = {
    "addmm_bias": (lambda T: T.addmm(_f64(T, 2), T.ones(2, 3), T.ones(3, 2)), RUNTIME),
    "addmv_input": (lambda T: T.addmv(_f64(T, 2), T.ones(2, 3), T.ones(3)), RUNTIME),
    "baddbmm_input": (
        lambda T: T.baddbmm(_f64(T, 1, 2, 2), T.ones(1, 2, 3), T.ones(1, 3, 2)),
        RUNTIME,
    ),
    "addbmm_input": (
        lambda T: T.addbmm(_f64(T, 2, 2), T.ones(1, 2, 3), T.ones(1, 3, 2)),
        RUNTIME,
    ),
    "addr_promotes": (
        lambda T: T.addr(_f64(T, 2, 2), T.ones(2), T.ones(2)),
        ([[2.0, 2.0], [2.0, 2.0]], "float64", None),
    ),
    "lstm": (lambda T: T.nn.LSTM(3, 2)(_f64(T, 4, 1, 3))[0], VALUE),
    "gru": (lambda T: T.nn.GRU(3, 2)(_f64(T, 4, 1, 3))[0], VALUE),
    "rnn_unbatched": (lambda T: T.nn.RNN(3, 2)(_f64(T, 4, 3))[0], VALUE),
    "gru_packed": (
        lambda T: T.nn.GRU(3, 2)(
            T.nn.utils.rnn.pack_padded_sequence(_f64(T, 4, 1, 3), T.tensor([4]))
        )[1],
        VALUE,
    ),
    "cdist": (lambda T: T.cdist(T.ones(2, 3), _f64(T, 2, 3)), RUNTIME),
    "linalg_cross": (lambda T: T.linalg.cross(T.ones(3), _f64(T, 3)), RUNTIME),
    "cross": (lambda T: T.cross(_f64(T, 3), T.ones(3), dim=0), RUNTIME),
    "conv_bias": (
        lambda T: T.nn.functional.conv1d(T.ones(1, 2, 3), T.ones(1, 2, 1), _f64(T, 1)),
        RUNTIME,
    ),
    "conv_transpose_weight": (
        lambda T: T.nn.functional.conv_transpose1d(T.ones(1, 2, 3), _f64(T, 2, 1, 1)),
        RUNTIME,
    ),
    "nll_loss_weight": (
        lambda T: T.nn.functional.nll_loss(T.ones(2, 3), T.tensor([0, 1]), weight=_f64(T, 3)),
        RUNTIME,
    ),
}
test_symgrad, test_table_is_pytorchs = table_tests(CASES)
