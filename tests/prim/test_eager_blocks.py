"""Eager element-wise calls on large arrays run block by block on every core
(:func:`symgrad.prim.blocks.elementwise`): the values and gradients must be exactly those of
one whole-array kernel call.

Every element-wise primitive in the registry is called forward and backward on arrays of more
than ``EAGER_MIN`` elements, once as usual and once with the block path switched off, and the
two must agree bit for bit (nan where nan). Three threads are used, so the shares are uneven
and the last block is short.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad.ops.elementwise import REGISTRY
from symgrad.prim import application, blocks, elementwise

N = blocks.EAGER_MIN + 3 * blocks.EAGER_BLOCK + 17  # not a multiple of a block or a share
PRIMS = sorted(REGISTRY.items())


@pytest.fixture
def three_threads(monkeypatch):
    monkeypatch.setattr(blocks, "threads", lambda: 3)


def _whole(monkeypatch):
    """Switch the block path off (every call one whole-array kernel call)."""
    big = 1 << 62
    monkeypatch.setattr(application, "_EAGER_MIN", big)
    monkeypatch.setattr(elementwise, "_EAGER_MIN", big)
    monkeypatch.setattr(blocks, "EAGER_MIN", big)


def _run(prim, arrays, params):
    xs = [symgrad.from_numpy(a.copy()).requires_grad_() for a in arrays]
    out = prim(*xs, params=params)
    values = out.detach().numpy()
    g = np.linspace(-2.0, 3.0, values.size).reshape(values.shape).astype(values.dtype)
    grads = symgrad.autograd.grad(out, xs, symgrad.from_numpy(g), allow_unused=True)
    return values, [None if v is None else v.numpy() for v in grads]


def _same(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def _sample(prim, n: int, dtype) -> list[tuple[list[np.ndarray], tuple]]:
    rng = np.random.default_rng(1)
    names = tuple(str(x) for x in prim.inputs)
    dom = prim.domain
    return [
        ([a.astype(dtype) for a in dom.sample(names, rng, (n,))], params)
        for params in (dom.params or [()])
    ]


@pytest.mark.parametrize("name, prim", PRIMS, ids=[n for n, _ in PRIMS])
def test_blocks_give_the_whole_array_values(name, prim, three_threads, monkeypatch):
    for dtype in (np.float64, np.float32):
        for arrays, params in _sample(prim, N, dtype):
            out, grads = _run(prim, arrays, params)
            with monkeypatch.context() as m:
                _whole(m)
                out_whole, grads_whole = _run(prim, arrays, params)
            assert _same(out, out_whole), (name, dtype)
            for g, gw in zip(grads, grads_whole):
                assert (g is None) == (gw is None)
                assert g is None or _same(g, gw), (name, dtype)


def test_a_large_call_runs_in_blocks(three_threads, monkeypatch):
    """The path is taken: a ufunc on every thread's share, a formula block by block."""
    calls = []
    real = blocks.elementwise

    def spy(kernel, operands):
        result = real(kernel, operands)
        calls.append((kernel, result is not None))
        return result

    monkeypatch.setattr(blocks, "elementwise", spy)
    x = symgrad.linspace(-3, 3, N, dtype=symgrad.float64).requires_grad_()
    y = x.sin()
    y.backward(symgrad.ones(N, dtype=symgrad.float64))
    assert calls and all(done for _, done in calls)
    np.testing.assert_array_equal(x.grad.numpy(), np.cos(x.detach().numpy()))
    np.testing.assert_array_equal(y.detach().numpy(), np.sin(x.detach().numpy()))


def test_cheap_ufuncs_and_small_arrays_are_one_call():
    x = np.ones(N)
    assert blocks.elementwise(np.add, (x, x)) is None  # a pass over memory: no gain
    assert blocks.elementwise(np.sin, (x[:100],)) is None  # too small to gain
    assert blocks.elementwise(np.sin, (x,)) is not None


