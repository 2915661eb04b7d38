"""``symgrad.utils.benchmark``: PyTorch's ``Timer`` and ``Measurement``, on Python's timeit.

``Timer(stmt, setup, globals=...)`` times a statement as ``torch.utils.benchmark.Timer`` does:
``timeit(number)`` runs it ``number`` times once, ``blocked_autorange()`` repeats blocks of runs
for at least ``min_run_time`` seconds, and ``adaptive_autorange()`` until the spread of the
blocks is small. Each returns a :class:`Measurement` printed as PyTorch prints it (median, IQR,
number of measurements and runs). The statement sees ``torch`` and ``symgrad`` (both this
package) unless ``globals`` names them.

Examples
--------
>>> import symgrad
>>> from symgrad.utils import benchmark
>>> timer = benchmark.Timer("x * y", globals={"x": symgrad.ones(3), "y": symgrad.ones(3)})
>>> m = timer.timeit(100)
>>> m.number_per_run, len(m.times), m.median > 0
(100, 1, True)
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
import timeit as _timeit
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = ["Timer", "Measurement", "TaskSpec", "select_unit"]

_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What a :class:`Timer` measures: the statement, its setup and its labels."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (or the statement) and the sub-label, as PyTorch heads a measurement."""
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        paren = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{paren}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        """The setup as a measurement prints it ("" for none)."""
        if self.setup in ("", "pass"):
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The title, description and setup, one per line."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


