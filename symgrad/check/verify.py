"""Three-way gradient verification: the engine's backward, finite differences and the exact
closed form, element by element, with the worst disagreement named.

Each pair of sources is held to what the weaker of the two can resolve: the engine and the
closed form are both exact, so they must agree to rounding (a backward off by a relative 1e-7
fails); finite differences carry truncation and rounding error, so pairs involving them get a
looser tolerance, and elements where the difference step straddles a kink are flagged rather
than compared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symgrad.check.finite_differences import scalar_gradient
from symgrad.check.report import as_html, as_text
from symgrad.tensor import Tensor

__all__ = ["verify", "check_function", "GradientReport", "InputReport", "Comparison"]

_FD = "finite differences"
# (rtol, atol): the exact pair must agree to rounding, pairs with finite differences to their
# truncation error; atol also grows with the rounding noise of each difference
_TOLERANCE = {
    ("engine", _FD): (1e-4, 1e-6),
    ("engine", "closed form"): (1e-9, 1e-11),
    (_FD, "closed form"): (1e-4, 1e-6),
}
_CLOSED_FORM_LIMIT = 200  # input elements; SymPy builds the closed form element by element


@dataclass
class Comparison:
    """How two gradient sources differ for one input: the largest absolute and relative
    differences, the worst element (by how far it exceeds the tolerance) and its two values."""

    sources: tuple[str, str]
    max_abs: float
    max_rel: float
    worst: tuple
    values: tuple[float, float]
    ok: bool


@dataclass
class InputReport:
    """The gradients of one input from each source, and how they compare.

    ``gradients`` maps a source name to its array; ``kinks`` marks the elements where finite
    differences straddle a kink (not held against the other sources); ``missing`` says why a
    source is absent.
    """

    index: int
    name: str
    shape: tuple
    gradients: dict[str, np.ndarray]
    kinks: np.ndarray
    comparisons: list[Comparison] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Every pair of sources agrees within its tolerance."""
        return all(c.ok for c in self.comparisons)

    def worst_values(self) -> dict[str, float]:
        """Each source's value at the worst element of the first failing (or first) pair."""
        bad = [c for c in self.comparisons if not c.ok] or self.comparisons
        if not bad:
            return {}
        return {s: float(g[bad[0].worst]) for s, g in self.gradients.items()}


class GradientReport:
    """The result of :func:`verify` and :func:`check_function`: one :class:`InputReport` per
    checked input (``report.inputs``, or ``report[i]``).

    ``report.ok`` is True when every pair of sources agrees within its tolerance. ``str(report)``
    is a table, followed by the worst element of each failing input with all three values; in
    a notebook the report shows as an HTML table.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    >>> report = symgrad.verify(lambda t: (t ** 3).sum(), x)
    >>> report.ok, report[0].gradients["engine"]
    (True, array([ 3., 12.]))
    """

    def __init__(self, inputs: list[InputReport], note: str) -> None:
        self.inputs = inputs
        self.note = note

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.inputs)

    def __bool__(self) -> bool:
        return self.ok

    def __getitem__(self, i: int) -> InputReport:
        return self.inputs[i]

    def __len__(self) -> int:
        return len(self.inputs)

    def __str__(self) -> str:
        return as_text(self)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return as_html(self)


# -- the function as one scalar --------------------------------------------------------------


class _Objective:
    """``func`` made scalar: each floating output is projected on a fixed random vector (drawn
    on the first call) and the projections summed; a lone one-element output is used as is."""

    def __init__(self, func: Callable) -> None:
        self.func = func
        self.projections: list | None = None
        self.note = ""

    def __call__(self, args: list) -> Tensor:
        floating = self._floating_outputs(args)
        if self.projections is None:
            self._draw(floating)
        shapes = [tuple(v.shape) for v in self.projections]  # type: ignore[union-attr]
        if [tuple(o.shape) for o in floating] != shapes:
            raise ValueError("verify(): the function's outputs changed shape between calls")
        if len(floating) == 1 and floating[0].numel() == 1:
            return floating[0].reshape(())
        total = None
        for o, v in zip(floating, self.projections):  # type: ignore[arg-type]
            term = (o * Tensor._make(v.astype(o._data.dtype))).sum()
            total = term if total is None else total + term
        return total  # type: ignore[return-value]

    def _floating_outputs(self, args: list) -> list[Tensor]:
        result = self.func(*args)
        outs = result if isinstance(result, (tuple, list)) else (result,)
        for k, o in enumerate(outs):
            if not isinstance(o, Tensor):
                raise TypeError(
                    f"verify(): output {k} of the function is a {type(o).__name__}, not a "
                    "Tensor; return a Tensor or a tuple of Tensors"
                )
        floating = [o for o in outs if o.dtype.is_floating_point]
        if not floating:
            raise TypeError("verify(): the function returned no floating-point tensor")
        return floating

    def _draw(self, outs: list) -> None:
        rng = np.random.default_rng(0)  # fixed: the same projection on every call and every run
        self.projections = [rng.standard_normal(o.shape) for o in outs]
        if len(outs) == 1 and outs[0].numel() == 1:
            self.note = "scalar output"
        elif len(outs) == 1:
            self.note = "the gradients are those of sum(v * output), v a fixed random vector"
        else:
            self.note = (
                f"the gradients are those of sum_k sum(v_k * output_k) over the "
                f"{len(outs)} floating outputs, v_k fixed random vectors"
            )


