"""``backend="symengine"``: the same closed forms as SymPy's, computed on SymEngine.

Every op of the shared op table (``tests/ops/op_db.py``) is replayed on both backends: the
gradients must be the same SymPy expressions, or equal at the traced point and at a perturbed
one (SymEngine may order or group a sum differently before it is converted). The numeric
functions SymEngine compiles must give the engine's gradients.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.symbolic import compile_gradient, gradient, hessian, jacobian, lambdify

from .support import (
    assert_close,
    element_symbols,
    evaluate,
    flat,
    leaf,
    numeric_gradients,
    perturbed,
    rng_for,
    scalarise,
    values_of,
)

try:  # tests/ is on sys.path when pytest imports the test packages from their root directory
    from ops.op_db import OP_DB
except ImportError:  # tests/ made a package itself
    from tests.ops.op_db import OP_DB

se = pytest.importorskip("symengine")


def _traced(op):
    xs = [leaf(a, f"x{i}") for i, a in enumerate(op.sample())]
    return xs, scalarise(op.fn(symgrad, *xs), rng_for(op.name))


def _same(a, b, points) -> bool:
    if a == b:
        return True
    return all(
        np.isclose(evaluate(a, p), evaluate(b, p), rtol=1e-9, atol=1e-9, equal_nan=True)
        for p in points
    )


@pytest.mark.parametrize(
    "op", [op for op in OP_DB if "numeric_only" not in op.tags], ids=lambda op: op.name
)
def test_gradients_equal_sympy_backend(op):
    xs, y = _traced(op)
    theirs = gradient(y, xs)
    ours = gradient(y, xs, backend="symengine")
    point = values_of(xs, [element_symbols(x) for x in xs])
    points = [point, perturbed(point, op.name)]
    for x, a, b, numeric in zip(xs, ours, theirs, numeric_gradients(y, xs)):
        assert len(flat(a)) == x.numel()
        for ea, eb in zip(flat(a), flat(b)):
            assert _same(ea, eb, points), f"{op.name}: {ea} != {eb}"
        assert_close([evaluate(e, point) for e in flat(a)], numeric, f"{op.name}: gradient")


def _sin_sum(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = symgrad.tensor(rng.uniform(-1, 1, n + 1), requires_grad=True, name="x")
    c = symgrad.tensor(rng.uniform(-1, 1, n), name="c")
    return x, c, (c * symgrad.sin(x[:-1] * x[1:])).sum()


def test_results_are_sympy_in_the_leaves_symbols():
    x, c, y = _sin_sum(5)
    g = gradient(y, x, backend="symengine")
    assert g == gradient(y, x)
    assert all(isinstance(e, sp.Expr) for e in g)
    assert g[0].free_symbols <= set(element_symbols(x)) | set(element_symbols(c))
    assert sp.latex(g[0]) == sp.latex(gradient(y, x)[0])


def test_assignment_form_matches_sympy_backend():
    x, c, y = _sin_sum(4)
    pair = gradient(y, x, cse=True, backend="symengine")
    f = lambdify(pair, [x, c])
    y.backward()
    assert_close(f(x.detach().numpy(), c.numpy()), x.grad.numpy())


def test_jacobian_and_hessian_match_sympy_backend():
    x = symgrad.tensor([0.3, -0.7, 1.1], requires_grad=True, name="x")
    out = symgrad.tanh(x * x.flip(0)) * x.exp()
    assert sp.simplify(jacobian(out, x, backend="symengine") - jacobian(out, x)) == sp.zeros(3, 3)
    y = out.sum() + (x[:-1] * x[1:]).sin().sum()
    h = hessian(y, x, backend="symengine")
    assert sp.simplify(h - hessian(y, x)) == sp.zeros(3, 3)


def test_hessian_blocks_and_cse():
    a = symgrad.tensor(0.5, requires_grad=True, name="a")
    b = symgrad.tensor([1.0, 2.0], requires_grad=True, name="b")
    y = (a * b * b).sum()
    blocks = hessian(y, [a, b], backend="symengine")
    assert blocks == hessian(y, [a, b])
    with pytest.raises(NotImplementedError, match="cse=True"):
        hessian(y, a, cse=True, backend="symengine")


def test_compile_gradient_matches_engine():
    x, c, y = _sin_sum(50)
    f = compile_gradient(y, x, backend="symengine")
    assert [t.name for t in f.extra_tensors] == ["c"]
    y.backward()
    assert_close(f(x.detach().numpy(), c.numpy()), x.grad.numpy())
    # leading batch dimensions broadcast, as for the NumPy backend
    batch = np.stack([x.detach().numpy()] * 3)
    assert f(batch, c.numpy()).shape == (3, 51)


def test_compile_gradient_with_a_batch():
    w = symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    x = symgrad.tensor([1.0, 1.0], name="x")
    t = symgrad.tensor(0.0, name="y")
    loss = (x @ w - t) ** 2
    X, T = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [0.0, 0.0, 3.0]
    for reduction in ("mean", "sum", "none"):
        kwargs = dict(batch=[x, t], reduction=reduction)
        ours = compile_gradient(loss, w, backend="symengine", **kwargs)([1.0, 2.0], X, T)
        theirs = compile_gradient(loss, w, **kwargs)([1.0, 2.0], X, T)
        assert_close(ours, theirs)


def test_compile_gradient_of_no_sample():
    # an empty batch gives empty gradients, as on the NumPy backend (SymEngine's function
    # refused the empty block with a bare ValueError)
    w = symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    x = symgrad.tensor([1.0, 1.0], name="x")
    t = symgrad.tensor(0.0, name="y")
    loss = (x @ w - t) ** 2
    for reduction, shape in (("none", (0, 2)), ("sum", (2,))):
        kwargs = dict(batch=[x, t], reduction=reduction)
        ours = compile_gradient(loss, w, backend="symengine", **kwargs)
        theirs = compile_gradient(loss, w, **kwargs)
        found = ours([1.0, 2.0], np.zeros((0, 2)), np.zeros(0))
        assert found.shape == shape
        assert_close(found, theirs([1.0, 2.0], np.zeros((0, 2)), np.zeros(0)))


def test_compile_gradient_of_a_long_chain():
    x = symgrad.tensor(0.5, requires_grad=True, name="x0")
    y = x
    for _ in range(200):
        y = symgrad.sin(y) * 1.01 + 0.1
    f = compile_gradient(y, x, backend="symengine")
    y.backward()
    assert_close(f(0.5), x.grad.numpy())


def test_lambdify_symengine_matches_numpy_backend():
    x, c, y = _sin_sum(20)
    g = gradient(y, x)
    point = (x.detach().numpy(), c.numpy())
    assert_close(lambdify(g, [x, c], backend="symengine")(*point), lambdify(g, [x, c])(*point))
    assert "out0[0]" in lambdify(g, [x, c], backend="symengine").c_source()
    with pytest.raises(ValueError, match="not among the leaves"):
        lambdify(g, [x], backend="symengine")


def test_compile_gradient_makes_sympy_symbols_only_when_asked():
    """The leaves' symbols are SymEngine's; SymPy's (of the right class) come with c_source."""
    x = symgrad.tensor([0.5, 1.0, 2.0], requires_grad=True, name="x")
    a = symgrad.tensor(1.5, requires_grad=True, name="a")
    y = (symgrad.sin(x[:-1] * x[1:]) * a).sum()
    f = compile_gradient(y, [x, a], backend="symengine")
    assert f._bridge.symbols == {}
    source = f.c_source()
    assert "out0[0] = a1*a3*cos(a0*a1);" in source  # x[0], x[1], x[2], a renamed in order
    kinds = {n: type(s).__name__ for n, s in f._bridge.symbols.items()}
    element = "ElementSymbol"
    assert kinds == {"x[0]": element, "x[1]": element, "x[2]": element, "a": "Symbol"}
    assert_close(f([0.0, 1.0, 0.0], 2.0)[0], [2.0, 0.0, 2.0])
    g = gradient(y, [x, a], backend="symengine")
    assert g == gradient(y, [x, a])
    assert sorted(type(s).__name__ for s in g[1].free_symbols) == [element] * 3
    assert sorted(type(s).__name__ for s in g[0][0].free_symbols) == [element] * 2 + ["Symbol"]


