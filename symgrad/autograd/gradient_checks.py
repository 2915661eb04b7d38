"""``gradcheck`` and ``gradgradcheck``: the engine's Jacobians against central differences,
with PyTorch's signatures and meaning.

The full check builds, for every differentiable output and every input that requires grad, the
Jacobian twice: column by column from central differences (two evaluations of ``func`` per
input element) and row by row from the engine (one backward per output element). Fast mode
compares one number per pair instead, ``vᵀ J u`` for random unit vectors ``u`` and ``v``: two
evaluations and one backward per input, whatever the sizes.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]

# a failing fast-mode pair is re-run element by element (for the worst element) up to this size
_SLOW_RERUN_LIMIT = 1024
_BACKWARD_ERRORS = (RuntimeError, TypeError, ValueError, AttributeError)


class GradcheckError(RuntimeError):
    """A gradient check failed; the message names the output, the input and the worst element.

    Examples
    --------
    >>> import symgrad
    >>> issubclass(symgrad.autograd.GradcheckError, RuntimeError)
    True
    """


# -- inputs and outputs ----------------------------------------------------------------------


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func: Callable, inputs: tuple) -> tuple[Tensor, ...]:
    out = _as_tuple(func(*inputs))
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            raise TypeError(
                f"gradcheck: output {i} of the function is a {type(o).__name__}, not a Tensor; "
                "return Tensors (or a tuple of them)"
            )
    return out


def _live(outputs: tuple) -> list[int]:
    """The positions of the outputs that can carry a gradient (PyTorch checks only those)."""
    return [k for k, o in enumerate(outputs) if o.requires_grad and o.dtype.is_floating_point]


def _differentiable_inputs(inputs: tuple, warn: bool, stacklevel: int = 4) -> list[int]:
    found = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not found:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the "
            "inputs have requires_grad=True."
        )
    for i in found:
        if warn and inputs[i].dtype.name != "float64":
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point "
                f"tensor (it is {inputs[i].dtype}). This check will likely fail: finite "
                "differences in single precision are too coarse. Convert it with .double().",
                UserWarning,
                stacklevel=stacklevel,
            )
        if not inputs[i]._data.flags.writeable:
            raise ValueError(
                f"gradcheck perturbs input {i} in place, but its values are read-only (an "
                "expanded or broadcast view?); pass a copy: x.detach().clone().requires_grad_()"
            )
    return found


def _evaluate(func: Callable, inputs: tuple, like: tuple, live: list[int]) -> list[np.ndarray]:
    """The live outputs as float64 arrays, checked to keep their shapes. Runs in grad mode,
    as PyTorch does: the function may differentiate (gradgradcheck's VJPs do)."""
    outs = _outputs(func, inputs)
    result = []
    for k in live:
        if outs[k].shape != like[k].shape:
            raise GradcheckError(
                f"Expected func to return outputs with the same shape when inputs are perturbed, "
                f"but output {k} has shape {list(outs[k].shape)}, not {list(like[k].shape)}."
            )
        result.append(np.array(outs[k]._data, dtype=np.float64))
    return result


def _central(
    func: Callable, inputs: tuple, set_value: Callable, eps: float, like: tuple, live: list[int]
) -> list[np.ndarray]:
    """Central differences of the live outputs along one perturbation of an input
    (``set_value(+1)``, ``set_value(-1)``), restored after (``set_value(0)``)."""
    set_value(+1)
    plus = _evaluate(func, inputs, like, live)
    set_value(-1)
    minus = _evaluate(func, inputs, like, live)
    set_value(0)
    return [((p - m) / (2 * eps)).reshape(-1) for p, m in zip(plus, minus)]


# -- the Jacobians ---------------------------------------------------------------------------


def _numerical_jacobians(
    func: Callable, inputs: tuple, i: int, eps: float, like: tuple, live: list[int]
) -> list[np.ndarray]:
    """For input ``i``: per live output, the matrix (input elements x output elements)."""
    data = inputs[i]._data
    columns = []
    for idx in np.ndindex(data.shape):
        original = data[idx]

        def set_value(sign: int, idx: tuple = idx, original: Any = original) -> None:
            data[idx] = original + sign * eps if sign else original

        columns.append(_central(func, inputs, set_value, eps, like, live))
    return [
        np.array([c[n] for c in columns]).reshape(data.size, like[k].numel())
        for n, k in enumerate(live)
    ]


def _vjp(out: Tensor, inputs: tuple, diff: list[int], seed: np.ndarray) -> list[np.ndarray]:
    from symgrad.autograd.engine import grad

    found = grad(
        out,
        [inputs[i] for i in diff],
        Tensor._make(seed.astype(out._data.dtype)),
        retain_graph=True,
        allow_unused=True,
    )
    return [
        np.zeros(inputs[i].numel())
        if g is None
        else np.asarray(g._data, dtype=np.float64).reshape(-1)
        for i, g in zip(diff, found)
    ]


def _analytical_jacobians(
    out: Tensor, k: int, inputs: tuple, diff: list[int], nondet_tol: float
) -> dict[int, np.ndarray]:
    """{input: matrix (input elements x output elements)} for output ``k``, from the engine;
    the first row is computed twice, to catch a backward that is not reentrant."""
    rows = []
    for j in range(out.numel()):
        seed = np.zeros(out.numel())
        seed[j] = 1
        rows.append(_vjp(out, inputs, diff, seed.reshape(out.shape)))
    if rows:
        again = _vjp(out, inputs, diff, np.eye(1, out.numel()).reshape(out.shape))
        _check_reentrant(rows[0], again, nondet_tol)
    return {
        i: (np.array([r[n] for r in rows]).T if rows else np.zeros((inputs[i].numel(), 0)))
        for n, i in enumerate(diff)
    }


def _check_reentrant(first: list, second: list, nondet_tol: float) -> None:
    for a, b in zip(first, second):
        if a.size and not np.max(np.abs(a - b)) <= nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                "gradient matches numerical gradient. The tolerance for nondeterminism was "
                f"{nondet_tol}."
            )


