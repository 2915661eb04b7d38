"""Closed-form gradients: symgrad's symbolic layer side by side with SymPy's own ``diff``.

Usage::

    python benchmarks/symbolic.py            # best of 3 runs per row
    python benchmarks/symbolic.py --repeats 1
    python benchmarks/symbolic.py --only w6 --repeats 7 --clock cpu

Two cases, each checked for agreement before it is timed:

- ``sum_i c_i * sin(x_i * x_(i+1))`` for i < 200 (``x`` one named vector of 201 elements, ``c``
  200 named constants): the gradient with respect to ``x``, by symgrad (inline and in
  assignment form) and by ``sympy.diff`` of the same formula built in SymPy, once per variable;
- the 600-op chain ``y = sin(y) * 1.01 + 0.1`` repeated 200 times: symgrad in assignment form
  (``cse=True``), and SymPy's ``diff`` of the nested formula if SymPy can build it at all (and
  the chain rule applied step by step in SymPy, which is what a SymPy user would do instead).

and second derivatives, each timed next to ``sympy.hessian`` of the same formula:

- the Hessian of ``sum(tanh(W @ x))`` with respect to ``x``, ``W`` a named 20 x 20 matrix;
- the Hessian of ``sum_i sin(x_i * x_(i+1)) + x_i**2`` for 100 variables, and for 1000 in
  assignment form (``cse=True``; SymPy's side, a million ``diff`` calls, is not run);
- the gradient of that sum for 1000 variables (SymPy's side run once: it is the slow part).

and W6, the way from a traced program to a gradient function: trace the 200-term sum (and a
1000-term one), take the closed-form gradient, compile it and evaluate it once, on each way
symgrad offers (SymPy and ``lambdify``; ``compile_gradient``; the SymEngine backend, its
result converted to SymPy, or compiled by SymEngine's ``Lambdify``; ``compile_gradient(...,
backend="symengine")``, which never builds SymPy expressions).

SymEngine and CasADi run the same cases when they are importable (``pip install
symgrad[symengine]``). SymPy caches the results of its constructors; the cache is cleared before
every timed run so no row reuses another's work. Times are wall-clock seconds, the median of
the repeats; ratios are to the SymPy ``diff`` row (to the SymPy chain rule by hand where
``diff`` cannot run, to ``sympy.hessian`` for the Hessians).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy as sp
from sympy.core.cache import clear_cache

# benchmark the symgrad of this checkout, installed or not
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

import symgrad  # noqa: E402
from symgrad.symbolic import gradient, hessian, lambdify  # noqa: E402

TERMS = 200
CHAIN_STEPS = 200
TARGET_SUM_GRADIENT = 0.3  # seconds, the target for the 200-term gradient
TARGET_CHAIN = 5.0  # seconds, the target for the 600-op chain
TARGET_TANH_HESSIAN = 1.0  # seconds, sum(tanh(W @ x)), W 20 x 20
TARGET_SIN_HESSIAN = 0.5  # seconds, the sin sum, 100 variables
TARGET_SIN_HESSIAN_CSE = 10.0  # seconds, the sin sum, 1000 variables, cse=True
TARGET_SIN_GRADIENT = 0.5  # seconds, the sin sum's gradient, 1000 variables
TARGET_W6 = 0.03  # seconds, W6: trace, gradient, compile and evaluate, 200 terms, SymEngine
TARGET_W6_SYMPY = 0.1  # seconds, the same with SymPy alone


@dataclass
class Row:
    """One timed implementation of one case (``seconds`` None when it could not run)."""

    case: str
    name: str
    seconds: float | None
    note: str = ""


CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCK["wall"]


def best_time(run: Callable[[], object], repeats: int) -> float:
    """The median of ``repeats`` runs, each after clearing SymPy's cache."""
    times = []
    for _ in range(repeats):
        clear_cache()
        start = clock()
        run()
        times.append(clock() - start)
    return float(np.median(times))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


# -- case 1: the 200-term sum ------------------------------------------------------------------


