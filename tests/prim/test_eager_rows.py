"""``softmax``, ``log_softmax`` and ``layer_norm`` along the last axes of a large array run on
blocks of whole rows on every core (:func:`symgrad.prim.blocks.rows`), forward and backward:
the values and gradients must be exactly those of the whole-array kernels, and anything the
blocks can't take (another dim, a transposed input, a broadcast gradient, group and batch
norm, a small array) falls back to them. Three threads are used, so the shares are uneven and
the last block is short."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.prim import blocks

ROWS = blocks.ROWS_BLOCK // 100  # with 100 to 300 columns: many blocks, a short last one


@pytest.fixture
def three_threads(monkeypatch):
    monkeypatch.setattr(blocks, "threads", lambda: 3)


def _whole(monkeypatch):
    monkeypatch.setattr(blocks, "EAGER_MIN", 1 << 62)


def _calls(dtype):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((3 * ROWS + 7, 130)) * 20).astype(dtype)
    x[5, :4] = [np.inf, -np.inf, np.nan, 0.0]  # a row of non-finite values stays its own
    x[9] = -np.inf
    wide = rng.standard_normal((2, blocks.ROWS_BLOCK + 5)).astype(dtype)  # rows wider than a block
    cube = rng.standard_normal((40, 21, 150)).astype(dtype)
    return [
        ("softmax", lambda t: symgrad.softmax(t, -1), x),
        ("log_softmax", lambda t: F.log_softmax(t, dim=1), x),
        ("softmax wide", lambda t: symgrad.softmax(t, 1), wide),
        ("log_softmax wide", lambda t: symgrad.log_softmax(t, -1), wide),
        ("softmax 3-d", lambda t: symgrad.softmax(t, 2), cube),
        ("log_softmax 3-d", lambda t: symgrad.log_softmax(t, -1), cube),
        # what the rows can't take: the same numbers from the whole-array kernels
        ("softmax dim 0", lambda t: symgrad.softmax(t, 0), x),
        ("log_softmax transposed", lambda t: symgrad.log_softmax(t.t(), -1), x),
        ("softmax of a sum's gradient", lambda t: symgrad.softmax(t, -1) * 1.0, x),
    ]


def _norms(dtype):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((3 * ROWS + 7, 130)) * 5 + 2).astype(dtype)
    x[9] = 1.5  # a constant row: zero variance
    cube = rng.standard_normal((300, 21, 15)).astype(dtype)
    w, b = (rng.standard_normal(130).astype(dtype) for _ in range(2))
    wc = rng.standard_normal((21, 15)).astype(dtype)
    ln = F.layer_norm
    return [
        ("layer_norm", lambda t, w, b: ln(t, (130,), w, b), x, (w, b)),
        ("layer_norm weight only", lambda t, w: ln(t, (130,), w, eps=1e-3), x, (w,)),
        ("layer_norm plain", lambda t: ln(t, (130,)), x, ()),
        # (over two axes NumPy sums in another order than along one row: not cut into rows)
        ("layer_norm two axes", lambda t, w: ln(t, (21, 15), w), cube, (wc,)),
        ("layer_norm last axis of three", lambda t: ln(t, (15,)), cube, ()),
        # what the rows can't take
        ("layer_norm transposed", lambda t: ln(t.t(), (x.shape[0],)), x, ()),
        ("group_norm", lambda t: F.group_norm(t.reshape(ROWS, 39, 10), 3), x[: 3 * ROWS], ()),
        ("batch_norm", lambda t: F.batch_norm(t, None, None, training=True), x, ()),
    ]


def _run(fn, array, upstream, affine=()):
    x = symgrad.from_numpy(array.copy()).requires_grad_()
    params = [symgrad.from_numpy(a.copy()).requires_grad_() for a in affine]
    out = fn(x, *params)
    values = out.detach().numpy()
    if upstream == "ones":
        out.sum().backward()  # a gradient broadcast from one value: no rows of its own
    else:
        g = np.linspace(-2.0, 3.0, values.size).reshape(values.shape).astype(values.dtype)
        out.backward(symgrad.from_numpy(g))
    return [values, x.grad.numpy()] + [p.grad.numpy() for p in params]


CASES = [
    (dtype, name, upstream)
    for dtype in (np.float32, np.float64)
    for name, _, _ in _calls(dtype)
    for upstream in ("given", "ones")
]


def _same_as_whole(got: list, monkeypatch, run) -> None:
    _whole(monkeypatch)
    want = run()
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype,name,upstream", CASES)
def test_rows_give_the_whole_array_values(dtype, name, upstream, three_threads, monkeypatch):
    fn, array = next((f, a) for n, f, a in _calls(dtype) if n == name)
    _same_as_whole(_run(fn, array, upstream), monkeypatch, lambda: _run(fn, array, upstream))


NORMS = [
    (dtype, name, upstream)
    for dtype in (np.float32, np.float64)
    for name, _, _, _ in _norms(dtype)
    for upstream in ("given", "ones")
]


@pytest.mark.parametrize("dtype,name,upstream", NORMS)
def test_norm_rows_give_the_whole_array_values(dtype, name, upstream, three_threads, monkeypatch):
    fn, array, affine = next((f, a, p) for n, f, a, p in _norms(dtype) if n == name)
    got = _run(fn, array, upstream, affine)
    _same_as_whole(got, monkeypatch, lambda: _run(fn, array, upstream, affine))


def test_the_rows_path_is_taken(three_threads, monkeypatch):
    taken = []
    real = blocks.rows

    def counting(kernel, operands):
        out = real(kernel, operands)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(blocks, "rows", counting)
    x = symgrad.randn(ROWS, 200, requires_grad=True)
    symgrad.softmax(x, -1).backward(symgrad.randn(ROWS, 200))
    assert taken == [True, True]  # forward and backward
    taken.clear()
    symgrad.softmax(symgrad.randn(10, 20, requires_grad=True), -1).sum().backward()
    assert taken == []  # small: one whole-array call, forward and backward
    taken.clear()
    x = symgrad.randn(ROWS, 200, requires_grad=True)
    w = symgrad.randn(200, requires_grad=True)
    F.layer_norm(x, (200,), w).backward(symgrad.randn(ROWS, 200))
    assert taken == [True, True, True]  # forward, the input's gradient, the normalized input


def test_rows_result_owns_its_memory():
    a = np.random.default_rng(0).standard_normal((ROWS, 150))
    out = blocks.rows(lambda m: m * 2, (a,))
    assert out is not None and out.base is None and out.shape == a.shape
    np.testing.assert_array_equal(out, a * 2)


def test_rows_declines_what_it_cannot_cut():
    a = np.ones((ROWS, 150))
    assert blocks.rows(lambda m: m, (np.ones((10, 10)),)) is None  # small
    assert blocks.rows(lambda m: m, (a.T,)) is None  # not row by row
    assert blocks.rows(lambda m, n: m + n, (a, np.ones(150))) is None  # broadcast operand
    assert blocks.rows(lambda m: m.sum(axis=-1), (a,)) is None  # not one value per element


def test_an_error_in_a_block_is_raised(three_threads):
    a = np.ones((8 * (blocks.ROWS_BLOCK // 150), 150))  # eight blocks after the probe
    calls = []

    def failing(m):
        calls.append(len(m))
        if len(calls) == 4:
            raise FloatingPointError("a block failed")
        return m

    with pytest.raises(FloatingPointError, match="a block failed"):
        blocks.rows(failing, (a,))
