"""Views share their base's memory and version counter, for every kind of view, and in-place
changes through a view (or of a base with live views) give PyTorch's values, histories and
gradients. Each case keeps plain expected values (PyTorch 2.13's) and, when PyTorch is
importable, is run with it too, so the expected values are checked against the reference."""

from __future__ import annotations

from typing import Any

import pytest

import symgrad

try:
    import torch
except ImportError:  # the plain expected values still run
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])


def observe(value: Any) -> Any:
    """Tensors as nested lists, nodes as class names, everything else as it is."""
    if isinstance(value, (list, tuple)):
        return [observe(v) for v in value]
    if hasattr(value, "tolist") and hasattr(value, "requires_grad"):
        return value.tolist()
    if value is not None and type(value).__name__.endswith(
        ("Backward0", "Backward3", "Slices", "Grad", "Backwards")
    ):
        return type(value).__name__
    return value


def raised(thunk: Any) -> str:
    try:
        thunk()
    except Exception as exc:  # the type is what is compared
        return type(exc).__name__
    return "no error"


CASES: dict[str, tuple] = {}


def case(expected: Any):
    def register(fn):
        CASES[fn.__name__] = (fn, expected)
        return fn

    return register


@case("RuntimeError")
def saved_tensor_changed_through_a_slice(T):
    x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
    c = T.tensor([1.0, 2.0, 3.0], dtype=T.float64)
    z = x * c
    with T.no_grad():
        c[0:2].mul_(5)
    return raised(lambda: z.sum().backward())


@case([[1, 1], [1, 1], [1, 1], [1, 1], [5.0, 10.0, 15.0]])
def one_version_counter_for_every_kind_of_view(T):
    out = []
    for make in (lambda c: c[0:2], lambda c: c.view(3), lambda c: c[1], lambda c: c.unsqueeze(0)):
        c = T.tensor([1.0, 2.0, 3.0])
        v = make(c)
        v.mul_(5)
        out.append([c._version, v._version])
    c = T.tensor([1.0, 2.0, 3.0])
    c.view(3, 1).t()[0].mul_(5)  # a view of a view of a view
    return out + [c]


@case([2, 2, [2.0, 2.0]])
def detached_and_base_share_the_counter(T):
    y = T.ones(2, requires_grad=True) * 1
    d = y.detach()
    y.mul_(2)
    d.add_(0)
    return [y._version, d._version, d]


@case(["AsStridedBackward0", "CopySlices", [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]])
def in_place_through_a_transpose(T):
    x = T.ones(2, 3, requires_grad=True)
    y = x * 1
    v = y.t()
    v.mul_(2)
    y.sum().backward()
    return [v.grad_fn, y.grad_fn, x.grad]


@case(["AsStridedBackward0", "CopySlices", [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]], [[2.0, 2.0, 2.0]]])
def in_place_through_view_and_reshape(T):
    x = T.ones(2, 3, requires_grad=True)
    w = T.full((1, 3), 2.0, requires_grad=True)
    y = x * 1
    v = y.view(6)
    v.mul_(3)
    y.reshape(3, 2).add_(0)
    (y + w).sum().backward()
    return [v.grad_fn, y.grad_fn, x.grad, w.grad]


@case(["AsStridedBackward0", "AsStridedBackward0", "CopySlices", [[4.0, 8.0], [1.0, 1.0]]])
def sibling_views_take_the_new_history(T):
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    top, bottom = y[0], y[1]
    top.mul_(2)
    (top * x[0] + bottom).sum().backward()
    return [top.grad_fn, bottom.grad_fn, y.grad_fn, x.grad]


