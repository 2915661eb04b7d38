"""``ctc_loss`` of :mod:`symgrad.nn.functional`: the connectionist temporal classification
loss, one node (PyTorch's ``CtcLossBackward0``) giving each sequence's negative log
likelihood, then PyTorch's reductions.

The rule's meaning is the forward recursion over the target with blanks between its labels
(``alpha_t = (alpha_{t-1} @ A) * p_t``, ``A`` the allowed moves), written in the
interpreter vocabulary in probability space, so closed forms exist; the numeric path runs
the same recursions in log space. As PyTorch's kernel, the gradient for ``log_probs`` is
``exp(log_probs) - (alpha * beta summed per class) / (p(target) * p_t)``: the derivative
of the loss plus ``exp(log_probs)``, a term that vanishes once the gradient passes back
through the ``log_softmax`` that made ``log_probs``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from symgrad import creation, dtypes
from symgrad._arguments import invalid_combination
from symgrad.nn._arguments import _reduction
from symgrad.prim.numpy_xp import NP
from symgrad.prim.structural import Structural
from symgrad.prim.tangents import no_forward_rule
from symgrad.tensor import Tensor

__all__ = ["ctc_loss"]


class _Path:
    """One sequence's target with blanks around and between its labels, and the moves the
    recursion allows: stay, step to the next state, or skip a blank between two labels."""

    def __init__(self, labels: np.ndarray, blank: int, steps: int, classes: int, dtype: Any):
        ext = np.full(2 * len(labels) + 1, blank, dtype=np.int64)
        ext[1::2] = labels
        n = ext.size
        self.ext, self.steps = ext, steps
        self.skip = np.zeros(n, dtype=bool)
        # PyTorch's rule: skip the state two back when it holds another class; so a blank
        # between labels is never skipped, but a label that is the blank itself may be
        self.skip[2:] = ext[2:] != ext[:-2]
        moves = np.eye(n) + np.eye(n, k=1)
        moves[np.arange(n - 2), np.arange(2, n)] = self.skip[2:]
        self.moves = moves.astype(dtype)
        self.first = (np.arange(n) < 2).astype(dtype)
        self.last = (np.arange(n) >= n - 2).astype(dtype)
        self.onehot = (ext[:, None] == np.arange(classes)[None, :]).astype(dtype)
        repeats = int(np.sum(labels[1:] == labels[:-1])) if len(labels) > 1 else 0
        self.feasible = steps >= len(labels) + repeats


# -- the meaning, in the vocabulary (probability space) -------------------------------------------


def _probs(xp: Any, lp: Any, b: int, path: _Path) -> Any:
    rows = xp.getitem(lp, (np.arange(path.steps)[:, None], b, path.ext[None, :]))
    return xp.exp(rows)  # (T_b, states)


def _alphas(xp: Any, probs: Any, path: _Path) -> list:
    n = path.ext.size
    alpha = xp.getitem(probs, (0,)) * xp.constant(path.first)
    out = [alpha]
    for t in range(1, path.steps):
        moved = xp.reshape(xp.matmul(xp.reshape(alpha, (1, n)), xp.constant(path.moves)), (n,))
        alpha = moved * xp.getitem(probs, (t,))
        out.append(alpha)
    return out


def _likelihood(xp: Any, alphas: list, path: _Path) -> Any:
    return xp.sum(alphas[-1] * xp.constant(path.last), (0,), False)


def _forward(xp: Any, lp: Any, *, paths: tuple, zero_infinity: bool) -> Any:
    losses = []
    for b, path in enumerate(paths):
        if path.steps == 0:
            nll = xp.constant(np.asarray(0.0 if path.ext.size == 1 else np.inf))
        else:
            alphas = _alphas(xp, _probs(xp, lp, b, path), path)
            nll = -xp.log(_likelihood(xp, alphas, path))
        losses.append(xp.reshape(nll, (1,)))
    return xp.cat(losses, 0)


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    lp = c.inputs[0]
    p = c.params
    if xp is NP:
        return (_numeric_vjp(lp, g, p["paths"], p["zero_infinity"]),)
    total = None
    for b, path in enumerate(p["paths"]):
        if path.steps == 0 or (p["zero_infinity"] and not path.feasible):
            continue
        probs = _probs(xp, lp, b, path)
        alphas = _alphas(xp, probs, path)
        n = path.ext.size
        betas = [xp.getitem(probs, (path.steps - 1,)) * xp.constant(path.last)]
        for t in range(path.steps - 2, -1, -1):
            back = xp.matmul(
                xp.reshape(betas[0], (1, n)), xp.transpose(xp.constant(path.moves), 0, 1)
            )
            betas.insert(0, xp.reshape(back, (n,)) * xp.getitem(probs, (t,)))
        rows = [xp.reshape(a * bt, (1, n)) for a, bt in zip(alphas, betas)]
        shared = xp.cat(rows, 0) / probs / _likelihood(xp, alphas, path)
        per_class = xp.matmul(shared, xp.constant(path.onehot))
        steps = np.arange(path.steps)[:, None]
        classes = np.arange(lp.shape[2])[None, :]
        own = xp.exp(xp.getitem(lp, (steps, b, classes)))
        grad = (own - per_class) * xp.getitem(g, (b,))
        share = xp.index_put_zeros(c.shapes[0], (steps, b, classes), grad)
        total = share if total is None else total + share
    if total is None:
        total = xp.constant(np.zeros(c.shapes[0], dtype=p["dtype"]))
    return (total,)


# -- the numeric path, in log space ---------------------------------------------------------------


def _log_recursion(lp: np.ndarray, path: _Path, backward: bool) -> np.ndarray:
    """log alpha (or log beta) for every step and state."""
    rows = lp[: path.steps][:, path.ext]
    skip = path.skip
    if backward:
        rows, skip = rows[::-1, ::-1], np.append(skip[2:], [False, False])[::-1]
    out = np.full(rows.shape, -np.inf)
    out[0, :2] = rows[0, :2]
    for t in range(1, rows.shape[0]):
        prev = out[t - 1]
        one = np.concatenate(([-np.inf], prev[:-1]))
        two = np.full_like(prev, -np.inf)
        two[2:] = np.where(skip[2:], prev[:-2], -np.inf)
        with np.errstate(invalid="ignore"):
            out[t] = np.logaddexp(np.logaddexp(prev, one), two) + rows[t]
    return out[::-1, ::-1] if backward else out


def _kernel(xp: Any, lp: np.ndarray, *, paths: tuple, zero_infinity: bool) -> np.ndarray:
    data = lp.astype(np.float64)
    out = np.empty(len(paths))
    for b, path in enumerate(paths):
        if path.steps == 0:
            out[b] = 0.0 if path.ext.size == 1 else np.inf
            continue
        last = _log_recursion(data[:, b], path, False)[-1]
        out[b] = -np.logaddexp.reduce(last[-2:])
    return out.astype(lp.dtype)


def _numeric_vjp(lp: np.ndarray, g: np.ndarray, paths: tuple, zero_infinity: bool) -> np.ndarray:
    data = lp.astype(np.float64)
    grad = np.zeros(lp.shape)
    for b, path in enumerate(paths):
        if path.steps == 0:
            continue
        alpha = _log_recursion(data[:, b], path, False)
        nll = -np.logaddexp.reduce(alpha[-1, -2:])
        if zero_infinity and np.isinf(nll):
            continue
        ab = alpha + _log_recursion(data[:, b], path, True)
        per_class = np.full((path.steps, lp.shape[2]), -np.inf)
        for s, label in enumerate(path.ext):
            per_class[:, label] = np.logaddexp(per_class[:, label], ab[:, s])
        own = data[: path.steps, b]
        with np.errstate(invalid="ignore", over="ignore"):
            grad[: path.steps, b] = (np.exp(own) - np.exp(per_class + nll - own)) * g[b]
    return grad.astype(lp.dtype)


_CTC = Structural(
    "ctc_loss",
    _forward,
    _vjp,
    saves=(0,),
    kernel=_kernel,
    backward="CtcLossBackward0",
    jvp=no_forward_rule("_ctc_loss"),
)


_SIGNATURES = tuple(
    f"Tensor log_probs, Tensor targets, {kind} input_lengths, {kind} target_lengths, "
    "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False"
    for kind in ("tuple of ints", "Tensor")
)
_CHECKING = "(while checking arguments for ctc_loss_allocate_outputs)"


def _ints(values: Any) -> list | None:
    """The ints of a list or tuple of ints (or of one-element integer tensors), else None."""
    if not isinstance(values, (list, tuple)):
        return None
    try:
        return [None if isinstance(v, bool) else operator.index(v) for v in values]
    except TypeError:
        return None


def _length_arrays(input_lengths: Any, target_lengths: Any, args: tuple) -> list:
    """The lengths as int64 arrays: PyTorch takes two integer tensors or two sequences of
    ints, nothing else (no floats, no NumPy arrays, no lone int)."""
    pair = (input_lengths, target_lengths)
    if all(isinstance(v, Tensor) for v in pair):
        for name, v in zip(("input_lengths", "target_lengths"), pair):
            if v.dtype.is_floating_point or v.dtype.is_complex or v.dtype is dtypes.bool_:
                raise RuntimeError(f"{name} must be integral")
        return [np.asarray(v._data, dtype=np.int64).reshape(-1) for v in pair]
    ints = [_ints(v) for v in pair]
    if any(v is None or None in v for v in ints):
        raise invalid_combination("ctc_loss", args, _SIGNATURES)
    return [np.asarray(v, dtype=np.int64) for v in ints]


def _at_least_zero(name: str, lengths: np.ndarray) -> None:
    if lengths.size and lengths.min() < 0:
        raise RuntimeError(
            f"Expected {name} to have value at least 0, but got value "
            f"{lengths[lengths < 0][0]} {_CHECKING}"
        )


def _targets_of(targets: Tensor, lengths: np.ndarray, batch: int) -> list:
    """Each sequence's labels: a 1-D ``targets`` holds them one after another, a 2-D one
    a row per sequence, padded."""
    data = np.asarray(targets._data).astype(np.int64)
    if not 1 <= data.ndim <= 2:
        raise RuntimeError(
            f"Expected 1 to 2 dimensions, but got {data.ndim}-dimensional tensor for "
            f"argument #2 'targets' {_CHECKING}"
        )
    _at_least_zero("target_lengths", lengths)
    size, at = (int(lengths.sum()), 0) if data.ndim == 1 else (batch, 0)
    if data.shape[0] != size:
        raise RuntimeError(
            f"Expected tensor to have size {size} at dimension {at}, but got size "
            f"{data.shape[0]} for argument #2 'targets' {_CHECKING}"
        )
    if data.ndim == 1:
        return np.split(data, np.cumsum(lengths)[:-1])
    if lengths.max() > data.shape[1]:
        raise RuntimeError(
            f"Expected tensor to have size at least {lengths.max()} at dimension 1, but got size "
            f"{data.shape[1]} for argument #2 'targets' {_CHECKING}"
        )
    return [row[:n] for row, n in zip(data, lengths)]


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The connectionist temporal classification loss of ``log_probs`` (T, N, C), or (T, C)
    unbatched, log-probabilities of the classes at each step (``log_softmax`` outputs), for
    the ``targets`` (N, S) padded or concatenated (1-D), each of ``target_lengths`` labels
    read from the first ``input_lengths`` steps: ``-log`` of the total probability of the
    alignments of each target, with ``blank`` between labels. ``reduction="mean"`` divides
    each loss by its target length, then averages; ``zero_infinity`` turns impossible
    alignments' infinite losses (and their gradients) into zeros.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> log_probs = symgrad.full((2, 1, 2), 0.5).log()
    >>> F.ctc_loss(log_probs, symgrad.tensor([[1]]), [2], [1], reduction="none")
    tensor([0.2877])
    """
    reduction = _reduction(reduction)
    args = (log_probs, targets, input_lengths, target_lengths, blank, 0, zero_infinity)
    inputs, lengths = _length_arrays(input_lengths, target_lengths, args)
    if not log_probs.dtype.is_floating_point or log_probs.dtype.scalar_type == "Half":
        raise NotImplementedError(
            f"\"ctc_loss_cpu\" not implemented for '{log_probs.dtype.scalar_type}'"
        )
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
    if log_probs.ndim != 3:
        raise RuntimeError(
            f"ctc_loss expects log_probs of shape (T, N, C) or (T, C), got {list(log_probs.shape)}"
        )
    steps, batch, classes = log_probs.shape
    if log_probs._data.size == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    for name, v in (("input_lengths", inputs), ("target_lengths", lengths)):
        if v.size != batch:
            raise RuntimeError(f"{name} must be of size batch_size")
    labels = _targets_of(targets, lengths, batch)
    _at_least_zero("input_lengths", inputs)
    if inputs.max() > steps:
        raise RuntimeError(
            f"Expected input_lengths to have value at most {steps}, but got value "
            f"{inputs[inputs > steps][0]} {_CHECKING}"
        )
    for row in labels:
        if row.size and (row.min() < 0 or row.max() >= classes):
            raise RuntimeError(f"ctc_loss: target labels must be in [0, {classes}), got {row}")
    dtype = log_probs._data.dtype
    paths = tuple(_Path(row, blank, int(t), classes, dtype) for row, t in zip(labels, inputs))
    loss = _CTC(log_probs, paths=paths, zero_infinity=zero_infinity)
    if unbatched:
        loss = loss.squeeze(0)
    if zero_infinity:
        loss = loss.where(loss != np.inf, creation.zeros((), dtype=loss.dtype))
    if reduction == "mean":
        divisor = creation.tensor(np.maximum(lengths, 1)).to(loss.dtype)
        return (loss / (divisor.squeeze(0) if unbatched else divisor)).mean()
    return loss.sum() if reduction == "sum" else loss
