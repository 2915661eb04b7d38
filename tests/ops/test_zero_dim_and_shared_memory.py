"""Ops on 0-d tensors that PyTorch treats as having one dimension of size 1 (transpose,
index_fill/index_add/index_copy) or none at all (roll, unflatten, take_along_dim,
repeat_interleave along a dim); writes into memory that several elements share (fill_ and
zero_ are allowed, as in PyTorch); copy_ from a source with more dimensions."""

from __future__ import annotations

import pytest

import symgrad


def test_transpose_of_a_0d_tensor_is_a_view_of_it():
    x = symgrad.tensor(2.0, requires_grad=True)
    y = x.transpose(0, -1)
    assert y.shape == () and y._base is x and y.grad_fn.name() == "TransposeBackward0"
    (y * y).backward()
    assert x.grad.item() == 4.0
    z = symgrad.tensor(3.0)
    assert z.transpose_(0, 0).item() == 3.0 and z.swapaxes(0, -1).item() == 3.0


def test_index_ops_on_a_0d_tensor():
    x = symgrad.tensor(2.0, dtype=symgrad.float64, requires_grad=True)
    s = symgrad.tensor(3.0, dtype=symgrad.float64, requires_grad=True)
    i = symgrad.tensor([0])
    added = (x * 1).index_add(0, i, s, alpha=2)
    copied = (x * 1).index_copy(0, i, s * 1)
    filled = (x * 1).index_fill(0, i, s)
    unfilled = (x * 1).index_fill(0, symgrad.tensor([], dtype=symgrad.int64), 5.0)
    assert [added.item(), copied.item(), filled.item(), unfilled.item()] == [8.0, 3.0, 3.0, 2.0]
    names = [t.grad_fn.name() for t in (added, copied, filled, unfilled)]
    assert names == [
        "IndexAddBackward0",
        "IndexCopyBackward0",
        "IndexFillBackward1",
        "IndexFillBackward0",
    ]
    (added + copied * 2 + filled * 3 + unfilled * 4).backward()
    assert (x.grad.item(), s.grad.item()) == (5.0, 7.0)
    y = symgrad.tensor(2.0)
    assert y.index_fill_(-1, i, 1.0).item() == 1.0


@pytest.mark.parametrize(
    "call,error,message",
    [
        (
            lambda t: t.roll(1, 0),
            IndexError,
            "Dimension specified as 0 but tensor has no dimensions",
        ),
        (
            lambda t: t.unflatten(0, (1,)),
            RuntimeError,
            "Dimension specified as 0 but tensor has no",
        ),
        (lambda t: t.take_along_dim(symgrad.tensor(0), 0), IndexError, "has no dimensions"),
        (lambda t: t.repeat_interleave(2, 0), IndexError, r"range of \[-1, 0\], but got 1"),
    ],
    ids=["roll", "unflatten", "take_along_dim", "repeat_interleave"],
)
def test_ops_needing_a_dimension_refuse_a_0d_tensor(call, error, message):
    with pytest.raises(error, match=message):
        call(symgrad.tensor(2.0))


def test_copy_from_a_source_with_more_dimensions():
    with pytest.raises(
        RuntimeError,
        match=r"output with shape \[3, 4\] doesn't match the broadcast shape \[2, 3, 4\]",
    ):
        symgrad.ones(3, 4).copy_(symgrad.ones(2, 3, 4))
    x = symgrad.tensor(1.0)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        x.copy_(symgrad.ones(1, 3, 4))


def test_fill_and_zero_write_into_shared_memory():
    base = symgrad.tensor([1.0, 2.0, 3.0, 4.0])
    base.unsqueeze(0).expand(2, 4).fill_(7)
    assert base.tolist() == [7.0] * 4
    a = symgrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = a * 1
    e = y[1:3].unsqueeze(1).expand(2, 3)
    e.fill_(5.0)
    assert y.tolist() == [1.0, 5.0, 5.0, 4.0] and y.grad_fn.name() == "torch::autograd::CopySlices"
    assert e.grad_fn.name() == "AsStridedBackward0"
    (y * 10).sum().backward()
    assert a.grad.tolist() == [10.0, 0.0, 0.0, 10.0]  # the filled places came from no input
    # other writes into shared memory are refused, as in PyTorch
    shared = symgrad.ones(4).unsqueeze(0).expand(2, 4)
    for write in (
        lambda t: t.mul_(2),
        lambda t: t.fill_(symgrad.tensor(2.0)),
        lambda t: t.copy_(symgrad.ones(2, 4)),
    ):
        with pytest.raises(RuntimeError, match="refers to a single memory location"):
            write(shared)


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")

    def program(T):
        out = []
        x = T.tensor(2.0, requires_grad=True)
        y = x.transpose(0, -1) * 3
        y.backward()
        out.append((y.item(), x.grad.item(), type(y.grad_fn).__name__))
        z = T.tensor(2.0).index_fill_(0, T.tensor([0]), 1.0)
        out.append(z.item())
        for call in (
            lambda t: t.roll(1, 0),
            lambda t: t.unflatten(0, (1,)),
            lambda t: t.repeat_interleave(2, 0),
        ):
            try:
                call(T.tensor(2.0))
                out.append("ok")
            except (IndexError, RuntimeError) as e:
                out.append(type(e).__name__)
        b = T.tensor([1.0, 2.0, 3.0, 4.0])
        b.unsqueeze(0).expand(2, 4).zero_()
        out.append(b.tolist())
        try:
            T.ones(3, 4).copy_(T.ones(2, 3, 4))
        except RuntimeError as e:
            out.append(str(e)[:68])
        return out

    assert program(symgrad) == program(torch)
