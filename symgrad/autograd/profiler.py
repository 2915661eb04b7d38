"""``torch.autograd.profiler``, small: wall-clock time per operation and per
``record_function`` range, summed by name in ``key_averages().table()``.

While a :class:`profile` is active, every call of a primitive (``mul``, ``sum``, ``softmax``,
...: symgrad's names, not PyTorch's ``aten::`` ones) is timed, its time within other ranges
counted as theirs too (``CPU total``) but not as their own (``Self CPU``). Composite
functions show as the primitives they run. The backward pass is not split by operation: time
spent in ``backward()`` counts in the enclosing ``record_function`` range. Times are
``time.perf_counter`` wall-clock, of the profiling thread and any other thread running ops
meanwhile; there is no device, memory, shape or FLOP accounting.

Examples
--------
>>> import symgrad
>>> from symgrad.autograd import profiler
>>> with profiler.profile() as prof:
...     with profiler.record_function("step"):
...         y = (symgrad.ones(3) * 2).sum()
>>> sorted(e.key for e in prof.key_averages())
['mul', 'step', 'sum']
>>> prof.key_averages().table(sort_by="cpu_time_total").splitlines()[1].split()[:3]
['Name', 'Self', 'CPU']
"""

from __future__ import annotations

import functools
import json
import time
from typing import Any

from symgrad.prim.elementwise import Elementwise
from symgrad.prim.structural import Structural

__all__ = ["profile", "record_function", "EventList", "FunctionEventAvg"]


class _Event:
    __slots__ = ("name", "start", "end", "child")

    def __init__(self, name: str, start: int) -> None:
        self.name, self.start, self.end, self.child = name, start, start, 0


class FunctionEventAvg:
    """The calls of one name summed: ``key``, ``count``, ``cpu_time_total`` and
    ``self_cpu_time_total`` (microseconds), ``cpu_time`` (the mean per call)."""

    def __init__(self, key: str) -> None:
        self.key, self.count = key, 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={_format(self.self_cpu_time_total)}"
            f" cpu_time={_format(self.cpu_time)} count={self.count}>"
        )


def _format(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class EventList(list):
    """A list of :class:`FunctionEventAvg` with :meth:`table`."""

    def table(self, sort_by: str | None = None, row_limit: int = 100, **_: Any) -> str:
        """The events as PyTorch's text table, sorted by ``sort_by`` (``"cpu_time_total"``,
        ``"self_cpu_time_total"``, ``"cpu_time"``, ``"count"``; descending), at most
        ``row_limit`` rows."""
        rows = list(self)
        if sort_by is not None:
            known = ("cpu_time_total", "self_cpu_time_total", "cpu_time", "count")
            if sort_by not in known:
                raise AttributeError(f"sort_by must be one of {', '.join(known)}, got {sort_by!r}")
            rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        total = sum(e.self_cpu_time_total for e in self) or 1.0
        heads = ("Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls")
        width = max([len("Name"), *(len(e.key) for e in rows)]) + 2
        rule = "-" * width + "  " + "  ".join("-" * 12 for _ in heads) + "  "
        lines = [rule, f"{'Name':>{width}}  " + "".join(f"{h:>12}  " for h in heads), rule]
        for e in rows:
            cells = (
                f"{100 * e.self_cpu_time_total / total:.2f}%",
                _format(e.self_cpu_time_total),
                f"{100 * e.cpu_time_total / total:.2f}%",
                _format(e.cpu_time_total),
                _format(e.cpu_time),
                str(e.count),
            )
            lines.append(f"{e.key:>{width}}  " + "".join(f"{c:>12}  " for c in cells))
        lines += [rule, f"Self CPU time total: {_format(sum(e.self_cpu_time_total for e in self))}"]
        return "\n".join(lines) + "\n"


# -- recording --------------------------------------------------------------------------------
_active: list[profile] = []
_originals: dict[type, Any] = {}


def _timed(original: Any) -> Any:
    @functools.wraps(original)
    def call(prim: Any, *args: Any, **kwargs: Any) -> Any:
        if not _active:
            return original(prim, *args, **kwargs)
        event = _open(prim.name)
        try:
            return original(prim, *args, **kwargs)
        finally:
            _close(event)

    return call


def _install() -> None:
    for cls in (Elementwise, Structural):
        _originals[cls] = cls.__call__
        cls.__call__ = _timed(cls.__call__)  # type: ignore[method-assign]


def _uninstall() -> None:
    for cls, original in _originals.items():
        cls.__call__ = original  # type: ignore[method-assign]
    _originals.clear()


def _open(name: str) -> _Event | None:
    if not _active:
        return None
    prof = _active[-1]
    event = _Event(name, time.perf_counter_ns())
    prof._stack.append(event)
    return event


def _close(event: _Event | None) -> None:
    if event is None or not _active:
        return
    prof = _active[-1]
    event.end = time.perf_counter_ns()
    if prof._stack and prof._stack[-1] is event:
        prof._stack.pop()
        if prof._stack:
            prof._stack[-1].child += event.end - event.start
    prof._events.append(event)


class profile:  # noqa: N801 - PyTorch's name
    """Time the operations and ``record_function`` ranges run inside ``with profile():``;
    read them with :meth:`key_averages` (``.table()``) or :meth:`export_chrome_trace`. Only
    ``enabled`` changes anything among PyTorch's options; the others are accepted."""

    def __init__(self, enabled: bool = True, **options: Any) -> None:
        self.enabled = enabled
        self._events: list[_Event] = []
        self._stack: list[_Event] = []

    def __enter__(self) -> profile:
        if self.enabled:
            if not _active:
                _install()
            _active.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.enabled and self in _active:
            _active.remove(self)
            if not _active:
                _uninstall()

    def events(self) -> list:
        """The recorded calls, in the order they ended: ``(name, start_us, duration_us)``."""
        return [(e.name, e.start / 1e3, (e.end - e.start) / 1e3) for e in self._events]

    def key_averages(self, group_by_input_shape: bool = False, **_: Any) -> EventList:
        """The calls summed by name, in the order each name first started."""
        by_name: dict[str, FunctionEventAvg] = {}
        for e in sorted(self._events, key=lambda e: e.start):
            avg = by_name.get(e.name) or by_name.setdefault(e.name, FunctionEventAvg(e.name))
            avg.count += 1
            avg.cpu_time_total += (e.end - e.start) / 1e3
            avg.self_cpu_time_total += (e.end - e.start - e.child) / 1e3
        return EventList(by_name.values())

    def table(self, **options: Any) -> str:
        """``key_averages().table(**options)``."""
        return self.key_averages().table(**options)

    def export_chrome_trace(self, path: str) -> None:
        """Write the calls as a Chrome trace (``chrome://tracing``, Perfetto) to ``path``."""
        trace = [
            {"name": e.name, "ph": "X", "ts": e.start / 1e3, "dur": (e.end - e.start) / 1e3,
             "pid": 0, "tid": 0, "cat": "cpu_op"}
            for e in self._events
        ]  # fmt: skip
        with open(path, "w") as file:
            json.dump({"traceEvents": trace}, file)


class record_function:  # noqa: N801 - PyTorch's name
    """A named range of the profile (a context manager, or a decorator); outside a
    :class:`profile` it records nothing."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self._event: _Event | None = None

    def __enter__(self) -> record_function:
        self._event = _open(self.name)
        return self

    def __exit__(self, *exc: Any) -> None:
        _close(self._event)
        self._event = None

    def __call__(self, func: Any) -> Any:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name):
                return func(*args, **kwargs)

        return wrapped
