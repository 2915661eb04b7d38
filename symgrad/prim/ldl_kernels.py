"""NumPy kernels of the symmetric indefinite factorization ``A = P L D L^T P^T`` with
Bunch-Kaufman pivoting (LAPACK's ``sytf2`` and ``sytrs`` for the lower triangle), one matrix
of a batch at a time.

The factorization is packed as LAPACK packs it: ``L`` (unit diagonal, not stored) below the
diagonal, the 1 x 1 and 2 x 2 blocks of ``D`` on it and on the first subdiagonal; the pivots
are 1-based, positive for a 1 x 1 block (the row exchanged with), negative and repeated for a
2 x 2 block. ``info`` is the 1-based position of the first exactly zero block of ``D``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ldl_factor", "ldl_solve"]

_ALPHA = (1 + np.sqrt(17.0)) / 8  # Bunch and Kaufman's growth bound


def ldl_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(LD, pivots, info)`` of a batch of symmetric matrices (their lower triangles)."""
    n = a.shape[-1]
    flat = a.reshape((int(np.prod(a.shape[:-2])), n, n))
    parts = [_factor(m) for m in flat]
    ld = np.stack([p[0] for p in parts]) if parts else flat.copy()
    pivots = np.stack([p[1] for p in parts]) if parts else np.zeros((0, n), np.int32)
    info = np.array([p[2] for p in parts], np.int32)
    batch = a.shape[:-2]
    return ld.reshape(a.shape), pivots.reshape(batch + (n,)), info.reshape(batch)


def _pivot(a: np.ndarray, k: int, n: int) -> tuple[int, int]:
    """The row ``kp`` to exchange with and the block size at column ``k`` (0 for a zero
    column)."""
    absakk = abs(a[k, k])
    imax, colmax = k, 0.0
    if k < n - 1:
        imax = k + 1 + int(np.argmax(np.abs(a[k + 1 :, k])))
        colmax = abs(a[imax, k])
    if max(absakk, colmax) == 0 or np.isnan(absakk):
        return k, 0
    if absakk >= _ALPHA * colmax:
        return k, 1
    row = np.abs(a[imax, k:imax])
    rowmax = row.max()
    if imax < n - 1:
        rowmax = max(rowmax, np.abs(a[imax + 1 :, imax]).max())
    if absakk >= _ALPHA * colmax * (colmax / rowmax):
        return k, 1
    if abs(a[imax, imax]) >= _ALPHA * rowmax:
        return imax, 1
    return imax, 2


def _exchange(a: np.ndarray, k: int, kk: int, kp: int, step: int) -> None:
    """Rows and columns ``kk`` and ``kp`` of the trailing lower triangle exchanged."""
    if kp < a.shape[0] - 1:
        a[kp + 1 :, [kk, kp]] = a[kp + 1 :, [kp, kk]]
    middle = a[kk + 1 : kp, kk].copy()
    a[kk + 1 : kp, kk] = a[kp, kk + 1 : kp]
    a[kp, kk + 1 : kp] = middle
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
    if step == 2:
        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]


def _factor(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    a = np.tril(m).astype(m.dtype, copy=True)
    n = a.shape[0]
    pivots = np.zeros(n, np.int32)
    info, k = 0, 0
    with np.errstate(all="ignore"):
        while k < n:
            kp, step = _pivot(a, k, n)
            if step == 0:
                info = info or k + 1
                step = 1
            else:
                kk = k + step - 1
                if kp != kk:
                    _exchange(a, k, kk, kp, step)
                _update(a, k, step, n)
            pivots[k : k + step] = kp + 1 if step == 1 else -(kp + 1)
            k += step
    return a, pivots, info


def _update(a: np.ndarray, k: int, step: int, n: int) -> None:
    """The trailing lower triangle updated by the block at ``k``, and the block's column(s)
    of ``L`` stored."""
    lower = np.tril(np.ones((n, n), bool))
    if step == 1:
        if k < n - 1:
            x = a[k + 1 :, k].copy()
            d = 1 / a[k, k]
            update = np.outer(x, -d * x)
            a[k + 1 :, k + 1 :] += np.where(lower[k + 1 :, k + 1 :], update, 0)
            a[k + 1 :, k] = x * d
        return
    if k < n - 2:
        d21 = a[k + 1, k]
        d11, d22 = a[k + 1, k + 1] / d21, a[k, k] / d21
        t = 1 / (d11 * d22 - 1)
        d21 = t / d21
        ck, ck1 = a[k + 2 :, k].copy(), a[k + 2 :, k + 1].copy()
        wk = d21 * (d11 * ck - ck1)
        wk1 = d21 * (d22 * ck1 - ck)
        keep = lower[k + 2 :, k + 2 :]
        a[k + 2 :, k + 2 :] -= np.where(keep, np.outer(ck, wk), 0)
        a[k + 2 :, k + 2 :] -= np.where(keep, np.outer(ck1, wk1), 0)
        a[k + 2 :, k] = wk
        a[k + 2 :, k + 1] = wk1


def ldl_solve(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``A^-1 B`` from the packed factorization, batches broadcast."""
    batch = np.broadcast_shapes(ld.shape[:-2], pivots.shape[:-1], b.shape[:-2])
    n, count = ld.shape[-1], int(np.prod(batch))
    ld = np.broadcast_to(ld, batch + (n, n)).reshape((count, n, n))
    piv = np.broadcast_to(pivots, batch + (n,)).reshape((count, n))
    rhs = np.broadcast_to(b, batch + b.shape[-2:]).reshape((count,) + b.shape[-2:])
    out = np.stack([_solve(a, p, x.copy()) for a, p, x in zip(ld, piv, rhs)]) if len(rhs) else rhs
    return out.reshape(batch + b.shape[-2:]).astype(b.dtype, copy=False)


def _solve(a: np.ndarray, piv: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = a.shape[0]
    with np.errstate(all="ignore"):
        k = 0
        while k < n:  # L D Y = P^T B
            if piv[k] > 0:
                _swap_rows(b, k, piv[k] - 1)
                b[k + 1 :] -= np.outer(a[k + 1 :, k], b[k])
                b[k] /= a[k, k]
                k += 1
                continue
            _swap_rows(b, k + 1, -piv[k] - 1)
            b[k + 2 :] -= np.outer(a[k + 2 :, k], b[k])
            b[k + 2 :] -= np.outer(a[k + 2 :, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1, ak = a[k, k] / akm1k, a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
        k = n - 1
        while k >= 0:  # L^T P^T X = Y
            if piv[k] > 0:
                b[k] -= a[k + 1 :, k] @ b[k + 1 :]
                _swap_rows(b, k, piv[k] - 1)
                k -= 1
                continue
            b[k] -= a[k + 1 :, k] @ b[k + 1 :]
            b[k - 1] -= a[k + 1 :, k - 1] @ b[k + 1 :]
            _swap_rows(b, k, -piv[k] - 1)
            k -= 2
    return b


def _swap_rows(b: np.ndarray, i: int, j: int) -> None:
    if i != j:
        b[[i, j]] = b[[j, i]]
