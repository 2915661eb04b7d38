"""timeit-style timing of several step functions side by side, in paired rounds.

Each step is warmed up, then given a loop count large enough for one timed run to last a
target duration (``timeit``'s autorange idea). The timed runs are then made in rounds: one run
of each step in turn per round. Runs of the same round happen within moments of each other, so
a change in machine load hits them alike; dividing each run by the reference's run of the same
round (a paired ratio) cancels most of it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Settings", "Timing", "time_side_by_side", "quartiles"]


@dataclass(frozen=True)
class Settings:
    """How long and how often to time each step."""

    rounds: int  # timed runs per step, one run of each step per round
    target: float  # seconds one timed run should last (sets the loop count)
    warmup: int = 3  # untimed calls first: the first call builds kernels and caches


@dataclass
class Timing:
    """The seconds per call of one step, one entry per round."""

    per_call: list[float]
    loops: int

    @property
    def median(self) -> float:
        """The typical time per call over the rounds."""
        return statistics.median(self.per_call)

    def paired_ratios(self, reference: Timing) -> list[float]:
        """This step's time over ``reference``'s time in the same round, round by round."""
        return [t / r for t, r in zip(self.per_call, reference.per_call, strict=True)]


def quartiles(values: list[float]) -> tuple[float, float]:
    """The first and third quartiles (the interquartile range's ends) of ``values``."""
    if len(values) < 2:
        return values[0], values[0]
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q3


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
    """Time each named step in ``settings.rounds`` rounds; returns ``{name: Timing}``."""
    loops = {}
    for name, step in steps.items():
        for _ in range(settings.warmup):
            step()
        loops[name] = _loops_for(step, settings.target)
    timings = {name: Timing([], loops[name]) for name in steps}
    for _ in range(settings.rounds):
        for name, step in steps.items():
            timings[name].per_call.append(_run(step, loops[name]) / loops[name])
    return timings
