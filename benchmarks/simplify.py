"""``simplify=True`` (symgrad's recogniser) beside ``simplify="full"`` (SymPy's ``simplify``).

Usage::

    python benchmarks/simplify.py              # 5 rounds per row
    python benchmarks/simplify.py --rounds 3 --full-timeout 60

Cases: the gradient of a 3-sample logistic loss (``binary_cross_entropy_with_logits``) with
respect to its weights and bias; the same loss's closed form; the gradient of a 3-4-1 tanh
network's loss (2 samples) with respect to all 20 parameters. Each result is checked equal to
the unsimplified one at a random point before it is timed. Reported: the total size of the
results (``sympy.count_ops``) before and after, and the median time and interquartile range;
SymPy's ``simplify`` runs once per case, in a child process stopped after ``--full-timeout``
seconds.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Callable

import numpy as np
import sympy as sp
from sympy.core.cache import clear_cache

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

import symgrad  # noqa: E402
import symgrad.nn.functional as F  # noqa: E402
from symgrad import symbolic  # noqa: E402


def _t(values, name, grad=False):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=grad, name=name)


def logistic(what: str) -> Callable:
    def run(simplify):
        X = _t([[1.0, 2.0], [3.0, -4.0], [0.5, 1.0]], "X")
        w, b = _t([0.1, -0.2], "w", True), _t(0.3, "b", True)
        loss = F.binary_cross_entropy_with_logits(X @ w + b, _t([1.0, 0.0, 1.0], "y"))
        if what == "loss":
            return [symbolic.expression(loss, simplify=simplify)]
        return [e for g in symbolic.gradient(loss, [w, b], simplify=simplify) for e in _flat(g)]

    return run


def mlp(simplify):
    rng = np.random.default_rng(0)
    x, y = _t(rng.normal(size=(2, 3)), "x"), _t([[1.0], [0.0]], "y")
    W1, b1 = _t(rng.normal(size=(4, 3)), "W1", True), _t(np.zeros(4), "b1", True)
    W2 = _t(rng.normal(size=(1, 4)), "W2", True)
    loss = F.binary_cross_entropy_with_logits(((x @ W1.T + b1).tanh()) @ W2.T, y)
    return [e for g in symbolic.gradient(loss, [W1, b1, W2], simplify=simplify) for e in _flat(g)]


def _flat(g):
    return list(g) if isinstance(g, (sp.MatrixBase, sp.NDimArray)) else [g]


def size(exprs: list) -> int:
    return sum(sp.count_ops(e) for e in exprs)


def same(a: list, b: list) -> bool:
    rng = np.random.default_rng(1)
    free = sorted(set().union(*(sp.sympify(e).free_symbols for e in a + b)), key=str)
    point = {s: sp.Float(rng.uniform(-1, 1)) for s in free}
    return all(abs(float(sp.N((x - y).xreplace(point)))) < 1e-9 for x, y in zip(a, b))


def timed(run: Callable, simplify: bool, rounds: int) -> list:
    times = []
    for _ in range(rounds):
        clear_cache()
        start = time.perf_counter()
        run(simplify)
        times.append(time.perf_counter() - start)
    return times


def _full(case, queue):
    start = time.perf_counter()
    found = CASES[case](False)
    done = [sp.simplify(e) for e in found]
    queue.put((time.perf_counter() - start, size(done)))


FULL = '"full"'
CASES = {
    "logistic loss, 3 samples: gradient": logistic("gradient"),
    "logistic loss, 3 samples: closed form": logistic("loss"),
    "3-4-1 tanh network, 2 samples: gradient": mlp,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--full-timeout", type=float, default=60.0)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, sympy {sp.__version__}, symgrad {symgrad.__version__}")
    print(f"{'case':40} {'simplify':10} {'ops':>11} {'median':>9} {'IQR':>19}")
    for name, run in CASES.items():
        plain, fast = run(False), run(True)
        assert same(plain, fast), f"{name}: simplify=True changed the value"
        # the pass's own time: with simplification minus without, paired by round
        cost = np.array(timed(run, True, args.rounds)) - np.array(timed(run, False, args.rounds))
        q1, median, q3 = np.percentile(cost, [25, 50, 75])
        ops = f"{size(plain)} -> {size(fast)}"
        print(f"{name:40} {'True':10} {ops:>11} {median:8.3f}s  ({q1:.3f}-{q3:.3f} s)")
        queue: multiprocessing.Queue = multiprocessing.Queue()
        child = multiprocessing.Process(target=_full, args=(name, queue))
        child.start()
        child.join(args.full_timeout)
        if child.is_alive():
            child.terminate()
            print(f"{name:40} {FULL:10} {'':>11} > {args.full_timeout:.0f} s (stopped)")
        else:
            seconds, found = queue.get()
            ops = f"{size(plain)} -> {found}"
            print(f"{name:40} {FULL:10} {ops:>11} {seconds:8.3f}s  (one run)")


if __name__ == "__main__":
    main()
