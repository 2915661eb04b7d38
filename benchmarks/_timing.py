"""timeit-style timing of several step functions side by side.

Each step is warmed up, then given a loop count large enough for one timed run to last a
target duration (``timeit``'s autorange idea). The timed runs of all steps are interleaved, one
run of each in turn, so that a change in machine load during the benchmark hits every
implementation alike instead of skewing the ratios.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Settings", "Timing", "time_side_by_side"]


@dataclass(frozen=True)
class Settings:
    """How long and how often to time each step."""

    repeats: int  # timed runs per step; the reported time is the fastest
    target: float  # seconds one timed run should last (sets the loop count)
    warmup: int = 3  # untimed calls first: the first call builds kernels and caches


@dataclass
class Timing:
    """The seconds per call of one step, over the timed runs."""

    per_call: list[float]
    loops: int

    @property
    def best(self) -> float:
        """The reported time: the fastest run is the one least disturbed by other processes
        (their interference only ever adds time), so it is the most repeatable estimate."""
        return min(self.per_call)

    @property
    def median(self) -> float:
        """The typical run, shown alongside: far above ``best`` means a disturbed run."""
        return statistics.median(self.per_call)


def _loops_for(step: Callable[[], object], target: float) -> int:
    """The loop count (1, 2, 5, 10, 20, ...) for which one run lasts at least ``target``."""
    loops = 1
    while True:
        for factor in (1, 2, 5):
            n = loops * factor
            if _run(step, n) >= target:
                return n
        loops *= 10


def _run(step: Callable[[], object], loops: int) -> float:
    """Seconds taken by ``loops`` back-to-back calls of ``step``."""
    start = time.perf_counter()
    for _ in range(loops):
        step()
    return time.perf_counter() - start


def time_side_by_side(steps: dict[str, Callable[[], object]], settings: Settings) -> dict:
    """Time each named step; returns ``{name: Timing}``."""
    loops = {}
    for name, step in steps.items():
        for _ in range(settings.warmup):
            step()
        loops[name] = _loops_for(step, settings.target)
    timings = {name: Timing([], loops[name]) for name in steps}
    for _ in range(settings.repeats):
        for name, step in steps.items():
            timings[name].per_call.append(_run(step, loops[name]) / loops[name])
    return timings
