"""Closed forms turned into NumPy functions and C source: right numbers on new arrays, readable
generated code, and user names that never become source text."""

from __future__ import annotations

import ast
import builtins
import ctypes
import io
import shutil
import subprocess
import tokenize

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.prim import kernels
from symgrad.symbolic import compile_gradient, expression, gradient, lambdify, symbols
from symgrad.symbolic import hessian as symbolic_hessian

from .support import assert_close, leaf

CC = shutil.which("cc") or shutil.which("gcc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler on PATH")

HOSTILE_NAMES = ("lambda", "my var", "x'); import os #")


def model(w, x, s):
    """A small graph with matrix products, broadcasting and a kink: ``sum(relu(tanh(w @ x) *
    s) + sigmoid(x[:2]) * s)``."""
    h = symgrad.tanh(symgrad.matmul(w, x)) * s
    return (symgrad.relu(h) + symgrad.sigmoid(x[:2]) * s).sum()


def _leaves(rng, names=("w", "x", "s")):
    w = leaf(rng.uniform(-1, 1, (2, 3)), names[0])
    x = leaf(rng.uniform(-1, 1, 3), names[1])
    s = leaf(rng.uniform(0.5, 1.5), names[2])
    return [w, x, s]


def _engine_gradients(arrays):
    leaves = [leaf(a) for a in arrays]
    model(*leaves).backward()
    return [t.grad.numpy() for t in leaves]


def _new_arrays(rng):
    return [rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, 3), rng.uniform(0.5, 1.5)]


def test_lambdify_of_gradient_agrees_with_engine_on_new_arrays():
    rng = np.random.default_rng(0)
    leaves = _leaves(rng)
    f = lambdify(gradient(model(*leaves), leaves), leaves)
    for _ in range(3):
        arrays = _new_arrays(rng)
        for got, want in zip(f(*arrays), _engine_gradients(arrays)):
            assert np.shape(got) == np.shape(want)
            assert_close(got, want)


def test_lambdify_of_a_cse_pair_agrees_with_the_inline_form():
    rng = np.random.default_rng(1)
    leaves = _leaves(rng)
    y = model(*leaves)
    inline, pair = (
        lambdify(gradient(y, leaves), leaves),
        lambdify(gradient(y, leaves, cse=True), leaves),
    )
    arrays = _new_arrays(rng)
    for a, b in zip(inline(*arrays), pair(*arrays)):
        assert_close(a, b)


def test_lambdify_of_an_expression_and_of_symbols():
    x = leaf([0.5, 2.0], "x")
    X = symbols(x)
    f = lambdify(expression((x * x).sum()), [X])
    assert_close(f([3.0, 4.0]), 25.0)
    g = lambdify([X[0] * X[1], sp.Matrix([[X[0], 1]])], [x])
    first, second = g([3.0, 4.0])
    assert_close(first, 12.0)
    assert_close(second, [[3.0, 1.0]])


def test_compile_gradient_agrees_with_engine_on_new_arrays():
    rng = np.random.default_rng(2)
    leaves = _leaves(rng)
    f = compile_gradient(model(*leaves), leaves)
    arrays = _new_arrays(rng)
    for got, want in zip(f(*arrays), _engine_gradients(arrays)):
        assert_close(got, want)


def test_compile_gradient_of_one_tensor_returns_one_array():
    w = leaf([1.0, 2.0], "w")
    f = compile_gradient((symgrad.exp(w) * w).sum(), w)
    v = np.array([0.3, -1.2])
    assert_close(f(v), np.exp(v) * (1 + v))


def test_batched_evaluation_matches_one_call_per_sample():
    rng = np.random.default_rng(3)
    leaves = _leaves(rng)
    f = compile_gradient(model(*leaves), leaves)
    batch = [rng.uniform(-1, 1, (4, 2, 3)), rng.uniform(-1, 1, (4, 3)), rng.uniform(0.5, 1.5, 4)]
    got = f(*batch)
    assert [g.shape for g in got] == [(4, 2, 3), (4, 3), (4,)]
    for k in range(4):
        for g, want in zip(got, f(*(a[k] for a in batch))):
            assert_close(g[k], want)