@case(["AsStridedBackward0", "MulBackward0", [6.0, 12.0, 3.0], [[3.0, 6.0, 9.0]]])
def base_changed_while_views_live(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y.unsqueeze(0)
    y.mul_(3)
    (v * T.tensor([2.0, 4.0, 1.0])).sum().backward()
    return [v.grad_fn, y.grad_fn, x.grad, v]


@case(["AsStridedBackward0", "AsStridedBackward0", "AccumulateGrad", [[2.0, 2.0], [1.0, 1.0]]])
def views_of_a_leaf_changed_under_no_grad_read_it_again(T):
    # a parameter update (or a write through a detached alias) changes the version: the views
    # made before it take a new history from the leaf when next used
    w = T.ones(2, 2, requires_grad=True)
    row, cols = w[0], w.t()
    with T.no_grad():
        w.mul_(2)
    (row.sum() + cols.sum()).backward()
    return [row.grad_fn, cols.grad_fn, row.grad_fn.next_functions[0][0], w.grad]


@case(["AsStridedBackward0", "MulBackward0", "AsStridedBackward0", "AsStridedBackward0", None])
def views_of_a_non_leaf_and_siblings_changed_under_no_grad(T):
    y = T.ones(4, requires_grad=True) * 1
    v = y[1:]
    with T.no_grad():
        y.mul_(2)
    f = T.ones(4, requires_grad=True)
    g, h = f[:2], f[2:]
    with T.no_grad():
        g.add_(1)
    return [v.grad_fn, v.grad_fn.next_functions[0][0], g.grad_fn, h.grad_fn, f.grad_fn]


@case(["AsStridedBackward0", "SelectBackward0", "AsStridedBackward0", "RuntimeError"])
def views_after_a_detached_write_a_step_and_an_unbind(T):
    k = T.ones(3, requires_grad=True)
    first = k[0]
    k.detach().add_(1)  # shares the version counter
    k2 = T.ones(3, requires_grad=True)
    first2 = k2[0]
    k2.data.add_(1)  # .data does not
    p = T.nn.Parameter(T.ones(2, 2))
    pt = p.t()
    p.grad = T.ones(2, 2)
    T.optim.SGD([p], lr=0.1).step()
    piece = T.ones(3, requires_grad=True)
    part = piece.unbind()[0]
    with T.no_grad():
        piece.add_(1)
    return [first.grad_fn, first2.grad_fn, pt.grad_fn, raised(lambda: (part * 2).backward())]


@case([True, "CopySlices", "AsStridedBackward0", [2.0, 4.0], [1.0, 2.0, 0.0]])
def writing_a_tensor_that_requires_grad_into_a_view_of_plain_data(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    z = T.zeros(3)
    v = z[0:2]
    v.copy_(x)
    (z * z).sum().backward()
    return [z.requires_grad, z.grad_fn, v.grad_fn, x.grad, z.detach()]


@case(["RuntimeError", "RuntimeError", "RuntimeError"])
def refused_as_pytorch_refuses(T):
    def view_of_leaf():
        T.ones(2, 3, requires_grad=True).view(6).mul_(2)

    def view_made_under_no_grad():
        y = T.ones(2, requires_grad=True) * 1
        with T.no_grad():
            v = y[0]
        v.mul_(2)

    def expanded():
        T.ones(1, 3).expand(2, 3).add_(1)

    return [raised(view_of_leaf), raised(view_made_under_no_grad), raised(expanded)]


@case(["RuntimeError", [1.0, 1.0]])
def view_saved_by_a_node_then_base_changed(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[0:2]
    w = v * v  # saves v
    e = v.exp()  # saves its own output
    y.mul_(2)
    error = raised(lambda: w.sum().backward())
    (e.log()).sum().backward()
    return [error, x.grad[:2]]


@case([True, True, True, False, False])
def base_of_views(T):
    y = T.ones(2, 3)
    d = y.detach()
    return [
        y.view(6)._base is y,
        y.view(6).view(2, 3)._base is y,
        y.t()[0]._base is y,
        y._base is not None,
        d._base is not None,
    ]


@case([[2.0, 0.0, 0.0], [[2.0, 0.0], [0.0, 0.0]]])
def writes_under_no_grad_reach_the_base(T):
    x = T.zeros(3)
    with T.no_grad():
        x[0:1].add_(2)
    m = T.zeros(2, 2)
    m.t()[0, 0] = 2.0
    return [x, m]


def _through_views(x):
    y = x * 1
    y.t().mul_(x.t())
    y.view(6)[4:6].mul_(x[1, 0:2])
    y[0:1].exp_()
    return y


@case(
    [
        [[0.202010033417, 0.416324309677, 0.656504570223], [1.05, 0.76, 0.6]],
        [[0.832484293462, 1.871920052942, 3.390519572361], [5.72, 4.756, 3.024]],
        True,
        True,
    ]
)
def first_and_second_derivatives_through_views(T):
    x = T.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(_through_views(x).sum(), x, create_graph=True)
    (h,) = T.autograd.grad((g * g).sum(), x)
    return [
        [[round(v, 12) for v in row] for row in g.tolist()],
        [[round(v, 12) for v in row] for row in h.tolist()],
        T.autograd.gradcheck(_through_views, (x,)),
        T.autograd.gradgradcheck(_through_views, (x,)),
    ]


@case("RuntimeError")
def output_saved_by_an_in_place_op_then_its_base_changed(T):
    x = T.ones(2, 3, dtype=T.float64, requires_grad=True)
    y = x * 1
    y[0:1].exp_()  # saves its output, a view of y
    y[1].mul_(2)  # shares y's counter
    return raised(lambda: y.sum().backward())


@case(
    [
        ["SplitBackward0", "SplitWithSizesBackward0", "UnbindBackward0", "SplitBackward0"],
        [True, True, 2, 1],
        [[6.0, 6.0, 6.0], [6.0, 6.0, 6.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        [[0.0, 8.0, 0.0], [0.0, 8.0, 0.0], [0.0, 8.0, 0.0], [0.0, 8.0, 0.0]],
    ]
)
def split_chunk_unbind_make_one_node(T):
    x = T.ones(4, 3, requires_grad=True)
    y = x * 2
    a, b = y.split(2)
    c, d = y.split([3, 1])
    u = y.unbind(1)
    names = [a.grad_fn, c.grad_fn, u[0].grad_fn, y.chunk(2)[0].grad_fn]
    facts = [a.grad_fn is b.grad_fn, a._base is y, len(y.chunk(3)), d.output_nr]
    (a * 3).sum().backward(retain_graph=True)
    first = x.grad.clone()
    x.grad = None
    (g,) = T.autograd.grad((u[1] * u[1]).sum(), x, create_graph=True)
    return [[type(n).__name__ for n in names], facts, first, T.autograd.grad(g.sum(), x)[0]]


@case(["RuntimeError", [2.0, 2.0, 2.0], "RuntimeError", [1.0, 1.0, 0.0, 0.0], 0, 0])
def pieces_changed_in_place(T):
    x = T.ones(4, 3, requires_grad=True)
    y = x * 1
    a, b = y.split(2)
    refused = raised(lambda: a.mul_(2))
    with T.no_grad():
        a.mul_(2)  # allowed without recording
    y2 = x * 1
    a2, b2 = y2.split(2)
    y2.mul_(2)
    stale = raised(lambda: (a2 * 1).sum().backward())
    z = T.zeros(4)
    p, q = z.split(2)
    p.add_(1)  # nothing recorded: allowed
    return [refused, y[0], stale, z, len(T.zeros(0, 3).unbind()), len(T.ones(3, 0).unbind(1))]


@case([[[1, 1], [3, 1], [1], [1]], "no error"])
def empty_tensors_have_pytorchs_strides_and_can_be_written(T):
    def write():
        z = T.zeros(2, 0)
        z[[1]] = T.zeros(1, 0)

    strides = [list(T.zeros(s).stride()) for s in [(2, 0), (0, 3), (0,), (1,)]]
    return [strides, raised(write)]


@case(
    [
        "IndexPutBackward0",
        "IndexPutBackward0",
        "CopySlices",
        "FillBackward3",
        "FillBackward3",
        "CopyBackwards",
        "IndexPutBackward0",
        "CopySlices",
    ]
)
def setitem_records_what_pytorch_records(T):
    x = T.ones(2, 3, requires_grad=True)
    out = []
    for key, value in (
        ([0, 1], 5.0),
        (T.tensor([True, False]), 5.0),
        (0, 5.0),
        (slice(None), 5.0),
        (Ellipsis, T.tensor(2.0)),
        (slice(0, 2), T.ones(3)),
        ((slice(None), [0]), 5.0),
        ((0, [1, 2]), 5.0),
    ):
        z = x * 1
        z[key] = value
        out.append(z.grad_fn)
    return out


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(CASES))
def test_views_as_pytorch(name: str, lib: Any) -> None:
    fn, expected = CASES[name]
    assert observe(fn(lib)) == expected
