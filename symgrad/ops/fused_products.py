"""``beta * input + alpha * product``, one node each as in PyTorch: ``addmm`` (its primitive is
linear's, ``AddmmBackward0``), ``addmv`` (``AddmvBackward0``), ``addr`` (``AddrBackward0``, the
outer product of two vectors), ``baddbmm`` (``BaddbmmBackward0``) and ``addbmm``
(``AddbmmBackward0``, the products of a batch summed into one matrix).

The rules are written once for the family: the input's gradient is ``beta * g`` summed to its
shape, the factors' are those of the product (``linalg._matmul_vjp``) times ``alpha``. With
``beta == 0`` the input is ignored, even where it holds nan, as PyTorch ignores it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._arguments import require_numbers, require_tensor_arguments
from symgrad.ops.affine import _ADDMM, _cannot_multiply
from symgrad.ops.linalg import _matmul_vjp, matmul
from symgrad.prim import batching as _batching
from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["addmm", "addmv", "addr", "baddbmm", "addbmm"]


def scaled(x: Any, k: Any) -> Any:
    """``x * k``, or ``x`` itself for ``k == 1`` (PyTorch's ``maybe_multiply``)."""
    return x if k == 1 else x * k


def combine(input: Any, product: Any, beta: Any, alpha: Any) -> Any:
    """``beta * input + alpha * product``; the input left out for ``beta == 0``."""
    out = scaled(product, alpha)
    return out if beta == 0 else out + scaled(input, beta)


def _scaled_gradient(xp: Any, g: Any, k: Any) -> Any:
    """``g * k`` as PyTorch's formulas scale it (mul.Scalar), or ``g`` itself for 1."""
    return g if k == 1 else xp.mul_scalar(g, k)


def family_vjp(product_vjp: Callable) -> Callable:
    """The VJP of ``beta * input + alpha * product(m1, m2)`` from the product's own VJP."""

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        beta, alpha = c.params.get("beta", 1), c.params.get("alpha", 1)
        gi = g1 = g2 = None
        if c.needs[0]:
            gi = xp.sum_to_size(_scaled_gradient(xp, g, beta), c.shapes[0])
        if c.needs[1] or c.needs[2]:
            inner = Ctx(c.inputs[1:], None, c.shapes[1:], c.needs[1:], {})
            g1, g2 = product_vjp(xp, g, inner)
            g1 = None if g1 is None else _scaled_gradient(xp, g1, alpha)
            g2 = None if g2 is None else _scaled_gradient(xp, g2, alpha)
        return gi, g1, g2

    return vjp


def family_jvp(product: Callable, out_shape: Callable | None = None) -> Callable:
    """The product rule, the input entering linearly (expanded to the output's shape)."""
    out_shape = out_shape or _out_shape

    def jvp(xp: Any, tangents: tuple, c: Any) -> Any:
        ti, t1, t2 = tangents
        beta, alpha = c.params.get("beta", 1), c.params.get("alpha", 1)
        m1, m2 = c.inputs[1], c.inputs[2]
        terms = [] if t1 is None else [product(xp, t1, m2)]
        terms += [] if t2 is None else [product(xp, m1, t2)]
        total = None
        for term in terms:
            total = term if total is None else total + term
        total = None if total is None else scaled(total, alpha)
        if ti is None or beta == 0:
            return total if total is not None else xp.constant(np.zeros(out_shape(c)))
        ti = scaled(ti, beta)
        return xp.expand(ti, out_shape(c)) if total is None else total + ti

    return jvp


def _out_shape(c: Any) -> tuple:
    (s1, s2) = c.shapes[1], c.shapes[2]
    if len(s1) == 1 and len(s2) == 1:  # addr
        return (s1[0], s2[0])
    if len(s2) == 1:  # addmv
        return (s1[0],)
    return tuple(s1[:-1]) + (s2[-1],)


def _outer(xp: Any, v1: Any, v2: Any) -> Any:
    return xp.matmul(xp.unsqueeze(v1, 1), xp.unsqueeze(v2, 0))


def _outer_vjp(xp: Any, g: Any, c: Any) -> tuple:
    v1, v2 = c.inputs
    g1 = xp.matmul(g, v2) if c.needs[0] else None
    g2 = xp.matmul(xp.transpose(g, 0, 1), v1) if c.needs[1] else None
    return g1, g2


def _batch_sum(xp: Any, b1: Any, b2: Any) -> Any:
    return xp.sum(xp.matmul(b1, b2), (0,))


def _batch_sum_shape(c: Any) -> tuple:
    return (c.shapes[1][1], c.shapes[2][2])


def _batch_sum_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """Each matrix of the batch receives the whole gradient of the sum."""
    shape = (c.shapes[0][0], c.shapes[0][1], c.shapes[1][2])
    return _matmul_vjp(xp, xp.expand(xp.unsqueeze(g, 0), shape), c)


# where meta and CPU tensors meet, PyTorch's checks (see symgrad.prim.structural): addmv's
# operands follow its matrix, addr's second vector its first and that the input; baddbmm's
# and addbmm's kernels check nothing, the result on the input's device
_DEVICES = {
    "addmv": (1, ((1, 0), (1, 2))),
    "addr": (1, ((1, 2), (0, 1))),
    "baddbmm": (0, ()),
    "addbmm": (0, ()),
}


def _declare(
    name: str,
    backward: str,
    product: Callable,
    product_vjp: Callable,
    out_shape: Callable | None = None,
) -> Structural:
    def forward(xp: Any, input: Any, m1: Any, m2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        return combine(input, product(xp, m1, m2), beta, alpha)

    return Structural(
        name,
        forward,
        family_vjp(product_vjp),
        saves=(1, 2),
        reads={1: (2,), 2: (1,)},
        backward=backward,
        jvp=family_jvp(product, out_shape),
        devices=lambda ndims: _DEVICES[name],
    )


def _matmul(xp: Any, a: Any, b: Any) -> Any:
    return xp.matmul(a, b)


_ADDMV = _declare("addmv", "AddmvBackward0", _matmul, _matmul_vjp)
_ADDR = _declare("addr", "AddrBackward0", _outer, _outer_vjp)
_BADDBMM = _declare("baddbmm", "BaddbmmBackward0", _matmul, _matmul_vjp)
_ADDBMM = _declare("addbmm", "AddbmmBackward0", _batch_sum, _batch_sum_vjp, _batch_sum_shape)


def _params(beta: Any, alpha: Any) -> dict:
    # a NumPy scalar is a Python number to PyTorch: it must not promote the result
    beta, alpha = (k.item() if isinstance(k, np.generic) else k for k in (beta, alpha))
    params = {}
    if beta != 1:
        params["beta"] = beta
    if alpha != 1:
        params["alpha"] = alpha
    return params


def _expandable(input: Tensor, shape: tuple) -> None:
    """PyTorch's ``expand`` of the input to the product's shape, with its error."""
    if input.ndim > len(shape):
        raise RuntimeError(
            f"expand({list(input.shape)}, size={list(shape)}): the number of sizes provided "
            f"({len(shape)}) must be greater or equal to the number of dimensions in the "
            f"tensor ({input.ndim})"
        )
    for i, (n, m) in enumerate(zip(input.shape[::-1], shape[::-1])):
        if n not in (1, m):
            raise RuntimeError(
                f"The expanded size of the tensor ({m}) must match the existing size ({n}) at "
                f"non-singleton dimension {len(shape) - 1 - i}.  Target sizes: {list(shape)}.  "
                f"Tensor sizes: {list(input.shape)}"
            )


def _fused(prim: Structural, input: Tensor, m1: Tensor, m2: Tensor, beta: Any, alpha: Any):
    if _batching.STATE.depth and any(
        isinstance(v, _batching.BatchedTensor) for v in (input, m1, m2)
    ):  # inside vmap: the batching rules of the product and of add
        product = _outer(_TENSOR_OPS, m1, m2) if prim is _ADDR else matmul(m1, m2)
        product = product.sum(0) if prim is _ADDBMM else product
        return combine(input, product, beta, alpha)
    if m1.dtype is not m2.dtype:
        names = (m1.dtype.scalar_type, m2.dtype.scalar_type)
        message = (
            "expected scalar type {} but found {}"
            if m1.ndim == 3
            else "self and mat2 must have the same dtype, but got {} and {}"
        )
        raise RuntimeError(message.format(*names))
    if prim is not _ADDR and isinstance(input, Tensor) and input.dtype is not m1.dtype:
        # (addr promotes; PyTorch's other kernels take one dtype only)
        raise RuntimeError(
            f"{prim.name}: self and mat2 must have the same dtype, but got {input.dtype!r} and "
            f"{m2.dtype!r} (convert input with .to({m2.dtype!r}))"
        )
    if m1._data.dtype.kind in "biu":
        beta, alpha = _integer_scalars(prim, m1, beta, alpha)
    return prim(input, m1, m2, **_params(beta, alpha))


# PyTorch's CPU kernels, named in its error for boolean operands (addr takes them)
_KERNELS = {"addmm": "addmm_impl_cpu_", "addmv": "addmv_impl_cpu", "addbmm": "addmm_impl_cpu_"}


def _integer_scalars(prim: Structural, m1: Tensor, beta: Any, alpha: Any) -> tuple:
    """``beta`` and ``alpha`` as PyTorch reads them for integer or boolean operands: addr
    refuses a float (and a bool one unless the operands are boolean) and takes a boolean
    product as logical; the others refuse boolean operands and cut floats toward zero."""
    boolean = m1._data.dtype.kind == "b"
    if prim is not _ADDR:
        if boolean:
            kernel = _KERNELS.get(prim.name, prim.name)
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        return int(beta), int(alpha)
    for name, k in (("beta", beta), ("alpha", alpha)):
        if isinstance(k, bool) and not boolean:
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        if isinstance(k, float) or (isinstance(k, Tensor) and k.dtype.is_floating_point):
            raise RuntimeError(
                f"For integral input tensors, argument {name} must not be a floating point number."
            )
    return (bool(beta), bool(alpha)) if boolean else (beta, alpha)


class _TENSOR_OPS:
    """The two words ``_outer`` needs, on Tensors (vmap's path)."""

    matmul = staticmethod(matmul)

    @staticmethod
    def unsqueeze(x: Tensor, dim: int) -> Tensor:
        return x.unsqueeze(dim)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``, one ``AddmmBackward0`` node.

    Examples
    --------
    >>> import symgrad
    >>> c = symgrad.zeros(2, 2, requires_grad=True)
    >>> symgrad.addmm(c, symgrad.eye(2), symgrad.ones(2, 2), alpha=2)
    tensor([[2., 2.],
            [2., 2.]], grad_fn=<AddmmBackward0>)
    """
    if (
        not isinstance(input, Tensor)
        or not isinstance(mat1, Tensor)
        or not isinstance(mat2, Tensor)
    ):
        require_tensor_arguments("addmm", "input mat1 mat2", input, mat1, mat2)
    if type(beta) is not int or type(alpha) is not int:
        require_numbers("addmm", beta=beta, alpha=alpha)
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(_cannot_multiply(mat1.shape[0], mat1.shape[1], mat2.shape))
    _expandable(input, (mat1.shape[0], mat2.shape[1]))
    return _fused(_ADDMM, input, mat1, mat2, beta, alpha)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``, one ``AddmvBackward0`` node.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.addmv(symgrad.ones(2), symgrad.eye(2), symgrad.tensor([1.0, 2.0]))
    tensor([2., 3.])
    """
    if not isinstance(input, Tensor) or not isinstance(mat, Tensor) or not isinstance(vec, Tensor):
        require_tensor_arguments("addmv", "input mat vec", input, mat, vec)
    if type(beta) is not int or type(alpha) is not int:
        require_numbers("addmv", beta=beta, alpha=alpha)
    if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}"
        )
    if mat.shape[1] != vec.shape[0] or (
        input.ndim == 1 and input.shape[0] not in (1, mat.shape[0])
    ):
        raise RuntimeError(
            f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat "
            f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})"
        )
    return _fused(_ADDMV, input, mat, vec, beta, alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``, one ``AddrBackward0`` node.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.addr(symgrad.zeros(2, 2), symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 3.0]))
    tensor([[1., 3.],
            [2., 6.]])
    """
    if (
        not isinstance(input, Tensor)
        or not isinstance(vec1, Tensor)
        or not isinstance(vec2, Tensor)
    ):
        require_tensor_arguments("addr", "input vec1 vec2", input, vec1, vec2)
    if type(beta) is not int or type(alpha) is not int:
        require_numbers("addr", beta=beta, alpha=alpha)
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    _expandable(input, (vec1.shape[0], vec2.shape[0]))
    return _fused(_ADDR, input, vec1, vec2, beta, alpha)


def _check_batches(batch1: Tensor, batch2: Tensor) -> None:
    """PyTorch's errors for operands of a batched product that are not batches of matrices."""
    for t in (batch1, batch2):
        if t.ndim < 3:  # PyTorch reads the third size first
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-max(t.ndim, 1)}, "
                f"{max(t.ndim, 1) - 1}], but got 2)"
            )
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError(
            f"batch1 must be a 3D tensor, got {batch1.ndim}-D; batch2 {batch2.ndim}-D"
        )


