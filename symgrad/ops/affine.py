"""``linear`` recorded as PyTorch records it.

A matrix input with a bias is one ``addmm(bias, input, weight.t())``: ``AddmmBackward0`` with
the edges (bias, input, ``TBackward0`` of the weight). Without a bias it is ``mm(input,
weight.t())`` (``MmBackward0``). Other inputs are reshaped around those nodes the way PyTorch
does it: a contiguous input with a bias is flattened to a matrix (``ViewBackward0``), multiplied
by ``addmm`` and viewed back (``ViewBackward0``); otherwise ``matmul`` folds the leading
dimensions into rows (``ViewBackward0`` or a copy, ``MmBackward0``, ``UnsafeViewBackward0``;
``UnsqueezeBackward0`` and ``SqueezeBackward4`` around a vector) and the bias is added in place
(``AddBackward0``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._arguments import require_tensor_arguments
from symgrad._silent import restore, silence
from symgrad.ops.linalg import _column_major, matmul
from symgrad.ops.transposes import t, t_of_weight
from symgrad.prim import batching as _batching
from symgrad.prim.numpy_xp import sum_to_numpy
from symgrad.prim.structural import Structural
from symgrad.prim.text import addmm_text
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["linear"]


def _addmm_forward(xp: Any, bias: Any, mat1: Any, mat2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    out = xp.matmul(mat1, mat2)
    if alpha != 1:  # torch.addmm's scales; linear calls it without them
        out = out * alpha
    if beta == 0:  # PyTorch ignores the bias then, even where it holds nan
        return out
    return out + (bias if beta == 1 else bias * beta)


def _addmm_kernel(xp: Any, bias: Any, mat1: Any, mat2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    if beta != 1 or alpha != 1:
        return _addmm_forward(np, bias, mat1, mat2, beta, alpha)
    if mat1.dtype == np.float16:  # the product and the bias in float32, rounded once
        return (np.matmul(mat1, mat2, dtype=np.float32) + bias).astype(np.float16)
    out = np.matmul(mat1, mat2)
    np.add(out, bias, out=out)  # the bias is added in place, as addmm does: no second array
    return out


def _mT(xp: Any, m: Any) -> Any:
    """A matrix transposed (with ``t()`` under create_graph, as PyTorch's formulas)."""
    return t(m) if xp is INTERPRETERS.tensor else xp.transpose(m, 0, 1)


def _addmm_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """The bias's gradient summed over the rows it was broadcast along; the matrices' as for
    ``mm`` (a column-major ``mat2``, linear's ``weight.t()``, gets a column-major gradient:
    see ``linalg._matmul_vjp``)."""
    mat1, mat2 = c.inputs[1], c.inputs[2]
    needs, bias_shape, params = c.needs, c.shapes[0], c.params
    gb = g1 = g2 = None
    if needs[0]:
        beta = params.get("beta", 1) if params else 1
        gi = g if beta == 1 else xp.mul_scalar(g, beta)  # (PyTorch's mul.Scalar)
        gb = xp.sum_to_size(gi, bias_shape)  # (PyTorch's sum_to: a kept-dims sum, a view)
    if needs[1]:
        g1 = xp.matmul(g, _mT(xp, mat2))
    if needs[2]:
        if _column_major(mat2):
            g2 = _mT(xp, xp.matmul(_mT(xp, g), mat1))
        else:
            g2 = xp.matmul(_mT(xp, mat1), g)
    if params and params.get("alpha", 1) != 1:
        g1, g2 = (None if v is None else xp.mul_scalar(v, params["alpha"]) for v in (g1, g2))
    return gb, g1, g2


def _addmm_numeric_vjp(
    g: Any, arrays: list, out: Any, needs: list, params: dict, meta: tuple
) -> Any:
    """``_addmm_vjp``'s steps on NumPy (linear's backward in every training step), with no
    interpreter between; None for torch.addmm's scales, left to the rule."""
    if params:
        return None
    mat1, mat2 = arrays[1], arrays[2]
    gb = g1 = g2 = None
    if needs[0]:
        bias_shape = meta[0][0]
        if len(bias_shape) == 1 and bias_shape[0] == meta[2][0][1]:
            gb = np.asarray(g.sum(axis=(0,), keepdims=False))
        else:
            gb = sum_to_numpy(g, bias_shape)
    if needs[1]:
        g1 = np.matmul(g, mat2.swapaxes(0, 1))
    if needs[2]:
        if _column_major(mat2):
            g2 = np.matmul(g.swapaxes(0, 1), mat1).swapaxes(0, 1)
        else:
            g2 = np.matmul(mat1.swapaxes(0, 1), g)
    return gb, g1, g2


def _scaled(x: Any, k: Any) -> Any:
    return x if k == 1 else x * k


def _addmm_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """``tb + t1 @ mat2 + mat1 @ t2``: the product rule, the bias entering linearly."""
    tb, t1, t2 = tangents
    beta, alpha = c.params.get("beta", 1), c.params.get("alpha", 1)
    terms = [] if t1 is None else [_scaled(xp.matmul(t1, c.inputs[2]), alpha)]
    terms += [] if t2 is None else [_scaled(xp.matmul(c.inputs[1], t2), alpha)]
    if beta == 0:
        tb = None if terms else xp.constant(np.zeros((c.shapes[1][0], c.shapes[2][1])))
    elif tb is not None:
        tb = _scaled(tb, beta)
    if tb is not None:
        out_shape = (c.shapes[1][0], c.shapes[2][1])
        terms.append(tb if terms else xp.expand(tb, out_shape))
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


_ADDMM = Structural(
    "addmm",
    _addmm_forward,
    _addmm_vjp,
    saves=(1, 2),
    reads={1: (2,), 2: (1,)},
    backward="AddmmBackward0",
    kernel=_addmm_kernel,
    jvp=_addmm_jvp,
    text=addmm_text,
    devices=lambda ndims: (1, ((1, 0),)),  # PyTorch's: mat1 decides, the bias must follow
    numeric_vjp=_addmm_numeric_vjp,
)


def _addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """``bias + mat1 @ mat2`` as one ``AddmmBackward0`` node, after PyTorch's checks."""
    a, b, c = bias._data, mat1._data, mat2._data
    if b.ndim != 2 or c.ndim != 2:
        name, m = ("mat1", b) if b.ndim != 2 else ("mat2", c)
        raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    if (b.dtype is not c.dtype and b.dtype != c.dtype) or (
        a.dtype is not c.dtype and a.dtype != c.dtype
    ):
        first, other = ("mat1", mat1) if b.dtype != c.dtype else ("self", bias)
        raise RuntimeError(
            f"{first} and mat2 must have the same dtype, but got {other.dtype.scalar_type} and "
            f"{mat2.dtype.scalar_type}"
        )
    if b.shape[1] != c.shape[0]:
        raise RuntimeError(_cannot_multiply(b.shape[0], b.shape[1], c.shape))
    if a.ndim != 1 or a.shape[0] != c.shape[1]:  # other than the usual bias, one per output
        _check_bias(bias, (b.shape[0], c.shape[1]))
    # the kernel called here rather than through the primitive's call: linear's hot path
    token = silence()
    try:
        out = _addmm_kernel(None, a, b, c)
    finally:
        restore(token)
    return _ADDMM.record((bias, mat1, mat2), {}, out)


def _check_bias(bias: Tensor, out_shape: tuple) -> None:
    """PyTorch's errors for a bias that its ``expand`` to the output's shape refuses."""
    shape = tuple(bias.shape)
    hint = (
        f"\n(linear: the bias of shape {list(shape)} can't be added to the output of shape "
        f"{list(out_shape)}: give a bias of shape [{out_shape[1]}], the weight's first size)"
    )
    if len(shape) > 2:
        raise RuntimeError(
            f"expand(torch.{bias.dtype.scalar_type}Tensor{{{list(shape)}}}, "
            f"size={list(out_shape)}): the number of sizes provided ({len(out_shape)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({len(shape)})" + hint
        )
    for i in range(-1, -len(shape) - 1, -1):  # PyTorch checks from the last dimension
        n, m = out_shape[i], shape[i]
        if m not in (1, n):
            raise RuntimeError(
                f"The expanded size of the tensor ({n}) must match the existing size ({m}) at "
                f"non-singleton dimension {len(out_shape) + i}.  Target sizes: "
                f"{list(out_shape)}.  Tensor sizes: {list(shape)}" + hint
            )


def _cannot_multiply(rows: int, k: int, mat2_shape: tuple) -> str:
    return (
        f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
        f"{mat2_shape[0]}x{mat2_shape[1]})"
    )


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``, recorded with PyTorch's nodes.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[1.0, 2.0]], requires_grad=True)
    >>> w = symgrad.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]], requires_grad=True)
    >>> y = F.linear(x, w, symgrad.tensor([0.5, 0.0, -1.0], requires_grad=True))
    >>> y
    tensor([[1.5000, 3.0000, 3.0000]], grad_fn=<AddmmBackward0>)
    >>> [type(fn).__name__ for fn, _ in y.grad_fn.next_functions]
    ['AccumulateGrad', 'AccumulateGrad', 'TBackward0']
    """
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        require_tensor_arguments("linear", "input weight", input, weight)
    if _batching.STATE.depth and any(
        isinstance(v, _batching.BatchedTensor) for v in (input, weight, bias)
    ):  # inside vmap: the batching rules of matmul and add
        out = matmul(input, weight.transpose(0, 1) if weight.ndim == 2 else weight)
        return out if bias is None else out + bias
    nx, nw = input._data.ndim, weight._data.ndim
    if nx == 2 and nw == 2 and bias is not None:  # the hot path
        if not isinstance(bias, Tensor):
            raise TypeError(f"linear(): argument 'bias' must be Tensor, not {type(bias).__name__}")
        return _addmm(bias, input, t_of_weight(weight))
    if nx == 0 or nw == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {nx}D and {nw}D"
        )
    if bias is not None:
        if not isinstance(bias, Tensor):
            raise TypeError(f"linear(): argument 'bias' must be Tensor, not {type(bias).__name__}")
        if nx == 2:
            return _addmm(bias, input, t(weight))
        # PyTorch flattens a contiguous input with a vector bias (other biases are added
        # after the product, broadcasting as they may)
        if bias.ndim == 1 and input._data.flags.c_contiguous:
            return _flattened(input, weight, bias)
    out = _folded_matmul(input, t(weight))
    return out if bias is None else out.add_(bias)


def _flattened(input: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    """PyTorch's ``_flatten_nd_linear``: the input viewed as a matrix, ``addmm``, and the
    result viewed back."""
    lead = input.shape[:-1]
    rows = input.reshape(math.prod(lead), input.shape[-1])
    out = _addmm(bias, rows, t(weight))
    return out.view(*lead, out.shape[1])


def _folded_matmul(input: Tensor, weight_t: Tensor) -> Tensor:
    """``input @ weight_t`` as PyTorch's ``matmul`` records it for a matrix or vector
    ``weight_t``: the input's leading dimensions folded into the rows of one ``mm`` (or
    ``mv``), a vector lifted to one row."""
    k = input.shape[-1]
    rows = math.prod(input.shape[:-1])
    if weight_t.ndim == 2 and k != weight_t.shape[0]:
        raise RuntimeError(_cannot_multiply(rows, k, weight_t.shape))
    if weight_t.ndim == 1 and k != weight_t.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec ({weight_t.shape[0]})"
        )
    return matmul(input, weight_t)  # PyTorch's matmul, folding or batching as it does
