"""``dropout``, ``alpha_dropout``, ``one_hot``, ``embedding`` and ``bilinear`` of
:mod:`symgrad.nn.functional`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import dtypes, random
from symgrad._arguments import (
    int_value,
    require_float,
    require_python_bool,
    require_tensor_arguments,
)
from symgrad._memory_format import target_strides
from symgrad._meta import ITEM, check_devices, is_meta, meta_array, stand_in
from symgrad.autograd.modified import watch_indices
from symgrad.ops.inplace import _write, inplace
from symgrad.ops.trilinear import trilinear
from symgrad.prim import batching as _batching
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["dropout", "alpha_dropout", "one_hot", "embedding", "bilinear"]


def _check_p(p: float, training: Any, op: str) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if type(training) is not bool:  # (1 or "yes" for True is PyTorch's TypeError)
        require_python_bool(op, "train", training, 3)


def _keep_mask(input: Tensor, p: float) -> np.ndarray:
    """True with probability ``1 - p`` in ``input``'s shape, drawn from symgrad's generator
    (``manual_seed``; nothing is drawn for a meta tensor)."""
    stream = random.numpy_generator(None, input)
    # drawn in the memory order of the mask PyTorch makes with empty_like (a transposed
    # input's: column by column)
    strides = target_strides(input._data, None)
    draw = lambda s: stream.bernoulli_draws(s, 1.0 - p)  # noqa: E731
    return random.in_memory_order(draw, tuple(input.shape), strides)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``
    (node ``MulBackward0``); the input itself when not ``training`` or ``p == 0``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> _ = symgrad.manual_seed(0)
    >>> y = F.dropout(symgrad.ones(1000), p=0.25)
    >>> sorted(set(y.tolist()))
    [0.0, 1.3333333730697632]
    >>> F.dropout(symgrad.ones(3), training=False)
    tensor([1., 1., 1.])
    """
    _check_p(p, training, "dropout")
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:  # PyTorch multiplies by a 0-d zero, drawing no mask
        mask = Tensor._make(np.zeros((), dtype=input._data.dtype))
    else:
        factor = _keep_mask(input, p) * np.asarray(1.0 / (1.0 - p), dtype=input._data.dtype)
        mask = Tensor._make(factor.astype(input._data.dtype, copy=False))
    if inplace:
        return _inplace(input, "dropout_", lambda x: x * mask)
    return input * mask


def _inplace(x: Tensor, name: str, compute: Any) -> Tensor:
    return inplace(x, name, compute)


