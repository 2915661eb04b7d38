"""Three-way gradient verification: the engine's backward, finite differences and the exact
closed form, element by element, with the worst disagreement named."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["verify", "check_function", "GradientReport", "InputReport"]

_SOURCES = ("engine", "finite differences", "closed form")
# each pair's tolerance: the exact sources must agree to rounding, finite differences only to
# their truncation and rounding error
_TOLERANCE = {
    ("engine", "finite differences"): (1e-4, 1e-6),
    ("engine", "closed form"): (1e-9, 1e-11),
    ("finite differences", "closed form"): (1e-4, 1e-6),
}


@dataclass
class Comparison:
    """How two gradient sources differ for one input."""

    sources: tuple[str, str]
    max_abs: float
    max_rel: float
    worst: tuple
    values: tuple[float, float]
    ok: bool


@dataclass
class InputReport:
    """The gradients of one input from each source, and how they compare."""

    index: int
    name: str
    shape: tuple
    gradients: dict[str, np.ndarray]
    kinks: np.ndarray
    comparisons: list[Comparison] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.comparisons)

    def worst_values(self) -> dict[str, float]:
        """Each source's value at the worst element of the first failing (or first) pair."""
        bad = [c for c in self.comparisons if not c.ok] or self.comparisons
        if not bad:
            return {}
        index = bad[0].worst
        return {s: float(g[index]) for s, g in self.gradients.items()}


class GradientReport:
    """The result of :func:`verify`: one :class:`InputReport` per checked input.

    ``report.ok`` is True when every pair of sources agrees within its tolerance (finite
    differences are not held against elements where they straddle a kink). ``str(report)``
    is a table; in a notebook the report shows as an HTML table.
    """

    def __init__(self, inputs: list[InputReport], note: str) -> None:
        self.inputs = inputs
        self.note = note

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.inputs)

    def __bool__(self) -> bool:
        return self.ok

    def _rows(self) -> list[list[str]]:
        rows = []
        for r in self.inputs:
            for c in r.comparisons:
                rows.append([
                    r.name, f"{c.sources[0]} vs {c.sources[1]}",
                    f"{c.max_abs:.3g}", f"{c.max_rel:.3g}", str(list(c.worst)),
                    f"{c.values[0]:.10g} vs {c.values[1]:.10g}", "ok" if c.ok else "FAIL",
                ])
            for source, why in r.missing.items():
                rows.append([r.name, f"{source}: missing", "", "", "", why, ""])
            if r.kinks.any():
                where = [[int(i) for i in idx] for idx in zip(*np.nonzero(r.kinks))][:5]
                rows.append([r.name, "kinks", "", "", str(where),
                             "finite differences straddle a kink: not compared there", ""])
        return rows

    _HEADER = ["input", "sources", "max abs err", "max rel err", "worst at", "values", "verdict"]

    def __str__(self) -> str:
        rows = [self._HEADER] + self._rows()
        widths = [max(len(row[k]) for row in rows) for k in range(len(self._HEADER))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
        verdict = "all gradients agree" if self.ok else "GRADIENTS DISAGREE"
        return "\n".join([f"Gradient report: {verdict} ({self.note})", *lines])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self._HEADER)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
            for row in self._rows()
        )
        verdict = "all gradients agree" if self.ok else "<b>gradients disagree</b>"
        return (f"<p>Gradient report: {verdict} ({html.escape(self.note)})</p>"
                f"<table><tr>{head}</tr>{body}</table>")


def _copies(inputs: tuple) -> list[Tensor]:
    """float64 leaves to differentiate by (the user's tensors are left untouched)."""
    chosen = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad] or [
        t for t in inputs if isinstance(t, Tensor) and t.dtype.is_floating_point
    ]
    if not chosen:
        raise ValueError("verify() needs at least one floating-point tensor input")
    out = []
    for t in inputs:
        if any(t is c for c in chosen):
            copy = Tensor._make(np.array(t._data, dtype=np.float64)).requires_grad_()
            copy._name = t._name
            out.append(copy)
        else:
            out.append(t)
    return out


def _scalar(func: Callable, args: list, projection: list) -> Tensor:
    y = func(*args)
    if not isinstance(y, Tensor):
        raise TypeError(f"the function must return a Tensor, got {type(y).__name__}")
    if y.numel() == 1:
        return y.sum() if y.ndim else y.reshape(())
    if not projection:
        rng = np.random.default_rng(0)
        projection.append(Tensor._make(rng.standard_normal(y.shape)))
    return (y * projection[0].to(y.dtype)).sum()


