"""Matrix products with PyTorch's 1-D / 2-D / batched rules."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._arguments import require_tensor_arguments, require_tensors
from symgrad._tracing import TRACE
from symgrad._version import NO_VERSION, Version
from symgrad.autograd import grad_mode
from symgrad.ops.copies import contiguous
from symgrad.ops.product_checks import _check, _check_dtypes
from symgrad.ops.product_kernels import _column_major, _matmul_numeric_vjp
from symgrad.ops.shape import _EXPAND, _UNSAFE_VIEW, reshape, squeeze, transpose
from symgrad.ops.shape_inplace import squeeze_own_
from symgrad.ops.transposes import t
from symgrad.prim import batching as _batching
from symgrad.prim.primitive import as_operand
from symgrad.prim.structural import Structural
from symgrad.prim.text import matmul_text
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import NAMES, Tensor, link_view

__all__ = ["matmul", "mm", "mv", "dot", "vdot", "bmm", "outer", "ger"]


def _mT(xp: Any, a: Any) -> Any:
    if xp is INTERPRETERS.tensor and a.ndim == 2:
        return t(a)  # (create_graph: PyTorch's backward formulas transpose matrices with t())
    return xp.transpose(a, -1, -2)


def _matmul_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """VJP of ``a @ b`` for every pairing of 1-D and N-D operands (broadcast batches summed)."""
    a, b = c.inputs
    a_vec, b_vec = len(c.shapes[0]) == 1, len(c.shapes[1]) == 1
    if b_vec and len(c.shapes[0]) < 3 and xp is INTERPRETERS.tensor:
        return _vector_product_vjp(xp, g, c)  # (the graph PyTorch's rules for dot and mv record)
    # lift vectors to matrices so one matrix rule serves all cases
    a2 = xp.unsqueeze(a, 0) if a_vec else a
    b2 = xp.unsqueeze(b, -1) if b_vec else b
    g2 = g
    if b_vec:
        g2 = xp.unsqueeze(g2, -1)
    if a_vec:
        g2 = xp.unsqueeze(g2, -2)
    ga = gb = None
    if xp is INTERPRETERS.tensor and a.ndim == 3 == b.ndim and a.shape[0] == b.shape[0]:
        # (create_graph: bmm's formulas are bmm products, as PyTorch records them)
        ga = bmm(g, _mT(xp, b)) if c.needs[0] else None
        return ga, bmm(_mT(xp, a), g) if c.needs[1] else None
    if c.needs[0]:
        if len(c.shapes[1]) == 2 and _column_major(a):
            # PyTorch's mm_mat1_backward: a column-major matrix (x.t()) gets a column-major
            # gradient, (b gᵀ)ᵀ, row-major again once it reaches x through t()
            ga = _mT(xp, xp.matmul(b, _mT(xp, g)))
        else:
            ga = xp.sum_to_size(xp.matmul(g2, _mT(xp, b2)), a2.shape)
            if tuple(ga.shape) != tuple(c.shapes[0]):
                ga = xp.reshape(ga, c.shapes[0])
    if c.needs[1]:
        if len(c.shapes[0]) == 2 and _column_major(b):
            # PyTorch's mm_mat2_backward: a column-major matrix (a transposed one: linear's
            # weight.t()) gets a column-major gradient, (gᵀ a)ᵀ, which reaches the weight
            # through t() as a fresh row-major array, kept as its .grad without a copy
            gb = _mT(xp, xp.matmul(_mT(xp, g), a))
        else:
            gb = xp.sum_to_size(xp.matmul(_mT(xp, a2), g2), b2.shape)
            if tuple(gb.shape) != tuple(c.shapes[1]):
                gb = xp.reshape(gb, c.shapes[1])
    return ga, gb


def _vector_product_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """dot's ``g * b`` and ``g * a``; mv's outer product ``g.ger(b)`` (a column of ``g``
    times ``b``) and ``a.t().mv(g)``."""
    a, b = c.inputs
    if len(c.shapes[0]) == 1:
        return (g * b if c.needs[0] else None, g * a if c.needs[1] else None)
    ga = xp.reshape(g, (c.shapes[0][0], 1)) * b if c.needs[0] else None
    return ga, xp.matmul(_mT(xp, a), g) if c.needs[1] else None


_PRODUCT_NAMES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0"}


def _matmul_name(params: dict, inputs: list) -> str:
    """PyTorch's node for the dimensions multiplied: Dot, Mv, Mm (a vector times a matrix is
    an Mm too) or Bmm for batches."""
    nd = (len(inputs[0][0]), len(inputs[1][0]))
    return _PRODUCT_NAMES.get(nd, "MmBackward0" if nd == (1, 2) else "BmmBackward0")


def _product_devices(ndims: tuple) -> tuple | None:
    """Where meta and CPU tensors meet (PyTorch's kernels check no devices): ``mm``'s result
    on its first operand's device, ``bmm``'s on its second's; ``mv``, ``dot`` raise."""
    if ndims in ((2, 2), (1, 2)):
        return (0, ())
    return (1, ()) if min(ndims) >= 3 else None


_MATMUL = Structural(
    "matmul",
    lambda xp, a, b: xp.matmul(a, b),
    _matmul_vjp,
    saves=(0, 1),
    reads={0: (1,), 1: (0,)},
    backward=_matmul_name,
    jvp="bilinear",
    text=matmul_text,
    batch="matmul",
    devices=_product_devices,
    numeric_vjp=_matmul_numeric_vjp,
)


def matmul(input: Any, other: Any) -> Tensor:
    """The matrix product with NumPy/PyTorch broadcasting of batch dimensions.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.matmul(symgrad.ones(2, 3), symgrad.ones(3))
    tensor([3., 3.])
    """
    a, b = input, other
    if type(a) is not Tensor or type(b) is not Tensor:
        a, b = as_operand(input, "matmul"), as_operand(other, "matmul")
        require_tensors("matmul", a, "other", b)
    # the arrays' own shapes and dtypes: this runs for every product of a training step
    da, db = a._data, b._data
    sa, sb = da.shape, db.shape
    if da.dtype is not db.dtype and da.dtype != db.dtype and len(sa) == len(sb) == 1:
        _check_dtypes(a, b)
    _check(sa, sb)
    if da.dtype is not db.dtype and da.dtype != db.dtype:
        _check_dtypes(a, b)
    na, nb = len(sa), len(sb)
    if da.dtype.kind == "b":
        _refuse_bool(na, nb)
    if na == 2 and nb == 2:  # the hot path: one mm
        return _MATMUL(a, b)
    if na > 2 or nb > 2:
        if not (_batching.STATE.depth and _any_batched(a, b)):
            return _lowered(a, b)
    elif na == 1 and nb == 2 and not (_batching.STATE.depth and _any_batched(a, b)):
        # PyTorch's unsqueeze(0).mm(b).squeeze_(0)
        return squeeze_own_(_MATMUL(_row(a), b))
    return _MATMUL(a, b)


def _row(a: Tensor) -> Tensor:
    """``a.unsqueeze(0)``, made directly when nothing records it (a vector that requires no
    grad, no names or trace to keep its origin, no forward mode)."""
    data = a._data
    if (
        a._requires_grad
        or type(data) is not np.ndarray
        or NAMES.used
        or TRACE.log is not None
        or a._fw is not None
    ):
        return a.unsqueeze(0)
    row = Tensor._make(data.reshape((1,) + data.shape))
    link_view(a, row, "view" if grad_mode.is_grad_enabled() else "no_grad")
    return row


def _refuse_bool(na: int, nb: int) -> None:
    """PyTorch's error for a product of bool tensors, named after the kernel it would run."""
    if na > 2 or nb > 2:
        kernel = "bmm"
    elif nb == 1:
        kernel = "dot" if na == 1 else "addmv_impl_cpu"
    else:
        kernel = "addmm_impl_cpu_"
    raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _any_batched(a: Tensor, b: Tensor) -> bool:
    return isinstance(a, _batching.BatchedTensor) or isinstance(b, _batching.BatchedTensor)


def _lowered(a: Tensor, b: Tensor) -> Tensor:
    """A product with a batch, recorded as PyTorch's ``matmul`` records it: the batch folded
    into the rows of one ``mm``/``mv`` when that copies nothing or spares a batch of gradients
    to sum, else both operands expanded to the common batch and one ``bmm``."""
    if a.ndim == 3 and b.ndim == 3:
        # PyTorch drops a batch of one from the operand that needs a gradient, to fold
        if a.shape[0] == 1 and b.shape[0] != 1 and a._requires_grad:
            a = squeeze(a, 0)
        elif b.shape[0] == 1 and a.shape[0] != 1 and b._requires_grad:
            b = squeeze(b, 0)
    if _should_fold(a, b):
        return _folded(a, b)
    return _batched(a, b)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """PyTorch's ``should_fold``: fold the larger operand's batch into matrix rows when the
    smaller operand needs a gradient (one product's gradient, not a batch of them to sum),
    or when the fold costs no copy."""
    larger = a.ndim >= b.ndim
    big, small = (a, b) if larger else (b, a)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if a.ndim == 2:  # the product of the transposes would need a copy back
        return False
    data = big._data if larger else np.swapaxes(big._data, -1, -2)
    if data.size == 0:
        return True
    strides, shape = data.strides, data.shape
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(data.ndim - 2))