def _close(a: Any, n: Any, rtol: float, atol: float) -> bool:
    # PyTorch's allclose(analytical, numerical): the tolerance is relative to the numerical value
    return bool(np.all(np.abs(a - n) <= atol + rtol * np.abs(n)))


def _worst(
    n: np.ndarray, a: np.ndarray, rtol: float, atol: float, x: Tensor, out: Tensor, o: int, i: int
) -> str:
    excess = np.abs(a - n) - (atol + rtol * np.abs(n))
    flat = int(np.argmax(np.where(np.isnan(excess), np.inf, excess)))
    row, col = np.unravel_index(flat, n.shape)
    at_in = tuple(int(v) for v in np.unravel_index(row, x.shape))
    at_out = tuple(int(v) for v in np.unravel_index(col, out.shape))
    diff = abs(a[row, col] - n[row, col])
    return (
        f"worst element: d(output {o}){list(at_out)} / d(input {i}){list(at_in)}: "
        f"numerical {float(n[row, col])!r} vs analytical {float(a[row, col])!r} "
        f"(difference {diff:.3g}; allowed atol + rtol * |numerical| = "
        f"{atol + rtol * abs(n[row, col]):.3g})."
    )


def _mismatch(o: int, i: int, n: np.ndarray, a: np.ndarray, worst: str) -> str:
    return (
        f"Jacobian mismatch for output {o} with respect to input {i},\nThe {worst}\n"
        f"numerical:{Tensor._make(n)!r}\nanalytical:{Tensor._make(a)!r}\n"
    )


def _slow_check(
    func: Callable,
    inputs: tuple,
    outputs: tuple,
    live: list[int],
    diff: list[int],
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
) -> None:
    analytical = {k: _analytical_jacobians(outputs[k], k, inputs, diff, nondet_tol) for k in live}
    for i in diff:
        numerical = _numerical_jacobians(func, inputs, i, eps, outputs, live)
        for n, k in zip(numerical, live):
            a = analytical[k][i]
            if not _close(a, n, rtol, atol):
                worst = _worst(n, a, rtol, atol, inputs[i], outputs[k], k, i)
                raise GradcheckError(_mismatch(k, i, n, a, worst))


# -- fast mode -------------------------------------------------------------------------------


