"""Random fills land in the memory order of the tensor filled, as PyTorch's kernels walk it: a
transposed tensor (or a ``*_like`` of one, or a dropout mask of one) gets its numbers column
by column, and a normal fill of a tensor that is not contiguous comes from the scalar kernel.
Plain relations first (which need no PyTorch), then values compared with PyTorch 2.13."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad


def _transposed(T, dtype=None):
    """A (2, 3, 20) tensor whose memory holds it as (3, 2, 20)."""
    return T.ones(3, 2, 20, dtype=dtype or T.float32).transpose(0, 1)


FILLS = {
    "uniform_": lambda T, x: x.uniform_(-1, 2),
    "bernoulli_": lambda T, x: x.bernoulli_(0.3),
    "bernoulli_tensor": lambda T, x: x.bernoulli_(T.full((20,), 0.4)),
    "exponential_": lambda T, x: x.exponential_(2.0),
    "cauchy_": lambda T, x: x.cauchy_(),
    "log_normal_": lambda T, x: x.log_normal_(),
    "geometric_": lambda T, x: x.geometric_(0.3),
    "random_": lambda T, x: x.random_(0, 10),
    "dropout": lambda T, x: T.nn.functional.dropout(x, 0.3),
    "dropout_inplace": lambda T, x: T.nn.functional.dropout(x, 0.3, inplace=True),
    "alpha_dropout": lambda T, x: T.nn.functional.alpha_dropout(x, 0.3, training=True),
    "rand_like": lambda T, x: T.rand_like(x),
    "randint_like": lambda T, x: T.randint_like(x, 10),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(FILLS))
def test_a_transposed_tensor_is_filled_in_memory_order(case, dtype):
    fill = FILLS[case]
    kind = getattr(symgrad, dtype)
    symgrad.manual_seed(0)
    got = fill(symgrad, _transposed(symgrad, kind))
    symgrad.manual_seed(0)
    in_memory = fill(symgrad, symgrad.ones(3, 2, 20, dtype=kind)).transpose(0, 1)
    np.testing.assert_array_equal(got.detach().numpy(), in_memory.detach().numpy())
    symgrad.manual_seed(0)
    row_major = fill(symgrad, symgrad.ones(2, 3, 20, dtype=kind))
    assert not np.array_equal(got.detach().numpy(), row_major.detach().numpy())


@pytest.mark.parametrize("make", ["normal_", "randn_like"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_normal_fill_that_is_not_contiguous_draws_one_value_at_a_time(make, dtype):
    # PyTorch's vectorised sampler runs on contiguous tensors only: any other gets the scalar
    # kernel's values (those of randn(1) after randn(1)), in memory order
    kind = getattr(symgrad, dtype)
    symgrad.manual_seed(0)
    x = _transposed(symgrad, kind)
    got = x.normal_() if make == "normal_" else symgrad.randn_like(x)
    symgrad.manual_seed(0)
    one_by_one = symgrad.cat([symgrad.randn(1, dtype=kind) for _ in range(120)])
    expected = one_by_one.reshape(3, 2, 20).transpose(0, 1)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    assert got.stride() == (20, 40, 1)
    symgrad.manual_seed(0)
    sliced = symgrad.zeros(4, 6, dtype=kind)[:, ::2].normal_()  # row-major, not contiguous
    np.testing.assert_array_equal(sliced.numpy(), one_by_one[:12].reshape(4, 3).numpy())


def test_first_values_of_a_transposed_fill_are_pytorchs():
    symgrad.manual_seed(0)
    x = symgrad.zeros(3, 2).t().uniform_()
    np.testing.assert_array_equal(
        x.numpy(),
        np.array(
            [[0.4962566, 0.08847743, 0.30742282], [0.7682218, 0.13203049, 0.6340787]], np.float32
        ),
    )
    symgrad.manual_seed(0)
    y = symgrad.zeros(3, 2, dtype=symgrad.float64).t().normal_()
    assert y.tolist() == [
        [1.5409961082440433, -2.1787893820745574, -1.084522342424021],
        [-0.2934289057609464, 0.5684312772806678, -1.3985953953708767],
    ]


def test_a_mask_follows_the_dropped_tensors_layout_in_a_transformer_layer():
    # the attention block's output is transposed back to batch-first: dropout1's mask is drawn
    # in its memory order, and the layer's output is PyTorch's
    symgrad.manual_seed(0)
    layer = symgrad.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)
    out = layer(symgrad.randn(2, 5, 8))
    np.testing.assert_allclose(
        out[0, 0].tolist(),
        TRANSFORMER_ROW,
        rtol=1e-6,
        atol=1e-6,
    )


TRANSFORMER_ROW = [
    1.6608412265777588,
    1.0631016492843628,
    -0.43609359860420227,
    -0.41187047958374023,
    -0.8129383325576782,
    -1.6770254373550415,
    0.5188132524490356,
    0.0951714962720871,
]


OUT_OF_RANGE = [
    (lambda T: T.zeros(2, dtype=T.int8).random_(0, 300), "to - 1 is out of bounds for signed"),
    (lambda T: T.zeros(2, dtype=T.int8).random_(-200, 3), "from is out of bounds for signed"),
    (lambda T: T.zeros(2, dtype=T.uint8).random_(-1, 3), "from is out of bounds for unsigned"),
    (lambda T: T.zeros(2, dtype=T.bool).random_(0, 3), "to - 1 is out of bounds for bool"),
    (lambda T: T.zeros(2, dtype=T.float16).random_(0, 70000), "to - 1 is out of bounds for"),
    (lambda T: T.randint(0, 300, (2,), dtype=T.int8), "to - 1 is out of bounds for signed"),
    (lambda T: T.randint_like(T.zeros(2, dtype=T.int8), 300), "to - 1 is out of bounds"),
]


@pytest.mark.parametrize("call, message", OUT_OF_RANGE)
def test_integers_that_the_dtype_cannot_hold_are_refused(call, message):
    # NumPy would wrap them round: random_(0, 300) into int8 gave negative numbers
    with pytest.raises(RuntimeError, match=message):
        call(symgrad)


def test_a_float_range_beyond_its_integers_warns():
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^24\), 2\^24\]"):
        symgrad.zeros(2).random_(0, 2**25)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        symgrad.zeros(2).random_()  # [0, 2**24]: every integer is a float32
        symgrad.zeros(2, dtype=symgrad.float64).random_(0, 2**25)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(FILLS) + ["normal_", "randn_like"])
def test_fills_of_a_transposed_tensor_are_pytorchs(case, dtype):
    torch = pytest.importorskip("torch")
    fills = {
        **FILLS,
        "normal_": lambda T, x: x.normal_(),
        "randn_like": lambda T, x: T.randn_like(x),
    }
    results = []
    for T in (symgrad, torch):
        T.manual_seed(0)
        results.append(np.asarray(fills[case](T, _transposed(T, getattr(T, dtype))).tolist()))
    np.testing.assert_array_equal(*results)


@pytest.mark.torch
def test_transformer_row_is_pytorchs():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)
    out = layer(torch.randn(2, 5, 8))
    np.testing.assert_allclose(out[0, 0].tolist(), TRANSFORMER_ROW, rtol=1e-6, atol=1e-6)


@pytest.mark.torch
@pytest.mark.parametrize("call, message", OUT_OF_RANGE)
def test_out_of_range_errors_are_pytorchs(call, message):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match=message):
        call(torch)
