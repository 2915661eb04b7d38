"""Compare two symgrad checkouts (before and after a change) on the benchmark cases.

Usage::

    python benchmarks/compare.py BEFORE AFTER [--passes N] [run.py options]
    python benchmarks/compare.py ../symgrad-main . --quick --case chain

Runs this directory's ``run.py`` with ``--symgrad-from BEFORE`` and with ``--symgrad-from AFTER``,
each in a fresh process (one symgrad per process), for N passes, alternating which goes first.
Only NumPy and symgrad are timed unless ``--only`` says otherwise. For each case it then pools
every round of every pass and prints symgrad's median paired ratio to NumPy and its median time
(per op for the cases that count ops), each with its interquartile range, and the change from
BEFORE to AFTER (the ratio of the medians, minus one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from _report import format_ratio, format_spread, format_time
from _timing import quartiles

RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py")
SIDES = ("before", "after")


def parse_args(argv: list[str] | None = None) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], epilog="Other options are passed to run.py."
    )
    parser.add_argument("before", help="the symgrad checkout before the change")
    parser.add_argument("after", help="the symgrad checkout after the change")
    parser.add_argument("--passes", type=int, default=3, help="run.py runs per checkout (3)")
    args, run_options = parser.parse_known_args(argv)
    if not any(option.startswith("--only") for option in run_options):
        run_options += ["--only", "numpy,symgrad"]
    return args, run_options


def run_once(checkout: str, run_options: list[str]) -> dict:
    """One run.py process benchmarking the symgrad at ``checkout``; its JSON output."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "timings.json")
        command = [sys.executable, RUN, "--symgrad-from", checkout, "--json", out, *run_options]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"run.py failed for {checkout}:\n{done.stdout}{done.stderr}")
        with open(out) as f:
            return json.load(f)


def pooled(runs: list[dict]) -> dict:
    """Per case: symgrad's paired ratios and its times (per op if counted), over all rounds."""
    cases = {}
    for run in runs:
        for key, case in run["cases"].items():
            numpy, symgrad = (case["seconds_per_call"][n] for n in ("numpy", "symgrad"))
            pool = cases.setdefault(key, {"label": case["label"], "ratios": [], "times": []})
            pool["ratios"] += [s / n for s, n in zip(symgrad, numpy, strict=True)]
            pool["times"] += [s / (case["ops"] or 1) for s in symgrad]
            pool["per"] = "per op" if case["ops"] else "per step"
    return cases


def _change(before: list[float], after: list[float]) -> str:
    """The change of the median, and whether the interquartile ranges overlap."""
    change = statistics.median(after) / statistics.median(before) - 1
    (b1, b3), (a1, a3) = quartiles(before), quartiles(after)
    overlap = "  (IQRs overlap)" if a1 <= b3 and b1 <= a3 else ""
    return f"{change:+.1%}{overlap}"


def _time_range(times: list[float]) -> str:
    """The interquartile range of ``times``: ``14.9-15.6 us``."""
    low, high = (format_time(q) for q in quartiles(times))
    if low.split()[1] == high.split()[1]:
        return f"{low.split()[0]}-{high}"
    return f"{low}-{high}"


def table(pools: dict) -> list[str]:
    rows = "{:<26}{:<10}{:>24}{:>24}  {}"
    lines = [rows.format("symgrad", "", "before (IQR)", "after (IQR)", "change")]
    for key, before in pools["before"].items():
        after = pools["after"][key]
        ratios = [
            f"{format_ratio(statistics.median(p['ratios']))} ({format_spread(p['ratios'])})"
            for p in (before, after)
        ]
        times = [
            f"{format_time(statistics.median(p['times']))} ({_time_range(p['times'])})"
            for p in (before, after)
        ]
        lines.append(
            rows.format(
                before["label"], "x NumPy", *ratios, _change(before["ratios"], after["ratios"])
            )
        )
        lines.append(
            rows.format("", before["per"], *times, _change(before["times"], after["times"]))
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    args, run_options = parse_args(argv)
    checkouts = {"before": args.before, "after": args.after}
    runs = {side: [] for side in SIDES}
    for number in range(args.passes):
        for side in SIDES if number % 2 == 0 else SIDES[::-1]:
            print(f"pass {number + 1}/{args.passes}: {side}", file=sys.stderr, flush=True)
            runs[side].append(run_once(checkouts[side], run_options))
    header = runs["before"][0]["header"]
    for line in header[1:]:
        if line.startswith("symgrad from"):
            for side in SIDES:
                origin = [x for x in runs[side][0]["header"] if x.startswith("symgrad from")]
                print(f"{side}: {origin[0]}")
        elif not line.startswith("reported:"):
            print(line)
    print(
        f"{args.passes} passes per checkout, alternating which goes first; rounds pooled over "
        "the passes. x NumPy: median paired ratio (symgrad / NumPy in the same round); times: "
        "median; IQR: interquartile range; change: after's median / before's median - 1\n"
    )
    print("\n".join(table({side: pooled(runs[side]) for side in SIDES})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
