"""``einsum``: any equation PyTorch accepts (implicit or explicit output, repeated indices
within an operand, ``...``), composed of recorded ops in PyTorch's order, so the graph is
PyTorch's: each operand's repeated index becomes its diagonal (``DiagonalBackward0``, moved back
by a ``PermuteBackward0``), a missing index a new dimension (``UnsqueezeBackward0``), and the
operand is permuted to one common order of indices (the output's, then the summed ones:
``PermuteBackward0``). Operands are then contracted left to right as PyTorch's
``sumproduct_pair`` does: an index that only one of the pair still has summed first
(``SumBackward1``), a product without summed indices a ``mul``, else permute, reshape, one
``bmm``, ``view`` and permute back; what remains of the summed indices is viewed away (or summed
for a single operand). Gradients, closed forms and higher derivatives come from those ops."""

from __future__ import annotations

import math
import string
from typing import Any

from symgrad.ops.linalg import bmm
from symgrad.ops.reductions import sum as _sum
from symgrad.ops.shape import _PERMUTE, movedim, reshape, unsqueeze, view
from symgrad.ops.triangular import diagonal
from symgrad.tensor import Tensor

__all__ = ["einsum"]


def _parse(equation: str, operands: tuple) -> tuple:
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(
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
                raise RuntimeError(
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
    return subs, out, ell


def _aligned(t: Tensor, sub: str, place: dict, counts: list, sizes: dict, k: int) -> Tensor:
    """Operand ``k`` with one dimension per index of the common order ``place``: repeated
    indices reduced to their diagonal, missing ones added with size 1, then permuted. Counts,
    per index, the operands where its size is not 1."""
    perm = [-1] * len(place)
    dim = 0
    for c in sub:
        p = place[c]
        if perm[p] == -1:
            n = t.shape[dim]
            if n != 1:
                if sizes.get(c, 1) not in (1, n):
                    raise RuntimeError(
                        f"einsum(): subscript {c} has size {n} for operand {k} which does not "
                        f"broadcast with previously seen size {sizes[c]}"
                    )
                sizes[c] = n
                counts[p] += 1
            perm[p] = dim
            dim += 1
        else:  # PyTorch: the diagonal, moved back to the first occurrence
            t = movedim(diagonal(t, 0, perm[p], dim), -1, perm[p])
    for p in range(len(perm)):
        if perm[p] == -1:
            t = unsqueeze(t, dim)
            perm[p] = dim
            dim += 1
    return _PERMUTE(t, dims=tuple(perm))


def _sumproduct_pair(left: Tensor, right: Tensor, summed: list) -> Tensor:
    """PyTorch's ``sumproduct_pair`` (keeping the summed dimensions with size 1): the product
    of two aligned operands summed over ``summed``, by one ``bmm`` of the dimensions both
    have (batch), only the left has (rows), summed (inner) and only the right has (columns)."""
    if not summed:
        return left * right
    both, only_left, only_right = [], [], []
    inner = 1
    for i in range(left.ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if sl and sr:
                inner *= left.shape[i]
            elif sl:
                left = _sum(left, (i,), True)
            elif sr:
                right = _sum(right, (i,), True)
        elif sl and sr:
            both.append(i)
        elif sl:
            only_left.append(i)
        else:
            only_right.append(i)
    if only_left and only_right and only_right[-1] < only_left[0]:
        # PyTorch swaps the pair when all of the right's own dimensions come first
        left, right, only_left, only_right = right, left, only_right, only_left
    nb, nl, nr = (
        math.prod(x.shape[d] for d in ds)
        for x, ds in ((left, both), (left, only_left), (right, only_right))
    )
    out_size = [left.shape[d] for d in both + only_left] + [1] * len(summed)
    out_size += [right.shape[d] for d in only_right]
    lperm = both + only_left + summed + only_right
    rperm = both + summed + only_right + only_left
    operm = [0] * len(lperm)
    for i, d in enumerate(lperm):
        operm[d] = i
    a = reshape(_PERMUTE(left, dims=tuple(lperm)), (nb, nl, inner))
    b = reshape(_PERMUTE(right, dims=tuple(rperm)), (nb, inner, nr))
    return _PERMUTE(view(bmm(a, b), tuple(out_size)), dims=tuple(operm))


def _path(equation: str, operands: tuple) -> list | None:
    """The pairs to contract in turn for three operands or more: opt_einsum's choice, as
    PyTorch makes it when opt_einsum is installed (``torch.backends.opt_einsum``, strategy
    "auto"); None without it (left to right)."""
    if len(operands) < 3:
        return None
    try:
        import opt_einsum
    except ImportError:
        return None
    shapes = [tuple(t.shape) for t in operands]
    return list(opt_einsum.contract_path(equation, *shapes, shapes=True, optimize="auto")[0])


def _contract(ops: list, n_out: int, counts: list, path: list | None) -> Tensor:
    """The aligned operands contracted pairwise: along ``path``, each result last, or left
    to right, each result first (PyTorch's two orders)."""
    steps = iter(path or ())
    while len(ops) > 1:
        i, j = sorted(next(steps)) if path else (0, 1)
        a, b = ops[i], ops[j]
        del ops[j], ops[i]
        summed, sum_a, sum_b = [], [], []
        for d in range(n_out, len(counts)):
            if a.shape[d] != 1 and b.shape[d] != 1:
                counts[d] -= 1
                if counts[d] == 1:  # no later operand has it: summed in this product
                    summed.append(d)
                    counts[d] = 0
            elif counts[d] == 1:  # only one of the two has it: summed out first
                if a.shape[d] != 1:
                    sum_a.append(d)
                    counts[d] = 0
                elif b.shape[d] != 1:
                    sum_b.append(d)
                    counts[d] = 0
        if sum_a:
            a = _sum(a, tuple(sum_a), True)
        if sum_b:
            b = _sum(b, tuple(sum_b), True)
        ops.insert(len(ops) if path else 0, _sumproduct_pair(a, b, summed))
    return ops[0]


def _letter(index: Any) -> str:
    """A subscript of the sublist form: ``...`` for Ellipsis, else 0-25 as ``A-Z`` and 26-51 as
    ``a-z``, as PyTorch reads them."""
    if index is Ellipsis:
        return "..."
    if not isinstance(index, int):
        raise TypeError(
            f"einsum(): a subscript in a subscript list must be an int or Ellipsis, not "
            f"{type(index).__name__}"
        )
    if not 0 <= index < 52:
        raise ValueError(
            "einsum(): subscript in subscript list is not within the valid range [0, 52)"
        )
    return string.ascii_letters[(index + 26) % 52]


def _from_sublists(args: tuple) -> tuple:
    """The equation and operands of ``einsum(a, [0, 1], b, [1, 2], [0, 2])``: operands
    interleaved with their subscript lists, then optionally the output's list."""
    lists = args[1::2]
    equation = ",".join("".join(_letter(i) for i in sub) for sub in lists)
    if len(args) % 2 == 1:
        equation += "->" + "".join(_letter(i) for i in args[-1])
    return equation, args[0 : 2 * len(lists) : 2]


def einsum(equation: str, *operands: Any) -> Tensor:
    """Sum of products over the indices of ``equation`` (``"ij,jk->ik"``). The sublist form
    interleaves operands and lists of subscripts (ints in [0, 52), ``...`` as Ellipsis), with
    the output's list last if given: ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.

    Examples
    --------
    >>> import symgrad
    >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> symgrad.einsum("ij,j->i", a, symgrad.tensor([1.0, 1.0]))
    tensor([3., 7.])
    >>> symgrad.einsum("ii", a)
    tensor(5.)
    >>> symgrad.einsum(a, [0, 1], symgrad.tensor([1.0, 1.0]), [1], [0])
    tensor([3., 7.])
    """
    if isinstance(equation, Tensor):
        if not operands:
            raise ValueError(
                "einsum(): must specify the equation string and at least one operand, or at "
                "least one operand and its subscripts list"
            )
        equation, operands = _from_sublists((equation, *operands))
    if isinstance(equation, (bool, int, float)):
        raise TypeError(
            f"einsum(): argument 'equation' (position 1) must be str, not {type(equation).__name__}"
        )
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, operand in enumerate(operands):
        if not isinstance(operand, Tensor):  # PyTorch's words, counting a list's elements
            inner = operand[0] if isinstance(operand, (list, tuple)) and operand else operand
            raise TypeError(
                f"expected Tensor as element {i} in argument 1, but got {type(inner).__name__}"
            )
    subs, out, ell = _parse(equation, operands)
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
    summed = [c for c in ell if c not in out]  # an ellipsis left out of the output
    summed += sorted(set("".join(subs)) - set(out) - set(ell))
    place = {c: i for i, c in enumerate(out + "".join(summed))}
    counts = [0] * len(place)
    sizes: dict = {}
    ops = [_aligned(t, s, place, counts, sizes, k) for k, (t, s) in enumerate(zip(operands, subs))]
    result = _contract(ops, len(out), counts, _path(equation, operands))
    if not summed:
        return result
    if len(operands) > 1:  # the summed dimensions have size 1 by now
        return view(result, tuple(result.shape[: len(out)]))
    return _sum(result, tuple(range(len(out), len(place))))
