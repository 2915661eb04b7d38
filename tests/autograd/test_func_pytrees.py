"""``symgrad.func`` on pytrees (tuples, lists, dicts, named tuples of tensors, nested): the
structures and values of torch.func, as literals here and against torch.func when importable,
and PyTorch's exception types for what does not fit."""

from __future__ import annotations

import importlib
import warnings
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import symgrad
from symgrad import func, nn
from symgrad.func._pytree import broadcast_prefix, tree_flatten, tree_map, tree_unflatten

Pair = namedtuple("Pair", "w b")


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _flat(tree):
    """``(structure, values)`` of a result: the spec drawn as text, the leaves as arrays."""
    leaves, spec = tree_flatten(tree)
    return str(spec), [_np(x) for x in leaves]


def _same(ours, expected):
    spec, values = _flat(ours)
    want_spec, want = _flat(expected)
    assert spec == want_spec
    for a, b in zip(values, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-12)


# -- the pytree module ----------------------------------------------------------------------------
def test_flatten_and_unflatten_round_trip():
    tree = {"a": (1, [2, None]), "n": Pair(3, 4), "o": OrderedDict(z=5, y=6)}
    leaves, spec = tree_flatten(tree)
    assert leaves == [1, 2, None, 3, 4, 5, 6]
    assert (
        str(spec) == "{'a': (*, [*, *]), 'n': Pair(w=*, b=*), 'o': OrderedDict({'z': *, 'y': *})}"
    )
    back = tree_unflatten(leaves, spec)
    assert back == tree and type(back["n"]) is Pair and type(back["o"]) is OrderedDict
    assert str(tree_flatten((1,))[1]) == "(*,)" and str(tree_flatten(7)[1]) == "*"
    assert tree_map(lambda x, y: x + y, (1, [2]), (10, [20])) == (11, [22])
    with pytest.raises(ValueError, match="3 leaves given for a structure"):
        tree_unflatten([1, 2, 3], spec)


def test_broadcast_prefix_reads_dicts_by_key_and_refuses_other_containers():
    spec = tree_flatten(({"a": 1, "b": 2}, [3, 4], Pair(5, 6)))[1]
    assert broadcast_prefix(0, spec) == [0] * 6
    assert broadcast_prefix((None, 1, 0), spec) == [None, None, 1, 1, 0, 0]
    assert broadcast_prefix(({"b": 0, "a": None}, [0, 1], Pair(None, 0)), spec) == [
        None, 0, 0, 1, None, 0,
    ]  # fmt: skip
    assert broadcast_prefix((None, (0, 1), 0), spec) is None  # a tuple for a list
    assert broadcast_prefix((None, 0, (0, 1)), spec) is None  # a tuple for a named tuple
    assert broadcast_prefix(({"a": 0}, 0, 0), spec) is None  # a key missing
    assert broadcast_prefix((0, 0), spec) is None


# -- grad, vjp, jvp, linearize --------------------------------------------------------------------
X = [1.0, 2.0]


def cube(d):
    return (d["a"] ** 3).sum()


def _grad_cases(T, F):
    t, s = T.tensor(X, dtype=T.float64), T.tensor(3.0, dtype=T.float64)
    f = lambda d: (d["a"] ** 2).sum() + d["b"] * d["a"].sum()  # noqa: E731
    two = F.grad(lambda x, y: (x[0] * y[1][0]).sum(), argnums=(0, 1))([t], (t, [t]))
    aux = F.grad(lambda x: ((x**2).sum(), {"y": x * 2, "z": [x]}), has_aux=True)(t)
    value = F.grad_and_value(lambda d: (d["q"] ** 2).sum())({"q": t})
    return {
        "dict": F.grad(f)({"a": t, "b": s}),
        "namedtuple": F.grad(lambda p: (p.w * p.b).sum())(Pair(t, s)),
        "argnums": two,
        "aux": aux,
        "value": value,
        "unused": F.grad(lambda d: d["a"].sum())({"a": t, "u": t}),
        "second": F.grad(lambda d: F.grad(cube)(d)["a"].sum())({"a": t}),
    }


