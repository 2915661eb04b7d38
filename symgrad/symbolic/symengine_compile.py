"""Numeric functions compiled by SymEngine: ``lambdify(..., backend="symengine")`` and
``compile_gradient(..., backend="symengine")``.

SymEngine's ``Lambdify`` (common sub-expressions shared, ``cse=True``) evaluates the closed
forms; the result is a :class:`~symgrad.symbolic.compiled.CompiledFunction` (same calling
conventions: one array per leaf, leading batch dimensions, ``batch=`` and ``reduction=``).
``compile_gradient`` replays the graph on SymEngine and compiles the gradient without ever
building SymPy expressions, the fastest way from a traced computation to a gradient function.
Formulas holding a function SymEngine cannot evaluate (softplus, silu, mish, logsigmoid,
erfinv, lgamma, digamma) are compiled by the NumPy backend instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from symgrad._silent import quiet
from symgrad.symbolic.chunked import joined_batch
from symgrad.symbolic.compiled import CompiledFunction
from symgrad.symbolic.names import symbol_array_of
from symgrad.symbolic.symengine_convert import Bridge

__all__ = [
    "SymEngineFunction",
    "NoSymEngineKernel",
    "symengine_lambdify",
    "symengine_compile_gradient",
]


class NoSymEngineKernel(NotImplementedError):
    """SymEngine cannot evaluate a function of the formulas (softplus, erfinv, lgamma, ...):
    the caller compiles them with NumPy instead."""


class SymEngineFunction(CompiledFunction):
    """A :class:`~symgrad.symbolic.compiled.CompiledFunction` evaluated by SymEngine's
    ``Lambdify``; ``source`` describes it (SymEngine compiles no Python source), and
    ``c_source()`` prints the formulas as SymPy would (converted on first use)."""

    def __init__(
        self, bridge: Bridge, args: list, outputs: list, leaves: list, shapes: list, single: bool
    ) -> None:
        se = bridge.se
        self._bridge = bridge
        self._se_outputs = outputs
        try:
            self._lambdified = se.Lambdify(args, outputs, backend="lambda", cse=True, real=True)
        except RuntimeError as exc:  # a function SymEngine holds but can't evaluate
            raise NoSymEngineKernel(str(exc)) from None
        self._count = len(outputs)
        self._fn = quiet(self._evaluate_flat)
        self._run = quiet(self._lambdified)
        self._leaves = leaves
        self._shapes = shapes
        self._single = single
        self._converted: list | None = None
        self.source = (
            f"SymEngine Lambdify of {len(outputs)} output element(s) in {len(args)} argument "
            "element(s), common sub-expressions shared"
        )
        self.extra_tensors: list = []
        names = [f"a{i}" for i in range(len(args))]
        self.arguments = [(n, s) for n, s in zip(names, (s for ss, _ in leaves for s in ss))]
        self.batch_arguments: list[int] = []
        self.reduction: str | None = None
        self._per_sample_outputs: list[bool] = []

    def _evaluate(self, data: list) -> tuple[list, tuple]:
        """As :meth:`CompiledFunction._evaluate`, with each argument's elements handed over
        as one block (SymEngine's function takes them side by side in the last axis)."""
        blocks, batch = [], ()
        for k, (a, (_, shape)) in enumerate(zip(data, self._leaves)):
            a = a.astype(np.float64, copy=False)
            lead = self._leading(k, a, shape)
            batch = joined_batch(batch, lead, k)
            blocks.append(a.reshape(lead + (int(np.prod(shape)),)))  # (empty batches too)
        if not blocks:
            return super()._evaluate(data)
        if 0 in batch:  # no sample (SymEngine's function refuses an empty block)
            return [np.zeros(batch + shape) for shape in self._shapes], batch
        stacked = np.concatenate([np.broadcast_to(b, batch + b.shape[-1:]) for b in blocks], -1)
        values = np.asarray(self._run(stacked)).reshape(batch + (-1,))
        results, start = [], 0
        for shape in self._shapes:
            n = int(np.prod(shape)) if shape else 1
            results.append(values[..., start : start + n].reshape(batch + shape))
            start += n
        return results, batch

    def _evaluate_flat(self, *args: Any) -> list:
        if not args:
            values = self._lambdified(np.zeros(0))
            return [values[k] for k in range(self._count)]
        stacked = np.stack(np.broadcast_arrays(*args), axis=-1)
        values = np.asarray(self._lambdified(stacked)).reshape(stacked.shape[:-1] + (-1,))
        return [values[..., k] for k in range(self._count)]

    # the formulas as SymPy, for c_source(): converted only when asked
    @property
    def _program(self) -> tuple:  # type: ignore[override]
        if self._converted is None:
            found, _ = self._bridge.sympy_array(np.array(self._se_outputs, dtype=object))
            bridge = self._bridge
            symbols = [
                s if isinstance(s, sp.Basic) else bridge.to_sympy(s)[0]
                for ss, _ in self._leaves
                for s in ss
            ]
            rename = {s: sp.Symbol(f"a{i}", real=True) for i, s in enumerate(symbols)}
            self._converted = [e.xreplace(rename) for e in found]
        return [], self._converted


def symengine_lambdify(
    replacements: list, flat: list, shapes: list, single: bool, leaf_info: list
) -> SymEngineFunction:
    """``lambdify`` on SymEngine: the flat SymPy closed forms (with their replacements, in
    order) of outputs of ``shapes``, as functions of the leaves' symbols in ``leaf_info``."""
    bridge = Bridge()
    known: dict = {}
    for s, d in replacements:  # inline, in order: SymEngine shares the repeated parts
        known[bridge.to_se(s)] = _substituted(bridge.to_se(d), known)
    outputs = [_substituted(bridge.to_se(e), known) for e in flat]
    args = [bridge.to_se(s) for ss, _ in leaf_info for s in ss]
    _check_free(outputs, args)
    return SymEngineFunction(bridge, args, outputs, leaf_info, shapes, single)


def _substituted(e: Any, known: dict) -> Any:
    if not known:
        return e
    used = {s: known[s] for s in e.free_symbols if s in known}
    return e.subs(used) if used else e


def _check_free(outputs: list, args: list) -> None:
    free = set().union(*(e.free_symbols for e in outputs)) if outputs else set()
    unknown = free - set(args)
    if unknown:
        raise ValueError(
            f"the expressions use symbols that are not among the leaves: "
            f"{sorted(map(str, unknown))}; pass every tensor they depend on"
        )


def _symbols_of(replay: Any, t: Any) -> tuple[list, tuple]:
    """The SymPy symbols of a leaf as the replay made them, and its shape."""
    found = replay._symbols.get(id(t))
    if found is None:
        found = symbol_array_of(t)
    return list(found.flat)[: 1 if t.numel() == 1 else None], tuple(t.shape)


def symengine_compile_gradient(
    y: Any, xs_list: list, single: bool
) -> tuple[SymEngineFunction, list]:
    """The gradient of ``y`` for ``xs_list`` replayed and compiled on SymEngine, and the other
    named tensors it takes after ``xs_list`` (in the order their names sort)."""
    from symgrad.symbolic.calculus import _check_inputs, _gradient_arrays
    from symgrad.symbolic.replay import seed_ones
    from symgrad.symbolic.symengine_backend import SymEngineReplay

    if y.numel() != 1:
        raise ValueError(
            f"gradient() needs a one-element output, got shape {list(y.shape)}; use "
            "jacobian(y, x) for the derivatives of every element"
        )
    _check_inputs(xs_list)
    # constants as floats: a product of many exact rationals can outgrow a double's range in
    # its numerator and denominator apart, which SymEngine's evaluation turns into nan
    replay = SymEngineReplay(as_float=True)
    grads = _gradient_arrays(replay, y, xs_list, seed_ones(y.shape))
    given = {id(x) for x in xs_list}
    others = sorted(
        (t for k, t in replay.leaves.items() if k not in given), key=lambda t: str(t.name)
    )
    leaves = xs_list + others
    leaf_info, args = [], []
    bridge = replay.bridge
    for t in leaves:  # the symbols the replay made (a one-element tensor is one symbol)
        symbols, shape = _symbols_of(replay, t)
        leaf_info.append((symbols, shape))
        args.extend(bridge.to_se(s) for s in symbols)
    outputs = [bridge.to_se(e) for g in grads for e in np.asarray(g, dtype=object).flat]
    shapes = [tuple(x.shape) for x in xs_list]
    compiled = SymEngineFunction(bridge, args, outputs, leaf_info, shapes, single)
    return compiled, others