def _copies(inputs: tuple) -> tuple[list, list[int]]:
    """The arguments with float64 copies of the tensors to differentiate by, and their
    positions (the user's tensors are left untouched)."""
    chosen = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not chosen:
        chosen = [
            i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.dtype.is_floating_point
        ]
    if not chosen:
        raise ValueError(
            "verify() needs at least one floating-point tensor input to differentiate by "
            "(integer tensors and numbers are passed through as constants)"
        )
    args = list(inputs)
    for i in chosen:
        copy = Tensor._make(np.array(inputs[i]._data, dtype=np.float64)).requires_grad_()
        copy._name = inputs[i]._name
        args[i] = copy
    return args, chosen


# -- the three sources -----------------------------------------------------------------------


def _engine(y: Tensor, leaves: list[Tensor]) -> list[np.ndarray]:
    from symgrad.autograd.engine import grad

    if not y.requires_grad:
        return [np.zeros(t.shape) for t in leaves]
    found = grad(y, leaves, retain_graph=True, allow_unused=True)
    return [
        np.zeros(t.shape) if g is None else np.asarray(g._data, np.float64)
        for t, g in zip(leaves, found)
    ]


def _finite_differences(
    objective: _Objective, args: list, k: int, eps: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Central differences for input ``k``, the rounding noise of each, and the kinks."""
    rtol, atol = _TOLERANCE[("engine", _FD)]
    return scalar_gradient(lambda: float(objective(args)._data), args[k]._data, eps, rtol, atol)


def _closed_form(y: Tensor, leaves: list[Tensor], limit: float) -> tuple[list | None, str]:
    from symgrad.symbolic import compile_gradient

    if not y.requires_grad:
        return None, "the output does not require grad (no graph to differentiate)"
    size = sum(t.numel() for t in leaves)
    if size > limit:
        return None, (
            f"skipped: {size} input elements (SymPy builds the closed form element by "
            "element); pass closed_form=True to build it anyway"
        )
    try:
        f = compile_gradient(y, leaves)
        values = f(*[t._data for t in leaves], *[t._data for t in f.extra_tensors])
    except (ValueError, NotImplementedError, TypeError, RecursionError) as exc:
        return None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return [np.asarray(v, dtype=np.float64).reshape(t.shape) for v, t in zip(values, leaves)], ""


# -- comparing -------------------------------------------------------------------------------


def _compare(
    a: np.ndarray, b: np.ndarray, pair: tuple, skip: np.ndarray, noise: np.ndarray
) -> Comparison:
    rtol, atol = _TOLERANCE[pair]
    if pair == ("engine", "closed form"):  # rounding grows with the size of the values
        atol = atol + 1e-12 * float(np.max(np.abs(b), initial=0.0))
    allowed = atol + noise + rtol * np.abs(b)
    diff = np.abs(a - b)
    excess = np.where(skip, -np.inf, np.nan_to_num(diff - allowed, nan=np.inf))
    scale = np.maximum(np.abs(a), np.abs(b))
    rel = np.where(scale > 0, diff / np.where(scale > 0, scale, 1), 0.0)
    if not a.size:
        return Comparison(pair, 0.0, 0.0, (), (0.0, 0.0), True)
    kept = ~skip
    ok = bool(np.all(excess <= 0))
    # a failure names the element furthest beyond its tolerance; a pass, the largest difference
    rank = excess if not ok else np.where(kept, np.nan_to_num(diff, nan=np.inf), -1.0)
    worst = np.unravel_index(int(np.argmax(rank)), a.shape)
    return Comparison(
        pair,
        float(np.max(np.where(kept, np.nan_to_num(diff, nan=np.inf), 0.0))),
        float(np.max(np.where(kept, np.nan_to_num(rel, nan=np.inf), 0.0))),
        tuple(int(i) for i in worst),
        (float(a[worst]), float(b[worst])),
        ok,
    )


def _input_report(
    k: int, t: Tensor, grads: dict, kinks: np.ndarray, noise: np.ndarray, missing: dict
) -> InputReport:
    label = f"input {k}" + (f" ({t._name})" if t._name else "")
    report = InputReport(k, label, tuple(t.shape), grads, kinks, missing=missing)
    none = np.zeros(t.shape, dtype=bool)
    for pair in _TOLERANCE:
        if pair[0] in grads and pair[1] in grads:
            with_fd = _FD in pair
            report.comparisons.append(
                _compare(
                    grads[pair[0]],
                    grads[pair[1]],
                    pair,
                    kinks if with_fd else none,
                    noise if with_fd else 0.0,
                )
            )
    return report


def verify(
    func: Callable[..., Any],
    *inputs: Any,
    eps: float | None = None,
    closed_form: bool | None = None,
) -> GradientReport:
    """Compare, for each input, the engine's gradient, central finite differences and the
    exact closed-form gradient evaluated at the inputs.

    The inputs that require grad are checked (every floating tensor if none does), in float64,
    on copies; other arguments pass through unchanged. ``func`` may return a tensor or a tuple
    of tensors: a one-element output is differentiated as it is, anything else is first
    projected on fixed random vectors (the report's note says so). Finite differences use the
    step ``eps`` or, by default, ``6e-6 * max(1, |x|)`` per element; where the step straddles a
    kink the element is flagged and not held against the other sources. The closed form is
    built for up to 200 input elements unless ``closed_form=True`` (``False`` skips it); where
    the graph has no closed form (a custom Function without ``symbolic``) the report says why
    that column is missing.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([0.5, 1.5], requires_grad=True)
    >>> report = symgrad.verify(lambda t: (t.exp() * t.sin()).sum(), x)
    >>> report.ok
    True
    >>> symgrad.verify(lambda t: t.relu().sum(), symgrad.tensor([0.0, 1.0])).inputs[0].kinks
    array([ True, False])
    """
    from symgrad.autograd.grad_mode import enable_grad

    args, positions = _copies(inputs)
    leaves = [args[i] for i in positions]
    objective = _Objective(func)
    limit = {None: _CLOSED_FORM_LIMIT, True: np.inf, False: -1}[closed_form]
    with enable_grad():
        y = objective(args)
        engine = _engine(y, leaves)
        closed, why = _closed_form(y, leaves, limit)
        reports = []
        for n, (k, t) in enumerate(zip(positions, leaves)):
            fd, noise, kinks = _finite_differences(objective, args, k, eps)
            grads = {"engine": engine[n], _FD: fd}
            if closed is not None:
                grads["closed form"] = closed[n]
            missing = {} if closed is not None else {"closed form": why}
            reports.append(_input_report(k, t, grads, kinks, noise, missing))
    return GradientReport(reports, objective.note)


def check_function(function_class: type, *inputs: Any, eps: float | None = None) -> GradientReport:
    """Verify a custom ``autograd.Function``'s backward: against finite differences and, when
    the class defines ``symbolic`` (its forward formula, a static method taking one SymPy
    expression per input), against the exact derivative of that formula evaluated in float64,
    which catches errors far below what finite differences resolve.

    Examples
    --------
    >>> import symgrad
    >>> class Cube(symgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return g * 3 * x ** 2 * (1 + 1e-7)  # off by a relative 1e-7
    ...     @staticmethod
    ...     def symbolic(x):
    ...         return x ** 3
    >>> report = symgrad.autograd.check_function(Cube, symgrad.tensor([0.5, 2.0]))
    >>> report.ok
    False
    >>> [c.ok for c in report.inputs[0].comparisons]  # engine vs FD, vs closed form, FD vs closed
    [True, False, True]
    """
    from symgrad.autograd.function import Function

    if not (isinstance(function_class, type) and issubclass(function_class, Function)):
        raise TypeError(
            "check_function expects an autograd.Function subclass (the class itself, not "
            f"MyFunction.apply or an instance), got {function_class!r}"
        )
    report = verify(lambda *xs: function_class.apply(*xs), *inputs, eps=eps, closed_form=True)
    if getattr(function_class, "symbolic", None) is None:
        for r in report.inputs:
            r.missing["closed form"] = (
                f"{function_class.__name__} has no symbolic(*inputs) formula: define it to "
                "check backward exactly"
            )
    return report