def _vjp_jvp_cases(T, F):
    t, s = T.tensor(X, dtype=T.float64), T.tensor(3.0, dtype=T.float64)
    ones = T.ones(2, dtype=T.float64)
    g = lambda d: {"o": d["a"] * d["b"], "p": (d["a"].sum(),)}  # noqa: E731
    out, vjp_fn = F.vjp(g, {"a": t, "b": s})
    pulled = vjp_fn({"o": ones, "p": (T.tensor(2.0, dtype=T.float64),)})
    _, two_fn = F.vjp(lambda x, y: [x * y, x + y], t, t)
    _, jv = F.jvp(lambda d: {"o": d["a"] * d["b"]}, ({"a": t, "b": s},), ({"a": ones, "b": s},))
    nested = F.jvp(lambda a: (a.sin(), [a * 2]), (t,), (ones,))
    lin_out, lin_fn = F.linearize(lambda d, x: {"o": d["a"].sin() * x}, {"a": t}, s)
    return {
        "vjp_out": out,
        "vjp": pulled,
        "vjp_list": two_fn([ones, ones * 2]),
        "jvp": jv,
        "jvp_nested": nested,
        "linearize": (lin_out, lin_fn({"a": ones}, T.tensor(0.5, dtype=T.float64))),
    }


EXPECTED_GRAD = {
    "dict": {"a": [5.0, 7.0], "b": 3.0},
    "namedtuple": Pair([3.0, 3.0], 3.0),
    "argnums": ([[1.0, 2.0]], ([0.0, 0.0], [[1.0, 2.0]])),
    "aux": ([2.0, 4.0], {"y": [2.0, 4.0], "z": [[1.0, 2.0]]}),
    "value": ({"q": [2.0, 4.0]}, 5.0),
    "unused": {"a": [1.0, 1.0], "u": [0.0, 0.0]},
    "second": {"a": [6.0, 12.0]},
}


def _literal(tree):
    """A literal pytree: a list of numbers (or a number, or an array) is one tensor."""
    if isinstance(tree, (int, float, np.ndarray)) or (
        isinstance(tree, list) and all(isinstance(x, (int, float)) for x in tree)
    ):
        return np.asarray(tree, dtype=float)
    if isinstance(tree, dict):
        return {k: _literal(v) for k, v in tree.items()}
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return type(tree)(*[_literal(v) for v in tree])
    return type(tree)(_literal(v) for v in tree)


EXPECTED_VJP_JVP = {
    "vjp_out": {"o": [3.0, 6.0], "p": (3.0,)},
    "vjp": ({"a": [5.0, 5.0], "b": 3.0},),
    "vjp_list": ([3.0, 4.0], [3.0, 4.0]),
    "jvp": {"o": [6.0, 9.0]},
    "jvp_nested": (
        (np.sin(X), [[2.0, 4.0]]),
        (np.cos(X), [[2.0, 2.0]]),
    ),
    "linearize": ({"o": np.sin(X) * 3.0}, {"o": np.cos(X) * 3.0 + np.sin(X) * 0.5}),
}


@pytest.mark.parametrize("case", sorted(EXPECTED_GRAD))
def test_grad_of_pytrees(case):
    _same(_grad_cases(symgrad, func)[case], _literal(EXPECTED_GRAD[case]))


@pytest.mark.parametrize("case", sorted(EXPECTED_VJP_JVP))
def test_vjp_jvp_linearize_of_pytrees(case):
    _same(_vjp_jvp_cases(symgrad, func)[case], _literal(EXPECTED_VJP_JVP[case]))


@pytest.mark.parametrize("cases", [_grad_cases, _vjp_jvp_cases])
def test_grad_vjp_jvp_against_torch(cases):
    torch = pytest.importorskip("torch")
    ours, theirs = cases(symgrad, func), cases(torch, torch.func)
    for key in theirs:
        _same(ours[key], theirs[key])