def test_wrong_arguments_are_clear_errors():
    w = leaf([1.0, 2.0], "w")
    f = compile_gradient((w * w).sum(), w)
    with pytest.raises(TypeError, match="one per leaf"):
        f([1.0, 2.0], [3.0])
    with pytest.raises(ValueError, match="shape"):
        f([1.0, 2.0, 3.0])


def test_lambdify_rejects_symbols_that_are_not_leaves():
    x, z = leaf(1.0, "x"), leaf(2.0, "z")
    with pytest.raises(ValueError, match="not among the leaves"):
        lambdify(expression(x * z), [x])


# -- generated source --------------------------------------------------------------------------


def _identifiers(source: str) -> set[str]:
    tree = ast.parse(source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
    return names


def test_source_is_python_using_only_generated_names():
    rng = np.random.default_rng(4)
    leaves = _leaves(rng, names=("weights", "inputs", "scale"))
    f = compile_gradient(model(*leaves), leaves)
    library = set(dir(np)) | set(dir(builtins)) | set(kernels.MODULES[0])
    for name in _identifiers(f.source):
        generated = name[0] in "act" and name[1:].isdigit()
        assert generated or name in library or name == "_lambdifygenerated", name
    for user in ("weights", "inputs", "scale"):
        assert user not in f.source
    assert [n for n, _ in f.arguments] == [f"a{k}" for k in range(10)]
    assert str(f.arguments[0][1]) == "weights[0, 0]"


def _hostile_graph():
    rng = np.random.default_rng(5)
    leaves = _leaves(rng, names=HOSTILE_NAMES)
    return leaves, model(*leaves)


def test_hostile_names_work_as_symbol_names():
    leaves, y = _hostile_graph()
    assert str(symbols(leaves[2])) == HOSTILE_NAMES[2]
    assert str(symbols(leaves[0])[0, 1]) == "lambda[0, 1]"
    names = {s.name for s in expression(y).free_symbols}
    assert {n.split("[")[0] for n in names} == set(HOSTILE_NAMES)
    f = compile_gradient(y, leaves)
    arrays = _new_arrays(np.random.default_rng(6))
    for got, want in zip(f(*arrays), _engine_gradients(arrays)):
        assert_close(got, want)


def _tokens(source: str) -> list:
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


def test_hostile_names_never_reach_python_source():
    leaves, y = _hostile_graph()
    for f in (compile_gradient(y, leaves), lambdify(gradient(y, leaves), leaves)):
        ast.parse(f.source)
        for piece in ("my var", "import", "'", "#"):
            assert piece not in f.source
        assert "lambda" not in {t.string for t in _tokens(f.source)}


def test_hostile_names_never_reach_c_source():
    leaves, y = _hostile_graph()
    source = compile_gradient(y, leaves).c_source()
    for piece in ("lambda", "my var", "import", "'"):
        assert piece not in source
    directives = [line for line in source.splitlines() if line.startswith("#")]
    allowed = ("#include <math.h>", "#ifndef M_", "#define M_", "#endif")
    assert directives and all(line.startswith(allowed) for line in directives)


def test_c_function_name_must_be_an_identifier():
    w = leaf([1.0, 2.0], "w")
    f = compile_gradient((w * w).sum(), w)
    with pytest.raises(ValueError, match="identifier"):
        f.c_source('f(); system("ls")')


def _c_gradient(tmp_path):
    rng = np.random.default_rng(7)
    leaves = _leaves(rng, names=HOSTILE_NAMES)
    f = compile_gradient(model(*leaves), leaves)
    path = tmp_path / "gradient.c"
    path.write_text(f.c_source("gradient"))
    return f, path


@needs_cc
def test_c_source_compiles(tmp_path):
    _, path = _c_gradient(tmp_path)
    result = subprocess.run(
        [CC, "-std=c99", "-Wall", "-Werror", "-fsyntax-only", str(path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


@needs_cc
def test_c_source_computes_the_gradient(tmp_path):
    f, path = _c_gradient(tmp_path)
    library = tmp_path / "gradient.so"
    subprocess.run(
        [CC, "-std=c99", "-shared", "-fPIC", "-O1", "-o", str(library), str(path), "-lm"],
        check=True,
        capture_output=True,
    )
    fn = ctypes.CDLL(str(library)).gradient
    fn.restype = None
    arrays = [
        np.ascontiguousarray(a, dtype=np.float64) for a in _new_arrays(np.random.default_rng(8))
    ]
    inputs = [np.atleast_1d(a) for a in arrays]
    outputs = [np.zeros(a.size) for a in inputs]
    pointer = ctypes.POINTER(ctypes.c_double)
    fn(*(a.ctypes.data_as(pointer) for a in inputs + outputs))
    for got, want in zip(outputs, _engine_gradients(arrays)):
        assert_close(got, np.reshape(want, -1))


def test_compile_gradient_appends_other_named_tensors_by_name():
    w = leaf([1.0, 2.0], "w")
    c = leaf([3.0, 4.0], "c", requires_grad=False)
    f = compile_gradient((w * c * w).sum(), w)
    assert [str(s) for _, s in f.arguments] == ["w[0]", "w[1]", "c[0]", "c[1]"]
    assert_close(f([1.0, 2.0], [5.0, 6.0]), [10.0, 24.0])


@needs_cc
def test_c_source_of_erf_compiles_as_c99(tmp_path):
    x = leaf([0.3, -0.7], "x")
    f = compile_gradient(symgrad.nn.functional.gelu(x).sum(), x)
    path = tmp_path / "gelu.c"
    path.write_text(f.c_source())
    result = subprocess.run(
        [CC, "-std=c99", "-fsyntax-only", str(path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


# PyTorch 2.13: the Hessian of (normalize(w, dim=0) * [0, 1, 2]).sum() at w = [1, 2, 2]
NORMALIZE_HESSIAN = [
    [-0.14814814814814814, 0.1111111111111111, 0.07407407407407407],
    [0.1111111111111111, -0.07407407407407407, 0.07407407407407407],
    [0.07407407407407407, 0.07407407407407407, -0.2222222222222222],
]


def _normalized(lib, w):
    return (
        lib.nn.functional.normalize(w, dim=0) * lib.tensor([0.0, 1.0, 2.0], dtype=w.dtype)
    ).sum()


def test_lambdify_of_integers_beyond_int64():
    # the clamp of normalize's norm at 1e-12 gives 1/eps**2 = 10**24 in its second derivative
    w = leaf([1.0, 2.0, 2.0], "w")
    H = symbolic_hessian(_normalized(symgrad, w), w)
    got = lambdify(H, [w])(w.detach().numpy())
    np.testing.assert_allclose(got, NORMALIZE_HESSIAN, rtol=1e-13)
    x = leaf([0.5, 2.0], "x")
    X = list(symbols(x))
    f = lambdify([sp.Piecewise((1 / X[0], X[0] > 1), (10**24, True)), sp.Integer(10**30)], [x])
    assert [float(v) for v in f(np.array([0.5, 2.0]))] == [1e24, 1e30]


@pytest.mark.torch
def test_normalize_hessian_is_pytorchs():
    torch = pytest.importorskip("torch")
    w = torch.tensor([1.0, 2.0, 2.0], dtype=torch.float64)
    got = torch.autograd.functional.hessian(lambda v: _normalized(torch, v), w)
    np.testing.assert_allclose(got.numpy(), NORMALIZE_HESSIAN, rtol=1e-13)
