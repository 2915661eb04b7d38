"""igamma/igammac (special.gammainc/gammaincc) region by region, bit for bit as PyTorch's
scalar loop gives them: Temme's expansion for a large ``a`` near ``x``, the power series, the
continued fraction, the series of ``Q`` for ``x <= 1.1``, and the edges (0, inf, nan, negative
numbers)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

NAN, INF = math.nan, math.inf

POINTS = [
    (500.0, 500.0), (500.0, 480.0), (1e4, 1.003e4), (1e6, 999000.0), (1e7, 1e7), (2e5, 201000.0),
    (50.0, 45.0), (150.0, 170.0), (25.0, 25.0),
    (2371.373705661655, 1333.521432163324), (12.85, 6.03), (0.5, 0.3),
    (3.0, 10.0), (18.68, 19.05), (1000.0, 2371.4),
    (0.1, 0.9), (0.05, 0.001), (0.8, 1.05),
    (200.0, 200.0), (1e-3, 1e7), (1e7, 1e-3),
    (0.0, 1.0), (0.0, 0.0), (2.0, 0.0), (NAN, 0.0), (INF, 1.0), (INF, INF), (1.0, INF),
    (-1.0, 1.0), (1.0, -1.0), (NAN, 2.0),
]  # fmt: skip

EXPECTED = {
    ("float64", "igamma"): [
        0.5059471460880132, 0.186281973134904, 0.619067656006504, 0.1586552135731875,
        0.5000420522081386, 0.9872287282902856, 0.24680203419473098, 0.9443655686468347,
        0.5266015310735231, 1.45148568770735e-144, 0.010412420771956556, 0.5614219739190003,
        0.9972306042844884, 0.5644038636640119, 1.0, 0.9716069046009712, 0.7271792290529225,
        0.733906560823477, 0.5094034180072367, 1.0, 0.0, 1.0, NAN, 0.0, 0.0, 0.0, NAN, 1.0,
        NAN, NAN, NAN,
    ],
    ("float64", "igammac"): [
        0.49405285391198683, 0.813718026865096, 0.38093234399349596, 0.8413447864268125,
        0.4999579477918614, 0.012771271709714347, 0.753197965805269, 0.05563443135316525,
        0.47339846892647686, 1.0, 0.9895875792280434, 0.4385780260809997, 0.0027693957155115775,
        0.43559613633598804, 2.3797235129277137e-223, 0.028393095399029077, 0.27282077094707735,
        0.26609343917652295, 0.4905965819927636, 0.0, 1.0, 0.0, NAN, 1.0, 1.0, 1.0, NAN, 0.0,
        NAN, NAN, NAN,
    ],
    ("float32", "igamma"): [
        0.5059471726417542, 0.1862822324037552, 0.6190683245658875, 0.1586504876613617,
        0.5000420808792114, 0.9872281551361084, 0.24680207669734955, 0.9443655610084534,
        0.5266015529632568, 0.0, 0.010412435978651047, 0.5614220499992371, 0.997230589389801,
        0.5644042491912842, 1.0, 0.9716066122055054, 0.7271791100502014, 0.7339065074920654,
        0.5094032883644104, 1.0, 0.0, 1.0, NAN, 0.0, 0.0, 0.0, NAN, 1.0, NAN, NAN, NAN,
    ],
    ("float32", "igammac"): [
        0.49405285716056824, 0.8137177228927612, 0.38093170523643494, 0.8413495421409607,
        0.49995794892311096, 0.012771828100085258, 0.7531979084014893, 0.05563446134328842,
        0.47339847683906555, 1.0, 0.9895875453948975, 0.43857795000076294,
        0.0027693959418684244, 0.4355957806110382, 0.0, 0.02839309349656105, 0.2728208005428314,
        0.2660934627056122, 0.49059662222862244, 0.0, 1.0, 0.0, NAN, 1.0, 1.0, 1.0, NAN, 0.0,
        NAN, NAN, NAN,
    ],
}  # fmt: skip


def _same(actual, expected):
    actual, expected = np.asarray(actual, dtype=np.float64), np.asarray(expected)
    return bool(np.all((actual == expected) | (np.isnan(actual) & np.isnan(expected))))


@pytest.mark.parametrize(("dtype", "name"), list(EXPECTED))
def test_regions_bit_for_bit(dtype, name):
    a, x = (symgrad.tensor(v, dtype=getattr(symgrad, dtype)) for v in zip(*POINTS))
    out = getattr(symgrad, name)(a, x)
    assert out.dtype == getattr(symgrad, dtype)
    expected = EXPECTED[dtype, name]
    mismatched = [
        (p, got, want)
        for p, got, want in zip(POINTS, out.tolist(), expected)
        if not _same(got, want)
    ]
    assert not mismatched


def test_special_names_agree():
    a, x = symgrad.tensor([500.0, 0.5]), symgrad.tensor([480.0, 0.3])
    assert symgrad.special.gammainc(a, x).tolist() == symgrad.igamma(a, x).tolist()
    assert symgrad.special.gammaincc(a, x).tolist() == symgrad.igammac(a, x).tolist()


def _grid():
    rng = np.random.default_rng(11)
    a = np.exp(rng.uniform(math.log(1e-3), math.log(1e7), 96))
    near = a[48:] * np.exp(rng.normal(0, 1, 48) * np.minimum(0.5, 3 / np.sqrt(a[48:])))
    x = np.concatenate([np.exp(rng.uniform(math.log(1e-3), math.log(1e7), 48)), near])
    return a, x


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_grid_matches_torch(dtype, name):
    torch = pytest.importorskip("torch")
    a, x = _grid()
    # in runs of 8, which PyTorch's CPU kernel computes in its scalar loop
    for lo in range(0, a.size, 8):
        ta, tx = (torch.tensor(v[lo : lo + 8], dtype=getattr(torch, dtype)) for v in (a, x))
        expected = getattr(torch, name)(ta, tx).tolist()
        sa, sx = (symgrad.tensor(v.tolist(), dtype=getattr(symgrad, dtype)) for v in (ta, tx))
        assert _same(getattr(symgrad, name)(sa, sx).tolist(), expected), (ta, tx)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(EXPECTED))
def test_expected_values_are_torch(name):
    torch = pytest.importorskip("torch")
    dtype, fn = name
    got = [
        getattr(torch, fn)(
            torch.tensor([a], dtype=getattr(torch, dtype)),
            torch.tensor([x], dtype=getattr(torch, dtype)),
        ).item()
        for a, x in POINTS
    ]
    assert _same(got, EXPECTED[name])


@pytest.mark.torch
def test_gamma_and_chi2_cdf_match_torch():
    torch = pytest.importorskip("torch")
    conc, rate = [300.0, 2.5, 0.3, 5000.0], [2.0, 1.0, 4.0, 0.5]
    value = [150.0, 1.7, 0.05, 9950.0]
    results = []
    for T in (symgrad, torch):
        c, r, v = (T.tensor(w, dtype=T.float64) for w in (conc, rate, value))
        gamma = T.distributions.Gamma(c, r).cdf(v).tolist()
        chi2 = T.distributions.Chi2(c).cdf(v).tolist()
        results.append((gamma, chi2))
    assert results[0] == results[1]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_large_tensors_agree_with_small_ones(dtype, name):
    # beyond a few dozen elements the elementary functions are NumPy's, not the C library's
    # element by element: the same values up to the last bits (of a tiny float32 result)
    a, x = _grid()
    fn, T = getattr(symgrad, name), getattr(symgrad, dtype)
    big = [symgrad.tensor(np.tile(v, 4), dtype=T) for v in (a, x)]  # every region > 64
    whole = fn(*big).numpy()[: a.size]
    pieces = np.concatenate(
        [
            fn(
                symgrad.tensor(a[lo : lo + 8], dtype=T), symgrad.tensor(x[lo : lo + 8], dtype=T)
            ).numpy()
            for lo in range(0, a.size, 8)
        ]
    )
    tiny = np.finfo(whole.dtype).tiny
    np.testing.assert_allclose(whole, pieces, rtol=5e-13 if dtype == "float64" else 5e-5, atol=tiny)
