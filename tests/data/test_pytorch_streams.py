"""Seeded draws are PyTorch's: the CPU generator's twister, its sampling kernels and its state
bytes (plain expected values from PyTorch 2.13, then cross-checks against it)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad


def test_seeded_factories_draw_pytorchs_numbers():
    symgrad.manual_seed(0)
    np.testing.assert_array_equal(
        symgrad.rand(3).numpy(), np.array([0.4962566, 0.7682218, 0.08847743], np.float32)
    )
    symgrad.manual_seed(0)
    assert symgrad.randn(3, dtype=symgrad.float64).tolist() == [
        1.5409961082440433,
        -0.2934289057609464,
        -2.1787893820745574,
    ]
    symgrad.manual_seed(0)
    assert symgrad.randint(0, 10, (6,)).tolist() == [4, 9, 3, 0, 3, 9]
    assert symgrad.randperm(7).tolist() == [6, 2, 4, 0, 3, 5, 1]
    symgrad.manual_seed(0)  # 16 values or more: Box-Muller over blocks of 16, the tail redrawn
    drawn = symgrad.randn(20, dtype=symgrad.float64)
    assert drawn[[0, 7, 8, 19]].tolist() == [
        -2.310411800234176,
        -0.830510051008449,
        0.23871805816817063,
        -0.7498915228391941,
    ]


def test_float16_normals_redraw_the_last_sixteen_after_the_whole_blocks():
    # float16's kernel draws uniforms for the whole blocks of 16 only (16 here, not 20), then
    # 16 more for the last 16 values: what follows starts at the 32nd uniform
    symgrad.manual_seed(0)
    drawn = symgrad.randn(20, dtype=symgrad.float16)
    np.testing.assert_array_equal(
        drawn.numpy()[3:7],
        np.array([-0.433837890625, -1.3525390625, -1.6962890625, 0.56689453125], np.float16),
    )
    after = symgrad.rand(1)
    symgrad.manual_seed(0)
    assert after.tolist() == symgrad.rand(33)[32:].tolist()


def test_float64_normals_take_the_c_librarys_logarithm():
    # NumPy's vectorised logarithm rounds this block's radius one unit lower
    symgrad.manual_seed(0)
    assert symgrad.randn(272, dtype=symgrad.float64)[257].item() == 0.11838756456837449


def test_float16_uniforms_are_float32_ones_between_float32_bounds_rounded_once():
    # float32 bounds (not float16's 2.099609375), a float32 value at a float16 tie rounded
    # to even, and a value rounded up to the upper bound wrapped to the lower one
    symgrad.manual_seed(0)
    drawn = symgrad.empty(13, dtype=symgrad.float16).uniform_(2.1, 7.3)
    assert drawn[[0, 11, 12]].tolist() == [4.6796875, 4.1875, 2.216796875]
    symgrad.manual_seed(0)
    drawn = symgrad.empty(1555, dtype=symgrad.float16).uniform_(-1 / 3, 1 / 3)
    assert drawn[[1553, 1554]].tolist() == [0.11322021484375, -0.03118896484375]
    symgrad.manual_seed(0)
    drawn = symgrad.rand(338, dtype=symgrad.float16)
    assert drawn[[0, 336, 337]].tolist() == [0.496337890625, 0.87744140625, 0.0]
    assert float(drawn.max()) < 1.0


def test_layers_start_from_pytorchs_weights_and_dropout_keeps_its_elements():
    symgrad.manual_seed(0)
    np.testing.assert_array_equal(
        symgrad.nn.Linear(2, 2).weight.detach().numpy(),
        np.array(
            [[-0.005293981172144413, 0.37932288646698], [-0.5819807648658752, -0.5203874707221985]],
            np.float32,
        ),
    )
    symgrad.manual_seed(0)
    out = symgrad.nn.functional.dropout(symgrad.ones(8), 0.5)
    assert out.tolist() == [0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0, 2.0]


def test_shuffled_loader_draws_pytorchs_order():
    symgrad.manual_seed(0)
    data = symgrad.utils.data.TensorDataset(symgrad.arange(6))
    loader = symgrad.utils.data.DataLoader(data, batch_size=3, shuffle=True)
    assert [b[0].tolist() for b in loader] == [[0, 4, 3], [5, 2, 1]]


def test_states_are_pytorchs_bytes():
    symgrad.manual_seed(0)
    state = symgrad.get_rng_state()
    assert state.dtype is symgrad.uint8 and state.shape == (5056,)
    assert state[:24].tolist() == [0] * 8 + [1, 0, 0, 0, 1, 0, 0, 0] + [0] * 8
    assert symgrad.Generator().initial_seed() == 67280421310721  # a new generator's seed
    g = symgrad.Generator().manual_seed(3)
    symgrad.randn(5, dtype=symgrad.float64, generator=g)  # leaves a cached normal behind
    saved = g.get_state()
    a = symgrad.randn(7, dtype=symgrad.float64, generator=g)
    assert symgrad.randn(7, dtype=symgrad.float64, generator=g.set_state(saved)).tolist() == (
        a.tolist()
    )


@pytest.mark.parametrize(
    "state, error, message",
    [
        (symgrad.zeros(5056, dtype=symgrad.int64), TypeError, "RNG state must be"),
        (symgrad.zeros(10, dtype=symgrad.uint8), RuntimeError, "size 5056"),
        (symgrad.zeros(5056, dtype=symgrad.uint8), RuntimeError, "Invalid mt19937 state"),
        ([1, 2], TypeError, "expected a symgrad.ByteTensor"),
    ],
)
def test_bad_states_are_refused_as_pytorch_refuses_them(state, error, message):
    g = symgrad.Generator().manual_seed(1)
    before = g.get_state()
    with pytest.raises(error, match=message):
        g.set_state(state)
    assert g.get_state().tolist() == before.tolist()  # nothing of it was kept


# -- against PyTorch ----------------------------------------------------------------------------
def _programs():
    """(name, program of (library, nn), exact): the draws PyTorch programs make."""
    return [
        ("rand", lambda T, nn: T.rand(4, 5), True),
        ("rand float64", lambda T, nn: T.rand(33, dtype=T.float64), True),
        ("rand float16", lambda T, nn: T.empty(33, dtype=T.float16).uniform_(-2, 3), True),
        (
            "uniform_ float16 bounds",
            lambda T, nn: (
                [
                    T.empty(2000, dtype=T.float16).uniform_(a, b)
                    for a, b in ((2.1, 7.3), (-1 / 3, 1 / 3), (-0.3, 0.7), (-(2**0.5), 2**0.5))
                ]
                + [T.rand(400, dtype=T.float16), T.nn.init.xavier_uniform_(T.empty(30, 40).half())]
            ),
            True,
        ),
        (
            "randn float16",
            lambda T, nn: [T.randn(5, dtype=T.float16), T.randn(48, dtype=T.float16)],
            True,
        ),
        (  # sizes that are not a multiple of 16: float16's kernel redraws the last 16
            "randn float16 tail",
            lambda T, nn: [T.randn(n, dtype=T.float16) for n in (17, 20, 33, 47, 100)],
            True,
        ),
        ("randn small", lambda T, nn: [T.randn(3), T.randn(5, dtype=T.float64)], True),
        ("randn float64", lambda T, nn: T.randn(37, dtype=T.float64), True),
        ("randn float64 many", lambda T, nn: T.randn(3000, dtype=T.float64), True),
        (
            "kaiming_normal_ float64",
            lambda T, nn: T.nn.init.kaiming_normal_(T.empty(60, 50, dtype=T.float64)),
            True,
        ),
        ("randn float32", lambda T, nn: T.randn(6, 7), True),
        ("randint", lambda T, nn: [T.randint(3, 17, (50,)), T.randint(-5, 2**40, (9,))], True),
        ("randperm", lambda T, nn: T.randperm(1000), True),
        ("uniform_", lambda T, nn: T.empty(40).uniform_(-0.37, 0.81), True),
        ("uniform_ float64", lambda T, nn: T.empty(40, dtype=T.float64).uniform_(-2, 5), True),
        ("normal_ float64", lambda T, nn: T.empty(50, dtype=T.float64).normal_(2.5, 0.3), True),
        (
            "bernoulli",
            lambda T, nn: [T.bernoulli(T.full((30,), 0.4)), T.empty(9).bernoulli_(0.3)],
            True,
        ),
        (
            "random_",
            lambda T, nn: [T.empty(8, dtype=T.int64).random_(), T.empty(8).random_(0, 9)],
            True,
        ),
        ("linear", lambda T, nn: list(nn.Linear(5, 3).parameters()), True),
        ("conv", lambda T, nn: list(nn.Conv2d(3, 4, 3).parameters()), True),
        ("lstm", lambda T, nn: list(nn.LSTM(3, 4).parameters()), True),
        ("attention", lambda T, nn: list(nn.MultiheadAttention(8, 2).parameters()), True),
        ("embedding", lambda T, nn: nn.Embedding(10, 4).weight, True),
        ("xavier", lambda T, nn: nn.init.xavier_uniform_(T.empty(3, 4)), True),
        (
            "trunc_normal narrow",
            lambda T, nn: nn.init.trunc_normal_(T.empty(9, 9), a=-0.1, b=0.1),
            True,
        ),
        ("trunc_normal", lambda T, nn: nn.init.trunc_normal_(T.empty(9, 9), std=0.02), True),
        (
            "dropout",
            lambda T, nn: [nn.Dropout(0.3)(T.ones(6, 5)), nn.Dropout2d()(T.ones(2, 6, 1, 1))],
            True,
        ),
        (
            "random_split",
            lambda T, nn: [list(s.indices) for s in T.utils.data.random_split(range(9), [4, 5])],
            True,
        ),
    ]


@pytest.mark.torch
@pytest.mark.parametrize("name, program, exact", _programs(), ids=[p[0] for p in _programs()])
def test_seeded_programs_draw_what_pytorch_draws(name, program, exact):
    torch = pytest.importorskip("torch")

    def run(library, seed=7):
        library.manual_seed(seed)
        out = program(library, library.nn)
        out = out if isinstance(out, list) else [out]
        return [np.asarray(o.detach().numpy() if hasattr(o, "detach") else o) for o in out]

    for ours, theirs in zip(run(symgrad), run(torch), strict=True):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        if exact:
            np.testing.assert_array_equal(ours, theirs)
        else:
            np.testing.assert_allclose(ours, theirs, rtol=5e-7, atol=1e-7)


@pytest.mark.torch
def test_states_move_between_the_libraries():
    torch = pytest.importorskip("torch")
    torch.manual_seed(77)
    torch.rand(1000)
    torch.randn(3, dtype=torch.float64)  # a cached normal in the state
    symgrad.set_rng_state(symgrad.tensor(torch.get_rng_state().numpy()))
    assert (
        symgrad.randn(5, dtype=symgrad.float64).tolist()
        == torch.randn(5, dtype=torch.float64).tolist()
    )
    assert torch.equal(torch.tensor(symgrad.get_rng_state().numpy()), torch.get_rng_state())


def test_other_fills_and_rrelu_draw_pytorchs_numbers():
    symgrad.manual_seed(0)
    exp = symgrad.empty(3, dtype=symgrad.float64).exponential_(1.7)
    assert exp.tolist() == [2.063721286298613, 0.723755743635104, 0.3617906434670656]
    assert symgrad.empty(3, dtype=symgrad.float64).geometric_(0.3).tolist() == [1.0, 2.0, 1.0]
    symgrad.manual_seed(0)  # a slope is drawn for each element at or below zero only
    x = symgrad.tensor([-1.0, 2.0, -2.0], dtype=symgrad.float64)
    assert symgrad.nn.functional.rrelu(x, training=True).tolist() == [
        -0.3270943753763652,
        2.0,
        -0.5449249434999116,
    ]


@pytest.mark.torch
@pytest.mark.parametrize(
    "name, program",
    [
        (
            "exponential",
            lambda T: [T.empty(30, dtype=T.float64).exponential_(1.7), T.empty(9).exponential_()],
        ),
        (
            "cauchy",
            lambda T: [T.empty(30, dtype=T.float64).cauchy_(1.5, 2.0), T.empty(9).cauchy_()],
        ),
        (
            "log_normal",
            lambda T: [
                T.empty(30, dtype=T.float64).log_normal_(0.5, 0.7),
                T.empty(7).log_normal_(),
            ],
        ),
        (
            "geometric",
            lambda T: [T.empty(30).geometric_(0.3), T.empty(9, dtype=T.int64).geometric_(0.6)],
        ),
        ("normal_ small", lambda T: T.empty(10, dtype=T.float64).normal_(0.5, 0.7)),
        (
            "rrelu",
            lambda T: T.nn.functional.rrelu(T.linspace(-1, 1, 11, dtype=T.float64), training=True),
        ),
        ("rrelu float32", lambda T: T.nn.functional.rrelu(-T.ones(4, 5), 0.1, 0.7, training=True)),
        (
            "multinomial",
            lambda T: [
                T.multinomial(T.tensor([[0.0, 1.0, 2.0], [3.0, 0.0, 1.0]]), 20, True),
                T.multinomial(T.tensor([0.1, 0.5, 0.4], dtype=T.float64), 3),
                T.multinomial(T.tensor([0.2, 0.8]), 1, True),
            ],
        ),
    ],
)
def test_fills_match_pytorch(name, program):
    torch = pytest.importorskip("torch")
    symgrad.manual_seed(5)
    ours = program(symgrad)
    torch.manual_seed(5)
    theirs = program(torch)
    for a, b in zip(
        ours if isinstance(ours, list) else [ours], theirs if isinstance(theirs, list) else [theirs]
    ):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_ranges_of_two_to_the_28_or_more_draw_two_numbers_per_integer():
    # below 2**28 one 32-bit number per value, from 2**28 on a 64-bit one (the first number
    # its high half), whatever the dtype
    symgrad.manual_seed(0)
    assert symgrad.randint(0, 2**28 - 1, (2,)).tolist() == [209652404, 130329144]
    symgrad.manual_seed(0)
    assert symgrad.randint(0, 2**28, (2,)).tolist() == [130329135, 136432832]
    symgrad.manual_seed(0)
    assert symgrad.randint(0, 2**30, (2,), dtype=symgrad.int32).tolist() == [
        398764591,
        404868288,
    ]
    symgrad.manual_seed(0)
    drawn = symgrad.empty(2, dtype=symgrad.float64).random_(-(2**31), 2**31)
    assert drawn.tolist() == [398764591.0, 1478610112.0]


def test_floating_random_bounds_are_moved_inside_what_the_dtype_holds():
    # ``to - 1`` that rounds up to ``to`` in the dtype moves ``to`` down one step of the dtype
    # (2**25 - 2 for float32), ``from + 1`` that rounds below ``from`` moves ``from`` up
    symgrad.manual_seed(0)
    with pytest.warns(UserWarning, match="out of bounds"):
        drawn = symgrad.empty(2).random_(0, 2**25)
    assert drawn.tolist() == [8325944.0, 29665988.0]
    symgrad.manual_seed(0)
    with pytest.warns(UserWarning, match="out of bounds"):
        drawn = symgrad.randint(-(2**25) - 1, 0, (2,), dtype=symgrad.float32)
    assert drawn.tolist() == [-25228700.0, -3888669.0]
    with pytest.raises(RuntimeError, match="casted to dtype, but got from=4100 >= to=4096"):
        symgrad.empty(2, dtype=symgrad.float16).random_(4097, 4100)


@pytest.mark.torch
@pytest.mark.parametrize(
    "program",
    [
        lambda T: T.randint(0, 2**28, (5,)),
        lambda T: T.randint(-(2**29), 2**29, (5,), dtype=T.int32),
        lambda T: T.randint(0, 2**32 - 1, (5,), dtype=T.uint32),
        lambda T: T.empty(5).random_(0, 2**30),
        lambda T: T.empty(5, dtype=T.float64).random_(3, 2**53 + 7),
        lambda T: T.empty(5, dtype=T.float16).random_(-4097, 3000),
        lambda T: T.randint(-(2**25) - 1, 2**25, (5,), dtype=T.float32),
    ],
)
def test_random_integers_of_wide_ranges_match_pytorch(program):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        symgrad.manual_seed(3)
        ours = program(symgrad)
        torch.manual_seed(3)
        theirs = program(torch)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
