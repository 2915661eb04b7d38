"""Compiled gradients of a batch: the whole batch traced, or one sample with ``batch=``.

Usage::

    python benchmarks/compiled_gradient.py                 # 300 samples, 3 features
    python benchmarks/compiled_gradient.py --samples 1000 --features 10 --repeats 1

The case is logistic regression, ``binary_cross_entropy_with_logits(X @ w + b, Y)`` (mean over
the samples), with the gradient by ``w`` and ``b`` compiled by ``compile_gradient`` in two ways:

- the loss of the whole batch traced with ``X`` and ``Y`` named: one symbol per element of the
  data, so compiling grows with the number of samples;
- the loss of ONE sample traced with ``x`` and ``y`` named, compiled with ``batch=[x, y]`` and
  called with the whole batch: compiling costs what one sample costs.

Both are first checked against ``backward()`` of the batched loss (on data with logits of
+-1000 included, where only stable kernels give finite numbers), then timed. Compile times are
CPU seconds, best of the repeats, SymPy's cache cleared before each; call times are wall-clock,
the best of 50 calls. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable

import numpy as np
import sympy as sp
from sympy.core.cache import clear_cache

# benchmark the symgrad of this checkout, installed or not
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

import symgrad  # noqa: E402
import symgrad.nn.functional as F  # noqa: E402
from symgrad.symbolic import compile_gradient  # noqa: E402


def best_time(run: Callable[[], object], repeats: int, clear: bool = True) -> float:
    """The fastest of ``repeats`` runs, each after clearing SymPy's cache if ``clear`` (then
    in CPU seconds of this process: compiling is single-threaded, and CPU time is steadier
    than wall-clock time on a busy machine)."""
    clock = time.process_time if clear else time.perf_counter
    times = []
    for _ in range(repeats):
        if clear:
            clear_cache()
        start = clock()
        run()
        times.append(clock() - start)
    return min(times)


def data(samples: int, features: int) -> tuple:
    """``X, Y, w, b`` as float64 arrays; the first two samples have logits of about +-1000."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(samples, features))
    Y = (rng.uniform(size=samples) > 0.5).astype(np.float64)
    w = rng.normal(size=features)
    X[:2] = 0.0
    X[0, 0], X[1, 0] = 1000.0 / w[0], -1000.0 / w[0]
    return X, Y, w, np.float64(0.0)


def _params(w0: np.ndarray, b0: float) -> tuple:
    w = symgrad.tensor(w0, dtype=symgrad.float64, requires_grad=True, name="w")
    b = symgrad.tensor(b0, dtype=symgrad.float64, requires_grad=True, name="b")
    return w, b


def whole_batch(X: np.ndarray, Y: np.ndarray, w0: np.ndarray, b0: float) -> Callable:
    """compile_gradient of the loss of all the samples."""
    w, b = _params(w0, b0)
    Xt = symgrad.tensor(X, dtype=symgrad.float64, name="X")
    Yt = symgrad.tensor(Y, dtype=symgrad.float64, name="Y")
    return compile_gradient(F.binary_cross_entropy_with_logits(Xt @ w + b, Yt), [w, b])


def one_sample(X: np.ndarray, Y: np.ndarray, w0: np.ndarray, b0: float) -> Callable:
    """compile_gradient of one sample's loss, evaluated over the batch (mean)."""
    w, b = _params(w0, b0)
    x = symgrad.tensor(X[0], dtype=symgrad.float64, name="x")
    y = symgrad.tensor(Y[0], dtype=symgrad.float64, name="y")
    loss = F.binary_cross_entropy_with_logits(x @ w + b, y)
    return compile_gradient(loss, [w, b], batch=[x, y], reduction="mean")


def backward(X: np.ndarray, Y: np.ndarray, w0: np.ndarray, b0: float) -> list:
    """The engine's gradients of the batched loss."""
    w, b = _params(w0, b0)
    loss = F.binary_cross_entropy_with_logits(
        symgrad.tensor(X, dtype=symgrad.float64) @ w + b, symgrad.tensor(Y, dtype=symgrad.float64)
    )
    loss.backward()
    return [w.grad.numpy(), b.grad.numpy()]


def check(name: str, got: list, want: list) -> None:
    for g, v in zip(got, want):
        if not (np.all(np.isfinite(g)) and np.allclose(g, v, rtol=1e-10, atol=1e-13)):
            raise AssertionError(f"{name}: {got} != backward() {want}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--features", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3, help="timed compiles per row")
    parser.add_argument(
        "--skip-whole-batch", action="store_true", help="only the one-sample compile"
    )
    args = parser.parse_args(argv)
    X, Y, w0, b0 = data(args.samples, args.features)
    print(
        f"compiled gradient of logistic regression, {args.samples} samples x {args.features} "
        f"features; python {platform.python_version()}, sympy {sp.__version__}, numpy "
        f"{np.__version__}, {os.cpu_count()} CPUs\n"
    )
    want = backward(X, Y, w0, b0)
    rows = []
    builds = [("one sample, batch=", one_sample)]
    if not args.skip_whole_batch:
        builds.insert(0, ("whole batch traced", whole_batch))
    for name, build in builds:
        f = build(X, Y, w0, b0)
        check(name, f(w0, b0, X, Y), want)
        compile_s = best_time(lambda build=build: build(X, Y, w0, b0), args.repeats)
        call_s = best_time(lambda f=f: f(w0, b0, X, Y), 50, clear=False)
        rows.append((name, compile_s, call_s, f.source.count("\n")))
    step_s = best_time(lambda: backward(X, Y, w0, b0), 50, clear=False)
    print(f"{'':<22}{'compile':>10}{'call':>12}{'source lines':>14}")
    for name, compile_s, call_s, lines in rows:
        print(f"{name:<22}{compile_s:>9.3f}s{call_s * 1e6:>10.0f}us{lines:>14}")
    print(f"{'backward() per step':<22}{'-':>10}{step_s * 1e6:>10.0f}us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
