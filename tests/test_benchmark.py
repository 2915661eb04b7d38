"""symgrad.utils.benchmark: Timer and Measurement, printed as PyTorch prints them."""

from __future__ import annotations

import importlib.util
import re

import pytest

import symgrad
from symgrad.utils.benchmark import Measurement, TaskSpec, Timer, select_unit

HAS_TORCH = importlib.util.find_spec("torch") is not None

CASES = [
    (
        (10, [1e-5, 2e-5, 3e-5, 9e-5], dict(stmt="x", setup="pass", label="L", description="D")),
        "L\nD\n  Median: 2.50 us\n  IQR:    2.75 us (1.75 to 4.50)\n"
        "  4 measurements, 10 runs per measurement, 1 thread\n"
        "  WARNING: Interquartile range is 110.0% of the median measurement.\n"
        "           This suggests significant environmental influence.",
    ),
    (
        (10, [1e-3, 1.01e-3, 1.02e-3], dict(stmt="x", setup="y = 1", sub_label="S", num_threads=2)),
        "x: S\nsetup: y = 1\n  Median: 101.00 us\n"
        "  3 measurements, 10 runs per measurement, 2 threads",
    ),
    (
        (100, [4.8e-5], dict(stmt="sum(range(100))", setup="pass")),
        "sum(range(100))\n  480.00 ns\n  1 measurement, 100 runs , 1 thread",
    ),
    (
        (100, [2e-7], dict(stmt="a\nb", setup="a=1\nb=2", sub_label="s")),
        "stmt: (s)\n  a\n  b\n\nsetup:\n  a=1\n  b=2\n\n  2.00 ns\n"
        "  1 measurement, 100 runs , 1 thread",
    ),
]


def _body(m) -> str:
    first, _, rest = repr(m).partition("\n")
    assert re.fullmatch(r"<[\w.]+\.Measurement object at 0x[0-9a-f]+>", first)
    return rest


@pytest.mark.parametrize("case", range(len(CASES)))
def test_measurement_prints_as_pytorchs(case):
    (number, times, spec), expected = CASES[case]
    m = Measurement(number, times, TaskSpec(**spec))
    assert _body(m) == expected
    if HAS_TORCH:
        from torch.utils.benchmark.utils import common

        assert _body(common.Measurement(number, times, common.TaskSpec(**spec))) == expected


def test_measurement_statistics():
    m = Measurement(10, [1e-5, 2e-5, 3e-5, 9e-5], TaskSpec("x", "pass"))
    assert m.times == pytest.approx([1e-6, 2e-6, 3e-6, 9e-6])
    assert (m.median, m.iqr, m.mean) == pytest.approx((2.5e-6, 2.75e-6, 3.75e-6))
    assert m.has_warnings and not m.meets_confidence() and m.title == "x"
    merged = Measurement.merge([m, Measurement(10, [5e-5], TaskSpec("x", "pass"))])
    assert len(merged) == 1 and merged[0].number_per_run == 1 and len(merged[0].times) == 5


@pytest.mark.parametrize("t, unit", [(5e-9, "ns"), (2.5e-6, "us"), (3e-3, "ms"), (2.0, "s")])
def test_select_unit(t, unit):
    assert select_unit(t)[0] == unit


def test_timer_runs_the_statement_with_globals_and_setup():
    calls = []
    timer = Timer(
        "f()", setup="calls.append('setup')", globals={"f": lambda: calls.append(1), "calls": calls}
    )
    m = timer.timeit(50)
    assert m.number_per_run == 50 and len(m.raw_times) == 1 and m.median > 0
    assert calls.count(1) >= 50 and "setup" in calls


def test_timer_sees_torch_as_symgrad_and_keeps_labels():
    timer = Timer(
        "x @ x",
        setup="x = torch.ones(3, 3)",
        label="matmul",
        sub_label="3x3",
        description="ones",
        num_threads=1,
    )
    m = timer.blocked_autorange(min_run_time=0.01)
    assert sum(m.raw_times) >= 0.01 and m.title == "matmul: 3x3" and m.description == "ones"
    assert "runs per measurement" in repr(m) or "1 measurement" in repr(m)
    assert Timer("symgrad.ones(1)").timeit(3).median > 0 and symgrad.utils.benchmark.Timer


def test_adaptive_autorange_stops_at_max_run_time():
    seen = []
    m = Timer("pass").adaptive_autorange(
        threshold=0.0, max_run_time=0.02, callback=lambda n, t: seen.append(n)
    )
    # a threshold of 0 is never met: blocks run until their total passes max_run_time
    assert len(m.raw_times) == len(seen) and set(seen) == {m.number_per_run}
    assert sum(m.raw_times) > 0.02 >= sum(m.raw_times[:-1])


def test_bad_timer_arguments():
    with pytest.raises(ValueError, match="str"):
        Timer(lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        Timer("pass", global_setup="int x;")
