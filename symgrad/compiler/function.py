"""A compiled function: guards, the cache of programs, the graph breaks, and the one node
(``CompiledFunctionBackward``) its results hang from.

The first call for given argument shapes, dtypes and ``requires_grad`` flags traces the
function and generates its program (:mod:`symgrad.compiler.emit`); before the program is used,
it is checked against the function run eagerly on perturbed arguments, values and gradients.
Later calls with the same guards run the program. Where the trace breaks (a value read into
Python, a write into a captured tensor, a random draw, an op that can't be compiled yet) or
the check fails, the function runs eagerly for those guards, with one warning naming the
reason; ``fullgraph=True`` raises instead.
"""

from __future__ import annotations

import functools
import operator
import warnings
import weakref
from typing import Any

import numpy as np

from symgrad._silent import silencer
from symgrad._tracing import TRACE, GraphBreak
from symgrad.autograd import anomaly, dual, grad_mode
from symgrad.autograd.node import node_class
from symgrad.compiler.checking import check as _check
from symgrad.compiler.emit import Program, ShapeChanged, build
from symgrad.compiler.numexpr_backend import fuse
from symgrad.compiler.trace import _Leaf, _Node, flatten, rebuild, trace
from symgrad.prim import batching
from symgrad.prim.primitive import Primitive, input_records
from symgrad.tensor import Tensor

__all__ = ["CompiledFunction", "CACHE_SIZE_LIMIT"]

CACHE_SIZE_LIMIT = 8  # programs per function before it runs eagerly (PyTorch's default)
_EAGER = object()
_DOUBLE_BACKWARD = (
    "symgrad.compile: the backward of a compiled function is not differentiable (no "
    "create_graph=True, no double backward); call the function without compile to take "
    "higher derivatives"
)
_NO_CLOSED_FORM = (
    "a result of a symgrad.compile'd function hangs from one CompiledFunctionBackward node, "
    "which has no closed form: call the function itself (without compile) for closed forms, "
    "derivations and pictures"
)
_grad_state = grad_mode._state
_silent_set, _silent_reset, _SILENT = silencer()
_ALL: weakref.WeakSet = weakref.WeakSet()


def clear_all() -> None:
    """Forget the programs of every compiled function."""
    for f in list(_ALL):
        f._cache.clear()
        f._last = f._last_key = None


class CompiledFunction:
    """``fn`` compiled: call it as ``fn``; ``source`` is the generated code of the last
    program used."""

    def __init__(
        self, fn: Any, fullgraph: bool = False, guard: Any = None, backend: str = "auto"
    ) -> None:
        self.fn = fn
        self.fullgraph = fullgraph
        # "numexpr": element-wise chains fused (compiler.numexpr_backend); "numpy": never the
        # scalar program on floats (compiler.scalar), which the others use where it applies
        self.backend = backend
        self._guard = guard  # extra guard values (a module's parameters and training flags)
        self._cache: dict = {}
        self._last: Any = None
        self._last_key: Any = None  # the guard of the program last run
        self._warned: set = set()
        functools.update_wrapper(self, fn)
        _ALL.add(self)

    @property
    def source(self) -> str | None:
        """The generated forward and backward code of the program last run (None before the
        first compiled call)."""
        return None if self._last is None else self._last.program.source

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if (
            TRACE.log is not None
            or batching.STATE.depth
            or anomaly._state.enabled
            or (dual.STATE.level is not None and dual.active())
        ):
            return self.fn(*args, **kwargs)  # inside another trace, vmap, anomaly or forward AD
        spec = None
        if not kwargs and _all_tensors(args):  # the common call: tensors
            leaves: Any = args
            shapes = tuple([(t._data.shape, t._data.dtype, t._requires_grad) for t in args])
        else:
            leaves = []
            shapes = _signature(args, leaves)
            if kwargs and shapes is not None:
                named = _signature(kwargs, leaves)
                shapes = None if named is None else (shapes, named)
            if shapes is None:
                leaves = []
                spec = flatten((args, kwargs), leaves)
                shapes = (
                    _hashable(spec),
                    tuple((t._data.shape, t._data.dtype, t._requires_grad) for t in leaves),
                )
        key = shapes if self._guard is None else (shapes, self._guard())
        # the last call's guard first: comparing with it skips hashing the new one (a tuple
        # hashes every shape and dtype again, NumPy's dtype hash alone costs as much as the
        # comparison of the whole guard)
        entry = self._last if key == self._last_key else self._cache.get(key)
        if (
            entry is not None
            and entry is not _EAGER
            and entry.externals
            and not entry.externals_unchanged()
        ):
            entry = None
        if entry is None:
            if len(self._cache) >= CACHE_SIZE_LIMIT:
                self._break(GraphBreak(f"more than {CACHE_SIZE_LIMIT} recompilations"))
                return self.fn(*args, **kwargs)
            if spec is None:
                leaves = []
                spec = flatten((args, kwargs), leaves)
            entry = self._compile(args, kwargs, leaves, spec)
            if type(entry) is _Failed:  # the function's own error, or one of the trace alone
                result = self.fn(*args, **kwargs)
                exc = entry.error
                self._break(GraphBreak(f"the trace failed ({type(exc).__name__}: {exc})"))
                self._cache[key] = _EAGER
                return result
            self._cache[key] = entry
        if entry is _EAGER:
            return self.fn(*args, **kwargs)
        self._last, self._last_key = entry, key
        try:
            return entry.run(leaves)
        except ShapeChanged:  # a mask selects another number of elements: eager, this call
            return self.fn(*args, **kwargs)

    # -- compiling -------------------------------------------------------------------------------
    def _compile(self, args: tuple, kwargs: dict, leaves: list, spec: Any) -> Any:
        try:
            plan, proxies, _ = trace(self.fn, args, kwargs)
            # element-wise chains fused: by numexpr, or on large arrays by NumPy in blocks
            plan = fuse(plan, "numexpr" if self.backend == "numexpr" else "numpy")
            requires = [t._requires_grad for t in leaves]
            data = [p._data for p in proxies]
            # the program runs silenced: so does its build; in grad mode, whatever the
            # caller's, so that the steps it checks compute every value the backward reads
            with np.errstate(all="ignore"), grad_mode.set_grad_enabled(True):
                program = build(plan, requires, data, scalar=self.backend != "numpy")
            entry = _Entry(plan, program, self.fn)
            _check(self.fn, entry, leaves, spec)
        except GraphBreak as exc:
            self._break(exc)
            return _EAGER
        except Exception as exc:  # noqa: BLE001 - the trace failed where eager code may not
            return _Failed(exc)
        return entry

    def _break(self, exc: GraphBreak) -> None:
        name = getattr(self.fn, "__qualname__", type(self.fn).__name__)
        if self.fullgraph:
            raise RuntimeError(
                f"symgrad.compile(fullgraph=True): {name} can't be compiled as one graph: {exc}"
            ) from None
        if exc.reason not in self._warned:
            self._warned.add(exc.reason)
            warnings.warn(
                f"symgrad.compile: {name} runs eagerly for these inputs: {exc}",
                UserWarning,
                stacklevel=4,
            )


