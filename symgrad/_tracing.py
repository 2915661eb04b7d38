"""What ``symgrad.compile`` watches while it traces a function: the nodes the ops record, and the
things a trace can't capture (graph breaks).

While a trace runs, ``TRACE.log`` is a list: every recorded op appends its node and result. Reading
a traced tensor's values into Python (``item()``, ``bool()``, ``tolist()``, ...), writing into a
tensor the function did not make, and drawing random numbers raise :class:`GraphBreak` before
anything happens, naming the line of the user's code. Ops whose parameters or results the
values choose (``max``'s indices, a mask's key) say so with :func:`data_params` and
:func:`data_value`, so that a compiled program finds them afresh at every call. Outside a trace
every hook is one test of ``TRACE.log``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = [
    "TRACE",
    "GraphBreak",
    "escape",
    "write",
    "draw",
    "data_params",
    "data_value",
    "traced_outputs",
]


class GraphBreak(Exception):
    """The traced function did something a compiled graph can't hold (``reason``, at ``where``)."""

    def __init__(self, reason: str, where: str = "") -> None:
        super().__init__(f"{reason} ({where})" if where else reason)
        self.reason = reason
        self.where = where


class _Trace:
    __slots__ = ("log", "nodes", "inputs", "aliases", "params")

    def __init__(self) -> None:
        self.log: list | None = None  # (node, result, arrays) per traced op; None: no trace
        self.nodes: set = set()  # ids of the nodes recorded by the trace
        self.inputs: set = set()  # ids of the tensors standing for the function's arguments
        self.aliases: dict = {}  # id of a detached traced tensor -> (it, the tensor it detaches)
        self.params: dict = {}  # id of a node -> (function, tensors) making its params

    def detached(self, source: Any, t: Any) -> None:
        """``t = source.detach()``: the same values, cut from the graph."""
        if traced(source):
            self.aliases[id(t)] = (t, source)


TRACE = _Trace()

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def user_line() -> str:
    """``file:line`` of the innermost frame outside symgrad (the user's code)."""
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_PACKAGE + os.sep):
            return f"{os.path.basename(path)}, line {frame.f_lineno}"
        frame = frame.f_back
    return ""


def traced(t: Any) -> bool:
    """Whether tensor ``t`` holds values computed by the trace (or is an argument)."""
    if id(t) in TRACE.inputs or id(t) in TRACE.aliases:
        return True
    node = t.grad_fn if t.grad_fn is not None else t._origin
    return node is not None and id(node) in TRACE.nodes


def escape(t: Any, what: str) -> None:
    """``what`` reads ``t``'s values into Python: a graph break (whatever ``t`` is: a value
    computed from the arguments by an op that records nothing, a comparison, is not told
    apart from a constant)."""
    if t is not None:
        raise GraphBreak(
            f"{what} reads a tensor's value into Python, so the code that follows depends on "
            "the values (data-dependent control flow)",
            user_line(),
        )


def write(t: Any, what: str) -> None:
    """``what`` writes into ``t``: a graph break unless the trace itself made ``t``."""
    if t.grad_fn is None or id(t.grad_fn) not in TRACE.nodes or id(t) in TRACE.inputs:
        raise GraphBreak(
            f"{what} writes in place into a tensor the function did not compute (an argument, "
            "a buffer or a captured tensor)",
            user_line(),
        )


def draw(what: str = "a random op") -> None:
    """A random draw: a graph break (compiled code would repeat the same numbers)."""
    raise GraphBreak(f"{what} draws random numbers", user_line())


def hooks_at_every_call(module: str) -> None:
    """A module with hooks called in a trace: a graph break, as a program would run the hooks'
    Python at trace time only, not at every call on that call's values."""
    raise GraphBreak(
        f"{module} has hooks, Python that must run at every call on its values", user_line()
    )


def data_params(result: Any, make: Any, *tensors: Any, sized: bool = False) -> None:
    """The op that made ``result`` took parameters computed from ``tensors``' values, as
    ``make(*arrays)`` computes them (``nll_loss``'s class indices, the indices ``max`` along a
    dim picks): a compiled program computes them afresh at every call rather than keeping the
    traced ones. ``sized``: the result's shape depends on them (a mask selecting elements);
    a call where it is not the traced one runs eagerly."""
    node = result.grad_fn if result.grad_fn is not None else result._origin
    if node is not None and id(node) in TRACE.nodes and _read(tensors):
        TRACE.params[id(node)] = (make, tensors, sized)


def data_value(result: Any, make: Any, *tensors: Any, sized: bool = False) -> None:
    """``result``, a tensor no op recorded, holds ``make(*arrays)`` of ``tensors``' values (the
    indices ``sort`` returns): a compiled program computes it afresh at every call. ``sized``:
    its shape depends on the values (``nonzero``)."""
    if _read(tensors):
        node = Computed(make, tensors, sized)
        result._origin = node
        TRACE.log.append((node, result, (result._data,)))
        TRACE.nodes.add(id(node))


def _read(tensors: tuple) -> bool:
    """Whether a program reads ``tensors`` at every call: values the trace computes, or tensors
    captured from outside that require grad (parameters, which change between calls)."""
    return any(traced(t) or t._requires_grad for t in tensors)


class _Make:
    """The primitive of a :class:`Computed` value: ``make`` on the arrays."""

    __slots__ = ("make",)
    name = "from_values"
    check = None

    def __init__(self, make: Any) -> None:
        self.make = make

    def outputs(self, xp: Any, inputs: tuple, params: Any) -> tuple:
        return (self.make(*inputs),)


class Computed:
    """The origin of a tensor whose values a function of other tensors' values gives, outside
    any primitive (indices found by sorting): a step of a compiled program with no gradient."""

    __slots__ = ("prim", "params", "_edges", "_consts", "_meta", "sized")

    def __init__(self, make: Any, tensors: tuple, sized: bool) -> None:
        self.sized = sized
        self.prim = _Make(make)
        self.params: dict = {}
        self._edges = ((None, 0),) * len(tensors)
        self._consts = tensors
        self._meta = tuple((t._data.shape, t._data.dtype) for t in tensors)

    def name(self) -> str:
        return "Computed"


def traced_outputs(node: Any, outs: tuple) -> None:
    """A node with several outputs ``outs`` joins the trace."""
    TRACE.log.append((node, outs, tuple(t._data for t in outs)))
    TRACE.nodes.add(id(node))
