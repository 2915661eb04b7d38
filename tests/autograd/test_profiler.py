"""autograd.profiler: ranges and operations timed, summed by name, nested self times, and
the primitives left untouched outside a profile."""

from __future__ import annotations

import json

import symgrad
from symgrad.autograd import profiler
from symgrad.prim.elementwise import Elementwise
from symgrad.prim.structural import Structural


def test_operations_and_ranges_are_counted():
    original = (Elementwise.__call__, Structural.__call__)
    with profiler.profile() as prof:
        with profiler.record_function("outer"):
            x = symgrad.ones(3, requires_grad=True)
            for _ in range(2):
                y = (x * 2).sum()
            y.backward()
    assert (Elementwise.__call__, Structural.__call__) == original  # restored
    events = {e.key: e for e in prof.key_averages()}
    assert events["mul"].count == 2 and events["sum"].count == 2 and events["outer"].count == 1
    outer = events["outer"]
    inner = events["mul"].cpu_time_total + events["sum"].cpu_time_total
    assert outer.cpu_time_total >= inner
    assert abs(outer.self_cpu_time_total - (outer.cpu_time_total - inner)) < 1.0
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=2)
    assert table.splitlines()[3].split()[0] == "outer" and "Self CPU time total" in table
    assert len(table.splitlines()) == 7  # rules, header, two rows, footer


def test_nothing_recorded_outside_or_when_disabled():
    with profiler.record_function("alone"):
        symgrad.ones(2) * 2
    with profiler.profile(enabled=False) as prof:
        symgrad.ones(2) * 2
    assert list(prof.key_averages()) == []


def test_decorator_and_trace(tmp_path):
    @profiler.record_function("step")
    def step():
        return symgrad.ones(2).exp()

    with profiler.profile() as prof:
        step()
    assert [name for name, _, _ in prof.events()] == ["exp", "step"]
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    assert {e["name"] for e in json.loads(path.read_text())["traceEvents"]} == {"exp", "step"}


def test_reachable_as_pytorch_spells_it():
    import importlib

    assert importlib.import_module("symgrad.autograd.profiler") is symgrad.autograd.profiler
    assert symgrad.autograd.profiler.profile is profiler.profile