class _Failed:
    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


class _CompiledGraph(Primitive):
    """The primitive of a compiled function's node: its backward is the program's."""

    name = "compiled_function"
    backward_name = "CompiledFunctionBackward"

    def __init__(self, entry: _Entry) -> None:
        self.entry = entry

    def outputs(self, xp: Any, inputs: tuple, params: Any) -> tuple:
        raise NotImplementedError(_NO_CLOSED_FORM)

    def local_formulas(self, node: Any) -> tuple:
        raise NotImplementedError(_NO_CLOSED_FORM)

    def apply(self, node: Any, grads: list, create_graph: bool) -> tuple:
        if create_graph:
            raise RuntimeError(_DOUBLE_BACKWARD)
        node._unpack()  # the inputs were not changed in place since (else PyTorch's error)
        params = node.params
        if len(params) > 1:  # data and outputs the backward reads: unchanged too
            for t, version in params.get("watch", ()):
                if t._counter.value != version:
                    node._raise_modified(t, version, t._counter.value)
            for counter in params.get("outs", ()):
                if counter.value:
                    node._raise_modified(None, 0, counter.value)
        program = self.entry.program
        full = grads
        if grads[0] is None if len(grads) == 1 else _any_none(grads):
            full = [
                np.zeros(shape, dtype) if g is None else g
                for g, (shape, dtype) in zip(grads, program.out_meta)
            ]
        # (the engine's pass, or one_node's, runs silenced)
        return program.backward(*full, *params["saved"])


def _picker(keys: list) -> Any:
    """A function of a sequence giving the tuple of its items at ``keys``."""
    if len(keys) > 1:
        return operator.itemgetter(*keys)
    # (itemgetter of one key gives the item, not a tuple)
    return lambda a: tuple([a[k] for k in keys])


def _all_tensors(args: tuple) -> bool:
    for a in args:  # (a loop: no generator to make at every call)
        if type(a) is not Tensor:
            return False
    return True


def _any_none(grads: list) -> bool:
    for g in grads:
        if g is None:
            return True
    return False