def _folded(a: Tensor, b: Tensor) -> Tensor:
    """One ``mm`` (``mv``) of the larger operand's rows (of its transpose when it is the right
    one), the result viewed back into the batch."""
    flip = b.ndim > a.ndim
    big = transpose(b, -1, -2) if flip else a
    small = (t(a) if a.ndim == 2 else a) if flip else b
    out_shape = big.shape[:-1]
    rows = reshape(big, (math.prod(out_shape), big.shape[-1]))
    if small.ndim == 1:
        return _unsafe_view(_MATMUL(rows, small), out_shape)
    out = _unsafe_view(_MATMUL(rows, small), out_shape + (small.shape[1],))
    return contiguous(transpose(out, -1, -2)) if flip else out


def _batched(a: Tensor, b: Tensor) -> Tensor:
    """Both operands expanded to the common batch (PyTorch records the expand even when it
    keeps the shape), reshaped to one batch dimension, one ``bmm``, the result viewed back."""
    n = a.shape[-2] if a.ndim > 1 else 1
    k = a.shape[-1]
    p = b.shape[-1] if b.ndim > 1 else 1
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2] if b.ndim > 1 else ())
    count = math.prod(batch)
    left = reshape(_EXPAND(a, shape=batch + (n, k)), (count, n, k))
    out_shape = batch + ((n,) if a.ndim > 1 else ()) + ((p,) if b.ndim > 1 else ())
    if b.ndim == 1:
        right = reshape(_EXPAND(b, shape=batch + (k,)), (count, k))
        return _unsafe_view(squeeze(_MATMUL(left, right.unsqueeze(-1)), -1), out_shape)
    right = reshape(_EXPAND(b, shape=batch + (k, p)), (count, k, p))
    return _unsafe_view(_MATMUL(left, right), out_shape)


