"""gradcheck's fast mode against the full check, on a function of a 100x100 input.

Usage::

    python benchmarks/gradcheck_fast_mode.py              # best of 3 runs per row
    python benchmarks/gradcheck_fast_mode.py --repeats 1 --size 60

The function is ``f(x) = (tanh(x) @ x).sum(1)``: 10,000 input elements, 100 outputs. The full
check builds the whole 10,000 x 100 Jacobian twice, by central differences (two evaluations of
``f`` per input element: 20,000 evaluations) and by the engine (one backward per output element:
100 backwards). Fast mode compares one random projection ``vᵀ J u`` instead: two evaluations
and one backward, whatever the size. Both must pass on the correct function, and fast mode must
still catch a backward that is wrong by 1% (a custom Function, checked in fast mode only).

PyTorch's ``torch.autograd.gradcheck`` runs the same two modes alongside when it is importable.
Times are wall-clock seconds, the best of the repeats.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable

import numpy as np

# benchmark the symgrad of this checkout, installed or not
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

import symgrad  # noqa: E402


def function(x):
    return (x.tanh() @ x).sum(1)


def wrong_tanh(T):
    """``tanh`` as a custom Function whose backward is 1% too large."""

    class WrongTanh(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.tanh()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * (1 - out * out) * 1.01

    return WrongTanh


def best_time(run: Callable[[], object], repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def rows_for(T, name: str, size: int, repeats: int) -> list[tuple[str, float, str]]:
    rng = np.random.default_rng(0)
    x = T.tensor(rng.uniform(-1, 1, (size, size)), dtype=T.float64, requires_grad=True)
    check = T.autograd.gradcheck
    full, ok_full = best_time(lambda: check(function, (x,)), repeats)
    fast, ok_fast = best_time(lambda: check(function, (x,), fast_mode=True), repeats)
    wrong = wrong_tanh(T).apply
    caught = not check(lambda t: (wrong(t) @ t).sum(1), (x,), fast_mode=True, raise_exception=False)
    if not (ok_full and ok_fast and caught):
        raise SystemExit(
            f"{name}: a verdict is wrong (full {ok_full}, fast {ok_fast}, "
            f"1% error caught in fast mode: {caught})"
        )
    return [(name, full, "full"), (name, fast, f"fast, {full / fast:,.0f}x faster")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--size", type=int, default=100, help="the input is size x size")
    args = parser.parse_args()
    print(
        f"gradcheck of (tanh(x) @ x).sum(1), x {args.size}x{args.size} float64; "
        f"best of {args.repeats}; Python {platform.python_version()}, NumPy {np.__version__}"
    )
    rows = rows_for(symgrad, "symgrad", args.size, args.repeats)
    try:
        import torch

        torch.set_num_threads(1)
        rows += rows_for(torch, f"PyTorch {torch.__version__}", args.size, args.repeats)
    except ImportError:
        print("(PyTorch not importable: its rows are skipped)")
    width = max(len(r[0]) for r in rows)
    for name, seconds, note in rows:
        print(f"  {name:<{width}}  {seconds:9.4f} s  {note}")
    print("both modes pass on the correct function; fast mode catches a 1% error in backward")


if __name__ == "__main__":
    main()