class _Entry:
    """One program of a compiled function, and what its calls need."""

    def __init__(self, plan: Any, program: Program, fn: Any) -> None:
        self.plan = plan
        self.program = program
        self.externals = plan.externals
        self._ext_meta = [self._meta(t) for t in plan.externals]
        self.prim = _CompiledGraph(self)
        self.any_requires = any(program.out_requires)
        self.grad_inputs = [(kind == "arg", k) for kind, k in program.grad_inputs]
        # the inputs with a gradient, picked from the arguments at each call
        self._args_only = all(arg for arg, _ in self.grad_inputs)
        self._pick = _picker([k for _, k in self.grad_inputs])
        # the node checks the version of each input whose memory the backward reads, as
        # PyTorch checks what it saved: the inputs with a gradient through its records, the
        # others (data the gradient reads, a view of it saved) and the outputs on their own
        watched = [(True, k) for k in program.watched_args]
        watched += [(False, k) for k in program.watched_ext]
        self._keep = tuple(g in watched for g in self.grad_inputs)
        self._watch = [w for w in watched if w not in self.grad_inputs]
        self._watch_pick = None
        if self._watch and all(arg for arg, _ in self._watch):
            self._watch_pick = _picker([k for _, k in self._watch])
        self._watch_outs = program.watched_outs
        # one output that requires grad and is the function's result as it is
        spec = plan.out_spec
        self._single = (
            len(program.out_meta) == 1
            and program.out_requires[0]
            and type(spec) is _Leaf
            and spec.index == 0
        )
        self.node_cls = node_class(
            "CompiledFunctionBackward", outputs=max(1, len(program.out_meta))
        )

    @staticmethod
    def _meta(t: Tensor) -> tuple:
        return (t._data.shape, t._data.dtype, t._requires_grad)

    def externals_unchanged(self) -> bool:
        """Whether the captured tensors still have the shapes, dtypes and flags traced."""
        for t, (shape, dtype, requires) in zip(self.externals, self._ext_meta):
            data = t._data  # (read in place: this runs at every call)
            if data.shape != shape or data.dtype != dtype or t._requires_grad != requires:
                return False
        return True

    def run(self, leaves: Any) -> Any:
        """The function's results for argument tensors ``leaves``."""
        program = self.program
        externals = self.externals
        token = _silent_set(_SILENT)
        try:
            if externals:
                outs, saved = program.forward(*map(_DATA, leaves), *map(_DATA, externals))
            else:
                outs, saved = program.forward(*map(_DATA, leaves))
        finally:
            _silent_reset(token)
        if not (self.any_requires and _grad_state.enabled):
            results = [Tensor._make(o) for o in outs]
            spec = self.plan.out_spec
            return results[spec.index] if type(spec) is _Leaf else rebuild(spec, results)
        if self._args_only:  # (no captured tensor among them: one C call)
            inputs = self._pick(leaves)
        else:
            inputs = [leaves[k] if arg else externals[k] for arg, k in self.grad_inputs]
        edges, kept, versions, meta, consts, held = input_records(inputs, self._keep)
        params: dict = {"saved": saved}
        watch = self._watch
        if watch:
            if self._watch_pick is not None:  # arguments only: one C call picks them
                watched = self._watch_pick(leaves)
            else:
                watched = [leaves[k] if arg else externals[k] for arg, k in watch]
            params["watch"] = [(t, t._counter.value) for t in watched]
        node = self.node_cls(self.prim, params, edges, kept, None, versions, meta, consts, held)
        if self._single:  # one output, the function's result: no list, no rebuilding
            result = Tensor._make(outs[0], node, True)
            if self._watch_outs:  # an output the backward reads: its counter, at version 0
                params["outs"] = (result._counter,)
            return result
        results = []
        for k, (o, req) in enumerate(zip(outs, program.out_requires)):
            t = Tensor._make(o, node, True) if req else Tensor._make(o)
            t._output_nr = k
            results.append(t)
        if self._watch_outs:  # outputs the backward reads: their counters, at version 0
            params["outs"] = tuple(results[k]._counter for k in self._watch_outs)
        spec = self.plan.out_spec
        if type(spec) is _Leaf:
            return results[spec.index]
        return rebuild(spec, results)


_DATA = operator.attrgetter("_data")


def _signature(obj: Any, leaves: list) -> Any:
    """The guard of the arguments ``obj`` in one pass, collecting their tensors in ``leaves``
    (in ``flatten``'s order): the structure of plain tuples, lists and dicts, each tensor's
    shape, dtype and flag, the other values themselves. None for what only ``flatten`` and
    ``_hashable`` handle (named tuples, tensor subclasses, unhashable values).

    A container's guard is one flat tuple: its type (and a dict's keys), then for each item
    a tensor's shape, dtype and flag, or None and the item's own guard (a shape is never
    None, so the two read apart)."""
    kind = type(obj)
    if kind is Tensor:
        leaves.append(obj)
        data = obj._data
        return (data.shape, data.dtype, obj._requires_grad)
    if kind is tuple or kind is list or kind is dict:
        if kind is dict:
            items: list = [dict, tuple(obj)]
            obj = obj.values()
        else:
            items = [kind]
        for v in obj:
            if type(v) is Tensor:  # (a tensor read here: one call fewer per tensor)
                leaves.append(v)
                data = v._data
                items += (data.shape, data.dtype, v._requires_grad)
            else:
                sig = _signature(v, leaves)
                if sig is None:
                    return None
                items += (None, sig)
        return tuple(items)
    if obj is None or kind in _CONSTANT_TYPES:
        return (kind, obj)
    return None


_CONSTANT_TYPES = (bool, int, float, str)


def _hashable(spec: Any) -> Any:
    if type(spec) is _Node:
        return (spec.kind, tuple(_hashable(v) for v in spec.items))
    if type(spec) is _Leaf:
        return ("tensor", spec.index)
    if type(spec) is dict:
        return ("dict", tuple((k, _hashable(v)) for k, v in spec.items()))
    try:
        hash(spec)
    except TypeError:
        return ("id", id(spec))
    return (type(spec).__name__, spec)
