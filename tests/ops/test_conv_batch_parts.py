"""Convolutions on NumPy go through their matrix products a few samples at a time, in the
wide columns for stride 1; the parts must give the whole batch's values and gradients
(stride, padding, dilation, groups, 1-d to 3-d, a batch that does not split evenly), checked
against a direct loop over the windows and against PyTorch, and an infinite weight or input
must add no NaN through the wide columns' extra positions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import symgrad
from symgrad.ops import conv_columns

try:
    import torch
except ImportError:
    torch = None

CASES = [
    # (input shape, weight shape, stride, padding, dilation, groups)
    ((5, 4, 7, 6), (6, 4, 3, 3), 1, 0, 1, 1),
    ((3, 4, 9, 8), (6, 2, 3, 2), (2, 1), (1, 2), (1, 2), 2),
    ((7, 3, 11), (4, 3, 4), 3, 2, 1, 1),
    # stride 1: the wide columns (padding, dilation, groups; 1-d, 2-d, 3-d)
    ((3, 4, 6, 7), (6, 2, 3, 2), 1, (1, 2), (2, 1), 2),
    ((4, 2, 9), (3, 2, 3), 1, 2, 2, 1),
    ((2, 3, 4, 5, 4), (2, 3, 2, 3, 2), 1, 1, 1, 1),
]


def _direct(x, w, b, stride, padding, dilation, groups):
    """The convolution by a loop over output positions and kernel offsets."""
    d = w.ndim - 2
    s, p, dil = ([v] * d if isinstance(v, int) else list(v) for v in (stride, padding, dilation))
    xp = np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in p])
    out_size = [(xp.shape[2 + i] - dil[i] * (w.shape[2 + i] - 1) - 1) // s[i] + 1 for i in range(d)]
    n, o, cg = x.shape[0], w.shape[0], w.shape[1]
    og = o // groups
    out = np.zeros((n, o, *out_size))
    for pos in itertools.product(*[range(m) for m in out_size]):
        for oc in range(o):
            grp = oc // og
            acc = np.zeros(n)
            for off in itertools.product(*[range(k) for k in w.shape[2:]]):
                at = tuple(pos[i] * s[i] + off[i] * dil[i] for i in range(d))
                patch = xp[(slice(None), slice(grp * cg, (grp + 1) * cg)) + at]
                acc += patch @ w[(oc, slice(None)) + off]
            out[(slice(None), oc) + pos] = acc + b[oc]
    return out


def _run(lib, x, w, b, g, stride, padding, dilation, groups):
    conv = {3: lib.nn.functional.conv1d, 4: lib.nn.functional.conv2d}.get(
        w.ndim, lib.nn.functional.conv3d
    )
    tx, tw, tb = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
    y = conv(tx, tw, tb, stride, padding, dilation, groups)
    (y * lib.tensor(g)).sum().backward()
    return [t.detach().numpy() for t in (y, tx.grad, tw.grad, tb.grad)]


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
@pytest.mark.parametrize("part_bytes", [1, 200, conv_columns.CHUNK_BYTES])
def test_parts_of_the_batch_give_the_whole_batch(case, part_bytes, monkeypatch):
    xs, ws, stride, padding, dilation, groups = case
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    b = rng.standard_normal(ws[0])
    y = _direct(x, w, b, stride, padding, dilation, groups)
    g = rng.standard_normal(y.shape)
    monkeypatch.setattr(conv_columns, "CHUNK_BYTES", part_bytes)
    got = _run(symgrad, x, w, b, g, stride, padding, dilation, groups)
    np.testing.assert_allclose(got[0], y, rtol=1e-12, atol=1e-12)
    # gradients: the direct convolution is linear in x and in w, so central differences of
    # its value along random directions are exact up to rounding
    for which, grad in ((0, got[1]), (1, got[2])):
        v = rng.standard_normal(xs if which == 0 else ws)
        args = [x, w]
        hi, lo = list(args), list(args)
        hi[which], lo[which] = args[which] + v, args[which] - v
        fd = (
            (_direct(*hi, b, stride, padding, dilation, groups) * g).sum()
            - (_direct(*lo, b, stride, padding, dilation, groups) * g).sum()
        ) / 2
        assert np.isclose((grad * v).sum(), fd, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got[3], g.sum(axis=(0,) + tuple(range(2, g.ndim))), rtol=1e-12)
    if torch is not None:
        for a, e in zip(got, _run(torch, x, w, b, g, stride, padding, dilation, groups)):
            np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-10)


def test_float32_parts_match_pytorch(monkeypatch):
    """A batch of float32 samples in parts of one sample: float32 values and gradients."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 3, 10, 10)).astype(np.float32)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    monkeypatch.setattr(conv_columns, "CHUNK_BYTES", 1)
    y = _direct(x.astype(float), w.astype(float), b.astype(float), 1, 1, 1, 1)
    g = np.ones(y.shape, np.float32)
    got = _run(symgrad, x, w, b, g, 1, 1, 1, 1)
    assert all(a.dtype == np.float32 for a in got)
    np.testing.assert_allclose(got[0], y, rtol=1e-5, atol=1e-5)
    if torch is not None:
        for a, e in zip(got, _run(torch, x, w, b, g, 1, 1, 1, 1)):
            np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("lib", [symgrad] + ([torch] if torch is not None else []))
