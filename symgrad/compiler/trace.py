"""Tracing a function into a plan: the ops it records, in order, and where their inputs come from.

The function runs once on stand-ins for its tensor arguments (copies; floating ones require
grad, so that every op on them records a node, and the others are watched so that the ops on
them keep their origin). The recorded nodes, in the order they were made, are the plan's steps;
each input of a step is an argument, the output of an earlier step, a tensor captured from
outside (a parameter, a buffer: read afresh at every call) or a number. Whatever the trace
can't hold raises :class:`~symgrad._tracing.GraphBreak`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import _tracing, random
from symgrad._tracing import TRACE, GraphBreak
from symgrad.autograd import grad_mode
from symgrad.autograd.node import AccumulateGrad
from symgrad.tensor import NAMES, Tensor

__all__ = ["Plan", "Step", "flatten", "rebuild", "trace"]


def flatten(obj: Any, leaves: list) -> Any:
    """``obj``'s structure with each tensor replaced by its index in ``leaves`` (appended)."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return _Leaf(len(leaves) - 1)
    if isinstance(obj, (tuple, list)):
        items = [flatten(v, leaves) for v in obj]
        return _Node(type(obj), items)
    if type(obj) is dict:
        return {k: flatten(v, leaves) for k, v in obj.items()}
    return obj


def rebuild(spec: Any, leaves: list) -> Any:
    """The structure ``spec`` with its tensors taken from ``leaves``."""
    if type(spec) is _Leaf:
        return leaves[spec.index]
    if type(spec) is _Node:
        items = [rebuild(v, leaves) for v in spec.items]
        if hasattr(spec.kind, "_fields"):  # a named tuple (PyTorch's return types)
            return spec.kind(*items)
        return spec.kind(items)
    if type(spec) is dict:
        return {k: rebuild(v, leaves) for k, v in spec.items()}
    return spec


class _Node:
    """A tuple or list (or a subclass: a named tuple) of ``items``."""

    __slots__ = ("kind", "items")

    def __init__(self, kind: type, items: list) -> None:
        self.kind = kind
        self.items = items

    def __eq__(self, other: Any) -> bool:
        return type(other) is _Node and (other.kind, other.items) == (self.kind, self.items)

    def __hash__(self) -> int:
        return hash((self.kind, len(self.items)))


def check_outputs(spec: Any) -> None:
    """Refuse results a program can't return afresh: only tensors, tuples, lists and dicts of
    them, and plain Python constants."""
    if type(spec) is _Node:
        for v in spec.items:
            check_outputs(v)
    elif type(spec) is dict:
        for v in spec.values():
            check_outputs(v)
    elif not (type(spec) is _Leaf or spec is None or type(spec) in _CONSTANTS):
        raise GraphBreak(
            f"the function returns a {type(spec).__name__}: a compiled function returns "
            "tensors, or tuples, lists and dicts of them"
        )


_CONSTANTS = (bool, int, float, complex, str, bytes)


class _Leaf:
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __eq__(self, other: Any) -> bool:
        return type(other) is _Leaf and other.index == self.index

    def __hash__(self) -> int:
        return hash(("leaf", self.index))


class Step:
    """One recorded op of the plan: ``outs = prim(inputs, params)``.

    ``inputs`` are keys of values (see :class:`Plan`) or ``("const", number)``; ``detached``
    marks the inputs reached through ``detach()`` (no gradient flows back through them);
    ``values`` are the outputs as the trace computed them (``value`` the first), to check the
    compiled code against; ``keys`` their keys."""

    __slots__ = (
        "node",
        "prim",
        "params",
        "inputs",
        "detached",
        "meta",
        "key",
        "value",
        "grad",
        "param_fn",
        "param_inputs",
        "sized",
        "keys",
        "values",
        "arrays",
    )

    def __init__(
        self, node: Any, inputs: list, detached: list, values: tuple, arrays: tuple
    ) -> None:
        self.node = node
        self.prim = node.prim
        self.params = node.params
        self.inputs = inputs
        self.detached = detached
        self.meta = node._meta
        self.keys = [("node", id(node), nr) for nr in range(len(values))]
        self.values = values  # the output tensors
        self.arrays = arrays  # their values as the op made them (before any in-place change)
        self.key, self.value = self.keys[0], values[0]
        self.grad = node is not values[0]._origin  # recorded, not an origin
        self.param_fn: Any = None  # params computed from tensors' values at each call
        self.param_inputs: list = []  # the keys of those tensors
        self.sized = getattr(node, "sized", False)  # whether its shape depends on values