def baddbmm(
    input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1
) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices, one
    ``BaddbmmBackward0`` node.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.baddbmm(symgrad.ones(1, 1, 2), symgrad.ones(1, 1, 3), symgrad.ones(1, 3, 2))
    tensor([[[4., 4.]]])
    """
    if (
        not isinstance(input, Tensor)
        or not isinstance(batch1, Tensor)
        or not isinstance(batch2, Tensor)
    ):
        require_tensor_arguments("baddbmm", "input batch1 batch2", input, batch1, batch2)
    if type(beta) is not int or type(alpha) is not int:
        require_numbers("baddbmm", beta=beta, alpha=alpha)
    _check_batches(batch1, batch2)
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{batch1.shape[0]}, {batch1.shape[2]}] but got: [{batch2.shape[0]}, "
            f"{batch2.shape[1]}]."
        )
    _expandable(input, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    return _fused(_BADDBMM, input, batch1, batch2, beta, alpha)


def addbmm(
    input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1
) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2).sum(0)``: the products of two batches of
    matrices summed into one matrix, one ``AddbmmBackward0`` node.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.addbmm(symgrad.ones(1, 2), symgrad.ones(3, 1, 2), symgrad.ones(3, 2, 2))
    tensor([[7., 7.]])
    """
    if (
        not isinstance(input, Tensor)
        or not isinstance(batch1, Tensor)
        or not isinstance(batch2, Tensor)
    ):
        require_tensor_arguments("addbmm", "input batch1 batch2", input, batch1, batch2)
    if type(beta) is not int or type(alpha) is not int:
        require_numbers("addbmm", beta=beta, alpha=alpha)
    _check_batches(batch1, batch2)
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
            f"{batch2.shape[0]}"
        )
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
            f"{batch2.shape[1]}x{batch2.shape[2]})"
        )
    _expandable(input, (batch1.shape[1], batch2.shape[2]))
    return _fused(_ADDBMM, input, batch1, batch2, beta, alpha)
