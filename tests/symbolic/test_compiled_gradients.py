"""Compiled gradients of the fused, numerically stable ops: the numbers ``backward()`` gives,
at ordinary points and at logits of +-1000, in float64 and float32; every shared sub-term
computed once in readable source."""

from __future__ import annotations

import ast
import ctypes
import shutil
import subprocess
from collections import Counter

import numpy as np
import pytest
import sympy as sp

import symgrad
import symgrad.nn.functional as F
from symgrad.symbolic import compile_gradient, lambdify

try:
    import torch
    import torch.nn.functional as torch_F
except ImportError:  # the plain expected values below still run
    torch = torch_F = None

CC = shutil.which("cc") or shutil.which("gcc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler on PATH")

# the compiled function computes in float64; the engine's float32 kernels lose up to
# |x| * eps in x - logsumexp(x), 6e-5 at x = 1000
TOLERANCES = {"float64": dict(rtol=1e-9, atol=1e-12), "float32": dict(rtol=1e-4, atol=1e-6)}

# each loss written once for both libraries: T is symgrad or torch, F its functional module;
# z the logits (what we differentiate by), y a named vector of targets or weights
CASES = {
    "bce_with_logits": lambda T, F, z, y: F.binary_cross_entropy_with_logits(z, y),
    "bce_with_logits_pos_weight": lambda T, F, z, y: F.binary_cross_entropy_with_logits(
        z, y, pos_weight=T.tensor([2.0, 0.5, 1.0, 3.0], dtype=z.dtype)
    ),
    "sigmoid": lambda T, F, z, y: (T.sigmoid(z) * y).sum(),
    "softplus": lambda T, F, z, y: (F.softplus(z) * y).sum(),
    "silu": lambda T, F, z, y: (F.silu(z) * y).sum(),
    "log_softmax": lambda T, F, z, y: (F.log_softmax(z, dim=0) * y).sum(),
    "softmax": lambda T, F, z, y: (F.softmax(z, dim=0) * y).sum(),
    "logsumexp": lambda T, F, z, y: T.logsumexp(z, 0),
    "cross_entropy": lambda T, F, z, y: F.cross_entropy(z.reshape(1, -1), T.tensor([1])),
}

EXTREME = [-1000.0, -1.5, 0.5, 1000.0]
TARGETS = [1.0, 0.25, 0.5, 0.0]

# PyTorch 2.13's gradients at EXTREME (float64; float32 agrees to its precision)
EXPECTED = {
    "bce_with_logits": [-0.25, -0.016893619048410913, 0.03061483280046365, 0.25],
    "bce_with_logits_pos_weight": [-0.5, 0.008655583332640451, 0.03061483280046365, 0.25],
    "sigmoid": [0.0, 0.037286613017583216, 0.11750185610079725, 0.0],
    "softplus": [0.0, 0.04560638095158908, 0.3112296656009273, 0.0],
    "silu": [0.0, -0.010323538574785737, 0.36998059365132596, 0.0],
    "log_softmax": [1.0, 0.25, 0.5, -1.75],
    "softmax": [0.0, 0.0, 0.0, 0.0],
    "logsumexp": [0.0, 0.0, 0.0, 1.0],
    "cross_entropy": [0.0, -1.0, 0.0, 1.0],
}

# ordinary points, and large logits where exp overflows in float32 but not in float64
POINTS = [
    [0.3, -1.2, 2.0, -0.4],
    [-30.0, 4.0, -2.5, 30.0],
    [-100.0, 100.0, 0.0, -1.0],
    [-1000.0, -1.5, 0.5, 1000.0],
    [1000.0, 999.0, -1000.0, 0.0],
]


def _compiled(case: str):
    """The case's gradient with respect to z, compiled from a float64 trace at an ordinary
    point: a function of z (and of y where the loss uses it)."""
    z = symgrad.tensor([0.1, 0.2, -0.3, 0.4], dtype=symgrad.float64, requires_grad=True)
    z.name = "z"
    y = symgrad.tensor(TARGETS, dtype=symgrad.float64, name="y")
    return compile_gradient(CASES[case](symgrad, F, z, y), z)


def _call(f, z_values, dtype):
    z = np.asarray(z_values, dtype=dtype)
    y = np.asarray(TARGETS, dtype=dtype)
    return f(z, *[y for _ in f.extra_tensors])


def _engine_gradient(case: str, z_values, dtype: str):
    z = symgrad.tensor(z_values, dtype=getattr(symgrad, dtype), requires_grad=True)
    y = symgrad.tensor(TARGETS, dtype=getattr(symgrad, dtype))
    CASES[case](symgrad, F, z, y).backward()
    return z.grad.numpy()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_gradient_matches_backward_at_ordinary_and_extreme_points(case, dtype):
    f = _compiled(case)
    for point in POINTS:
        want = _engine_gradient(case, point, dtype)
        assert np.isfinite(want).all(), (case, point, want)
        got = _call(f, point, dtype)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got, want, **TOLERANCES[dtype], err_msg=f"{case} at {point}")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_gradient_at_logits_of_1000_takes_pytorchs_values(case, dtype):
    got = _call(_compiled(case), EXTREME, dtype)
    np.testing.assert_allclose(got, EXPECTED[case], **TOLERANCES[dtype])
    if torch is not None:
        z = torch.tensor(EXTREME, dtype=getattr(torch, dtype), requires_grad=True)
        y = torch.tensor(TARGETS, dtype=getattr(torch, dtype))
        CASES[case](torch, torch_F, z, y).backward()
        np.testing.assert_allclose(got, z.grad.numpy(), **TOLERANCES[dtype])