def _unit(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    # PyTorch's choice: uniform in [0, 1), normalised (so atol scales by sum(u) * sum(v))
    u = rng.random(shape)
    norm = np.linalg.norm(u)
    return u / norm if norm > 0 else u


def _fast_check(
    func: Callable,
    inputs: tuple,
    outputs: tuple,
    live: list[int],
    diff: list[int],
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
) -> None:
    rng = np.random.default_rng(0)  # fixed: verdicts reproducible, the user's generator untouched
    us = {i: _unit(rng, inputs[i].shape) for i in diff}
    vs = {k: _unit(rng, outputs[k].shape) for k in live}
    numerical: dict = {}
    for i in diff:
        data, u = inputs[i]._data, us[i]
        base = data.copy()

        def set_value(
            sign: int, data: np.ndarray = data, base: np.ndarray = base, u: np.ndarray = u
        ) -> None:
            data[...] = base + sign * eps * u if sign else base

        jus = _central(func, inputs, set_value, eps, outputs, live)
        for ju, k in zip(jus, live):
            numerical[(k, i)] = float(np.dot(vs[k].reshape(-1), ju))
    for k in live:
        vjps = _vjp(outputs[k], inputs, diff, vs[k])
        _check_reentrant(vjps, _vjp(outputs[k], inputs, diff, vs[k]), nondet_tol)
        for vj, i in zip(vjps, diff):
            a, n = float(np.dot(vj, us[i].reshape(-1))), numerical[(k, i)]
            scaled_atol = atol * float(us[i].sum()) * float(vs[k].sum())
            if not _close(a, n, rtol, scaled_atol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{n!r}\nanalytical:{a!r}\n(fast mode compares v^T J u for random "
                    "unit vectors u and v)\n"
                    + _slow_rerun(func, inputs, outputs, k, i, eps, atol, rtol)
                )


def _slow_rerun(
    func: Callable,
    inputs: tuple,
    outputs: tuple,
    k: int,
    i: int,
    eps: float,
    atol: float,
    rtol: float,
) -> str:
    """The element-by-element comparison of one failing pair, where it is small enough."""
    x, out = inputs[i], outputs[k]
    if x.numel() > _SLOW_RERUN_LIMIT or out.numel() > _SLOW_RERUN_LIMIT:
        return (
            f"Input {i} has {x.numel()} and output {k} {out.numel()} elements: run with "
            "fast_mode=False to find the worst element.\n"
        )
    (n,) = _numerical_jacobians(func, inputs, i, eps, outputs, [k])
    a = _analytical_jacobians(out, k, inputs, [i], nondet_tol=np.inf)[i]
    if _close(a, n, rtol, atol):
        return (
            "Element by element (fast_mode=False) the Jacobians agree: the difference is in "
            "the tolerance scaling of fast mode; use fast_mode=False for this function.\n"
        )
    worst = _worst(n, a, rtol, atol, x, out, k, i)
    return f"Element by element (fast_mode=False), the {worst}\n"


# -- outputs without gradient, and undefined output gradients ---------------------------------


def _check_constant(
    func: Callable, inputs: tuple, outputs: tuple, diff: list[int], eps: float
) -> None:
    """No output requires grad: then the function must not depend on the inputs."""
    floating = [k for k, o in enumerate(outputs) if o.dtype.is_floating_point]
    for i in diff:
        for n in _numerical_jacobians(func, inputs, i, eps, outputs, floating):
            if np.any(n != 0):
                raise GradcheckError(
                    "Numerical gradient for function expected to be zero: no output requires "
                    f"grad, yet input {i} changes the outputs (was an output detached, or "
                    "computed under no_grad?)"
                )


def _check_undefined_grad(func: Callable, inputs: tuple, diff: list[int]) -> None:
    """Zero (or, one output at a time, missing) output gradients give zero input gradients."""
    outputs = _outputs(func, inputs)
    live = [outputs[k] for k in _live(outputs)]
    cases = [(live, "all output gradients are zero")]
    if len(live) > 1:
        for k in range(len(live)):
            others = live[:k] + live[k + 1 :]
            cases.append((others, f"differentiable output {k} gets no gradient"))
    for roots, case in cases:
        _zero_backward(roots, inputs, diff, case)


def _zero_backward(roots: list, inputs: tuple, diff: list[int], case: str) -> None:
    from symgrad.autograd.engine import grad

    zeros = [Tensor._make(np.zeros(o.shape, o._data.dtype)) for o in roots]
    try:
        found = grad(roots, [inputs[i] for i in diff], zeros, retain_graph=True, allow_unused=True)
    except _BACKWARD_ERRORS as exc:
        raise GradcheckError(
            f"Expected backward function to handle undefined output grads: backward failed "
            f"when {case} ({type(exc).__name__}: {exc}). A custom Function's backward gets "
            "None for such an output after ctx.set_materialize_grads(False)."
        ) from exc
    for i, g in zip(diff, found):
        if g is not None and np.any(np.asarray(g._data) != 0):
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                f"undefined or zero, but input {i} gets a non-zero gradient when {case}: {g}"
            )


# -- the public checks -----------------------------------------------------------------------


def _unsupported(**flags: bool) -> None:
    for name, value in flags.items():
        if value:
            raise NotImplementedError(
                f"gradcheck: {name}=True is not supported: symgrad has reverse mode only (no "
                "forward-mode AD, no vmap)"
            )


def _run(
    func: Callable,
    inputs: Any,
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
    check_undefined_grad: bool,
    fast_mode: bool,
    warn: bool,
) -> None:
    inputs = _as_tuple(inputs)
    diff = _differentiable_inputs(inputs, warn)
    outputs = _outputs(func, inputs)
    live = _live(outputs)
    if not live:
        _check_constant(func, inputs, outputs, diff, eps)
        return
    check = _fast_check if fast_mode else _slow_check
    check(func, inputs, outputs, live, diff, eps, atol, rtol, nondet_tol)
    if check_undefined_grad:
        _check_undefined_grad(func, inputs, diff)


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against central finite differences.

    Every output that requires grad is checked against every input that requires grad:
    ``|analytical - numerical| <= atol + rtol * |numerical|`` element by element, with
    ``(f(x + eps) - f(x - eps)) / (2 eps)`` for each input element. With ``fast_mode`` only
    ``vᵀ J u`` for random unit vectors is compared (``atol`` scaled by ``sum(u) * sum(v)``, as
    in PyTorch): two evaluations of ``func`` and one backward per input. Inputs are perturbed
    in place and restored; they should be float64 (a warning says so otherwise).

    Returns True, or raises :class:`GradcheckError` naming the output and the input
    ("Jacobian mismatch for output 0 with respect to input 1"), the worst element with both
    values, and both Jacobians (rows: input elements, columns: output elements). With
    ``raise_exception=False`` it returns False instead. ``check_undefined_grad`` also checks
    that zero output gradients (and, for several outputs, a missing one) give zero input
    gradients; ``nondet_tol`` is how far two backward runs may differ.
    ``check_grad_dtypes`` and ``masked`` are accepted for compatibility (gradients always come
    back in the input's dtype); forward-mode and batched checks are not available.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.randn(3, dtype=symgrad.float64, requires_grad=True)
    >>> symgrad.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))
    True
    >>> symgrad.autograd.gradcheck(lambda t: t * t.detach(), x, raise_exception=False)
    False
    """
    _unsupported(
        check_batched_grad=check_batched_grad,
        check_forward_ad=check_forward_ad,
        check_batched_forward_grad=check_batched_forward_grad,
    )
    if not check_backward_ad:
        return True
    try:
        _run(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, fast_mode, True)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: :func:`gradcheck` of the function ``(inputs, grad_outputs)
    -> grad(func(inputs), inputs, grad_outputs, create_graph=True)``.

    ``grad_outputs`` (one per output that requires grad) default to fixed random values in
    [-1, 1) that require grad, so the check covers both the inputs and the incoming gradients.
    In a failure message, inputs ``len(inputs)`` and up are the grad_outputs, and output ``j``
    is the gradient of the ``j``-th input that requires grad.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.randn(3, dtype=symgrad.float64, requires_grad=True)
    >>> symgrad.autograd.gradgradcheck(lambda t: t.exp() * t, (x,))
    True
    """
    _unsupported(check_batched_grad=check_batched_grad, check_fwd_over_rev=check_fwd_over_rev)
    if not check_rev_over_rev:
        return True
    inputs = _as_tuple(inputs)
    _differentiable_inputs(inputs, warn=True, stacklevel=3)
    try:
        grad_outputs = _grad_outputs(func, inputs, grad_outputs)
        new_func = _vjp_function(func, len(inputs))
        _run(
            new_func,
            inputs + grad_outputs,
            eps,
            atol,
            rtol,
            nondet_tol,
            check_undefined_grad,
            fast_mode,
            False,
        )
    except GradcheckError as exc:
        if raise_exception:
            raise GradcheckError(f"gradgradcheck (second derivatives): {exc}") from None
        return False
    return True


def _grad_outputs(func: Callable, inputs: tuple, given: Any) -> tuple:
    outputs = _outputs(func, inputs)
    live = [outputs[k] for k in _live(outputs)]
    if given is None:
        rng = np.random.default_rng(0)
        return tuple(
            Tensor._make(rng.uniform(-1, 1, o.shape).astype(o._data.dtype)).requires_grad_()
            for o in live
        )
    given = _as_tuple(given)
    if len(given) != len(live):
        raise ValueError(
            f"gradgradcheck: {len(given)} grad_outputs given for {len(live)} outputs that "
            "require grad; give one per such output, in order"
        )
    return given


def _vjp_function(func: Callable, n: int) -> Callable:
    """``(*inputs, *grad_outputs) -> the gradients of the inputs that require grad``."""
    from symgrad.autograd.engine import grad

    def vjp(*args: Any) -> tuple:
        xs, gs = args[:n], args[n:]
        outs = _outputs(func, xs)
        live = [outs[k] for k in _live(outs)]
        wrt = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
        if not live:
            return ()
        grads = grad(live, wrt, list(gs), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return vjp
