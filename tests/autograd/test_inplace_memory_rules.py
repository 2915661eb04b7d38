"""PyTorch's refusals of in-place changes that its autograd or its kernels can't make sense
of: an input overlapping part of the memory written (``x[1:].add_(x[:-1])``); a recorded change
of a view made under no_grad; a piece of ``split``/``unbind`` of a tensor that needs no grad,
changed in place while recording, or used after its base changed."""

from __future__ import annotations

import pytest

import symgrad

PARTIAL = "some elements of the input tensor and the written-to tensor refer to a single memory"
NO_GRAD_VIEW = "A view was created in no_grad mode and is being modified inplace with grad mode"


def _grid():
    return symgrad.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize(
    "change",
    [
        lambda x: x.add_(x[0]),
        lambda x: x.view(3, 2).copy_(x.t()),
        lambda x: x.reshape(-1)[1:].add_(x.reshape(-1)[:-1]),
        lambda x: x.lerp_(x[0], 0.5),
        lambda x: x.addcmul_(x[0], x[1]),
        lambda x: x.clamp_(min=x[0]),
        lambda x: x.index_add_(0, symgrad.tensor([0]), x[1:]),
        lambda x: x.add_(x.detach()[0]),
    ],
    ids=["add_", "copy_", "shifted", "lerp_", "addcmul_", "clamp_", "index_add_", "detached"],
)
def test_an_input_overlapping_part_of_the_written_memory_is_refused(change):
    x = _grid()
    with pytest.raises(RuntimeError, match=PARTIAL):
        change(x)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # nothing written


def test_the_same_memory_or_an_undecidable_overlap_is_allowed():
    x = _grid()
    x.add_(x)
    x.mul_(x.view(2, 3))
    x.add_(x.detach())
    assert x.tolist() == [[0.0, 8.0, 32.0], [72.0, 128.0, 200.0]]
    y = _grid()
    y.mul_(y[:, :1].clone())  # a copy: no shared memory
    assert y.tolist() == [[0.0, 0.0, 0.0], [9.0, 12.0, 15.0]]


def test_a_recorded_change_of_a_view_made_under_no_grad_is_refused():
    w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    c = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    with symgrad.no_grad():
        row, piece = c[1], c.split(1)[0]
    for view in (row, piece):
        with pytest.raises(RuntimeError, match=NO_GRAD_VIEW):
            view.mul_(w)
    row.mul_(2)  # nothing to record: allowed
    piece.mul_(2)
    assert c.tolist() == [[2.0, 4.0], [6.0, 8.0]]


def test_pieces_of_a_tensor_needing_no_grad():
    w = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    c = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    piece = c.unbind(0)[1]
    with pytest.raises(RuntimeError, match="output of a function that returns multiple views"):
        piece.mul_(w[0])
    piece.mul_(2)  # nothing to record
    assert c.tolist() == [[1.0, 2.0], [6.0, 8.0]]
    first = c.split(1, dim=1)[0]
    c.mul_(w)  # the base changes while recording: the piece can't be differentiated
    with pytest.raises(RuntimeError, match="its base or another view of its base has been"):
        (first * 2).sum().backward()


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")

    def outcomes(T):
        out = []
        w = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        for change in (
            lambda x: x.add_(x[0]),
            lambda x: x.mul_(x),
            lambda x: x.reshape(-1)[1:].copy_(x.reshape(-1)[:-1]),
            lambda x: x.unbind(0)[0].mul_(w),
            lambda x: x.split(1)[1].mul_(2),
        ):
            x = T.arange(6.0).reshape(2, 3)
            try:
                change(x)
                out.append(x.tolist())
            except RuntimeError as e:
                out.append(str(e)[:40])
        return out

    assert outcomes(symgrad) == outcomes(torch)


def test_an_expanded_view_of_a_tensor_changed_in_place_sums_its_gradient():
    # the view reads each element twice: its new history (AsStridedBackward0) must add both
    a = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = symgrad.zeros(3)
    e = c.expand(2, 3)
    c.copy_(a)
    weights = symgrad.tensor([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    (e * weights).sum().backward()
    assert e.grad_fn.name() == "AsStridedBackward0"
    assert a.grad.tolist() == [11.0, 22.0, 33.0]
    b = symgrad.tensor([1.0, 2.0], requires_grad=True)
    y = b * 1
    wide = y.unsqueeze(1).expand(2, 3)
    y.mul_(2)
    (wide * symgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert b.grad.tolist() == [12.0, 30.0]


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x.squeeze(0),  # nothing to remove: still a view, as in PyTorch
        lambda x: x.squeeze(),
        lambda x: x.reshape(2, 3),
        lambda x: x.view(2, 3),
        lambda x: x.expand(2, 3),
        lambda x: x.permute(0, 1),
        lambda x: x.flatten(0, 0),
        lambda x: x.contiguous(),
    ],
    ids=["squeeze0", "squeeze", "reshape", "view", "expand", "permute", "flatten", "contiguous"],
)
def test_an_op_returning_its_input_unchanged_gives_a_view_that_writes_through(make):
    a = symgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    x = a * 1
    y = make(x)
    assert y._base is x or y is x  # (contiguous of a contiguous tensor is the tensor itself)
    y.mul_(2)
    assert x.tolist() == [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]
    (x * symgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert a.grad.tolist() == [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]


def _setitem_into_expanded(lib):
    """``e[0] = v`` and ``e[1, 2] = 9.0`` of an expanded tensor: PyTorch writes into the view
    ``e[key]``, which holds each place once, so the base takes the values."""
    weights = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = lib.tensor([5.0, 6.0, 7.0], requires_grad=True)
    x = a.clone()
    e = x.expand(2, 3)
    e[0] = v
    names = [type(e.grad_fn).__name__, type(x.grad_fn).__name__]
    (e * weights).sum().backward()
    b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = b.clone()
    f = y.expand(2, 3)
    f[1, 2] = 9.0
    (f * weights).sum().backward()
    plain = lib.zeros(3)
    plain.expand(2, 3)[0] = 2.0
    return {
        "x": x.tolist(),
        "names": names,
        "a.grad": a.grad.tolist(),
        "v.grad": v.grad.tolist(),
        "y": y.tolist(),
        "b.grad": b.grad.tolist(),
        "plain": plain.tolist(),
    }


def test_setitem_into_an_expanded_tensor_writes_through_the_view():
    assert _setitem_into_expanded(symgrad) == {
        "x": [5.0, 6.0, 7.0],
        "names": ["AsStridedBackward0", "CopySlices"],
        "a.grad": [0.0, 0.0, 0.0],
        "v.grad": [5.0, 7.0, 9.0],
        "y": [1.0, 2.0, 9.0],
        "b.grad": [5.0, 7.0, 0.0],
        "plain": [2.0, 2.0, 2.0],
    }


def test_setitem_into_an_expanded_tensor_as_pytorch():
    torch = pytest.importorskip("torch")
    assert _setitem_into_expanded(symgrad) == _setitem_into_expanded(torch)


def test_setitem_of_places_an_expanded_tensor_shares_is_refused():
    e = symgrad.zeros(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e[:, 1] = 7.0