def _unsafe_view(x: Tensor, shape: tuple) -> Tensor:
    out = _UNSAFE_VIEW(x, shape=shape)
    # PyTorch's _unsafe_view: not a view of the product (_base None), with a version counter
    # of its own (changing one in place leaves the other's version as it was)
    out._view_base = None
    if out._counter is not NO_VERSION:  # (an inference tensor has none)
        out._counter = Version()
    return out


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """The product of two matrices."""
    if type(input) is not Tensor or type(mat2) is not Tensor:
        require_tensors("mm", input, "mat2", mat2)
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(
            f"{'self' if input.ndim != 2 else 'mat2'} must be a matrix\n(mm takes 2-D tensors, "
            f"the shapes are {list(input.shape)} and {list(mat2.shape)})"
        )
    return matmul(input, mat2)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """The product of a matrix and a vector.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.mv(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), symgrad.tensor([1.0, -1.0]))
    tensor([-1., -1.])
    """
    if type(input) is not Tensor or type(vec) is not Tensor:
        require_tensors("mv", input, "vec", vec)
    if input.ndim == 0:  # PyTorch reads the matrix's first size before checking dimensions
        raise IndexError(
            f"mv: expected a 2-D matrix and a 1-D vector, got a 0-d matrix and a vector of "
            f"shape {list(vec.shape)}"
        )
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}\n(mv takes a "
            f"2-D and a 1-D tensor, the shapes are {list(input.shape)} and {list(vec.shape)})"
        )
    return matmul(input, vec)


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """The dot product of two 1-D tensors."""
    other = tensor
    if type(input) is not Tensor or type(other) is not Tensor:
        require_tensors("dot", input, "tensor", other)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.shape != other.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
            f"[{other.shape[0]}] to have the same number of elements, but got "
            f"{input.shape[0]} and {other.shape[0]} elements respectively"
        )
    return matmul(input, other)


# PyTorch's vdot conjugates its first vector: for real vectors it is dot, with its own node
_VDOT = Structural(
    "vdot",
    _MATMUL.forward,
    _matmul_vjp,
    saves=(0, 1),
    reads={0: (1,), 1: (0,)},
    backward="VdotBackward0",
    jvp="bilinear",
    text=matmul_text,
    batch="matmul",
    devices=_product_devices,
)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two 1-D tensors, the first one conjugated (for real tensors, the
    dot product; PyTorch's node ``VdotBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.vdot(symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]))
    tensor(11.)
    """
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        require_tensor_arguments("vdot", "input other", input, other)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype is not other.dtype:
        names = (t.dtype.scalar_type for t in (input, other))
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found {} and {}".format(*names)
        )
    if input.shape != other.shape:
        dot(input, other)  # PyTorch's message for vectors of different lengths
    if input.dtype.scalar_type == "Bool":
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    return _VDOT(input, other)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched matrix product of two 3-D tensors."""
    if type(input) is not Tensor or type(mat2) is not Tensor:
        require_tensors("bmm", input, "mat2", mat2)
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError(
            f"batch{1 if input.ndim != 3 else 2} must be a 3D tensor\n(bmm takes 3-D tensors, "
            f"the shapes are {list(input.shape)} and {list(mat2.shape)})"
        )
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{input.shape[0]}, {input.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}]."
        )
    _check_dtypes(input, mat2)
    if input._data.dtype.kind == "b":
        _refuse_bool(3, 3)
    return _MATMUL(input, mat2)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two vectors."""
    if type(input) is not Tensor or type(vec2) is not Tensor:
        require_tensors("outer", input, "vec2", vec2)
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return input.reshape(input.shape[0], 1) * vec2  # (as ATen composes it)


def ger(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two vectors (PyTorch's older name of :func:`outer`).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ger(symgrad.tensor([1, 2]), symgrad.tensor([3, 4]))
    tensor([[3, 4],
            [6, 8]])
    """
    return outer(input, vec2)
