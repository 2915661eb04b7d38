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

from symgrad.check.fast_mode import check_fast
from symgrad.check.forward_checks import check_batched, check_forward
from symgrad.check.jacobians import (
    GradcheckError,
    as_tuple,
    check_full,
    live_outputs,
    numerical_jacobians,
    outputs_of,
)
from symgrad.tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]

_BACKWARD_ERRORS = (RuntimeError, TypeError, ValueError, AttributeError)


def _differentiable_inputs(inputs: tuple, warn: bool, stacklevel: int = 4) -> list[int]:
    found = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not found:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )
    for i in found:
        if warn and inputs[i].dtype.name != "float64":
            # PyTorch's words (a filter may match them), from the caller's line
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=stacklevel,
            )
        if any(st == 0 and n > 1 for st, n in zip(inputs[i].stride(), inputs[i].shape)):
            raise RuntimeError(
                f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs "
                "that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )
        if not inputs[i]._data.flags.writeable:
            raise ValueError(
                f"gradcheck perturbs input {i} in place, but its values are read-only (an "
                "expanded or broadcast view?); pass a copy: x.detach().clone().requires_grad_()"
            )
    return found


# -- outputs without gradient, and undefined output gradients ---------------------------------


def _check_constant(
    func: Callable, inputs: tuple, outputs: tuple, diff: list[int], eps: float
) -> None:
    """No output requires grad: then the function must not depend on the inputs."""
    floating = [k for k, o in enumerate(outputs) if o.dtype.is_floating_point]
    for i in diff:
        for n in numerical_jacobians(func, inputs, i, eps, outputs, floating):
            if np.any(n != 0):
                raise GradcheckError(
                    "Numerical gradient for function expected to be zero: no output requires "
                    f"grad, yet input {i} changes the outputs (was an output detached, or "
                    "computed under no_grad?)"
                )


def _check_multiplied_by_grad_output(outputs: list, inputs: tuple, diff: list[int], masked: bool):
    """PyTorch's check, whatever the flags: zero output gradients give zero input gradients,
    of the inputs' dtypes and shapes."""
    from symgrad.autograd.engine import grad

    zeros = [Tensor._make(np.zeros(o.shape, o._data.dtype)) for o in outputs]
    found = grad(outputs, [inputs[i] for i in diff], zeros, retain_graph=True, allow_unused=True)
    for i, g in zip(diff, found):
        if g is None:
            continue
        values = np.asarray(g._data)
        # masked: PyTorch's allclose to zero (atol 1e-8) rather than exact zeros
        if np.any(np.abs(values) > 1e-8) if masked else np.any(values != 0):
            raise GradcheckError(
                "backward not multiplied by grad_output (all output gradients zero, the "
                f"gradient of input {i} is {g})"
            )
        if g.dtype != inputs[i].dtype:
            raise GradcheckError(
                f"grad is incorrect type ({g.dtype} for input {i} of {inputs[i].dtype})"
            )
        if g.shape != inputs[i].shape:
            raise GradcheckError(
                f"grad is incorrect size ({list(g.shape)} for input {i} of {list(inputs[i].shape)})"
            )


def _check_undefined_grad(func: Callable, inputs: tuple, diff: list[int]) -> None:
    """Zero (or, one output at a time, missing) output gradients give zero input gradients."""
    outputs = outputs_of(func, inputs)
    live = [outputs[k] for k in live_outputs(outputs)]
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
                f"gradcheck: {name}=True is not supported: symgrad has no vmap (batched "
                "forward-mode tangents); check_forward_ad and check_batched_grad are"
            )