class Plan:
    """A traced function: its steps, arguments, captured tensors and outputs.

    A value's key is ``("arg", k)`` for the k-th tensor argument, ``("ext", k)`` for the k-th
    captured tensor and ``("node", id, nr)`` for a step's output."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.externals: list[Tensor] = []
        self.out_spec: Any = None
        self.outputs: list[Any] = []  # (key, reached through detach()) per output tensor
        self._ext_index: dict[int, int] = {}
        self._nodes: dict[int, Step] = {}

    def external(self, t: Tensor) -> tuple:
        k = self._ext_index.get(id(t))
        if k is None:
            k = self._ext_index[id(t)] = len(self.externals)
            self.externals.append(t)
        return ("ext", k)


def trace(fn: Any, args: tuple, kwargs: dict) -> tuple[Plan, list, list]:
    """Run ``fn`` on stand-ins for its tensor arguments and make its plan; returns the plan,
    the stand-ins and the tensors ``fn`` returned (the trace's values)."""
    leaves: list = []
    spec = flatten((args, kwargs), leaves)
    proxies = [_stand_in(t) for t in leaves]
    p_args, p_kwargs = rebuild(spec, proxies)
    saved_rng, saved_names = random.default_generator._rng, NAMES.used
    TRACE.log, TRACE.nodes, TRACE.inputs, TRACE.aliases = [], set(), {id(p) for p in proxies}, {}
    random.default_generator._rng = _NoDraws()
    NAMES.used = True  # so that ops recording no node keep their origin (see _traced_origin)
    try:
        with grad_mode.set_grad_enabled(True):
            result = fn(*p_args, **p_kwargs)
        log, aliases, made = TRACE.log, TRACE.aliases, TRACE.params
    finally:
        TRACE.log, TRACE.nodes, TRACE.inputs, TRACE.params = None, set(), set(), {}
        random.default_generator._rng = saved_rng
        NAMES.used = saved_names
    TRACE.aliases = {}
    return _plan(log, aliases, made, proxies, result), proxies, leaves


def _stand_in(t: Tensor) -> Tensor:
    data = np.array(t._data, copy=True)
    floating = data.dtype.kind in "fc"
    return Tensor._make(data, None, floating)


class _NoDraws:
    """The default generator's NumPy generator during a trace: any draw is a graph break."""

    def __getattr__(self, name: str) -> Any:
        _tracing.draw()


def _plan(log: list, aliases: dict, made: dict, proxies: list, result: Any) -> Plan:
    plan = Plan()
    args = {id(p): k for k, p in enumerate(proxies)}

    def key_of(t: Tensor) -> tuple[tuple, bool]:
        """The key of tensor ``t``'s values and whether it was reached through detach()."""
        detached = False
        while id(t) in aliases:
            t, detached = aliases[id(t)][1], True
        if id(t) in args:
            return ("arg", args[id(t)]), detached
        node = t.grad_fn if t.grad_fn is not None else t._origin
        if node is not None and id(node) in plan._nodes:
            return ("node", id(node), t._output_nr), detached
        if node is not None and t.grad_fn is not None:
            raise GraphBreak(
                "the function uses a tensor computed outside it that has a history "
                f"({type(node).__name__}); pass it as an argument or detach it"
            )
        return plan.external(t), detached

    for node, t, arrays in log:
        if id(node) in plan._nodes:
            continue
        if getattr(node, "runs_user_code", False) or getattr(node.prim, "check", None):
            raise GraphBreak(f"{node.name()} can't be compiled yet")
        inputs, detached = [], []
        for i, (fn, nr) in enumerate(node._edges):
            if fn is None:
                const = node._consts[i] if i < len(node._consts) else None
                if isinstance(const, Tensor):
                    key, det = key_of(const)
                else:
                    key, det = ("const", const), False
            elif type(fn) is AccumulateGrad:
                key, det = key_of(fn._leaf)
            elif id(fn) in plan._nodes:
                key, det = ("node", id(fn), nr), False
            else:
                raise GraphBreak(f"{fn.name()} can't be compiled yet")
            inputs.append(key)
            detached.append(det)
        step = Step(node, inputs, detached, t if type(t) is tuple else (t,), arrays)
        if id(node) in made:
            step.param_fn, tensors, step.sized = made[id(node)]
            step.param_inputs = [key_of(x)[0] for x in tensors]
        plan._nodes[id(node)] = step
        plan.steps.append(step)
    outs: list = []
    plan.out_spec = flatten(result, outs)
    check_outputs(plan.out_spec)
    plan.outputs = [key_of(t) for t in outs]
    return plan