# -SELU's negative saturation value (scale * alpha): alpha_dropout keeps SELU's mean and variance
_ALPHA = 1.7580993408473766


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value and
    an affine map keeps the mean and variance (node ``AddBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.alpha_dropout(symgrad.ones(2), 0.5)
    tensor([1., 1.])
    """
    _check_p(p, training, "alpha_dropout")
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        return input * 0.0
    keep = _keep_mask(input, p).astype(input._data.dtype)
    a = 1.0 / math.sqrt((_ALPHA**2 * p + 1) * (1 - p))
    mult, shift = _alpha_terms(keep, p, a)
    compute = lambda x: x * Tensor._make(mult) + Tensor._make(shift)  # noqa: E731
    return _inplace(input, "alpha_dropout_", compute) if inplace else compute(input)


def _alpha_terms(keep: np.ndarray, p: float, a: float) -> tuple:
    """PyTorch's factors: ``input * (keep * a) + b`` with ``b = (keep - 1) * alpha * a +
    alpha * a * p``."""
    b = (keep - 1) * (_ALPHA * a) + _ALPHA * a * p
    return (keep * a).astype(keep.dtype), np.asarray(b, dtype=keep.dtype)


def one_hot(input: Tensor, num_classes: int = -1) -> Tensor:
    """Integer class indices as one-hot int64 rows (``num_classes=-1``: one more than the
    largest index).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.one_hot(symgrad.tensor([0, 2]))
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    require_tensor_arguments("one_hot", "input", input)
    if input.dtype is not dtypes.int64:
        if _batching.any_batched(input):  # PyTorch's words inside vmap
            raise _batching.Refused("one_hot is only applicable to index tensor.")
        raise RuntimeError(
            "one_hot is only applicable to index tensor of type LongTensor (got "
            f"{input.dtype!r}; convert it with .long())."
        )
    if _batching.any_batched(input):  # inside vmap: the classes compared with each index
        if num_classes <= 0:
            raise _batching.Refused(
                "When vmap-ing torch.nn.functional.one_hot, please provide an explicit positive "
                "num_classes argument."
            )
        classes = Tensor._make(np.arange(num_classes, dtype=np.int64))
        return (input.unsqueeze(-1) == classes).to(dtypes.int64)
    t = input._data
    if is_meta(t):  # no values to check; the number of classes can't be read from them
        if num_classes == -1:
            raise RuntimeError(ITEM)
        return Tensor._make(meta_array(t.shape + (num_classes,), np.int64))
    if num_classes == -1:
        if not t.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(t.max()) + 1
    if t.size and t.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if t.size and t.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make(np.eye(num_classes, dtype=np.int64)[t])


# -- embedding: one node, EmbeddingBackward0 -----------------------------------------------------


def _embedding_vjp(xp: Any, g: Any, c: Any) -> tuple:
    p = c.params
    idx, coef = p["indices"], p["coef"]
    if coef is not None:  # padding rows get nothing; scale_grad_by_freq divides by counts
        g = g * xp.constant(coef.reshape(coef.shape + (1,)).astype(p["dtype"]))
    return (xp.index_put_zeros(c.shapes[0], (idx,), g, node="EmbeddingDenseBackwardBackward0"),)


_EMBEDDING = Structural(
    "embedding",
    lambda xp, w, indices, coef, dtype: xp.getitem(w, (indices,)),
    _embedding_vjp,
    backward="EmbeddingBackward0",
    jvp="linear",
)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` picked by the indices ``input``; the ``padding_idx`` row gets no
    gradient; ``max_norm`` renormalizes the picked rows in place first.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.embedding(symgrad.tensor([2, 0]), symgrad.tensor([[1.0], [2.0], [3.0]]))
    tensor([[3.],
            [1.]])
    """
    require_tensor_arguments("embedding", "weight indices", weight, input)
    if padding_idx is not None and type(padding_idx) is not int:
        padding_idx = int_value("embedding", "padding_idx", padding_idx, 3)
    if max_norm is not None and type(max_norm) is not float:
        require_float("embedding_renorm_", "max_norm", max_norm)
    if weight.ndim == 0 and weight.requires_grad:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if weight.ndim != 2:
        raise RuntimeError(
            f"'weight' must be 2-D (num_embeddings, embedding_dim), got shape {list(weight.shape)}"
        )
    n = weight.shape[0]
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= n or padding_idx < -n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx % n if padding_idx < 0 else padding_idx
    if input.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.type()} instead (while checking arguments for "
            "embedding)"
        )
    if _batching.any_batched(input, weight) and max_norm is None and not scale_grad_by_freq:
        return _batched_embedding(input, weight, padding_idx)
    if is_meta(input._data):  # (CPU indices of a meta weight are fine, as in PyTorch)
        check_devices((weight, input))
    idx = stand_in(input._data).astype(np.int64)  # (a meta tensor's: zeros, the result is meta)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        if not weight.shape[1]:
            bad = idx[(idx < 0) | (idx >= n)].flat[0]
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
        raise IndexError(f"index out of range in self\n(indices must be in [0, {n}))")
    if max_norm is not None:
        _renorm(weight, idx, max_norm, norm_type)
    coef = None
    if padding_idx is not None or scale_grad_by_freq:
        coef = np.ones(idx.shape)
        if scale_grad_by_freq:
            coef = coef / frequencies(idx, n)
        if padding_idx is not None:
            coef = np.where(idx == padding_idx, 0.0, coef)
    result = _EMBEDDING(weight, indices=idx, coef=coef, dtype=weight._data.dtype)
    watch_indices(result, input)  # (PyTorch saves the indices: an in-place change is its error)
    return result


def frequencies(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each entry's index occurs among all of ``idx`` (of ``n`` rows): the divisor
    of ``scale_grad_by_freq``.

    Examples
    --------
    >>> import numpy as np
    >>> from symgrad.nn.sparse import frequencies
    >>> frequencies(np.array([2, 0, 2]), 3).tolist()
    [2, 1, 2]
    """
    return np.bincount(idx.reshape(-1), minlength=n)[idx]


def _batched_embedding(input: Tensor, weight: Tensor, padding_idx: Any) -> Tensor:
    """Inside ``vmap``: the rows of the whole batch picked at once; with a batch of tables
    (per-sample gradients), element ``b`` picks row ``i`` of its own table, row
    ``b * n + i`` of the tables stacked."""
    if not _batching.any_batched(weight):
        return _batching.per_batch(lambda i: embedding(i, weight, padding_idx), input)

    def stacked(i: Tensor, w: Tensor) -> Tensor:
        size, n = w.shape[0], w.shape[1]
        start = Tensor._make(
            np.arange(0, size * n, n, dtype=np.int64).reshape((size,) + (1,) * (i.ndim - 1))
        )
        out = embedding(i + start, w.reshape(size * n, w.shape[2]))
        if padding_idx is None:
            return out
        padded = (i == padding_idx).unsqueeze(-1)
        return out.detach().where(padded, out)  # the padding row's value, without its gradient

    return _batching.per_batch(stacked, input, weight)


def _renorm(weight: Tensor, idx: np.ndarray, max_norm: float, norm_type: float) -> None:
    """PyTorch's embedding_renorm_: rows used whose norm exceeds ``max_norm`` scaled to it."""
    rows = np.unique(idx)
    data = weight._data[rows]
    norms = np.linalg.norm(data, ord=norm_type, axis=1) if data.size else np.zeros(0)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    new = np.array(weight._data, copy=True)
    new[rows] = data * scale[:, None].astype(data.dtype)
    _write(weight, new, "embedding_renorm_")


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``out[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.bilinear(symgrad.ones(1, 2), symgrad.ones(1, 3), symgrad.ones(4, 2, 3)).shape
    symgrad.Size([1, 4])
    """
    if (
        not isinstance(input1, Tensor)
        or not isinstance(input2, Tensor)
        or not isinstance(weight, Tensor)
    ):
        require_tensor_arguments("bilinear", "input1 input2 weight", input1, input2, weight)
    _check_bilinear(input1, input2, weight, bias)
    out_f, in1, in2 = weight.shape
    lead = tuple(input1.shape[:-1])
    # PyTorch's graph: both inputs flattened to rows, one TrilinearBackward0, the view back
    out = trilinear(input1.reshape(-1, in1), weight, input2.reshape(-1, in2))
    out = out.view(lead + (out_f,))
    return out if bias is None else out + bias


_C_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long"}


def _check_bilinear(x1: Tensor, x2: Tensor, w: Tensor, b: Tensor | None) -> None:
    named = [("input1", x1), ("input2", x2), ("weight", w)] + (
        [("bias", b)] if b is not None else []
    )
    if len({t.dtype for _, t in named}) > 1:
        listed = ", ".join(f"{k}: {_C_NAMES.get(t.dtype.name, t.dtype.name)}" for k, t in named)
        raise RuntimeError(
            f"All tensors must have the same dtype, got {listed}; convert them with .to(dtype)"
        )
    if x1.ndim != x2.ndim:
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {x1.ndim} and {x2.ndim}"
        )
    for k in range(x1.ndim - 1):
        if x1.shape[k] != x2.shape[k]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {k}: got "
                f"{x1.shape[k]} and {x2.shape[k]}"
            )
    if x1.ndim == 0 or w.ndim < 3:
        r = max(w.ndim, 1)
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-r}, {r - 1}], but got "
            f"{1 if w.ndim < 2 else 2}): bilinear needs a weight (out, in1, in2)"
        )
    if x1.shape[-1] != w.shape[1]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {x1.shape[-1]} but "
            f"expected {w.shape[1]}"
        )
    if x2.shape[-1] != w.shape[2]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {x2.shape[-1]} but "
            f"expected {w.shape[2]}"
        )
    if b is not None and b.ndim == 0:
        raise IndexError(
            "Dimension specified as 0 but tensor has no dimensions: bilinear needs a bias of "
            f"shape ({w.shape[0]},), one number for each output"
        )
    if b is not None and b.shape[0] != w.shape[0]:  # PyTorch reads the first size
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {b.shape[0]} but "
            f"expected {w.shape[0]}"
        )