def _require(*conditions: tuple[bool, str]) -> None:
    """PyTorch's AssertionErrors for flags that contradict each other."""
    for holds, what in conditions:
        if not holds:
            raise AssertionError(what)


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
    modes: tuple = (True, False, False),
    masked: bool = False,
) -> None:
    """The checks ``modes`` asks for: (reverse mode, forward mode, batched gradients)."""
    backward, forward, batched = modes
    inputs = as_tuple(inputs)
    diff = _differentiable_inputs(inputs, warn)
    outputs = outputs_of(func, inputs)
    live = live_outputs(outputs)
    if not live:
        _check_constant(func, inputs, outputs, diff, eps)
        return
    if backward:
        check = check_fast if fast_mode else check_full
        check(func, inputs, outputs, live, diff, eps, atol, rtol, nondet_tol)
    if forward:
        check_forward(func, inputs, outputs, live, diff, eps, atol, rtol)
    if batched:
        check_batched(func, inputs, live, diff, atol, rtol)
    if backward:
        _check_multiplied_by_grad_output([outputs[k] for k in live], inputs, diff, masked)
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
    in place and restored, also when ``func`` raises; they should be float64 (a warning says
    so otherwise).

    Returns True, or raises :class:`GradcheckError` naming the output and the input
    ("Jacobian mismatch for output 0 with respect to input 1"), the worst element with both
    values, and both Jacobians (rows: input elements, columns: output elements). With
    ``raise_exception=False`` it returns False instead. Zero output gradients must give zero
    input gradients ("backward not multiplied by grad_output"; up to 1e-8 with ``masked``);
    ``check_undefined_grad`` also checks that for several outputs a missing one does;
    ``nondet_tol`` is how far two backward runs may differ.
    ``check_forward_ad`` compares the forward-mode Jacobian (one Jacobian-vector product per
    input element) with the same central differences; ``check_batched_grad`` compares the
    vector-Jacobian products of a batch of random output gradients, taken together (a random
    combination of the batch in one backward) and one row at a time; ``check_backward_ad=False``
    skips the reverse-mode check (flags that contradict each other raise PyTorch's
    AssertionError). ``check_grad_dtypes`` is accepted for compatibility (gradients always come
    back in the input's dtype); ``check_batched_forward_grad`` needs vmap and is not available.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.randn(3, dtype=symgrad.float64, requires_grad=True)
    >>> symgrad.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))
    True
    >>> symgrad.autograd.gradcheck(lambda t: t * t.detach(), x, raise_exception=False)
    False
    """
    _require(
        (
            check_forward_ad or check_backward_ad,
            "Expected at least one of check_forward_ad or check_backward_ad to be True",
        ),
        (
            not check_batched_grad or check_backward_ad,
            "Setting check_batched_grad=True requires check_backward_ad to be True",
        ),
        (
            not check_batched_forward_grad or check_forward_ad,
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True",
        ),
    )
    _unsupported(check_batched_forward_grad=check_batched_forward_grad)
    modes = (check_backward_ad, check_forward_ad, check_batched_grad)
    try:
        _run(
            func,
            inputs,
            eps,
            atol,
            rtol,
            nondet_tol,
            check_undefined_grad,
            fast_mode,
            True,
            modes,
            bool(masked),
        )
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

    ``grad_outputs`` (one per output that requires grad) default to random values in [-1, 1)
    that require grad, drawn from the global generator as in PyTorch, so the check covers both
    the inputs and the incoming gradients. In a failure message, inputs ``len(inputs)`` and up
    are the grad_outputs, and output ``j`` is the gradient of the ``j``-th input that requires
    grad. ``check_rev_over_rev`` checks
    that function in reverse mode, ``check_fwd_over_rev`` in forward mode (tangents through
    the recorded backward), ``check_batched_grad`` its batched gradients.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.randn(3, dtype=symgrad.float64, requires_grad=True)
    >>> symgrad.autograd.gradgradcheck(lambda t: t.exp() * t, (x,))
    True
    """
    _require(
        (
            check_fwd_over_rev or check_rev_over_rev,
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True",
        ),
        (
            not check_undefined_grad or check_rev_over_rev,
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True",
        ),
        (
            not check_batched_grad or check_rev_over_rev,
            "Setting check_batched_grad=True requires check_rev_over_rev to be True",
        ),
    )
    modes = (check_rev_over_rev, check_fwd_over_rev, check_batched_grad)
    inputs = as_tuple(inputs)
    _differentiable_inputs(inputs, warn=False)
    try:
        grad_outputs = _grad_outputs(func, inputs, grad_outputs, gen_non_contig_grad_outputs)
        # PyTorch checks the inputs and the grad_outputs together: one warning for each
        # single-precision one
        _differentiable_inputs(inputs + grad_outputs, warn=True, stacklevel=3)
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
            modes,
            masked,
        )
    except GradcheckError as exc:
        if raise_exception:
            raise GradcheckError(
                f"{exc}(gradgradcheck: inputs {len(inputs)} and up are the grad_outputs; output "
                "j is the gradient of the j-th input that requires grad.)"
            ) from None
        return False
    return True


def _grad_outputs(func: Callable, inputs: tuple, given: Any, noncontiguous: bool) -> tuple:
    outputs = outputs_of(func, inputs)
    live = [outputs[k] for k in live_outputs(outputs)]
    if given is None:
        from symgrad.testing import make_tensor

        # PyTorch's: drawn from the global generator, so a seed gives PyTorch's values
        return tuple(
            make_tensor(
                o.shape,
                dtype=o.dtype,
                device="cpu",
                low=-1,
                high=1,
                requires_grad=True,
                noncontiguous=noncontiguous,
            )
            for o in live
        )
    given = as_tuple(given)
    if len(given) != len(live):
        raise RuntimeError(
            f"gradgradcheck: got {len(live)} outputs that require grad and {len(given)} "
            "grad_outputs; give one per such output, in order"
        )
    return given


def _vjp_function(func: Callable, n: int) -> Callable:
    """``(*inputs, *grad_outputs) -> the gradients of the inputs that require grad``."""
    from symgrad.autograd.engine import grad

    def vjp(*args: Any) -> tuple:
        xs, gs = args[:n], args[n:]
        outs = outputs_of(func, xs)
        live = [outs[k] for k in live_outputs(outs)]
        wrt = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
        if not live:
            return ()
        grads = grad(live, wrt, list(gs), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return vjp
