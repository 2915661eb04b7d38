"""symgrad.jit (scripting and tracing leave code eager) and symgrad.profiler (PyTorch's
schedule of steps over the autograd profiler)."""

from __future__ import annotations

import json
import os

import pytest

import symgrad
from symgrad import jit, profiler


def test_script_and_trace_return_what_they_are_given() -> None:
    def f(x):  # noqa: ANN001, ANN202
        return x * 2

    layer = symgrad.nn.Linear(2, 1)
    assert jit.script(f) is f and jit.script(layer) is layer
    calls = []
    traced = jit.trace(lambda x, y: calls.append(1) or x + y, (symgrad.ones(1), symgrad.ones(1)))
    assert calls == [1] and traced(symgrad.ones(1), symgrad.ones(1)).tolist() == [2.0]
    assert jit.trace_module(layer, {"forward": symgrad.ones(2)}) is layer
    with pytest.raises(RuntimeError, match="example_inputs"):
        jit.trace(f)
    assert not jit.is_scripting() and not jit.is_tracing()
    assert not isinstance(layer, jit.ScriptModule)


def test_decorators_and_annotations() -> None:
    @jit.ignore
    def a() -> int:
        return 1

    @jit.unused(drop=True)
    def b() -> int:
        return 2

    assert a() == 1 and b() == 2 and jit.export(a) is a
    assert jit.annotate(list, [3]) == [3]
    attribute = jit.Attribute(3, int)
    assert attribute.value == 3 and attribute.type is int
    assert jit.wait(jit.fork(lambda x: x + 1, 1)) == 2


def test_save_writes_and_load_refuses_with_the_way(tmp_path) -> None:  # noqa: ANN001
    layer = symgrad.nn.Linear(2, 1)
    path = os.path.join(tmp_path, "m.pt")
    jit.save(layer, path)
    with pytest.raises(RuntimeError, match="weights_only=False"):
        jit.load(path)
    back = symgrad.load(path, weights_only=False)
    assert back.weight.tolist() == layer.weight.tolist()


def test_schedule_is_pytorchs() -> None:
    s = profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    assert [s(k).name for k in range(6)] == [
        "NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE", "NONE", "NONE",
    ]  # fmt: skip
    with pytest.warns(UserWarning, match="warmup"):
        s = profiler.schedule(wait=0, warmup=0, active=1, repeat=2, skip_first=1)
    assert [s(k).name for k in range(4)] == ["NONE", "RECORD_AND_SAVE", "RECORD_AND_SAVE", "NONE"]
    with pytest.raises(ValueError, match="active"):
        profiler.schedule(wait=0, warmup=1, active=0)


def test_profile_records_the_active_steps_only(tmp_path) -> None:  # noqa: ANN001
    seen = []

    def ready(prof: profiler.profile) -> None:
        seen.append(sorted(e.key for e in prof.key_averages()))

    plan = profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    with profiler.profile(schedule=plan, on_trace_ready=ready) as prof:
        for i in range(6):
            with profiler.record_function(f"step{i}"):
                (symgrad.ones(2) * 2).sum()
            prof.step()
    assert seen == [["mul", "step2", "step3", "sum"]]
    handler = profiler.tensorboard_trace_handler(str(tmp_path), worker_name="w")
    with profiler.profile(activities=[profiler.ProfilerActivity.CPU]) as prof:
        symgrad.ones(2).exp()
    handler(prof)
    (name,) = os.listdir(tmp_path)
    assert name.startswith("w.") and name.endswith(".pt.trace.json")
    with open(os.path.join(tmp_path, name)) as f:
        assert [e["name"] for e in json.load(f)["traceEvents"]] == ["exp"]


def test_results_before_any_active_step_raise() -> None:
    plan = profiler.schedule(wait=5, warmup=1, active=1)
    with profiler.profile(schedule=plan) as prof:
        with pytest.raises(RuntimeError, match="nothing was recorded"):
            prof.key_averages()
