"""The index tensors, masks and class targets a backward rule reads are watched as PyTorch
saves them: changing one in place between the forward and the backward pass is PyTorch's
inplace-modification ``RuntimeError`` (it was a silent gradient of the changed indices, or a
NumPy error), and a second backward pass without ``retain_graph`` is PyTorch's "backward
through the graph a second time" error. Where PyTorch does not save the index (``index_add``
for the input alone), nothing is checked."""

from __future__ import annotations

import pytest

import symgrad

MODIFIED = "modified by an inplace operation"
SECOND = "backward through the graph a second time"


def _leaf(T):
    return T.tensor([1.0, 2.0, 3.0], requires_grad=True)


def _changed(make, change):
    """``make(T, a, index)``'s gradient after ``change(index)`` in place."""

    def run(T):
        a, index = _leaf(T), T.tensor([0, 2])
        y = make(T, a, index)
        change(index)
        y.sum().backward()
        return a.grad.tolist()

    return run


def _masked(make):
    def run(T):
        a, mask = _leaf(T), T.tensor([True, False, True])
        y = make(T, a, mask)
        mask.zero_()
        y.sum().backward()
        return a.grad.tolist()

    return run


def _zero(index):
    index.zero_()


F = symgrad.nn.functional
# (name, run(T), the gradient PyTorch gives, or None for its RuntimeError)
CASES = [
    ("getitem", _changed(lambda T, a, i: a[i] * 1, _zero), None),
    ("index_select", _changed(lambda T, a, i: a.index_select(0, i), _zero), None),
    ("gather", _changed(lambda T, a, i: a.gather(0, i), _zero), None),
    ("take", _changed(lambda T, a, i: a.take(i), _zero), None),
    # (PyTorch gathers at a broadcast copy of the indices)
    (
        "take_along_dim",
        _changed(lambda T, a, i: T.take_along_dim(a, i, 0), _zero),
        [1.0, 0.0, 1.0],
    ),
    (
        "embedding",
        _changed(lambda T, a, i: T.nn.functional.embedding(i, a.unsqueeze(1)), _zero),
        None,
    ),
    ("scatter", _changed(lambda T, a, i: a.scatter(0, i, T.ones(2)), _zero), None),
    ("index_copy", _changed(lambda T, a, i: a.index_copy(0, i, T.ones(2)), _zero), None),
    ("index_fill", _changed(lambda T, a, i: a.index_fill(0, i, 0.0), _zero), None),
    ("put", _changed(lambda T, a, i: a.put(i, T.ones(2)), _zero), None),
    ("setitem", _changed(lambda T, a, i: _written(T, a, i), _zero), None),
    (
        "index_add_input_only",
        _changed(lambda T, a, i: a.index_add(0, i, T.ones(2)), _zero),
        [1.0, 1.0, 1.0],
    ),
    (
        "changed_after_a_view_of_it",
        _changed(lambda T, a, i: a[i[:1]] * 1, lambda i: i[1:].zero_()),
        None,
    ),
    ("mask_getitem", _masked(lambda T, a, m: a[m]), None),
    ("masked_fill", _masked(lambda T, a, m: a.masked_fill(m, 0.0)), None),
    ("masked_select", _masked(lambda T, a, m: a.masked_select(m)), None),
    ("masked_scatter", _masked(lambda T, a, m: a.masked_scatter(m, T.zeros(3))), None),
    ("where", _masked(lambda T, a, m: T.where(m, a, 0.0)), None),
]
IDS = [c[0] for c in CASES]


def _embedded(T, a, i):
    return T.nn.functional.embedding(i, a.unsqueeze(1))


def _written(T, a, i):
    b = a * 1
    b[i] = T.tensor([5.0, 6.0])
    return b


@pytest.mark.parametrize("name, run, expected", CASES, ids=IDS)
def test_an_index_changed_in_place(name, run, expected):
    if expected is None:
        with pytest.raises(RuntimeError, match=MODIFIED):
            run(symgrad)
    else:
        assert run(symgrad) == pytest.approx(expected)


def test_the_message_names_the_index():
    a, mask = _leaf(symgrad), symgrad.tensor([True, False, True])
    y = a[mask]
    mask.zero_()
    with pytest.raises(RuntimeError, match=r"\[CPUBoolType \[3\]\] is at version 1; expected"):
        y.sum().backward()
    x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    target = symgrad.tensor([0, 1])
    loss = F.cross_entropy(x, target)
    target.fill_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.LongTensor \[2\]\] is at version 1"):
        loss.backward()


@pytest.mark.parametrize(
    "make",
    [
        lambda T, a, i: a.index_select(0, i),
        lambda T, a, i: a[i],
        lambda T, a, i: a.masked_fill(T.tensor([True, False, True]), 0.0),
        lambda T, a, i: F.embedding(i, a.unsqueeze(1)),
    ],
    ids=["index_select", "getitem", "masked_fill", "embedding"],
)
def test_a_second_backward_pass_needs_retain_graph(make):
    a, index = _leaf(symgrad), symgrad.tensor([0, 2])
    make(symgrad, a, index).sum().backward()
    once = a.grad.tolist()
    a.grad = None
    y = make(symgrad, a, index)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert a.grad.tolist() == [2 * g for g in once]
    y = make(symgrad, a, index)
    y.sum().backward()
    with pytest.raises(RuntimeError, match=SECOND):
        y.sum().backward()


def test_after_the_backward_pass_the_index_is_free():
    a, index = _leaf(symgrad), symgrad.tensor([0, 2])
    y = a[index]
    y.sum().backward()
    index.zero_()  # nothing reads it any more
    assert a.grad.tolist() == [1.0, 0.0, 1.0]


@pytest.mark.torch
@pytest.mark.parametrize("name, run, expected", CASES, ids=IDS)
def test_agrees_with_torch(name, run, expected):
    torch = pytest.importorskip("torch")
    try:
        want = run(torch)
    except RuntimeError as exc:
        assert MODIFIED in str(exc)
        want = None
    assert want == expected
