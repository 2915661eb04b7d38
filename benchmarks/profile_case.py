"""Profile symgrad's forward+backward step of one benchmark case with cProfile.

Usage::

    python benchmarks/profile_case.py chain              # top functions by own time
    python benchmarks/profile_case.py one_layer --steps 2000 --sort cumulative
    python benchmarks/profile_case.py mlp --nodes        # forward / backward rules / engine

Times are per step (the profiled total divided by ``--steps``), so they read directly against
``run.py``'s table. cProfile adds a roughly constant cost to every Python call, so it inflates
call-heavy code: use it to rank hotspots, and ``run.py`` for the absolute times.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time

import numpy as np

# profile the symgrad of this checkout, installed or not
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from _cases import CASES  # noqa: E402
from _peers import implementations  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The case to profile, how many steps, and how to rank functions."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=[c.key for c in CASES])
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="steps to profile (default: about one second's worth)",
    )
    parser.add_argument("--sort", default="tottime", choices=["tottime", "cumulative", "ncalls"])
    parser.add_argument("--limit", type=int, default=25, help="functions to show")
    parser.add_argument(
        "--nodes",
        action="store_true",
        help="instead: split real steps into forward, each node class's "
        "backward rule and the engine",
    )
    return parser.parse_args(argv)


def symgrad_step(key: str):
    """symgrad's warmed-up step for the case called ``key``."""
    case = next(c for c in CASES if c.key == key)
    symgrad = next(i for i in implementations() if i.name == "symgrad")
    params, consts = case.inputs(np.random.default_rng(0))
    step = symgrad.prepare(case, params, consts).step
    for _ in range(3):  # the first calls build the kernels: not the steady state
        step()
    return step


def steps_for_one_second(step) -> int:
    """A step count that takes about a second unprofiled."""
    import timeit

    loops, seconds = timeit.Timer(step).autorange()
    return max(1, int(loops / seconds))


def print_per_step(profile: cProfile.Profile, steps: int, sort: str, limit: int) -> None:
    """The ``limit`` top functions, with times in microseconds per step."""
    stats = pstats.Stats(profile)
    stats.sort_stats(sort)
    print(f"{'calls/step':>10} {'own us/step':>12} {'cum us/step':>12}  function")
    for func in stats.fcn_list[:limit]:
        _, ncalls, tottime, cumtime, _ = stats.stats[func]
        print(
            f"{ncalls / steps:>10.1f} {tottime / steps * 1e6:>12.1f} "
            f"{cumtime / steps * 1e6:>12.1f}  {_where(func)}"
        )


def _where(func: tuple) -> str:
    """``symgrad/ops/_structural_primitive.py:123(__call__)``: paths shortened to the package."""
    filename, line, name = func
    for marker in ("symgrad/", "benchmarks/"):
        if marker in filename:
            filename = filename[filename.rindex(marker) :]
            break
    return f"{filename}:{line}({name})" if line else name


def recorded_graph(step) -> tuple:
    """Run ``step`` with ``Tensor.backward`` held back: (the root tensor, backward's args)."""
    import symgrad

    calls = []
    backward = symgrad.Tensor.backward
    symgrad.Tensor.backward = lambda self, *args, **kwargs: calls.append((self, args, kwargs))
    try:
        step()
    finally:
        symgrad.Tensor.backward = backward
    ((root, args, kwargs),) = calls
    return root, args, kwargs


def graph_nodes(root) -> list:
    """Every node of the graph behind ``root``, each once."""
    stack, seen = [root.grad_fn], [root.grad_fn]
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None and nxt not in seen:
                seen.append(nxt)
                stack.append(nxt)
    return seen


class _InPlaceTimer:
    """Wraps ``Tensor.backward`` and the ``apply`` of each primitive class (which runs a
    node's backward rule: the engine calls ``node.prim.apply(node, ...)``) with clocks, while
    in use; a rule's time is counted under its node's class name.

    The wrappers add about 0.2 us per node to what they measure."""

    def __init__(self, prims: list) -> None:
        import symgrad

        self.targets: list = [(symgrad.Tensor, "backward")]
        # a primitive with a NumPy shortcut holds its own apply (Structural's numeric_vjp)
        self.targets += [(prim, "apply") for prim in prims if "apply" in vars(prim)]
        classes = {type(prim) for prim in prims}
        # subclasses first, so that a class's wrapper never calls its base class's wrapper
        ordered = sorted(classes, key=lambda cls: -len(cls.__mro__))
        self.targets += [(cls, "apply") for cls in ordered]
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.saved: list = []

    def _wrap(self, owner: type, attribute: str) -> None:
        original = getattr(owner, attribute)
        # prim.apply's arguments: (the primitive,) the node, its gradients, ...
        node_at = 0 if not isinstance(owner, type) else 1

        def timed(*args, **kwargs):
            label = "backward" if attribute == "backward" else type(args[node_at]).__name__
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - start
                self.calls[label] = self.calls.get(label, 0) + 1

        self.saved.append((owner, attribute, vars(owner).get(attribute)))
        setattr(owner, attribute, timed)

    def __enter__(self) -> _InPlaceTimer:
        for owner, attribute in self.targets:
            self._wrap(owner, attribute)
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, attribute, own in reversed(self.saved):
            if own is None:  # the class inherited it: remove our shadowing wrapper
                delattr(owner, attribute)
            else:
                setattr(owner, attribute, own)


def time_in_place(step, steps: int) -> tuple[float, _InPlaceTimer]:
    """Seconds per step, and where the backward time went, over ``steps`` real steps."""
    nodes = graph_nodes(recorded_graph(step)[0])
    prims = list(
        {id(n.prim): n.prim for n in nodes if getattr(n, "prim", None) is not None}.values()
    )
    with _InPlaceTimer(prims) as timer:
        start = time.perf_counter()
        for _ in range(steps):
            step()
        total = time.perf_counter() - start
    return total / steps, timer


def print_node_times(step, steps: int, batches: int = 7) -> None:
    """Forward, the backward rule of each node class and the engine, timed inside real steps.

    The steps run in ``batches``; the fastest batch (the least disturbed) is reported."""
    total, timer = min((time_in_place(step, steps) for _ in range(batches)), key=lambda r: r[0])
    backward = timer.seconds.pop("backward") / steps * 1e6
    timer.calls.pop("backward")
    print(
        f"{total * 1e6:9.1f} us per step, of which\n"
        f"{total * 1e6 - backward:9.1f} us forward (recording the graph)\n"
        f"{backward:9.1f} us backward:\n"
    )
    print(f"{'us/step':>9} {'calls':>6} {'us/call':>8}  backward rule")
    rules = 0.0
    for label, seconds in sorted(timer.seconds.items(), key=lambda kv: -kv[1]):
        calls = timer.calls[label] / steps
        rules += seconds / steps * 1e6
        print(
            f"{seconds / steps * 1e6:9.1f} {calls:6.0f} {seconds / steps / calls * 1e6:8.2f}  "
            f"{label}.apply"
        )
    print(
        f"{backward - rules:9.1f} {'':>6} {'':>8}  engine: graph walk, buffers, "
        "accumulation into .grad"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    step = symgrad_step(args.case)
    steps = args.steps or steps_for_one_second(step)
    if args.nodes:
        print_node_times(step, max(1, steps // 5))
        return 0
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(steps):
        step()
    profile.disable()
    total = pstats.Stats(profile).total_tt
    print(f"{args.case}: {steps} steps, {total / steps * 1e6:.1f} us per step under cProfile\n")
    print_per_step(profile, steps, args.sort, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
