"""symgrad.compile(..., backend="numexpr"): element-wise chains fused into numexpr
expressions give the values and gradients of the NumPy backend and of the eager run."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F

numexpr = pytest.importorskip("numexpr")

N = 5000  # above MIN_SIZE: the chains are fused
TOL = {np.float32: dict(rtol=2e-5, atol=1e-6), np.float64: dict(rtol=1e-12, atol=1e-14)}

CHAINS = {
    "w4": lambda x, y: (symgrad.sin(x) * symgrad.exp(-x * x) + symgrad.tanh(x)).sum(),
    "polynomial": lambda x, y: ((x * x - 3.0 * x + 1.5) * y / (1 + y * y)).sum(),
    "two_inputs": lambda x, y: (x.exp() * y.sin() - (x - y) ** 2).mean(),
    "relu_sqrt": lambda x, y: (symgrad.relu(x) + (y * y + 1).sqrt() * x.cosh()).sum(),
    "log_chain": lambda x, y: ((x * x + 1).log() * y.tanh().abs()).sum(),
    "returns_both": lambda x, y: (x.sin() * y, (x * y).exp()),
    "with_matmul": lambda x, y: (x.reshape(50, 100) @ y.reshape(100, 50)).tanh().sum(),
    "sigmoid_kept": lambda x, y: (x.sigmoid() * y + F.softplus(x)).sum(),
}


def _inputs(dtype):
    rng = np.random.default_rng(0)
    x = symgrad.tensor(rng.standard_normal(N).astype(dtype), requires_grad=True)
    y = symgrad.tensor(rng.standard_normal(N).astype(dtype), requires_grad=True)
    return x, y


def _run(fn, x, y):
    x.grad = y.grad = None
    out = fn(x, y)
    outs = out if isinstance(out, tuple) else (out,)
    symgrad.autograd.backward([o.sum() for o in outs])
    grads = [
        np.zeros(N, x.detach().numpy().dtype) if t.grad is None else t.grad.numpy() for t in (x, y)
    ]
    return [o.detach().numpy() for o in outs], grads


@pytest.fixture(params=["whole", "blocked"])
def blocked(request, monkeypatch):
    """Regions run on whole arrays, or cut into uneven blocks shared among threads."""
    if request.param == "blocked":
        from symgrad.prim import blocks

        monkeypatch.setattr(blocks, "MIN_BLOCKED", 1000)
        monkeypatch.setattr(blocks, "BLOCK", 700)
        monkeypatch.setattr(blocks, "threads", lambda: 3)
    return request.param


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(CHAINS))
def test_same_as_numpy_backend(case, dtype, blocked):
    fn = CHAINS[case]
    x, y = _inputs(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no graph break: the fused program passed its check
        fused = symgrad.compile(fn, backend="numexpr", fullgraph=True)
        got = _run(fused, x, y)
        want = _run(symgrad.compile(fn, fullgraph=True), x, y)
    eager = _run(fn, x, y)
    for a, b, c in zip(got[0] + got[1], want[0] + want[1], eager[0] + eager[1]):
        assert a.dtype == b.dtype == dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, **TOL[dtype])
        np.testing.assert_allclose(a, c, **TOL[dtype])


def test_the_chain_is_one_step():
    f = symgrad.compile(CHAINS["w4"], backend="numexpr")
    x, y = _inputs(np.float64)
    f(x, y).backward()
    forward = f.source.split("def backward")[0]
    assert "# numexpr" in forward and "# sum" in forward
    assert "# sin" not in forward and "# mul" not in forward


def test_stable_kernels_stay_numpy_steps():
    f = symgrad.compile(CHAINS["sigmoid_kept"], backend="numexpr")
    x, y = _inputs(np.float64)
    x.data[:2] = symgrad.tensor([1000.0, -1000.0], dtype=symgrad.float64)
    f(x, y).backward()
    assert "# sigmoid" in f.source and "# softplus" in f.source
    assert np.isfinite(x.grad.numpy()).all()


def test_small_arrays_keep_the_numpy_steps():
    f = symgrad.compile(CHAINS["w4"], backend="numexpr")
    x = symgrad.randn(10, requires_grad=True)
    f(x, x).backward()
    assert "numexpr" not in f.source and "# sin" in f.source


def test_module_with_numexpr_backend():
    net = symgrad.nn.Sequential(symgrad.nn.Linear(64, 128), symgrad.nn.Tanh())
    fast = symgrad.compile(net, backend="numexpr")
    x = symgrad.randn(64, 64)
    np.testing.assert_allclose(fast(x).detach().numpy(), net(x).detach().numpy(), rtol=1e-6)


def test_missing_numexpr_says_how_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_numexpr(name, *args, **kwargs):
        if name == "numexpr":
            raise ImportError("No module named 'numexpr'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_numexpr)
    with pytest.raises(ImportError, match=r"pip install 'symgrad\[fast\]'"):
        symgrad.compile(CHAINS["w4"], backend="numexpr")


try:  # tests/ is on sys.path when pytest imports the test packages from their root directory
    from ops.op_db import OP_DB
except ImportError:  # tests/ made a package itself
    from tests.ops.op_db import OP_DB


def _table_run(fn, arrays, dtype):
    xs = [symgrad.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    out = fn(*xs)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if o.requires_grad]
    rng = np.random.default_rng(1)
    weights = [symgrad.tensor(rng.standard_normal(o.shape), dtype=o.dtype) for o in outs]
    grads = symgrad.autograd.grad(outs, xs, weights, allow_unused=True) if outs else []
    return [o.detach().numpy() for o in outs], [None if g is None else g.numpy() for g in grads]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op", OP_DB, ids=[op.name for op in OP_DB])
def test_op_table_fused_at_every_size(op, dtype, monkeypatch):
    """Every op of the table, its element-wise steps fused however small: no new graph break,
    and the values and gradients of the NumPy backend's program."""
    from symgrad.compiler import numexpr_backend

    monkeypatch.setattr(numexpr_backend, "MIN_SIZE", 0)
    dtype = getattr(symgrad, dtype)
    arrays = op.sample()

    def fn(*xs):
        return op.fn(symgrad, *xs)

    plain, fused = symgrad.compile(fn), symgrad.compile(fn, backend="numexpr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = _table_run(plain, arrays, dtype)
        except Exception as error:  # an entry made for float64 alone: the same error fused
            with pytest.raises(type(error)):
                _table_run(fused, arrays, dtype)
            return
        got = _table_run(fused, arrays, dtype)
    assert bool(fused._warned) == bool(plain._warned), fused._warned
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == symgrad.float32 else dict(rtol=1e-9, atol=1e-12)
    for a, b in zip(got[0] + got[1], want[0] + want[1]):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, equal_nan=True, **tol)


