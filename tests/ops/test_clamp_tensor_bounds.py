"""``clamp`` with tensor bounds: one node of PyTorch's name, its gradients to the input and both
bounds (ties and crossed bounds included), its second derivative and its forward tangents.

Expected values are PyTorch's ``clamp_backward``/``clamp_backward_min_max``/``clamp_jvp``,
written out by hand; where PyTorch is importable the same calls are compared with it.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.autograd.forward_ad as fwAD
from symgrad.symbolic import expression, gradient

NAN = float("nan")

# (name, fn(T, x, lo, hi), node name)
CALLS = [
    ("both", lambda T, x, lo, hi: T.clamp(x, lo, hi), "ClampBackward0"),
    ("clip", lambda T, x, lo, hi: T.clip(x, lo, hi), "ClampBackward0"),
    ("method", lambda T, x, lo, hi: x.clamp(min=lo, max=hi), "ClampBackward0"),
    ("min_only", lambda T, x, lo, hi: T.clamp(x, min=lo), "ClampBackward0"),
    ("max_only", lambda T, x, lo, hi: T.clamp(x, max=hi), "ClampBackward0"),
    ("inplace", lambda T, x, lo, hi: (x * 1).clamp_(lo, hi), "ClampBackward0"),
    ("clip_inplace", lambda T, x, lo, hi: (x * 1).clip_(lo, hi), "ClampBackward0"),
    ("clamp_min", lambda T, x, lo, hi: T.clamp_min(x, lo), "ClampMinBackward1"),
    ("clamp_max_method", lambda T, x, lo, hi: x.clamp_max(hi), "ClampMaxBackward1"),
]

X = [1.0, 2.0, 3.0, 4.0, 2.0, 2.5]
LO = [2.0, 2.0, 2.0, 2.0, 2.0, 3.0]
HI = [3.0, 3.0, 3.0, 3.0, 2.0, 2.0]  # ties at 1, 2 and 4; crossed bounds at 5
G = [1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0]

# gradients of x, lo, hi for the incoming gradient G
EXPECTED_GRADS = {
    "both": ([0, 10, 100, 0, 10000, 0], [1, 0, 0, 0, 0, 0], [0, 0, 0, 1000, 0, 100000]),
    "min_only": ([0, 10, 100, 1000, 10000, 0], [1, 0, 0, 0, 0, 100000], None),
    "max_only": ([1, 10, 100, 0, 10000, 0], None, [0, 0, 0, 1000, 0, 100000]),
    "clamp_min": ([0, 10, 100, 1000, 10000, 0], [1, 0, 0, 0, 0, 100000], None),
    "clamp_max_method": ([1, 10, 100, 0, 10000, 0], None, [0, 0, 0, 1000, 0, 100000]),
}
EXPECTED_GRADS["clip"] = EXPECTED_GRADS["method"] = EXPECTED_GRADS["both"]
EXPECTED_GRADS["inplace"] = EXPECTED_GRADS["clip_inplace"] = EXPECTED_GRADS["both"]


def _leaves(T, *values):
    return [T.tensor(v, dtype=T.float64, requires_grad=True) for v in values]


def _run(T, fn):
    x, lo, hi = _leaves(T, X, LO, HI)
    y = fn(T, x, lo, hi)
    y.backward(T.tensor(G, dtype=T.float64))
    return y, [None if t.grad is None else t.grad.tolist() for t in (x, lo, hi)]


@pytest.mark.parametrize("name, fn, node", CALLS, ids=[c[0] for c in CALLS])
def test_one_node_of_pytorchs_name_and_its_gradients(name, fn, node):
    y, grads = _run(symgrad, fn)
    assert type(y.grad_fn).__name__ == node
    for got, want in zip(grads, EXPECTED_GRADS[name]):
        assert got == (None if want is None else [float(v) for v in want])


@pytest.mark.parametrize("name, fn, node", CALLS, ids=[c[0] for c in CALLS])
def test_node_values_and_gradients_agree_with_torch(name, fn, node):
    torch = pytest.importorskip("torch")
    y, grads = _run(symgrad, fn)
    ty, tgrads = _run(torch, fn)
    assert type(ty.grad_fn).__name__ == node
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    assert grads == tgrads


def test_values_broadcast_promote_and_propagate_nan():
    x = symgrad.tensor([NAN, 1.0, 1.0, 5.0])
    lo = symgrad.tensor([0.0, NAN, 0.0, 0.0])
    hi = symgrad.tensor([2.0, 2.0, NAN, 2.0])
    assert np.isnan(symgrad.clamp(x, lo, hi).numpy()[:3]).all()
    assert symgrad.clamp(x, lo, hi)[3].item() == 2.0
    ints = symgrad.clamp(symgrad.tensor([1, 2, 3]), symgrad.tensor([1.5]))
    assert ints.dtype == symgrad.float32 and ints.tolist() == [1.5, 2.0, 3.0]
    wide = symgrad.clamp(symgrad.tensor([1.0, 2.0]), symgrad.tensor([[1.0], [2.0], [3.0]]))
    assert wide.tolist() == [[1.0, 2.0], [2.0, 2.0], [3.0, 3.0]]


def test_broadcast_bounds_get_gradients_of_their_own_shape():
    x = symgrad.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    lo = symgrad.tensor([[1.5], [2.5]], requires_grad=True)
    hi = symgrad.tensor(2.75, requires_grad=True)
    symgrad.clamp(x, lo, hi).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0]]
    assert lo.grad.tolist() == [[1.0], [2.0]]
    assert hi.grad.item() == 2.0


def test_nan_sends_no_gradient_anywhere():
    x, lo, hi = _leaves(symgrad, [NAN, 1.0, 1.0], [0.0, NAN, 0.0], [3.0, 3.0, NAN])
    symgrad.clamp(x, lo, hi).sum().backward()
    for t in (x, lo, hi):
        assert t.grad.tolist() == [0.0, 0.0, 0.0]


def test_a_number_and_a_tensor_bound_together_is_a_type_error():
    # (a 0-d tensor beside a number is that number, as PyTorch's overload of Number bounds)
    x = symgrad.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="both be Tensors"):
        symgrad.clamp(x, min=symgrad.tensor([1.5, 1.5]), max=2.5)


def _second(T):
    x, lo, hi = _leaves(T, [1.0, 2.0, 3.0], [2.0, 2.0, 2.0], [2.5, 2.5, 2.5])
    g = T.ones(3, dtype=T.float64, requires_grad=True)
    grads = T.autograd.grad(T.clamp(x, lo, hi), (x, lo, hi), g, create_graph=True)
    names = [type(t.grad_fn).__name__ for t in grads]
    second = T.autograd.grad(grads[0].sum() + 2 * grads[2].sum(), g, retain_graph=True)[0]
    with pytest.raises(RuntimeError):
        T.autograd.grad(grads[0].sum(), x)
    return names, second.tolist()


def test_double_backward_is_a_mask_of_the_gradient():
    names, second = _second(symgrad)
    assert names == ["WhereBackward0"] * 3
    assert second == [0.0, 1.0, 2.0]


def test_double_backward_agrees_with_torch():
    torch = pytest.importorskip("torch")
    assert _second(symgrad) == _second(torch)


def _tangents(T):
    x = T.tensor([1.0, 2.0, 3.0, NAN, 1.0], dtype=T.float64)
    lo = T.tensor([2.0, 2.0, 2.0, 0.0, NAN], dtype=T.float64)
    hi = T.tensor([2.0, 2.0, 2.5, 2.0, 2.0], dtype=T.float64)
    fns = [
        lambda a, b, c: T.clamp(a, b, c),
        lambda a, b, c: T.clamp(a, min=b),
        lambda a, b, c: T.clamp(a, max=c),
        lambda a, b, c: T.clamp_min(a, b),
        lambda a, b, c: T.clamp_max(a, c),
    ]
    out = []
    for fn in fns:
        with fwAD.dual_level() if T is symgrad else T.autograd.forward_ad.dual_level():
            ad = fwAD if T is symgrad else T.autograd.forward_ad
            duals = [ad.make_dual(v, T.full_like(v, 10.0**i)) for i, v in enumerate((x, lo, hi))]
            out.append(ad.unpack_dual(fn(*duals)).tangent.tolist())
    return out


def test_forward_tangents_follow_pytorchs_clamp_jvp():
    assert _tangents(symgrad) == [
        [10.0, 1.0, 100.0, 1.0, 1.0],  # both bounds: x's tangent at a tie and at nan
        [10.0, 10.0, 1.0, 10.0, 10.0],  # clamp's lone min: min's tangent at a tie
        [1.0, 100.0, 100.0, 100.0, 1.0],
        [10.0, 1.0, 1.0, 10.0, 10.0],  # clamp_min: x's tangent at a tie
        [1.0, 1.0, 100.0, 100.0, 1.0],
    ]


def test_forward_tangents_agree_with_torch():
    torch = pytest.importorskip("torch")
    assert _tangents(symgrad) == _tangents(torch)


def test_closed_forms():
    named = ((1.0, "x"), (0.0, "a"), (2.0, "b"))
    x, lo, hi = (symgrad.tensor(v, requires_grad=True, name=n) for v, n in named)
    y = symgrad.clamp(x, lo, hi)
    sx, sa, sb = (expression(t) for t in (x, lo, hi))
    subs = {sx: 3, sa: 0, sb: 2}
    assert expression(y).subs(subs) == 2
    assert [d.subs(subs) for d in gradient(y, [x, lo, hi])] == [0, 0, 1]
    subs = {sx: -1, sa: 0, sb: 2}
    assert [d.subs(subs) for d in gradient(y, [x, lo, hi])] == [0, 1, 0]
    subs = {sx: 1, sa: 3, sb: 2}  # crossed bounds: max
    assert expression(y).subs(subs) == 2
    assert [d.subs(subs) for d in gradient(y, [x, lo, hi])] == [0, 0, 1]


def test_saved_values_under_pytorchs_names():
    x, lo, hi = _leaves(symgrad, [1.0, 2.0], [1.5, 1.5], [1.75, 1.75])
    node = symgrad.clamp(x, lo, hi).grad_fn
    assert (node._saved_self, node._saved_min, node._saved_max) == (x, lo, hi)
    assert symgrad.clamp(x, max=hi).grad_fn._saved_max is hi
    assert symgrad.clamp_min(x, lo).grad_fn._saved_min is lo
