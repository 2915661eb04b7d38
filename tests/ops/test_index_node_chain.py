"""Indexing records PyTorch's chain of nodes: a select per int, a slice per slice that is not
its whole dimension, an unsqueeze per None, left to right, then one index by the tensors (a
key of several entries was one node named after its last entry; x[True] was a select)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

T = symgrad.tensor
MASK = [[True, False, True, True]] * 3

# key, result shape, the nodes from the result back to the tensor (PyTorch 2.13's)
CASES = [
    ((slice(None),), (3, 4, 5), ["AliasBackward0"]),
    (slice(None), (3, 4, 5), ["SliceBackward0"]),  # a slice alone: a node even when whole
    ((slice(None), slice(None), slice(0, 5)), (3, 4, 5), ["AliasBackward0"]),
    ((1, 2), (5,), ["SelectBackward0", "SelectBackward0"]),
    ((0, Ellipsis, 1), (4,), ["SelectBackward0", "SelectBackward0"]),
    ((slice(1, None), None), (2, 1, 4, 5), ["UnsqueezeBackward0", "SliceBackward0"]),
    ((None, Ellipsis, None), (1, 3, 4, 5, 1), ["UnsqueezeBackward0", "UnsqueezeBackward0"]),
    ((Ellipsis, None, 1), (3, 4, 1), ["SelectBackward0", "UnsqueezeBackward0"]),
    ((slice(1, 2), slice(1, 2)), (1, 1, 5), ["SliceBackward0", "SliceBackward0"]),
    ((slice(1, 2), [0]), (1, 1, 5), ["IndexBackward0", "SliceBackward0"]),
    (True, (1, 3, 4, 5), ["IndexBackward0", "UnsqueezeBackward0"]),
    (False, (0, 3, 4, 5), ["IndexBackward0", "UnsqueezeBackward0"]),
    ((True, 1), (1, 4, 5), ["IndexBackward0", "SelectBackward0", "UnsqueezeBackward0"]),
    (
        (None, 0, None),
        (1, 1, 4, 5),
        ["UnsqueezeBackward0", "SelectBackward0", "UnsqueezeBackward0"],
    ),
    (
        (slice(1, 3), None, [0, 1], 2),
        (2, 1, 2),
        ["IndexBackward0", "SelectBackward0", "UnsqueezeBackward0", "SliceBackward0"],
    ),
    ((0, slice(None), [1, 3]), (4, 2), ["IndexBackward0", "SelectBackward0"]),
    (([0, 1], slice(None), [1, 2]), (2, 4), ["IndexBackward0"]),
    (
        (2, slice(1, 3), [True, False, True, True, False]),
        (2, 3),
        ["IndexBackward0", "SliceBackward0", "SelectBackward0"],
    ),
    (("mask", 1), (9,), ["IndexBackward0", "SelectBackward0"]),
    (0, (4, 5), ["SelectBackward0"]),
    (None, (1, 3, 4, 5), ["UnsqueezeBackward0"]),
]


def _chain(t: symgrad.Tensor) -> list:
    names, node = [], t.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        nxt = [f for f, _ in node.next_functions if f is not None]
        node = nxt[0] if nxt and type(nxt[0]).__name__ != "AccumulateGrad" else None
    return names


# NumPy reads ints among index arrays as index arrays; PyTorch selects them first
_NUMPY_FORM = {
    "(0, slice(None, None, None), [1, 3])": lambda a: a[0][:, [1, 3]],
    "(2, slice(1, 3, None), [True, False, True, True, False])": lambda a: a[2][1:3][
        :, [True, False, True, True, False]
    ],
    "('mask', 1)": lambda a: a[:, :, 1][np.array(MASK)],
}


def _expected(key, a):  # noqa: ANN001, ANN202
    form = _NUMPY_FORM.get(str(key))
    return form(a) if form is not None else a[_key(key, np)]


def _key(key, module):  # noqa: ANN001, ANN202
    items = key if isinstance(key, tuple) else (key,)
    made = tuple(module.tensor(MASK) if k == "mask" else k for k in items)
    return made if isinstance(key, tuple) else made[0]


@pytest.mark.parametrize(("key", "shape", "nodes"), CASES, ids=[str(c[0]) for c in CASES])
def test_nodes_values_and_gradients(key, shape, nodes) -> None:  # noqa: ANN001
    x = symgrad.arange(60.0).reshape(3, 4, 5).requires_grad_()
    y = x[_key(key, symgrad)]
    assert tuple(y.shape) == shape and _chain(y) == nodes
    expected = _expected(key, np.arange(60.0).reshape(3, 4, 5))
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    (y * y).sum().backward()
    # the gradient of sum(y * y) is 2 x where x is read (each element at most once here)
    grad = _expected(key, np.arange(60).reshape(3, 4, 5))
    want = np.zeros(60)
    want[np.asarray(grad).ravel()] = 2 * np.asarray(expected).ravel()
    np.testing.assert_array_equal(x.grad.numpy().ravel(), want)


@pytest.mark.parametrize(("key", "shape", "nodes"), CASES, ids=[str(c[0]) for c in CASES])
def test_as_pytorch(key, shape, nodes) -> None:  # noqa: ANN001
    torch = pytest.importorskip("torch")
    x = torch.arange(60.0).reshape(3, 4, 5).requires_grad_()
    y = x[_key(key, torch)]
    assert tuple(y.shape) == shape and _chain(y) == nodes
