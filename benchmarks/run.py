"""Time symgrad's forward+backward steps side by side with hand-written NumPy and peers.

Usage::

    python benchmarks/run.py            # the full run (about a minute)
    python benchmarks/run.py --quick    # fewer, shorter repeats (a few seconds)
    python benchmarks/run.py --case chain --case mlp
    python benchmarks/run.py --threads 0   # the libraries' default thread counts

Every implementation's gradients are first checked against the hand-written NumPy ones; the
timings are then reported as the best of several timed runs, and as ratios to NumPy.
See ``benchmarks/README.md`` for how to read the output.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

# benchmark the symgrad of this checkout, installed or not
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from _cases import CASES, Case  # noqa: E402
from _peers import Implementation, Prepared, implementations  # noqa: E402
from _report import HEADER, Result, case_table, targets_table  # noqa: E402
from _timing import Settings, time_side_by_side  # noqa: E402

FULL = Settings(repeats=10, target=0.15)
QUICK = Settings(repeats=5, target=0.02, warmup=2)
SEED = 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line: ``--quick`` and any number of ``--case KEY``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter timed runs")
    parser.add_argument(
        "--case",
        action="append",
        choices=[c.key for c in CASES],
        help="run only this case (repeatable); default: all",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="run NumPy's BLAS and PyTorch on this many threads (default 1: "
        "the same single core for everyone, steady on a busy machine); "
        "0 keeps the libraries' own defaults",
    )
    return parser.parse_args(argv)


_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pin_threads(threads: int) -> None:
    """Restart this script with every library's thread count set to ``threads``.

    BLAS and OpenMP read these variables once, when they load; NumPy is already loaded here,
    so the only reliable way is a fresh process.
    """
    wanted = str(threads)
    if all(os.environ.get(name) == wanted for name in _THREAD_VARIABLES):
        return
    os.environ.update({name: wanted for name in _THREAD_VARIABLES})
    os.execv(sys.executable, [sys.executable, *sys.argv])


def check_gradients(case: Case, impl: Implementation, prepared: Prepared, reference: dict) -> None:
    """Fail loudly unless ``impl`` computes the NumPy reference's gradients."""
    got = prepared.gradients()
    for key, want in reference.items():
        np.testing.assert_allclose(
            got[key],
            want,
            rtol=case.rtol,
            atol=case.atol,
            err_msg=f"{impl.name} and NumPy disagree on d/d{key} in case {case.key!r}",
        )


def run_case(case: Case, impls: list[Implementation], settings: Settings) -> Result:
    """Check every implementation's gradients on one case, then time them side by side."""
    params, consts = case.inputs(np.random.default_rng(SEED))
    steps, reference = {}, None
    for impl in impls:
        prepared = impl.prepare(case, params, consts)
        if reference is None:  # the first implementation is hand-written NumPy
            reference = prepared.gradients()
        else:
            check_gradients(case, impl, prepared, reference)
        steps[impl.name] = prepared.step
    return Result(case, time_side_by_side(steps, settings))


def describe(impls: list[Implementation], settings: Settings) -> list[str]:
    """The header: what ran, on what, and how it was timed."""
    ran = ", ".join(f"{i.name} {i.version}" for i in impls if i.prepare is not None)
    lines = [
        "symgrad benchmark: one forward+backward step per call, same inputs everywhere",
        f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; {ran}",
    ]
    lines += [f"skipped {i.name}: {i.missing}" for i in impls if i.prepare is None]
    lines.append(
        f"timing: {settings.warmup} warm-up calls, then the best (and median) of "
        f"{settings.repeats} timed runs of at least {settings.target * 1e3:g} ms each, "
        "implementations interleaved; gradients checked against NumPy first"
    )
    return lines


def threads() -> str:
    """The thread settings, which decide the large-array times."""
    pinned = sorted({os.environ[name] for name in _THREAD_VARIABLES if name in os.environ})
    torch = sys.modules.get("torch")
    blas = f"{'/'.join(pinned)} (pinned)" if pinned else "library defaults"
    if torch is None:
        return f"threads: {blas}"
    return f"threads: {blas}, torch.get_num_threads() = {torch.get_num_threads()}"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; with ``--threads`` the process first restarts itself (see
    :func:`pin_threads`), with the command line it was started with."""
    args = parse_args(argv)
    if args.threads > 0:
        pin_threads(args.threads)
    settings = QUICK if args.quick else FULL
    impls = implementations()
    for line in describe(impls, settings) + [threads(), ""]:
        print(line)
    runnable = [i for i in impls if i.prepare is not None]
    cases = [c for c in CASES if args.case is None or c.key in args.case]
    start, results = time.perf_counter(), []
    print(HEADER)
    for case in cases:
        results.append(run_case(case, runnable, settings))
        print("\n".join(case_table(CASES.index(case) + 1, results[-1])), flush=True)
    print()
    print("\n".join(targets_table(results)))
    print(f"\ntotal {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