def test_bce_with_logits_gradient_at_minus_1000_is_minus_one():
    z = symgrad.tensor([-1000.0], dtype=symgrad.float64, requires_grad=True, name="z")
    y = symgrad.tensor([1.0], dtype=symgrad.float64, name="y")
    loss = F.binary_cross_entropy_with_logits(z, y)
    f = compile_gradient(loss, z)
    assert f([-1000.0], [1.0]).tolist() == [-1.0]
    assert f([1000.0], [0.0]).tolist() == [1.0]
    loss.backward()
    assert z.grad.tolist() == [-1.0]


def test_the_source_calls_the_stable_kernels():
    sources = {case: _compiled(case).source for case in CASES}
    assert "sigmoid(" in sources["bce_with_logits"]
    assert "logsumexp(" in sources["log_softmax"]
    assert "logsumexp(" in sources["cross_entropy"]
    for case, source in sources.items():
        assert "exp(-a" not in source, (case, source)  # exp of a negated logit overflows


def test_lambdify_of_sympy_formulas_evaluates_them_stably():
    z, y = sp.symbols("z y", real=True)
    softplus_grad = sp.diff(sp.log(1 + sp.exp(z)), z)  # exp(z) / (exp(z) + 1)
    f = lambdify([softplus_grad, sp.log(sp.exp(z) + sp.exp(y))], [z, y])
    grad, lse = f(np.array([-1000.0, 0.0, 1000.0]), np.array([0.0, 0.0, 1000.0]))
    np.testing.assert_allclose(grad, [0.0, 0.5, 1.0], rtol=1e-15, atol=0)
    np.testing.assert_allclose(lse, [0.0, np.log(2.0), 1000.0 + np.log(2.0)], rtol=1e-15, atol=0)


# -- shared sub-terms --------------------------------------------------------------------------


def _assignments(source: str) -> list[ast.Assign]:
    (fn,) = ast.parse(source).body
    return [node for node in fn.body if isinstance(node, ast.Assign)]


def _calls(source: str) -> Counter:
    """How often each call (with its arguments) occurs in the source."""
    tree = ast.parse(source)
    return Counter(ast.dump(n) for n in ast.walk(tree) if isinstance(n, ast.Call))


def _shared_graphs():
    x = symgrad.tensor([0.3, -0.7, 1.1], dtype=symgrad.float64, requires_grad=True, name="x")
    c = symgrad.tensor([1.0, 2.0, 0.5], dtype=symgrad.float64, name="c")
    softmax_terms = (F.log_softmax(x, dim=0) * c).sum() + (F.softmax(x, dim=0) * c).sum()
    repeated = (symgrad.exp(x * c) * symgrad.sin(x * c)).sum() + symgrad.logsumexp(x * c, 0)
    return {"softmax_terms": (softmax_terms, x), "repeated": (repeated, x)}


@pytest.mark.parametrize("name", ["softmax_terms", "repeated"])
def test_each_shared_sub_term_is_computed_once_by_a_named_temporary(name):
    y, x = _shared_graphs()[name]
    f = compile_gradient(y, x)
    assignments = _assignments(f.source)
    assert assignments, f.source
    targets = [a.targets[0].id for a in assignments]
    assert len(targets) == len(set(targets)), f.source  # each temporary assigned once
    repeated = {call: n for call, n in _calls(f.source).items() if n > 1}
    assert not repeated, f.source  # no function evaluated twice on the same arguments
    uses = Counter(n.id for n in ast.walk(ast.parse(f.source)) if isinstance(n, ast.Name))
    for t in targets:
        if t.startswith("c"):  # a term found shared is used more than once
            assert uses[t] >= 3, (t, f.source)  # its assignment and two uses
    got = f(x.detach().numpy(), [1.0, 2.0, 0.5])
    np.testing.assert_allclose(got, _engine_grad(y, x), rtol=1e-12, atol=1e-14)


def _engine_grad(y, x):
    (g,) = symgrad.autograd.grad(y, x)
    return g.numpy()


def test_log_softmax_computes_its_logsumexp_once():
    z = symgrad.tensor([0.1, 0.2, -0.3, 0.4], dtype=symgrad.float64, requires_grad=True)
    z.name = "z"
    f = compile_gradient((F.log_softmax(z, dim=0) * symgrad.arange(4.0)).sum(), z)
    assert f.source.count("logsumexp(") == 1, f.source


# -- C -----------------------------------------------------------------------------------------


@needs_cc
@pytest.mark.parametrize("case", ["bce_with_logits", "softplus", "log_softmax"])
def test_c_source_uses_stable_helpers(tmp_path, case):
    f = _compiled(case)
    source = f.c_source("grad")
    assert "symgrad_" in source
    path, library = tmp_path / "grad.c", tmp_path / "grad.so"
    path.write_text(source)
    subprocess.run(
        [
            CC,
            "-std=c99",
            "-Wall",
            "-Werror",
            "-shared",
            "-fPIC",
            "-O1",
            "-o",
            str(library),
            str(path),
            "-lm",
        ],
        check=True,
        capture_output=True,
    )
    fn = ctypes.CDLL(str(library)).grad
    fn.restype = None
    pointer = ctypes.POINTER(ctypes.c_double)
    inputs = [np.array(EXTREME)] + [np.array(TARGETS) for _ in f.extra_tensors]
    out = np.zeros(4)
    fn(*(a.ctypes.data_as(pointer) for a in inputs + [out]))
    np.testing.assert_allclose(out, EXPECTED[case], rtol=1e-9, atol=1e-12)