def test_errors_of_grad_vjp_jvp_as_pytorch():
    t, s = symgrad.tensor(X), symgrad.tensor(3.0)
    with pytest.raises(ValueError, match="must be Tensor, got <class 'int'>"):
        func.grad(lambda d: d["a"].sum())({"a": t, "n": 3})
    with pytest.raises(RuntimeError, match="Expected tensors, got unsupported type"):
        func.grad(lambda x: (x.sum(), None), has_aux=True)(t)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a Tensor"):
        func.grad(lambda x: (x.sum(),))(t)
    _, vjp_fn = func.vjp(lambda d: {"o": d["a"] * d["b"], "p": (d["a"].sum(),)}, {"a": t, "b": s})
    with pytest.raises(RuntimeError, match="cotangents: \\{'o': \\*\\}, primal output: "):
        vjp_fn({"o": symgrad.ones(2)})
    with pytest.raises(RuntimeError, match="grad_output\\[0\\] has a shape of"):
        vjp_fn({"o": symgrad.ones(3), "p": (symgrad.tensor(1.0),)})
    with pytest.raises(TypeError, match="gradients can be either Tensors or None"):
        vjp_fn({"o": 1.0, "p": (symgrad.tensor(1.0),)})
    with pytest.raises(RuntimeError, match="return only tensors"):
        func.vjp(lambda x: 3.0, t)
    with pytest.raises(RuntimeError, match="same python structure"):
        func.jvp(lambda d: d["a"], ({"a": t, "b": s},), ({"a": t},))
    with pytest.raises(RuntimeError, match="only contain Tensors"):
        func.jvp(lambda a: a, (3.0,), (1.0,))
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        func.jvp(lambda a: a, [t], [t])
    _, lin_fn = func.linearize(lambda d: d["a"].sin(), {"a": t})
    with pytest.raises(RuntimeError, match="same argspec as the primals"):
        lin_fn({"b": t})
    with pytest.raises(RuntimeError, match="tangent:0 with shape"):
        lin_fn({"a": symgrad.ones(3)})


# -- jacrev, jacfwd, hessian ----------------------------------------------------------------------
def _jacobian_cases(T, F):
    t, s = T.tensor(X, dtype=T.float64), T.tensor(3.0, dtype=T.float64)
    g = lambda d: {"u": d["a"] * d["b"], "v": (d["a"].sum(),)}  # noqa: E731
    found = {}
    for J in (F.jacrev, F.jacfwd):
        name = J.__name__
        found[name + "_dict"] = J(g)({"a": t, "b": s})
        found[name + "_argnums"] = J(lambda x, y: (x * y, x.sum()), argnums=(0, 1))(t, s)
        found[name + "_argnums1"] = J(lambda x, y: x * y, argnums=(1,))(t, s)
        found[name + "_aux"] = J(lambda x: (x * 2, {"q": x}), has_aux=True)(t)
        found[name + "_list"] = J(lambda x: [x * 2, x.sum()])(t)
    found["hessian_dict"] = F.hessian(lambda d: (d["a"] ** 2).sum() * d["b"])({"a": t, "b": s})
    found["hessian_argnums"] = F.hessian(lambda x, y: (x**2).sum() * y, argnums=(0, 1))(t, s)
    found["jacrev_chunk"] = F.jacrev(lambda x: x**2, chunk_size=1)(t)
    return found


I2 = np.eye(2)
EXPECTED_JACOBIANS = {
    "dict": {"u": {"a": 3.0 * I2, "b": [1.0, 2.0]}, "v": ({"a": [1.0, 1.0], "b": 0.0},)},
    "argnums": ((3.0 * I2, [1.0, 2.0]), ([1.0, 1.0], 0.0)),
    "argnums1": ([1.0, 2.0],),
    "aux": (2.0 * I2, {"q": [1.0, 2.0]}),
    "list": [2.0 * I2, [1.0, 1.0]],
}


