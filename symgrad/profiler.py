"""``torch.profiler``'s names over :mod:`symgrad.autograd.profiler`: wall-clock time per
operation and per ``record_function`` range, with PyTorch's ``schedule`` of steps
(wait, warm-up, active) and ``on_trace_ready``.

Only CPU time is measured (``activities`` may name others: there is nothing to record for
them); ``record_shapes``, ``profile_memory``, ``with_stack``, ``with_flops`` and
``with_modules`` are accepted and record nothing more.

Examples
--------
>>> import symgrad
>>> from symgrad.profiler import ProfilerActivity, profile, record_function
>>> with profile(activities=[ProfilerActivity.CPU]) as prof:
...     with record_function("forward"):
...         y = (symgrad.ones(3) * 2).sum()
>>> sorted(e.key for e in prof.key_averages())
['forward', 'mul', 'sum']
"""

from __future__ import annotations

import enum
import os
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from symgrad.autograd import profiler as _autograd_profiler
from symgrad.autograd.profiler import EventList, record_function

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    """What a profile records (symgrad measures CPU time only)."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a profile does at a step of its :func:`schedule`."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    """The activities symgrad can record: the CPU."""
    return {ProfilerActivity.CPU}


def schedule(
    *, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0, **_: Any
) -> Callable[[int], ProfilerAction]:
    """PyTorch's step schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle steps,
    ``warmup`` steps and ``active`` recorded steps (the last saves: ``on_trace_ready``),
    ``repeat`` times (0: for ever).

    Examples
    --------
    >>> from symgrad.profiler import schedule
    >>> s = schedule(wait=1, warmup=1, active=2)
    >>> [s(k).name for k in range(4)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE']
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError(
            f"schedule(): wait ({wait}), warmup ({warmup}), repeat ({repeat}) and skip_first "
            f"({skip_first}) must be >= 0 and active ({active}) > 0"
        )
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )
    cycle = wait + warmup + active

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        place = step % cycle
        if place < wait:
            return ProfilerAction.NONE
        if place < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if place < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _always(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(
    dir_name: str, worker_name: str | None = None, use_gzip: bool = False
) -> Callable:
    """An ``on_trace_ready`` that writes each saved cycle as a Chrome trace
    (``<worker>.<ms>.pt.trace.json``) into ``dir_name``."""

    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{os.uname().nodename}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler


class profile:  # noqa: N801 - PyTorch's name
    """Time the operations and ``record_function`` ranges inside ``with profile(...):``;
    with a ``schedule``, only the steps it marks as recording (call :meth:`step` after each
    step), and ``on_trace_ready(prof)`` at the end of each active cycle."""

    def __init__(
        self,
        *,
        activities: Iterable | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable | None = None,
        **options: Any,
    ) -> None:
        self.activities = set(activities) if activities is not None else supported_activities()
        self.schedule = schedule or _always
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self._current: _autograd_profiler.profile | None = None
        self._done: _autograd_profiler.profile | None = None

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> None:
        """Begin profiling at step 0 (what ``with`` does)."""
        self._enter(self.schedule(self.step_num))

    def stop(self) -> None:
        """End profiling; a recording cycle ends here too (``on_trace_ready`` is called)."""
        if self._current is not None:
            self._finish()

    def step(self) -> None:
        """Mark the end of a step: the schedule's next action begins."""
        before = self.schedule(self.step_num)
        self.step_num += 1
        after = self.schedule(self.step_num)
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if before is ProfilerAction.RECORD_AND_SAVE or (
            before in recording and after not in recording
        ):
            self._finish()
        if self._current is None:
            self._enter(after)

    def _enter(self, action: ProfilerAction) -> None:
        if action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._current = _autograd_profiler.profile()
            self._current.__enter__()

    def _finish(self) -> None:
        current, self._current = self._current, None
        if current is None:
            return
        current.__exit__(None, None, None)
        self._done = current
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _profile(self) -> _autograd_profiler.profile:
        found = self._current or self._done
        if found is None:
            raise RuntimeError(
                "profile: nothing was recorded yet (the schedule has not reached an active "
                "step); read the results in on_trace_ready or after the with block"
            )
        return found

    def key_averages(self, group_by_input_shape: bool = False, **options: Any) -> EventList:
        """The recorded calls summed by name (``.table(sort_by=..., row_limit=...)``)."""
        return self._profile().key_averages(group_by_input_shape, **options)

    def events(self) -> list:
        """The recorded calls: ``(name, start_us, duration_us)``."""
        return self._profile().events()

    def export_chrome_trace(self, path: str) -> None:
        """Write the recorded calls as a Chrome trace to ``path``."""
        self._profile().export_chrome_trace(path)