def test_blocks_cover_every_element_once_and_refuse_partial_broadcasts(monkeypatch):
    from symgrad.prim import blocks

    monkeypatch.setattr(blocks, "MIN_BLOCKED", 10)
    monkeypatch.setattr(blocks, "BLOCK", 7)
    a = np.arange(50.0).reshape(5, 10)
    one = np.broadcast_to(np.float64(2.0), (5, 10))  # one value everywhere: cut as a number
    got = blocks.run_blocked(lambda p, s: [p[0] * p[1], p[0] + 1], [a, one], (5, 10), [a.dtype] * 2)
    np.testing.assert_array_equal(got[0], a * 2)
    np.testing.assert_array_equal(got[1], a + 1)
    row = np.arange(10.0)[None, :].repeat(1, 0)  # broadcast along one dimension only
    assert (
        blocks.run_blocked(lambda p, s: [p[0]], [np.broadcast_to(row, (5, 10))], (5, 10), [a.dtype])
        is None
    )
    assert blocks.run_blocked(lambda p, s: [p[0]], [a.T.copy().T], (5, 10), [a.dtype]) is None
    assert blocks.run_blocked(lambda p, s: [p[0]], [a[:1, :5]], (1, 5), [a.dtype]) is None  # small


def test_a_block_s_error_reaches_the_caller(monkeypatch):
    from symgrad.prim import blocks

    monkeypatch.setattr(blocks, "MIN_BLOCKED", 10)
    monkeypatch.setattr(blocks, "BLOCK", 7)
    monkeypatch.setattr(blocks, "threads", lambda: 2)

    def work(parts, shape):
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        blocks.run_blocked(work, [np.ones(40)], (40,), [np.dtype(np.float64)])
