"""``x[key] = value`` records PyTorch's nodes for the value: with index tensors or lists in the
key, the value loses its leading 1s in a view (``ViewBackward0``) and is broadcast by the put
itself (no ``ExpandBackward0``); with a basic key (ints, slices, a 0-d integer tensor read as
an int) it is viewed and expanded as PyTorch's ``copy_to`` does."""

from __future__ import annotations

import pytest

import symgrad

# name -> (key(T), value(T, x)), and the value's nodes under the write's node
CASES = {
    "list_and_slice": (lambda T: ([0, 1], slice(1, 3)), lambda T, x: x[1, 0]),
    "index_value_of_ones": (
        lambda T: (slice(None), T.tensor([0, 2])),
        lambda T, x: x[:1, :1, :1],
    ),
    "mask_one_element": (lambda T: "mask", lambda T, x: x[0, 0, :1]),
    "list_leading_one": (lambda T: [0, 1], lambda T, x: x[:1, 1:2] * 3),
    "zero_d_tensor_as_an_int": (lambda T: T.tensor(1), lambda T, x: x[:1, 0]),
    "same_shape_basic": (lambda T: True, lambda T, x: x[None] * 2),
}
_PUT, _VIEW, _SLICE = "IndexPutBackward0", "ViewBackward0", "SliceBackward0"
EXPECTED = {
    "list_and_slice": ["CopySlices", "SelectBackward0", "SelectBackward0"],
    "index_value_of_ones": [_PUT, _VIEW, _SLICE, _SLICE],
    "mask_one_element": [_PUT, _VIEW, _SLICE, "SelectBackward0"],
    "list_leading_one": [_PUT, _VIEW, "MulBackward0", _SLICE],
    "zero_d_tensor_as_an_int": ["CopySlices", "ExpandBackward0", _VIEW, "SelectBackward0"],
    "same_shape_basic": ["CopySlices", "MulBackward0", "UnsqueezeBackward0"],
}


def _run(T, name):
    x = T.arange(24.0, dtype=T.float64).reshape(2, 3, 4).requires_grad_(True)
    key, value = CASES[name]
    key = key(T)
    y = x * 1
    y[x > 10 if key == "mask" else key] = value(T, x)
    names = [type(y.grad_fn).__name__]
    node = y.grad_fn.next_functions[1][0]
    while node is not None and len(names) < 4 and type(node).__name__ != "AccumulateGrad":
        names.append(type(node).__name__)
        node = node.next_functions[0][0]
    (y * y).sum().backward()
    return names, y.tolist(), x.grad.tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_nodes(name):
    assert _run(symgrad, name)[0] == EXPECTED[name]


def test_values_and_gradients():
    _, y, g = _run(symgrad, "list_and_slice")
    assert y[0] == [[0.0, 1.0, 2.0, 3.0]] + [[12.0, 13.0, 14.0, 15.0]] * 2
    assert g[1][0] == [120.0, 130.0, 140.0, 150.0] and g[1][1] == [0.0] * 4
    assert g[0][0] == [0.0, 2.0, 4.0, 6.0]


def test_a_value_that_does_not_fit_is_named_without_its_leading_ones():
    x = symgrad.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="value tensor of shape \\[2\\] cannot be broadcast"):
        x[symgrad.tensor([0, 1]), 1] = symgrad.ones(2, 1).t()


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch")
    assert _run(torch, name) == _run(symgrad, name)


# a value of another floating dtype at a basic key: PyTorch's copy_ into the view x[key]
# converts it, so the value's own node is linked directly (no ToCopyBackward0) and its
# gradient comes back in its dtype
_OTHER_DTYPE = {
    "select": (lambda v: v[1], 0, "SelectBackward0"),
    "slice": (lambda v: v[1:], slice(0, 2), "SliceBackward0"),
    "column": (lambda v: v[:, 1], (slice(None), 0), "SelectBackward0"),
}


def _other_dtype(T, name):
    value, key, _ = _OTHER_DTYPE[name]
    w = T.ones(3, 2, requires_grad=True)
    a = w * 1
    x = T.arange(6.0, dtype=T.float64).reshape(3, 2).requires_grad_(True)
    seen = []
    v = value(x * 2)
    v.register_hook(lambda g: seen.append(str(g.dtype).rsplit(".", 1)[-1]))
    a[key] = v
    (a * a).sum().backward()
    node = a.grad_fn.next_functions[1][0]
    names = [type(a.grad_fn).__name__, type(node).__name__]
    return names, str(a.dtype).rsplit(".", 1)[-1], seen, x.grad.tolist(), w.grad.tolist()


@pytest.mark.parametrize("name", sorted(_OTHER_DTYPE))
def test_a_value_of_another_dtype_is_converted_by_the_copy(name):
    names, dtype, seen, x_grad, _ = _other_dtype(symgrad, name)
    assert names == ["CopySlices", _OTHER_DTYPE[name][2]]
    assert (dtype, seen) == ("float32", ["float64"])
    if name == "select":
        assert x_grad == [[0.0, 0.0], [16.0, 24.0], [0.0, 0.0]]


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(_OTHER_DTYPE))
def test_a_value_of_another_dtype_against_pytorch(name):
    torch = pytest.importorskip("torch")
    assert _other_dtype(torch, name) == _other_dtype(symgrad, name)
