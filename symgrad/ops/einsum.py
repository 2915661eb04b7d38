"""``einsum``: any equation PyTorch accepts (implicit or explicit output, repeated indices
within an operand, ``...``), composed of recorded ops: an index repeated in one operand is its
diagonal, an index only one operand uses is summed out at once, and operands are contracted
pairwise by one batched ``matmul`` each (as PyTorch's ``sumproduct_pair``), so gradients,
closed forms and higher derivatives come from those ops."""

from __future__ import annotations

import math
import string
from typing import Any

from symgrad.ops.linalg import matmul
from symgrad.ops.reductions import sum as _sum
from symgrad.ops.shape import permute, reshape
from symgrad.ops.triangular import diagonal
from symgrad.tensor import Tensor

__all__ = ["einsum"]


def _parse(equation: str, operands: tuple) -> tuple:
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(
            "einsum(): more operands were provided than specified in the equation"
            if len(terms) < len(operands)
            else "einsum(): fewer operands were provided than specified in the equation"
        )
    used = set(equation) - set(",->.")
    spare = iter(c for c in string.ascii_letters if c not in used)
    ell: list[str] = []
    subs = []
    for term, op in zip(terms, operands):
        for c in term.replace("...", ""):
            if c not in string.ascii_letters:
                raise ValueError(
                    f"einsum(): invalid subscript given at index {equation.index(c)} in the "
                    "equation string, subscripts must be in [a-zA-Z]"
                )
        explicit = len(term.replace("...", ""))
        if "..." in term:
            n = op.ndim - explicit
            while len(ell) < n:
                ell.insert(0, next(spare))
            term = term.replace("...", "".join(ell[len(ell) - n :]))
        if len(term) != op.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(term)}) does not "
                f"match the number of dimensions ({op.ndim}) for operand "
                f"{len(subs)}{'' if '...' in equation else ' and no ellipsis was given'}"
            )
        for c in set(term):
            sizes = {n for t, n in zip(term, op.shape) if t == c}
            if len(sizes) > 1:
                raise RuntimeError(
                    f"einsum(): subscript {c} is repeated for operand {len(subs)} but the sizes "
                    f"don't match, {' != '.join(map(str, sorted(sizes, reverse=True)))}"
                )
        subs.append(term)
    if arrow:
        out = rhs.replace("...", "".join(ell))
    else:
        counts: dict = {}
        for term in subs:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        once = sorted(c for c, k in counts.items() if k == 1 and c not in ell)
        out = "".join(ell) + "".join(once)
    return subs, out


def _squash(t: Tensor, sub: str, keep: set) -> tuple:
    """``t`` with repeated indices reduced to their diagonal and indices not in ``keep``
    summed out."""
    while len(set(sub)) < len(sub):
        c = next(c for c in sub if sub.count(c) > 1)
        i, j = sub.index(c), sub.index(c, sub.index(c) + 1)
        t = diagonal(t, 0, i, j)
        sub = "".join(x for k, x in enumerate(sub) if k not in (i, j)) + c
    drop = [k for k, c in enumerate(sub) if c not in keep]
    if drop:
        t = _sum(t, tuple(drop))
        sub = "".join(c for c in sub if c in keep)
    return t, sub


def _pair(a: Tensor, sa: str, b: Tensor, sb: str, keep: set) -> tuple:
    batch = [c for c in sa if c in sb and c in keep]
    contract = [c for c in sa if c in sb and c not in keep]
    left = [c for c in sa if c not in sb]
    right = [c for c in sb if c not in sa]
    size = {c: n for s, t in ((sa, a), (sb, b)) for c, n in zip(s, t.shape)}
    a2 = permute(a, tuple(sa.index(c) for c in batch + left + contract))
    b2 = permute(b, tuple(sb.index(c) for c in batch + contract + right))
    nb = [size[c] for c in batch]
    nl, nc, nr = (math.prod(size[c] for c in group) for group in (left, contract, right))
    product = matmul(reshape(a2, (*nb, nl, nc)), reshape(b2, (*nb, nc, nr)))
    return reshape(product, tuple(size[c] for c in batch + left + right)), "".join(
        batch + left + right
    )


def einsum(equation: str, *operands: Any) -> Tensor:
    """Sum of products over the indices of ``equation`` (``"ij,jk->ik"``).

    Examples
    --------
    >>> import symgrad
    >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> symgrad.einsum("ij,j->i", a, symgrad.tensor([1.0, 1.0]))
    tensor([3., 7.])
    >>> symgrad.einsum("ii", a)
    tensor(5.)
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    subs, out = _parse(equation, operands)
    for c in out:
        if out.count(c) > 1:
            raise RuntimeError(
                f"einsum(): output subscript {c} appears more than once in the output"
            )
        if not any(c in s for s in subs):
            raise RuntimeError(
                f"einsum(): output subscript {c} does not appear in the equation for any input "
                "operand"
            )
    tensors = list(operands)
    for k, (t, s) in enumerate(zip(tensors, subs)):
        later = set(out).union(*(subs[:k] + subs[k + 1 :]))
        tensors[k], subs[k] = _squash(t, s, later)
    result, sub = tensors[0], subs[0]
    for k in range(1, len(tensors)):
        keep = set(out).union(*subs[k + 1 :])
        result, sub = _pair(result, sub, tensors[k], subs[k], keep)
        result, sub = _squash(result, sub, keep)
    result, sub = _squash(result, sub, set(out))
    if sub != out:
        result = permute(result, tuple(sub.index(c) for c in out))
    return result
