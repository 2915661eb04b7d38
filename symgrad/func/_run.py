"""One run of a differentiating transform of :mod:`symgrad.func`: how deep it is among the
transforms running, and whether its results keep their graph (for an outer transform, for
inputs that require grad, or for tensors the function closes over)."""

from __future__ import annotations

import weakref
from typing import Any

from symgrad.autograd import transforms_running
from symgrad.autograd.grad_mode import inference_mode, is_grad_enabled
from symgrad.autograd.node import AccumulateGrad
from symgrad.autograd.node import _sequence as _node_sequence
from symgrad.func._pytree import tree_leaves, tree_map
from symgrad.tensor import Tensor

__all__ = ["_Transform", "stand_in"]

_depth = [0]  # transforms running now: inner ones keep the derivative's graph for outer ones
# the tensors transforms made to stand for their inputs (by id, while they live), with the
# level of the transform and the input (a leaf that requires grad for an input that requires
# none, else a copy of the input): never a tensor from outside, even for an outer transform
# whose function runs an inner one
_stand_ins: dict = {}


def stand_in(t: Tensor, source: Tensor | None = None) -> Tensor:
    """``t``, registered as made by the running transform for its input ``source`` (None:
    ``t`` is a new leaf with the input's values)."""
    key = id(t)
    ref = weakref.ref(t, lambda _, key=key: _stand_ins.pop(key, None))
    _stand_ins[key] = (ref, transforms_running.RUNNING[0], source)
    return t


def stood_for(t: Any) -> tuple | None:
    """``(level, source)`` for a tensor a transform made for one of its inputs, else None."""
    found = _stand_ins.get(id(t))
    return found[1:] if found is not None and found[0]() is t else None


# the tensors passed to a running transform's function as they are (grad's arguments not in
# argnums), by id: the levels of the transforms they were passed to, the innermost last
_passed: dict = {}


# the arguments jacrev and jacfwd pass to the function as they are, for the transform they run
_pending: list = []


def pass_along(tensors: list) -> None:
    """Give ``tensors`` to the next transform made as passed to its function as they are
    (None: forget them)."""
    _pending[:] = [] if tensors is None else [tensors]


def passed_at(t: Any) -> list:
    """The levels of the running transforms ``t`` was passed to as it is (see ``_passed``)."""
    found = _passed.get(id(t))
    return [level for level, kept in found if kept is t] if found else []


def _is_stand_in(t: Any) -> bool:
    found = stood_for(t)
    return found is not None and found[1] is None


def _held(t: Any) -> list:
    """``t`` (a tensor) and the tensors holding its values inside ``vmap``."""
    found = []
    while isinstance(t, Tensor):
        found.append(t)
        t = getattr(t, "_physical", None)
    return found


def _outer(results: Any, keep: bool) -> Any:
    """At the outermost transform, results with no graph to keep are plain tensors."""
    if keep:
        return results
    return tree_map(lambda r: r.detach() if isinstance(r, Tensor) else r, results)


class _Transform:
    """One transform's run: the depth count and whether results keep their graph (an outer
    transform's, the inputs', or that of tensors the function closes over)."""

    def __init__(self, inputs: Any, kind: str = "grad", passed: Any = ()) -> None:
        self.kind = kind  # (linearize's run traces the function: its tensors print plainly)
        # the tensors the function gets as they are: they print as this transform's
        passed = (passed, _pending.pop()) if _pending else passed
        self.passed = [p for t in tree_leaves(passed) for p in _held(t)]
        self.keep = any(isinstance(x, Tensor) and x.requires_grad for x in tree_leaves(inputs))
        self.closes = False
        self.start: int | None = None

    def __enter__(self) -> _Transform:
        if self.start is None:  # (a vjp_fn enters the run again: the first entry counts)
            self.start = next(_node_sequence)  # nodes made from now on are the transform's
            self.outer_grad = is_grad_enabled()
        _depth[0] += 1
        level = transforms_running.enter(self.kind, self.start)
        for t in self.passed:
            _passed.setdefault(id(t), []).append((level, t))
        self.nested = _depth[0] > 1
        # grad mode on and inference mode off inside, as PyTorch's transforms run (under
        # inference_mode they still differentiate)
        self.mode = inference_mode(False)
        self.mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.mode.__exit__(*exc)
        _depth[0] -= 1
        transforms_running.leave()
        for t in self.passed:
            found = _passed[id(t)]
            found.pop()
            if not found:
                del _passed[id(t)]

    def note(self, outputs: list, fresh: list) -> None:
        """Look at the function's ``outputs``: when their graph reaches a tensor made outside
        the transform that requires grad (a closed-over parameter), in grad mode, the results
        keep their graph back to it, as PyTorch's (a meta-gradient through ``grad``)."""
        if self.outer_grad and not (self.keep or self.nested):
            self.closes = _reaches_outside(outputs, {id(t) for t in fresh}, self.start)

    @property
    def create_graph(self) -> bool:
        return self.nested or self.keep or self.closes

    def finish(self, results: Any) -> Any:
        return _outer(results, self.keep or self.nested or self.closes)

    def finish_aux(self, aux: Any) -> Any:
        """The auxiliary outputs: where the results keep their graph only for the tensors the
        function closes over, each keeps it only if it reaches one of them, as PyTorch's."""
        if self.keep or self.nested or not self.closes:
            return self.finish(aux)

        def one(t: Any) -> Any:
            if isinstance(t, Tensor) and not _reaches_outside([t], set(), self.start):
                return t.detach()
            return t

        return tree_map(one, aux)


def _reaches_outside(outputs: list, fresh: set, start: Any) -> bool:
    """Whether the graph of ``outputs`` reaches a leaf other than the ``fresh`` ones (by id)
    or a node made before ``start``."""
    stack = []
    for t in outputs:
        if isinstance(t, Tensor) and t.requires_grad:
            if t.grad_fn is None:
                if id(t) not in fresh and not _is_stand_in(t):
                    return True
            else:
                stack.append(t.grad_fn)
    seen: set = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is AccumulateGrad:
            if id(node._leaf) not in fresh and not _is_stand_in(node._leaf):
                return True
            continue
        if node._seq < start:
            return True
        stack.extend(fn for fn, _ in node._edges)
    return False
