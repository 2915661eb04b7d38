"""Ops whose parameters come from the values of their inputs (where a grid samples, which rows
a bag reads) compute them afresh at every call of a compiled function: a later call with other
values gives the eager answer, never the traced one."""

from __future__ import annotations

import warnings

import numpy as np

import symgrad
import symgrad.nn.functional as F


def test_a_grid_moved_to_other_cells_samples_there():
    image = symgrad.tensor(np.arange(16.0).reshape(1, 1, 4, 4), requires_grad=True)
    fn = lambda x, g: F.grid_sample(x, g, align_corners=False)  # noqa: E731
    first = symgrad.tensor([[[[-0.6, -0.6], [0.1, 0.3]]]], dtype=symgrad.float64)
    compiled = symgrad.compile(fn)
    compiled = symgrad.compile(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the program holds: no break
        compiled(image, first)
        other = symgrad.tensor(
            [[[[0.7, 0.8], [-0.9, 0.2]]]], dtype=symgrad.float64, requires_grad=True
        )
        got = compiled(image, other)
    want = fn(image, other)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    # (0.7, 0.8) is column 2.9, row 3.1 of the 4x4 ramp (zeros outside): 0.9 * 0.1 * 15 + ...
    np.testing.assert_allclose(got.detach().numpy()[0, 0, 0, 0], 0.1 * 0.9 * 14 + 0.9 * 0.9 * 15)
    got.sum().backward()
    g_compiled = other.grad.numpy().copy()
    other.grad = None
    want.sum().backward()
    np.testing.assert_allclose(g_compiled, other.grad.numpy(), rtol=1e-12)


def test_reflected_grid_points_compile_and_follow_the_grid():
    image = symgrad.tensor(np.arange(9.0).reshape(1, 1, 3, 3), requires_grad=True)
    fn = lambda x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=True)  # noqa: E731
    compiled = symgrad.compile(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled(image, symgrad.tensor([[[[1.5, 0.2]]]], dtype=symgrad.float64))
        got = compiled(image, symgrad.tensor([[[[-1.2, 0.4]]]], dtype=symgrad.float64))
    # x = -1.2 reflects to -0.8: column 0.2; y = 0.4: row 1.4 -> 3 * 1.4 + 0.2 = 4.4
    np.testing.assert_allclose(got.detach().numpy().ravel(), [4.4], rtol=1e-12)


def test_other_indices_read_other_rows_of_an_embedding_bag():
    weight = symgrad.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    fn = lambda i, o, w: F.embedding_bag(i, w, o, mode="sum")  # noqa: E731
    compiled = symgrad.compile(fn)
    offsets = symgrad.tensor([0, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled(symgrad.tensor([0, 1, 2, 3]), offsets, weight)
        got = compiled(symgrad.tensor([3, 3, 0, 1]), offsets, weight)
    assert got.tolist() == [[18.0, 20.0, 22.0], [3.0, 5.0, 7.0]]
    got.sum().backward()
    assert weight.grad[:, 0].tolist() == [1.0, 1.0, 0.0, 2.0]


def test_an_embedding_bag_s_maxima_follow_the_weight():
    weight = symgrad.tensor([[1.0, 5.0], [4.0, 2.0]], requires_grad=True)
    fn = lambda i, w: F.embedding_bag(i, w, mode="max")  # noqa: E731
    compiled = symgrad.compile(fn)
    idx = symgrad.tensor([[0, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled(idx, weight)
        with symgrad.no_grad():
            weight.copy_(symgrad.tensor([[6.0, 0.0], [4.0, 2.0]]))
        got = compiled(idx, weight)
    assert got.tolist() == [[6.0, 2.0]]
    got.sum().backward()
    assert weight.grad.tolist() == [[1.0, 0.0], [0.0, 1.0]]