def _finite_differences(func: Callable, args: list, k: int, projection: list,
                        eps: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Central differences for input ``k`` and a mask of elements where the one-sided
    differences disagree (a kink between x - h and x + h)."""
    from symgrad.autograd.grad_mode import no_grad

    x = args[k]
    flat = x._data.reshape(-1)
    grads, kinks = np.zeros(flat.size), np.zeros(flat.size, dtype=bool)
    with no_grad():
        f0 = float(_scalar(func, args, projection)._data)
        for j in range(flat.size):
            original = flat[j]
            h = eps if eps is not None else 6e-6 * max(1.0, abs(original))
            flat[j] = original + h
            fp = float(_scalar(func, args, projection)._data)
            flat[j] = original - h
            fm = float(_scalar(func, args, projection)._data)
            flat[j] = original
            grads[j] = (fp - fm) / (2 * h)
            forward, backward = (fp - f0) / h, (f0 - fm) / h
            kinks[j] = abs(forward - backward) > 1e-2 * (1 + abs(grads[j]))
    return grads.reshape(x.shape), kinks.reshape(x.shape)


def _closed_form(y: Tensor, leaves: list[Tensor]) -> tuple[list | None, str]:
    from symgrad.symbolic import compile_gradient

    try:
        f = compile_gradient(y, leaves)
        values = f(*[t._data for t in leaves], *[t._data for t in f.extra_tensors])
    except (ValueError, NotImplementedError, TypeError) as exc:
        return None, str(exc).splitlines()[0]
    return [np.asarray(v, dtype=np.float64).reshape(t.shape) for v, t in zip(values, leaves)], ""


def _compare(a: np.ndarray, b: np.ndarray, pair: tuple, skip: np.ndarray) -> Comparison:
    rtol, atol = _TOLERANCE[pair]
    diff = np.abs(a - b)
    scale = np.maximum(np.abs(a), np.abs(b))
    rel = np.where(scale > 0, diff / np.where(scale > 0, scale, 1), 0.0)
    bad = ~np.isclose(a, b, rtol=rtol, atol=atol) & ~skip
    considered = np.where(skip, -1.0, np.nan_to_num(diff, nan=np.inf))
    worst = np.unravel_index(int(np.argmax(considered)), a.shape) if a.size else ()
    return Comparison(
        pair, float(np.nanmax(np.where(skip, 0, diff))) if a.size else 0.0,
        float(np.nanmax(np.where(skip, 0, rel))) if a.size else 0.0,
        tuple(int(i) for i in worst), (float(a[worst]), float(b[worst])), not bad.any(),
    )


def verify(func: Callable[..., Tensor], *inputs: Any, eps: float | None = None) -> GradientReport:
    """Compare, for each input, the engine's gradient, central finite differences and the
    exact closed-form gradient evaluated at the inputs.

    The inputs that require grad are checked (all floating tensors if none does), in float64
    on copies. A non-scalar output is projected on a fixed random vector. Where the graph has
    no closed form (a custom Function without ``symbolic``), the report says why that column
    is missing.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([0.5, 1.5], requires_grad=True)
    >>> report = symgrad.verify(lambda t: (t.exp() * t.sin()).sum(), x)
    >>> report.ok
    True
    """
    args = _copies(inputs)
    leaves = [a for a, t in zip(args, inputs) if a is not t]
    projection: list = []
    y = _scalar(func, args, projection)
    engine = {id(t): np.zeros(t.shape) for t in leaves}
    if y.requires_grad:
        from symgrad.autograd.engine import grad

        found = grad(y, leaves, retain_graph=True, allow_unused=True)
        engine = {id(t): (np.zeros(t.shape) if g is None else np.asarray(g._data, np.float64))
                  for t, g in zip(leaves, found)}
    closed, why = _closed_form(y, leaves) if y.requires_grad else (None, "no graph")
    reports = []
    for n, t in enumerate(leaves):
        k = next(i for i, a in enumerate(args) if a is t)
        fd, kinks = _finite_differences(func, args, k, projection, eps)
        grads = {"engine": engine[id(t)], "finite differences": fd}
        missing = {}
        if closed is not None:
            grads["closed form"] = closed[n]
        else:
            missing["closed form"] = why
        label = f"input {k}" + (f" ({t._name})" if t._name else "")
        report = InputReport(k, label, t.shape, grads, kinks, missing=missing)
        for pair in _TOLERANCE:
            if pair[0] in grads and pair[1] in grads:
                skip = kinks if "finite differences" in pair else np.zeros(t.shape, dtype=bool)
                report.comparisons.append(_compare(grads[pair[0]], grads[pair[1]], pair, skip))
        reports.append(report)
    note = "output projected on a random vector" if projection else "scalar output"
    return GradientReport(reports, note)


def check_function(function_class: type, *inputs: Any, eps: float | None = None) -> GradientReport:
    """Verify a custom ``autograd.Function``'s backward: against finite differences and, when
    the class defines ``symbolic`` (its forward formula), against the exact derivative of
    that formula, which catches errors far below what finite differences resolve.

    Examples
    --------
    >>> import symgrad, sympy
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
    """
    apply = getattr(function_class, "apply", None)
    if apply is None:
        raise TypeError(f"check_function expects an autograd.Function subclass, got {function_class!r}")
    report = verify(lambda *xs: apply(*xs), *inputs, eps=eps)
    if getattr(function_class, "symbolic", None) is None:
        for r in report.inputs:
            r.missing["closed form"] = (
                f"{function_class.__name__} has no symbolic(*inputs) formula: define it to "
                "check backward exactly"
            )
    return report
