"""Time symgrad's forward+backward steps side by side with hand-written NumPy and peers.

Usage::

    python benchmarks/run.py            # the full run (a few minutes)
    python benchmarks/run.py --quick    # fewer, shorter rounds (several seconds)
    python benchmarks/run.py --case chain --case mlp --rounds 30
    python benchmarks/run.py --threads 1   # pin every library to one thread
    python benchmarks/run.py --symgrad-from ../other-checkout --only numpy,symgrad

Every implementation's gradients are first checked against the hand-written NumPy ones; then
the implementations are timed in interleaved rounds, and each is reported by its median time and
its paired ratios to NumPy (its time over NumPy's time in the same round): their median and
interquartile range. See ``benchmarks/README.md`` for how to read the output.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np
from _cases import CASES, Case
from _peers import NAMES, Implementation, Prepared, implementations
from _report import HEADER, Result, case_table, targets_table
from _timing import Settings, time_side_by_side

HERE = os.path.dirname(os.path.abspath(__file__))
FULL = Settings(rounds=15, target=0.1)
QUICK = Settings(rounds=7, target=0.02, warmup=2)
SEED = 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter timed rounds")
    parser.add_argument(
        "--case",
        action="append",
        choices=[c.key for c in CASES] + ["w6"],
        help="run only this case (repeatable; w6: the closed-form gradient, traced, compiled "
        "and evaluated, timed by benchmarks/symbolic.py); default: all",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        help=f"timed rounds per case (default {FULL.rounds}, with --quick {QUICK.rounds})",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="pin NumPy's BLAS and PyTorch to this many threads (steadier on a busy "
        "machine); default 0: the libraries' own defaults",
    )
    parser.add_argument(
        "--only",
        type=lambda s: s.split(","),
        help=f"comma-separated implementations to run, from {','.join(NAMES)} "
        "(numpy, the reference, always runs); default: all that import",
    )
    parser.add_argument(
        "--symgrad-from",
        metavar="PATH",
        default=os.path.join(HERE, os.pardir),
        help="benchmark the symgrad of this checkout (default: the one these scripts are in)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the timings to FILE")
    args = parser.parse_args(argv)
    unknown = set(args.only or ()) - set(NAMES)
    if unknown:
        parser.error(f"--only: unknown {', '.join(sorted(unknown))}; choose from {NAMES}")
    if args.rounds is not None and args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


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


def use_symgrad_from(root: str) -> str:
    """Make ``import symgrad`` find the checkout at ``root``; returns a label for it."""
    root = os.path.realpath(root)
    if not os.path.isfile(os.path.join(root, "symgrad", "__init__.py")):
        sys.exit(f"run.py: no symgrad package in {root}")
    sys.path.insert(0, root)
    git = ["git", "-C", root]
    try:
        commit = subprocess.run(
            [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            [*git, "status", "--porcelain", "--", "symgrad"], capture_output=True, text=True
        ).stdout.strip()
        return f"{root} (commit {commit}{', uncommitted changes' if dirty else ''})"
    except (OSError, subprocess.CalledProcessError):
        return root


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
        if prepared is None:  # this peer has nothing to run this case with
            continue
        if reference is None:  # the first implementation is hand-written NumPy
            reference = prepared.gradients()
        else:
            check_gradients(case, impl, prepared, reference)
        steps[impl.name] = prepared.step
    return Result(case, time_side_by_side(steps, settings))


def describe(impls: list[Implementation], settings: Settings, symgrad: str) -> list[str]:
    """The header: what ran, on what, and how it was timed."""
    ran = ", ".join(f"{i.name} {i.version}" for i in impls if i.prepare is not None)
    lines = [
        "symgrad benchmark: one forward+backward step per call, same inputs everywhere",
        f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; {ran}",
        f"symgrad from {symgrad}",
    ]
    lines += [f"skipped {i.name}: {i.missing}" for i in impls if i.prepare is None]
    lines.append(
        f"timing: {settings.warmup} warm-up calls, then {settings.rounds} rounds of one timed "
        f"run (at least {settings.target * 1e3:g} ms) of each implementation in turn; "
        "gradients checked against NumPy first"
    )
    lines.append(
        "reported: median time per step; x NumPy = median over the rounds of the paired "
        "ratio (time / NumPy's time in the same round); IQR = its interquartile range"
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


def write_json(path: str, header: list[str], results: list[Result]) -> None:
    """The raw per-round times, for ``compare.py``."""
    cases = {
        r.case.key: {
            "label": r.case.label,
            "ops": r.case.ops,
            "seconds_per_call": {name: t.per_call for name, t in r.timings.items()},
        }
        for r in results
    }
    with open(path, "w") as f:
        json.dump({"header": header, "cases": cases}, f, indent=1)


def w6_table(rounds: int) -> list[str]:
    """W6: trace the 200-term sum, take its closed-form gradient, compile and evaluate it, on
    each way symgrad offers (process CPU time, median of ``rounds``; see symbolic.py)."""
    import symbolic  # the symgrad imported above is the one it times

    symbolic.clock = symbolic.CLOCK["cpu"]
    rows = symbolic.w6_case(rounds)
    title = f"\nW6, closed-form gradient: CPU seconds, median of {rounds} runs"
    return [title, *symbolic.table(rows)]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; with ``--threads`` the process first restarts itself (see
    :func:`pin_threads`), with the command line it was started with."""
    args = parse_args(argv)
    if args.threads > 0:
        pin_threads(args.threads)
    symgrad = use_symgrad_from(args.symgrad_from)
    settings = QUICK if args.quick else FULL
    if args.rounds is not None:
        settings = Settings(args.rounds, settings.target, settings.warmup)
    impls = implementations(args.only or NAMES)
    wanted = os.path.join(os.path.realpath(args.symgrad_from), "symgrad", "")
    imported = sys.modules.get("symgrad")
    if imported is not None and not imported.__file__.startswith(wanted):
        sys.exit(f"run.py: symgrad was imported from {imported.__file__}, not {wanted}")
    header = describe(impls, settings, symgrad) + [threads()]
    print("\n".join(header), end="\n\n")
    runnable = [i for i in impls if i.prepare is not None]
    cases = [c for c in CASES if args.case is None or c.key in args.case]
    start, results = time.perf_counter(), []
    print(HEADER)
    for case in cases:
        results.append(run_case(case, runnable, settings))
        print("\n".join(case_table(CASES.index(case) + 1, results[-1])), flush=True)
    print()
    print("\n".join(targets_table(results)))
    if args.case is None or "w6" in args.case:
        print("\n".join(w6_table(settings.rounds)), flush=True)
    print(f"\ntotal {time.perf_counter() - start:.1f} s")
    if args.json:
        write_json(args.json, header, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
