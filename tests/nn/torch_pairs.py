"""Run one call under symgrad and under PyTorch on the same float64 inputs and compare the
values, the gradients of every input, the gradients of those gradients (double backward),
whether the first gradients require grad (``flags``) and the node names."""

from __future__ import annotations

import numpy as np

import symgrad


def compare(call, arrays, double=True, rtol=1e-10, atol=1e-12, flags=True):
    """``call(T, *tensors)`` with ``T`` symgrad, then torch, on ``arrays`` (all requiring
    grad); returns the symgrad output."""
    import torch

    rng = np.random.default_rng(0)
    ours = [symgrad.tensor(a, dtype=symgrad.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    y, ty = call(symgrad, *ours), call(torch, *theirs)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=atol)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    v = rng.standard_normal(tuple(ty.shape))
    grads = symgrad.autograd.grad(y, ours, symgrad.tensor(v), create_graph=double)
    tgrads = torch.autograd.grad(ty, theirs, torch.tensor(v), create_graph=double)
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=rtol, atol=atol)
    if double:
        ws = [rng.standard_normal(a.shape) for a in arrays]
        keep = [i for i, g in enumerate(grads) if g.requires_grad and tgrads[i].requires_grad]
        if flags:
            assert [g.requires_grad for g in grads] == [tg.requires_grad for tg in tgrads]
        if not keep:  # a linear op: its gradient is a constant
            return y
        s = sum((grads[i] * symgrad.tensor(ws[i])).sum() for i in keep)
        ts = sum((tgrads[i] * torch.tensor(ws[i])).sum() for i in keep)
        second = symgrad.autograd.grad(s, ours, allow_unused=True)
        tsecond = torch.autograd.grad(ts, theirs, allow_unused=True)
        for g, tg in zip(second, tsecond):
            if tg is None:
                assert g is None or not np.any(g.numpy())
            else:
                np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=rtol, atol=atol)
    return y


def errors_alike(call, arrays):
    """The exception types of ``call`` under symgrad and under PyTorch, which must match."""
    import torch

    found = []
    for T in (symgrad, torch):
        try:
            call(T, *[T.tensor(a, dtype=T.float64) for a in arrays])
        except Exception as error:  # noqa: BLE001 - the type is what is compared
            found.append(type(error))
        else:
            found.append(None)
    assert found[0] is found[1] and found[0] is not None, found
    return found[0]