def test_operands_that_cannot_be_cut_take_the_whole_array_call():
    x = np.ones((N // 100, 100))
    column = np.ones((N // 100, 1))
    assert blocks.elementwise(np.arctan2, (x, column)) is None  # broadcast along one axis only
    assert blocks.elementwise(np.sin, (np.asfortranarray(np.ones((300, 300))),)) is None
    one = np.broadcast_to(np.float64(2.0), x.shape)  # one value everywhere: cut
    got = blocks.elementwise(np.arctan2, (x, one))
    assert _same(got, np.arctan2(x, one))


def test_a_result_of_another_shape_falls_back(three_threads):
    """A kernel whose block result is not one value per element is called whole instead."""
    x = np.ones(N)

    def total(v):  # not element-wise: one value per block
        return np.atleast_1d(v.sum())

    assert blocks.elementwise(total, (x,)) is None


def test_an_error_in_a_block_is_raised(three_threads):
    x = np.arange(N, dtype=np.float64)

    def fails_far_in(v):
        if v.size > 1 and v[0] > N / 2:
            raise FloatingPointError("far in")
        return np.sin(v)

    with pytest.raises(FloatingPointError, match="far in"):
        blocks.elementwise(fails_far_in, (x,))


def test_numpy_warnings_stay_off_in_every_thread(three_threads):
    x = symgrad.from_numpy(np.linspace(-1, 1, N)).requires_grad_()
    with np.errstate(all="raise"):
        y = x.log()  # log of negatives: nan, no FloatingPointError in any thread
        y.sum().backward()
    assert np.isnan(y.detach().numpy()[: N // 2 - 1]).all()
    np.testing.assert_array_equal(x.grad.numpy(), 1 / x.detach().numpy())


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork on this platform")
def test_a_forked_process_gets_threads_of_its_own(three_threads):
    """A process forked after the threads were made (a DataLoader's workers) has none of
    them: it makes its own rather than wait for ever."""
    import multiprocessing

    x = np.linspace(0.0, 1.0, N)
    assert blocks.elementwise(np.exp, (x,)) is not None  # the threads exist now
    ctx = multiprocessing.get_context("fork")
    with warnings.catch_warnings():  # (Python 3.12 warns of forking a threaded process)
        warnings.simplefilter("ignore", DeprecationWarning)
        with ctx.Pool(1) as pool:
            result = pool.apply_async(_exp_sum, (x,))
            assert result.get(timeout=60) == np.exp(x).sum()


def _exp_sum(x):
    return blocks.elementwise(np.exp, (x,)).sum()


def test_an_array_of_a_subclass_is_not_cut(tmp_path):
    """A memory map (or a meta array) beside arrays that could be cut: the whole-array call."""
    data = np.memmap(tmp_path / "x.bin", dtype=np.float64, mode="w+", shape=(N,))
    data[:] = np.linspace(-2.0, 2.0, N)
    assert blocks.elementwise(np.sin, (data,)) is None
    assert blocks.elementwise(np.arctan2, (data, np.ones(N))) is None


def test_only_formulas_worth_it_are_marked_for_blocks():
    """``g * y`` alone is one pass over memory (one call); ``g * (1 - out**2)`` has
    temporaries and ``g * cos(x)`` a function: blocks."""
    assert REGISTRY["mul"].vjp_kernel(0).blockwise is False
    assert REGISTRY["tanh"].vjp_kernel(0).blockwise is True
    assert REGISTRY["sin"].vjp_kernel(0).blockwise is True
    x = np.ones(N)
    assert blocks.elementwise(REGISTRY["mul"].vjp_kernel(0), (x, x, x, x)) is None
    got = blocks.elementwise(REGISTRY["tanh"].vjp_kernel(0), (x, x, x))
    assert _same(got, REGISTRY["tanh"].vjp_kernel(0)(x, x, x))