@pytest.mark.parametrize("case", sorted(EXPECTED_JACOBIANS))
def test_jacobians_nest_output_structure_then_input_structure(case):
    found = _jacobian_cases(symgrad, func)
    for name in ("jacrev", "jacfwd"):
        _same(found[f"{name}_{case}"], _literal(EXPECTED_JACOBIANS[case]))


def test_hessian_of_pytrees():
    found = _jacobian_cases(symgrad, func)
    both = {"a": [2.0, 4.0], "b": 0.0}
    _same(found["hessian_dict"], _literal({"a": {"a": 6.0 * I2, "b": [2.0, 4.0]}, "b": both}))
    _same(found["hessian_argnums"], _literal(((6.0 * I2, [2.0, 4.0]), ([2.0, 4.0], 0.0))))
    _same(found["jacrev_chunk"], _literal(np.diag([2.0, 4.0])))


def test_jacobians_against_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = _jacobian_cases(symgrad, func), _jacobian_cases(torch, torch.func)
    for key in theirs:
        _same(ours[key], theirs[key])


def _per_input_jacobians(T, F):
    w = T.tensor([[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]], dtype=T.float64)
    x = T.tensor([[1.0, 0.0, 2.0], [0.5, -1.0, 1.0]], dtype=T.float64)
    net = lambda p, x: {"o": (x @ p["w"]).sin()}  # noqa: E731
    return {
        J.__name__: F.vmap(J(net), in_dims=(None, 0))({"w": w}, x) for J in (F.jacrev, F.jacfwd)
    }


def test_jacobians_of_unmapped_parameters_inside_vmap_run_batched(monkeypatch):
    monkeypatch.setattr(importlib.import_module("symgrad.func.vmap"), "_warned_loop", [False])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = _per_input_jacobians(symgrad, func)
    assert not caught  # batched: no loop, no warning (an inner loop would hide an outer one)
    w = np.array([[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]])
    x = np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 1.0]])
    expected = np.zeros((2, 2, 3, 2))  # d sin(x w)_j / d w_kj = cos(x w)_j x_k
    for n in range(2):
        for j in range(2):
            expected[n, j, :, j] = np.cos(x[n] @ w)[j] * x[n]
    for name in ("jacrev", "jacfwd"):
        _same(found[name], {"o": {"w": expected}})
    torch = pytest.importorskip("torch")
    theirs = _per_input_jacobians(torch, torch.func)
    for name in theirs:
        _same(found[name], theirs[name])


def test_products_of_a_relu_network_inside_nested_vmaps_run_batched(monkeypatch):
    monkeypatch.setattr(importlib.import_module("symgrad.func.vmap"), "_warned_loop", [False])
    # vjp then jvp of closures over two batched inputs, mapped over a basis: the kernel of a
    # network (relu's zero partial gives zeros of a batched gradient's shape)
    symgrad.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 2))
    params = {k: v.detach() for k, v in net.named_parameters()}

    def kernel(x1, x2):
        f1 = lambda p: func.functional_call(net, p, (x1.unsqueeze(0),)).squeeze(0)  # noqa: E731
        f2 = lambda p: func.functional_call(net, p, (x2.unsqueeze(0),)).squeeze(0)  # noqa: E731
        out, vjp_fn = func.vjp(f1, params)

        def one(v):
            return func.jvp(f2, (params,), vjp_fn(v))[1]

        return func.vmap(one)(symgrad.eye(out.numel()))

    x1, x2 = symgrad.randn(2, 1, 4, 4), symgrad.randn(3, 1, 4, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = func.vmap(func.vmap(kernel, (None, 0)), (0, None))(x1, x2)
    assert not caught  # batched: no loop, no warning (an inner loop would hide an outer one)
    expected = symgrad.stack([symgrad.stack([kernel(a, b) for b in x2]) for a in x1])
    assert found.shape == (2, 3, 2, 2)
    np.testing.assert_allclose(found.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