def sum_graph(rng: np.random.Generator):
    """The symgrad graph: ``x`` (201 elements, requires grad) and ``c`` (named constants)."""
    x = symgrad.tensor(
        rng.uniform(-1, 1, TERMS + 1), dtype=symgrad.float64, requires_grad=True, name="x"
    )
    c = symgrad.tensor(rng.uniform(-1, 1, TERMS), dtype=symgrad.float64, name="c")
    return x, c, (c * symgrad.sin(x[:-1] * x[1:])).sum()


def sum_formula():
    """The same formula written in SymPy, with symbols that print like symgrad's."""
    xs = [sp.Symbol(f"x[{i}]", real=True) for i in range(TERMS + 1)]
    cs = [sp.Symbol(f"c[{i}]", real=True) for i in range(TERMS)]
    return xs, cs, sp.Add(*(cs[i] * sp.sin(xs[i] * xs[i + 1]) for i in range(TERMS)))


def check_sum_case(x, c, y, xs, cs, f) -> None:
    """symgrad's gradient and SymPy's per-variable diff agree at the tensors' values."""
    values = dict(zip(xs, x.detach().numpy()))
    values.update(zip(cs, c.numpy()))
    ours = gradient(y, x)
    by_name = {s.name: v for s, v in values.items()}
    for k in (0, 1, TERMS // 2, TERMS):
        theirs = float(sp.diff(f, xs[k]).xreplace(values))
        mine = float(ours[k].xreplace({s: by_name[s.name] for s in ours[k].free_symbols}))
        if not _close(mine, theirs):
            raise AssertionError(f"d/dx[{k}]: symgrad {mine} != sympy {theirs}")


def sum_case(repeats: int) -> list[Row]:
    x, c, y = sum_graph(np.random.default_rng(0))
    xs, cs, f = sum_formula()
    check_sum_case(x, c, y, xs, cs, f)
    case = f"{TERMS}-term sum gradient"
    rows = [
        Row(
            case,
            "symgrad inline",
            best_time(lambda: gradient(y, x), repeats),
            f"target < {TARGET_SUM_GRADIENT:g} s",
        ),
        Row(case, "symgrad cse=True", best_time(lambda: gradient(y, x, cse=True), repeats)),
        *symengine_rows(case, lambda: gradient(y, x, backend="symengine"), repeats),
        Row(
            case,
            "SymPy diff",
            best_time(lambda: [sp.diff(f, v) for v in xs], repeats),
            "one diff per variable",
        ),
    ]
    return rows + peers_sum_case(repeats)


# -- case 2: the 600-op chain ------------------------------------------------------------------


def chain_graph(steps: int = CHAIN_STEPS):
    """``y = sin(y) * 1.01 + 0.1`` repeated ``steps`` times from the named leaf ``x0``."""
    x = symgrad.tensor(0.5, dtype=symgrad.float64, requires_grad=True, name="x0")
    y = x
    for _ in range(steps):
        y = symgrad.sin(y) * 1.01 + 0.1
    return x, y


def evaluate_pair(pair, values: dict) -> float:
    """A ``(replacements, expression)`` result evaluated one replacement at a time."""
    replacements, result = pair
    known = dict(values)
    for symbol, definition in replacements:
        known[symbol] = sp.Float(float(definition.xreplace(known)), 17)
    return float(result.xreplace(known))


def sympy_nested_chain(steps: int = CHAIN_STEPS) -> tuple[sp.Symbol, sp.Expr]:
    """The chain as one SymPy formula (RecursionError when SymPy can't hold it)."""
    x = sp.Symbol("x0", real=True)
    y = x
    for _ in range(steps):
        y = sp.sin(y) * sp.Rational(101, 100) + sp.Rational(1, 10)
    return x, y


def sympy_depth_limit(steps: int = CHAIN_STEPS) -> int | None:
    """The first chain length whose ``diff`` fails in SymPy, or None if all of them work."""
    for n in range(1, steps + 1):
        clear_cache()
        try:
            x, y = sympy_nested_chain(n)
            sp.diff(y, x)
        except RecursionError:
            return n
    return None


def sympy_step_by_step(steps: int = CHAIN_STEPS) -> tuple[list, sp.Symbol]:
    """The chain rule by hand in SymPy: one symbol per step for the value and one for the
    derivative, as ``(definitions, derivative symbol)``."""
    x = sp.Symbol("x0", real=True)
    y, dy, definitions = x, sp.Integer(1), []
    for k in range(1, steps + 1):
        formula = sp.sin(y) * sp.Rational(101, 100) + sp.Rational(1, 10)
        value, derivative = sp.Symbol(f"y{k}", real=True), sp.Symbol(f"d{k}", real=True)
        definitions += [(value, formula), (derivative, sp.diff(formula, y) * dy)]
        y, dy = value, derivative
    return definitions, dy


def chain_case(repeats: int) -> list[Row]:
    x, y = chain_graph()
    pair = gradient(y, x, cse=True)
    y.backward()
    value = evaluate_pair(pair, {sp.Symbol("x0", real=True): sp.Float(0.5, 17)})
    if not _close(value, x.grad.item()):
        raise AssertionError(f"chain: symgrad closed form {value} != backward {x.grad.item()}")
    case = f"{3 * CHAIN_STEPS}-op chain gradient"
    rows = [
        Row(
            case,
            "symgrad cse=True",
            best_time(lambda: gradient(y, x, cse=True), repeats),
            f"target < {TARGET_CHAIN:g} s",
        )
    ]
    try:
        gradient(y, x)
        rows.append(Row(case, "symgrad inline", best_time(lambda: gradient(y, x), repeats)))
    except symgrad.symbolic.SymbolicDepthError:
        rows.append(Row(case, "symgrad inline", None, "SymbolicDepthError (suggests cse=True)"))
    limit = sympy_depth_limit()
    if limit is None:

        def nested():
            sx, sy = sympy_nested_chain()
            return sp.diff(sy, sx)

        rows.append(Row(case, "SymPy diff", best_time(nested, repeats), "nested formula"))
    else:
        rows.append(
            Row(
                case,
                "SymPy diff",
                None,
                f"RecursionError from a {limit}-step chain ({3 * limit} ops)",
            )
        )
    by_hand = evaluate_pair(sympy_step_by_step(), {sp.Symbol("x0", real=True): sp.Float(0.5, 17)})
    if not _close(by_hand, value):
        raise AssertionError(f"chain: SymPy by hand {by_hand} != symgrad {value}")
    rows.append(
        Row(
            case,
            "SymPy by hand",
            best_time(sympy_step_by_step, repeats),
            "chain rule, one symbol per step",
        )
    )
    return rows + peers_chain_case(repeats)


# -- cases 3 to 6: Hessians and a large gradient ------------------------------------------------


def tanh_problem(rng: np.random.Generator):
    """``sum(tanh(W @ x))``: the symgrad tensors and the same formula in SymPy."""
    W = symgrad.tensor(rng.standard_normal((20, 20)), dtype=symgrad.float64, name="W")
    x = symgrad.tensor(rng.standard_normal(20), dtype=symgrad.float64, requires_grad=True, name="x")
    ws = sp.Matrix(20, 20, lambda i, j: sp.Symbol(f"W[{i}, {j}]", real=True))
    xs = [sp.Symbol(f"x[{i}]", real=True) for i in range(20)]
    formula = sp.Add(*(sp.tanh(e) for e in ws * sp.Matrix(xs)))
    return (W @ x).tanh().sum(), [x, W], formula, xs, list(ws)


def sin_problem(rng: np.random.Generator, n: int):
    """``sum_i sin(x_i x_(i+1)) + x_i**2`` for ``n`` variables, in symgrad and in SymPy."""
    x = symgrad.tensor(rng.uniform(-1, 1, n), dtype=symgrad.float64, requires_grad=True, name="x")
    xs = [sp.Symbol(f"x[{i}]", real=True) for i in range(n)]
    formula = sp.Add(*(sp.sin(xs[i] * xs[i + 1]) for i in range(n - 1)), *(v**2 for v in xs))
    return (x[:-1] * x[1:]).sin().sum() + (x * x).sum(), [x], formula, xs, []


def check_hessian(ours, leaves, formula, xs, data) -> None:
    """symgrad's Hessian and SymPy's second derivatives agree at the tensors' values."""
    point = [t.detach().numpy() for t in leaves]
    mine = np.asarray(lambdify([ours], leaves)(*point)[0], float)
    values = dict(zip(xs, point[0]))
    values.update(zip(data, np.ravel(point[1]) if data else ()))
    n = len(xs)
    for i, j in ((0, 0), (0, 1), (n // 2, n // 2 + 1), (n - 1, n - 1)):
        theirs = float(sp.diff(formula, xs[i], xs[j]).xreplace(values))
        if not _close(mine[i, j], theirs):
            raise AssertionError(f"H[{i}, {j}]: symgrad {mine[i, j]} != sympy {theirs}")


def hessian_case(label: str, problem, target: float, repeats: int, sympy_too: bool) -> list:
    y, leaves, formula, xs, data = problem
    check_hessian(hessian(y, leaves[0]), leaves, formula, xs, data)
    case = f"{label} Hessian"
    rows = [
        Row(case, "symgrad", best_time(lambda: hessian(y, leaves[0]), repeats), _target(target))
    ]
    if sympy_too:
        rows.append(Row(case, "SymPy hessian", best_time(lambda: sp.hessian(formula, xs), repeats)))
    return rows + peers_hessian(case, formula, xs, repeats)


def _target(seconds: float) -> str:
    return f"target < {seconds:g} s"


def second_order_cases(repeats: int) -> list[Row]:
    rng = np.random.default_rng(0)
    rows = hessian_case("tanh(W@x) 20x20", tanh_problem(rng), TARGET_TANH_HESSIAN, repeats, True)
    rows += hessian_case("sin sum, 100", sin_problem(rng, 100), TARGET_SIN_HESSIAN, repeats, True)
    y, (x,), formula, xs, _ = sin_problem(rng, 1000)
    case = "sin sum, 1000 Hessian"
    run = lambda: hessian(y, x, cse=True)  # noqa: E731
    rows.append(
        Row(case, "symgrad cse=True", best_time(run, repeats), _target(TARGET_SIN_HESSIAN_CSE))
    )
    rows += symengine_rows(case, lambda: hessian(y, x, backend="symengine"), repeats)
    rows.append(Row(case, "SymPy hessian", None, "not run: a million diff calls"))
    rows += peers_hessian(case, formula, xs, repeats)
    case = "sin sum, 1000 gradient"
    run = lambda: gradient(y, x)  # noqa: E731
    rows.append(Row(case, "symgrad inline", best_time(run, repeats), _target(TARGET_SIN_GRADIENT)))
    rows.append(Row(case, "symgrad cse=True", best_time(lambda: gradient(y, x, cse=True), repeats)))
    rows += symengine_rows(case, lambda: gradient(y, x, backend="symengine"), repeats)
    sympy_gradient = best_time(lambda: [sp.diff(formula, v) for v in xs], 1)
    rows.append(Row(case, "SymPy diff", sympy_gradient, "one diff per variable; one run"))
    se = _import("symengine")
    if se is not None:
        f, vs = se.sympify(formula), [se.sympify(v) for v in xs]
        rows.append(
            Row(case, "SymEngine diff", best_time(lambda: [f.diff(v) for v in vs], repeats))
        )
    return rows


def peers_hessian(case: str, formula, xs, repeats: int) -> list[Row]:
    se = _import("symengine")
    if se is None:
        return []
    f, vs = se.sympify(formula), se.Matrix([se.sympify(v) for v in xs])

    def run():
        return se.Matrix([f]).jacobian(vs).jacobian(vs)

    return [Row(case, "SymEngine", best_time(run, repeats), "jacobian of the gradient")]


def symengine_rows(case: str, run: Callable[[], object], repeats: int) -> list[Row]:
    """symgrad's own ``backend="symengine"`` (results converted to SymPy), when importable."""
    if _import("symengine") is None:
        return []
    return [Row(case, "symgrad symengine", best_time(run, repeats), "backend='symengine'")]


# -- W6: from the traced program to a gradient function, on each backend ----------------------


def w6_program(n: int, symbolic: str, compiler: str):
    """One run of the W6 program: trace ``sum_i c_i sin(x_i x_(i+1))``, ``n`` terms, take its
    closed-form gradient on the ``symbolic`` backend (None: ``compile_gradient`` straight from
    the graph), compile it with ``compiler`` and evaluate it once. Returns the gradient."""
    from symgrad.symbolic import compile_gradient

    rng = np.random.default_rng(n)
    x = symgrad.tensor(
        rng.uniform(-1, 1, n + 1), dtype=symgrad.float64, requires_grad=True, name="x"
    )
    c = symgrad.tensor(rng.uniform(-1, 1, n), dtype=symgrad.float64, name="c")
    y = (c * symgrad.sin(x[:-1] * x[1:])).sum()
    if symbolic is None:
        f = compile_gradient(y, x, backend=compiler)
    else:
        f = lambdify(gradient(y, x, backend=symbolic), [x, c], backend=compiler)
    return f(x.detach().numpy(), c.numpy()), x, y


def check_w6(n: int, symbolic, compiler: str) -> None:
    found, x, y = w6_program(n, symbolic, compiler)
    y.backward()
    if not np.allclose(found, x.grad.numpy(), rtol=1e-12, atol=1e-12):
        raise AssertionError(f"W6 ({symbolic}, {compiler}): the gradient differs from backward()")


TARGETS_W6 = {
    (TERMS, "SymPy + lambdify"): f"target < {TARGET_W6_SYMPY:g} s (SymPy alone)",
    (TERMS, "compile_gradient"): f"target < {TARGET_W6_SYMPY:g} s (SymPy alone)",
    (TERMS, "SymEngine compile"): f"target < {TARGET_W6:g} s",
}


def w6_case(repeats: int) -> list[Row]:
    """W6: graph, closed-form gradient, compiled function and its first evaluation."""
    ways = [("SymPy + lambdify", "sympy", "numpy"), ("compile_gradient", None, "numpy")]
    if _import("symengine") is not None:
        ways += [
            ("SymEngine -> SymPy", "symengine", "numpy"),
            ("SymEngine + Lambdify", "symengine", "symengine"),
            ("SymEngine compile", None, "symengine"),
        ]
    rows = []
    for n in (TERMS, 1000):
        case = f"W6 trace..evaluate, {n}"
        for name, symbolic, compiler in ways:
            if n > TERMS and compiler == "numpy" and symbolic != "symengine":
                continue  # SymPy's side: seconds per run at 1000 terms, shown at 200
            check_w6(n, symbolic, compiler)
            run = lambda n=n, s=symbolic, c=compiler: w6_program(n, s, c)  # noqa: E731
            note = TARGETS_W6.get((n, name), "")
            rows.append(Row(case, name, best_time(run, repeats), note))
    return rows


# -- SymEngine and CasADi, when importable -----------------------------------------------------


def _import(name: str):
    try:
        return __import__(name)
    except ImportError:
        return None


def peers_sum_case(repeats: int) -> list[Row]:
    rows = []
    se = _import("symengine")
    if se is not None:
        xs = se.symbols(f"x0:{TERMS + 1}")
        cs = se.symbols(f"c0:{TERMS}")
        f = sum(cs[i] * se.sin(xs[i] * xs[i + 1]) for i in range(TERMS))
        rows.append(
            Row(
                f"{TERMS}-term sum gradient",
                "SymEngine diff",
                best_time(lambda: [f.diff(v) for v in xs], repeats),
            )
        )
    ca = _import("casadi")
    if ca is not None:
        x, c = ca.SX.sym("x", TERMS + 1), ca.SX.sym("c", TERMS)
        f = ca.sum1(c * ca.sin(x[:-1] * x[1:]))
        rows.append(
            Row(
                f"{TERMS}-term sum gradient",
                "CasADi gradient",
                best_time(lambda: ca.gradient(f, x), repeats),
            )
        )
    return rows


def peers_chain_case(repeats: int) -> list[Row]:
    rows = []
    case = f"{3 * CHAIN_STEPS}-op chain gradient"
    se = _import("symengine")
    if se is not None:

        def run():
            x = se.Symbol("x0")
            y = x
            for _ in range(CHAIN_STEPS):
                y = se.sin(y) * se.Rational(101, 100) + se.Rational(1, 10)
            return y.diff(x)

        try:
            rows.append(Row(case, "SymEngine diff", best_time(run, repeats), "nested formula"))
        except RecursionError:
            rows.append(Row(case, "SymEngine diff", None, "RecursionError"))
    ca = _import("casadi")
    if ca is not None:

        def run_casadi():
            x = ca.SX.sym("x0")
            y = x
            for _ in range(CHAIN_STEPS):
                y = ca.sin(y) * 1.01 + 0.1
            return ca.gradient(y, x)

        rows.append(Row(case, "CasADi gradient", best_time(run_casadi, repeats)))
    return rows


# -- report ------------------------------------------------------------------------------------


def references(rows: list[Row]) -> dict[str, Row]:
    """Per case, the row the ratios are to: SymPy's diff, or SymPy's chain rule by hand when
    its diff could not run."""
    chosen: dict[str, Row] = {}
    for name in ("SymPy by hand", "SymPy diff", "SymPy hessian"):
        for r in rows:
            if r.name == name and r.seconds is not None:
                chosen[r.case] = r
    return chosen


def table(rows: list[Row]) -> list[str]:
    """One line per row: time, and the ratio to the case's SymPy reference row (marked *)."""
    reference = {case: r.seconds for case, r in references(rows).items()}
    marked = {id(r) for r in references(rows).values()}
    lines = [f"{'case':<26}{'implementation':<20}{'time':>10}{'x SymPy':>10}  note"]
    for r in rows:
        time_text = "-" if r.seconds is None else f"{r.seconds:.3f} s"
        ref = reference.get(r.case)
        ratio = "-" if r.seconds is None or ref is None else f"{r.seconds / ref:.3f}"
        ratio += "*" if id(r) in marked else " "
        lines.append(f"{r.case:<26}{r.name:<20}{time_text:>10}{ratio:>11}  {r.note}")
    lines.append("* the row the case's ratios are to")
    return lines


def header(repeats: int) -> list[str]:
    peers = [
        f"{n} {'(' + m.__version__ + ')' if m else 'not installed'}"
        for n, m in (("symengine", _import("symengine")), ("casadi", _import("casadi")))
    ]
    return [
        "symgrad symbolic benchmark: closed-form gradients and Hessians, median of "
        f"{repeats} run(s), SymPy cache cleared before each, {clock.__name__}",
        f"python {platform.python_version()}, sympy {sp.__version__}, numpy {np.__version__}, "
        f"{os.cpu_count()} CPUs; " + ", ".join(peers),
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per row (median kept)")
    parser.add_argument("--only", choices=["w6"], help="run one case only")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCK),
        default="wall",
        help="wall-clock time, or this process's CPU time (steadier on a loaded machine)",
    )
    args = parser.parse_args(argv)
    global clock
    clock = CLOCK[args.clock]
    print("\n".join(header(args.repeats)), flush=True)
    if args.only == "w6":
        rows = w6_case(args.repeats)
    else:
        rows = (
            sum_case(args.repeats)
            + chain_case(args.repeats)
            + second_order_cases(args.repeats)
            + w6_case(args.repeats)
        )
    print("\n".join(table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