def test_infinite_weight_or_input_adds_no_nan(lib):
    """An infinite weight (or input) times the zeros of the wide columns' extra positions
    would be NaN; the gradients are PyTorch's: inf where the infinity is a factor, finite
    elsewhere."""
    x = lib.tensor([[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]], requires_grad=True)
    w = lib.tensor([[[[float("inf"), 1.0]]]], requires_grad=True)
    lib.nn.functional.conv2d(x, w).sum().backward()
    inf = float("inf")
    assert x.grad.tolist() == [[[[inf, inf, 1.0], [inf, inf, 1.0]]]]
    assert w.grad.tolist() == [[[[12.0, 16.0]]]]
    x2 = lib.tensor([[[[inf, 2.0, 3.0], [4.0, 5.0, 6.0]]]], requires_grad=True)
    w2 = lib.tensor([[[[1.0, 1.0]]]], requires_grad=True)
    lib.nn.functional.conv2d(x2, w2).sum().backward()
    assert w2.grad.tolist() == [[[[inf, 16.0]]]]
    assert x2.grad.tolist() == [[[[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]]]]


def test_results_do_not_share_the_scratch_memory():
    """Columns and products live in scratch memory that the next call rewrites: results,
    gradients and unfolded windows are arrays of their own."""
    rng = np.random.default_rng(5)
    x1, x2 = (symgrad.tensor(rng.standard_normal((3, 2, 6, 6)), requires_grad=True) for _ in "ab")
    w = symgrad.tensor(rng.standard_normal((4, 2, 3, 3)), requires_grad=True)
    y1 = symgrad.nn.functional.conv2d(x1, w, padding=1)
    kept = y1.detach().numpy().copy()
    y1.sum().backward()
    g1 = (x1.grad.numpy().copy(), w.grad.numpy().copy())
    y2 = symgrad.nn.functional.conv2d(x2 * 3.0, w, padding=1, stride=(1, 2))
    y2.sum().backward()
    assert np.array_equal(y1.detach().numpy(), kept)
    assert np.array_equal(x1.grad.numpy(), g1[0])
    assert not np.shares_memory(y1.detach().numpy(), y2.detach().numpy())
    assert not np.shares_memory(x1.grad.numpy(), x2.grad.numpy())
    expected = _direct(x1.detach().numpy(), w.detach().numpy(), np.zeros(4), 1, 1, 1, 1)
    np.testing.assert_allclose(kept, expected, rtol=1e-12, atol=1e-12)
