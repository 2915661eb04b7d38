"""Closed-form Hessians: symgrad's ``symbolic.hessian`` side by side with SymPy's ``hessian``.

Usage::

    python benchmarks/hessian.py             # 5 rounds for symgrad, 1 for SymPy
    python benchmarks/hessian.py --rounds 3 --sympy-rounds 3

Cases (each checked for agreement at a random point before it is timed):

- ``sum(tanh(W @ x))`` with respect to ``x``, W a named 20 x 20 matrix;
- ``sum_i sin(x_i * x_(i+1)) + x_i**2`` for 100 variables.

SymPy builds the same formula from symbols and calls ``sympy.hessian``: one ``diff`` per pair
of variables, the slow side, so it runs once by default (``--sympy-rounds``). SymEngine, when
installed, differentiates the gradient by its Jacobian. SymPy's cache is cleared before every
run. Reported: the median wall-clock time and the interquartile range.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

import numpy as np
import sympy as sp
from sympy.core.cache import clear_cache

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

import symgrad  # noqa: E402
from symgrad.symbolic import hessian, lambdify, symbols  # noqa: E402


def timed(run: Callable[[], object], rounds: int) -> tuple[float, float, float]:
    times = []
    for _ in range(rounds):
        clear_cache()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    q1, median, q3 = np.percentile(times, [25, 50, 75])
    return median, q1, q3


def tanh_case(rng: np.random.Generator):
    W = symgrad.tensor(rng.standard_normal((20, 20)), dtype=symgrad.float64, name="W")
    x = symgrad.tensor(rng.standard_normal(20), dtype=symgrad.float64, requires_grad=True, name="x")
    ws, xs = sp.Matrix(symbols(W)), sp.Matrix(list(symbols(x)))
    formula = sum(sp.tanh(e) for e in ws * xs)
    return (lambda: hessian((W @ x).tanh().sum(), x)), formula, list(xs), [x, W], list(ws)


def chain_case(rng: np.random.Generator, n: int = 100):
    x = symgrad.tensor(rng.uniform(-1, 1, n), dtype=symgrad.float64, requires_grad=True, name="x")
    xs = list(symbols(x))
    formula = sum(sp.sin(xs[i] * xs[i + 1]) for i in range(n - 1)) + sum(v**2 for v in xs)
    return (lambda: hessian((x[:-1] * x[1:]).sin().sum() + (x * x).sum(), x)), formula, xs, [x], []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed runs of symgrad")
    parser.add_argument("--sympy-rounds", type=int, default=1, help="timed runs of SymPy")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"python {sys.version.split()[0]}, sympy {sp.__version__}, symgrad {symgrad.__version__}")
    print(f"{'case':34} {'implementation':16} {'median':>9} {'IQR':>19}")
    for name, make in (
        ("sum(tanh(W @ x)), W 20x20", tanh_case),
        ("sin chain, 100 variables", chain_case),
    ):
        run, formula, variables, leaves, data = make(rng)
        ours = run()
        clear_cache()
        start = time.perf_counter()
        theirs = sp.hessian(formula, variables)  # SymPy's first run is also its timed one
        sympy_seconds = time.perf_counter() - start
        point = [t.detach().numpy() for t in leaves]
        a = np.asarray(lambdify([ours], leaves)(*point)[0], float)
        values = [*point[0], *(np.ravel(point[1]) if data else ())]
        b = np.asarray(sp.lambdify([*variables, *data], theirs)(*values), float)
        assert np.allclose(a, b, rtol=1e-9, atol=1e-12), f"{name}: the Hessians disagree"
        jobs = [
            ("symgrad", run, args.rounds),
        ]
        if args.sympy_rounds > 1:
            again = lambda f=formula, v=variables: sp.hessian(f, v)  # noqa: E731
            jobs.append(("sympy.hessian", again, args.sympy_rounds))
        else:
            print(f"{name:34} {'sympy.hessian':16} {sympy_seconds:8.3f}s  (one run)", flush=True)
        se = _symengine()
        if se is not None:
            f, v = se.sympify(formula), se.Matrix([se.sympify(e) for e in variables])
            jacobians = lambda se=se, f=f, v=v: se.Matrix([f]).jacobian(v).jacobian(v)  # noqa: E731
            jobs.append(("SymEngine", jacobians, args.rounds))
        for label, job, rounds in jobs:
            median, q1, q3 = timed(job, rounds)
            print(f"{name:34} {label:16} {median:8.3f}s  ({q1:.3f}-{q3:.3f} s)", flush=True)


def _symengine():
    try:
        import symengine
    except ImportError:
        return None
    return symengine


if __name__ == "__main__":
    main()