def select_unit(t: float) -> tuple[str, float]:
    """The unit (``"ns"``, ``"us"``, ``"ms"`` or ``"s"``) and its scale for a time ``t``.

    Examples
    --------
    >>> from symgrad.utils.benchmark import select_unit
    >>> select_unit(2.5e-6)
    ('us', 1e-06)
    """
    exponent = int(math.log10(t) // 3) if t > 0 else -3
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


@dataclasses.dataclass(repr=False)
class Measurement:
    """The times of one or more blocks of ``number_per_run`` runs of a statement.

    ``times`` are per run; ``median``, ``mean`` and ``iqr`` summarise them (quantiles
    interpolated linearly, as PyTorch's).
    """

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict | None = None

    @property
    def times(self) -> list[float]:
        """The time of one run, for each block."""
        return [t / self.number_per_run for t in self.raw_times]

    def _quantile(self, q: float) -> float:
        return float(np.quantile(np.array(self.times, dtype=np.float64), q))

    @property
    def median(self) -> float:
        return self._quantile(0.5)

    @property
    def mean(self) -> float:
        return float(np.mean(self.times))

    @property
    def iqr(self) -> float:
        return self._quantile(0.75) - self._quantile(0.25)

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def description(self) -> str | None:
        return self.task_spec.description

    @property
    def num_threads(self) -> int:
        return self.task_spec.num_threads

    @property
    def as_row_name(self) -> str:
        return self.task_spec.sub_label or self.task_spec.stmt or "[Unknown]"

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether the IQR is below ``threshold`` times the median."""
        return self.iqr / self.median < threshold

    @property
    def _warnings(self) -> list[str]:
        if self.meets_confidence(_IQR_WARN_THRESHOLD):
            return []
        msg = (
            "This suggests significant environmental influence."
            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD)
            else "This could indicate system fluctuation."
        )
        rel_iqr = self.iqr / self.median * 100
        return [
            f"  WARNING: Interquartile range is {rel_iqr:.1f}% of the median measurement.\n"
            f"           {msg}"
        ]

    @property
    def has_warnings(self) -> bool:
        """Whether the spread of the blocks is large (see the printed warning)."""
        return bool(self._warnings)

    def __repr__(self) -> str:
        n = len(self.raw_times)
        unit, scale = select_unit(self.median)
        lines = [object.__repr__(self), self.task_spec.summarize()]
        lines.append(f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}")
        if n >= 4:
            p25, p75 = self._quantile(0.25) / scale, self._quantile(0.75) / scale
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({p25:.2f} to {p75:.2f})")
        per = "per measurement," if n > 1 else ","
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs {per} {threads}"
        )
        lines.extend(self._warnings)
        return "\n".join(line for line in "\n".join(lines).splitlines())

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """One measurement per task, its times per run pooled (``number_per_run`` 1)."""
        groups: dict[TaskSpec, list[float]] = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(1, times, spec) for spec, times in groups.items()]


def _clean(code: str) -> str:
    code = textwrap.dedent(code)
    return (code[1:] if code[:1] == "\n" else code).rstrip()


class Timer:
    """Time ``stmt`` (a string of Python) after running ``setup`` once, with ``globals``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.utils.benchmark import Timer
    >>> t = Timer("a @ a", setup="a = torch.ones(4, 4)", label="matmul", sub_label="4x4")
    >>> m = t.blocked_autorange(min_run_time=0.01)
    >>> m.title, m.number_per_run >= 1
    ('matmul: 4x4', True)
    """

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = _timeit.default_timer,
        globals: dict | None = None,  # noqa: A002 - PyTorch's name
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: str = "python",
    ) -> None:
        import symgrad

        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in ("python", "py"):
            raise ValueError(f"symgrad times Python statements only, got language {language!r}")
        if global_setup:
            raise ValueError(
                f"global_setup is C++ only, got `{global_setup}`. Most likely this code can "
                "simply be moved to `setup`."
            )
        scope = dict(globals or {})  # a copy: timeit's exec adds __builtins__
        scope.setdefault("torch", symgrad)
        scope.setdefault("symgrad", symgrad)
        stmt, setup = _clean(stmt), _clean(setup)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=scope)
        self._task_spec = TaskSpec(
            stmt, setup, global_setup, label, sub_label, description, env, num_threads
        )

    def _time(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)  # never 0: times are divided

    def timeit(self, number: int = 1000000) -> Measurement:
        """Run the statement ``number`` times (after a warm-up), as one measurement."""
        self._time(max(number // 100, 2))
        return Measurement(number, [self._time(number)], self._task_spec)

    def _block_size(self, min_run_time: float) -> int:
        overhead = float(np.median([self._time(0) for _ in range(5)]))
        number = 1
        while True:
            taken = self._time(number)
            if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) or (
                taken > min_run_time or number * 10 > 2147483647
            ):
                return number
            number *= 10

    def _loop(
        self,
        number: int,
        stop: Callable[[list[float]], bool],
        min_run_time: float,
        max_run_time: float | None,
        callback: Callable[[int, float], Any] | None,
    ) -> Measurement:
        times: list[float] = []
        total, can_stop = 0.0, False
        while total < min_run_time or not can_stop:
            spent = self._time(number)
            times.append(spent)
            total += spent
            if callback:
                callback(number, spent)
            can_stop = stop(times)
            if max_run_time and total > max_run_time:
                break
        return Measurement(number, times, self._task_spec)

    def blocked_autorange(
        self, callback: Callable[[int, float], Any] | None = None, min_run_time: float = 0.2
    ) -> Measurement:
        """Blocks of runs, sized so the timer's overhead is negligible, for ``min_run_time``
        seconds at least."""
        number = self._block_size(min_run_time)
        return self._loop(number, lambda times: True, min_run_time, None, callback)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback: Callable[[int, float], Any] | None = None,
    ) -> Measurement:
        """Blocks of runs until their IQR is below ``threshold`` times their median (after at
        least 4 blocks and ``min_run_time`` seconds), or ``max_run_time`` seconds."""
        number = self._block_size(0.05)

        def stop(times: list[float]) -> bool:
            if len(times) <= 3:
                return False
            return Measurement(number, times, self._task_spec).meets_confidence(threshold)

        return self._loop(number, stop, min_run_time, max_run_time, callback)