def test_functions_only_sympy_knows():
    x = symgrad.tensor([0.2, 0.4], requires_grad=True, name="x")
    y = (symgrad.erfinv(x) + symgrad.sigmoid(x) + symgrad.sinc(x)).sum()
    ours = gradient(y, x, backend="symengine")
    assert ours.has(sp.erfinv)
    point = values_of([x])
    assert all(_same(a, b, [point]) for a, b in zip(ours, gradient(y, x)))
    h = hessian(y, x, backend="symengine")
    assert all(_same(a, b, [point]) for a, b in zip(h, hessian(y, x)))


def test_data_dependent_rules_use_traced_values():
    x = symgrad.tensor([0.3, 2.0, -1.0], requires_grad=True, name="x")
    y = x.max() + symgrad.abs(x).sum()
    assert gradient(y, x, backend="symengine") == gradient(y, x)


def test_unknown_backend():
    x = symgrad.tensor(1.0, requires_grad=True, name="x")
    with pytest.raises(ValueError, match="backend must be one of"):
        gradient(x * x, x, backend="casadi")


def test_deep_inline_result_asks_for_cse():
    x = symgrad.tensor(0.5, requires_grad=True, name="x0")
    y = x
    for _ in range(120):
        y = symgrad.sin(y) * 1.01 + 0.1
    with pytest.raises(symgrad.symbolic.SymbolicDepthError, match="cse=True"):
        gradient(y, x, backend="symengine")
    pair = gradient(y, x, cse=True, backend="symengine")
    y.backward()
    assert_close(lambdify(pair, [x])(0.5), x.grad.numpy())


# the formulas as written: exp overflows where the NumPy backend's stable kernels do not
_UNSTABLE = {"logcumsumexp_large"}


@pytest.mark.parametrize(
    "op",
    [op for op in OP_DB if "numeric_only" not in op.tags and op.name not in _UNSTABLE],
    ids=lambda op: op.name,
)
def test_compiled_gradients_match_engine(op):
    """Functions SymEngine cannot evaluate (softplus, erfinv, ...) fall back to NumPy's."""
    xs, y = _traced(op)
    f = compile_gradient(y, xs, backend="symengine")
    found = f(*[x.detach().numpy() for x in xs])
    for g, numeric in zip(found, numeric_gradients(y, xs)):
        np.testing.assert_allclose(np.ravel(g), numeric, rtol=1e-8, atol=1e-10, err_msg=op.name)


def test_without_symengine_the_error_says_how_to_install(monkeypatch):
    import sys

    x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    y = (x * x).sum()
    monkeypatch.setitem(sys.modules, "symengine", None)  # import symengine raises ImportError
    for call in (
        lambda: gradient(y, x, backend="symengine"),
        lambda: jacobian(x * x, x, backend="symengine"),
        lambda: hessian(y, x, backend="symengine"),
        lambda: compile_gradient(y, x, backend="symengine"),
        lambda: lambdify(gradient(y, x), [x], backend="symengine"),
    ):
        with pytest.raises(ImportError, match=r"pip install symgrad\[symengine\]"):
            call()
