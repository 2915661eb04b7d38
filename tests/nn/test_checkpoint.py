"""symgrad.utils.checkpoint: the same values and gradients as calling the function, with
PyTorch's warnings and errors."""

import warnings

import numpy as np
import pytest

import symgrad


def _net():
    symgrad.manual_seed(0)
    return symgrad.nn.Sequential(
        symgrad.nn.Linear(2, 3), symgrad.nn.Tanh(), symgrad.nn.Dropout(0.5), symgrad.nn.Linear(3, 1)
    )


def _grads(run):
    net = _net()
    x = symgrad.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    symgrad.manual_seed(1)
    out = run(net, x)
    out.sum().backward()
    return out.detach().numpy(), [x.grad.numpy()] + [p.grad.numpy() for p in net.parameters()]


@pytest.mark.parametrize("reentrant", [True, False])
def test_same_values_and_gradients(reentrant):
    from symgrad.utils.checkpoint import checkpoint, checkpoint_sequential

    plain = _grads(lambda net, x: net(x))
    once = _grads(lambda net, x: checkpoint(net, x, use_reentrant=reentrant))
    segments = _grads(lambda net, x: checkpoint_sequential(net, 2, x, use_reentrant=reentrant))
    for other in (once, segments):
        assert np.array_equal(plain[0], other[0])
        assert all(np.array_equal(a, b) for a, b in zip(plain[1], other[1]))


def test_reentrant_default_warns_and_records_its_node():
    from symgrad.utils.checkpoint import checkpoint, checkpoint_sequential

    x = symgrad.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        y = checkpoint(lambda a: a * 2, x)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    out = checkpoint(lambda a: (a, 3, a * 2), x, use_reentrant=True)
    assert out[1] == 3 and out[2].tolist() == [2.0, 2.0]
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter"):
        checkpoint_sequential([lambda a: a + 1], 1, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = checkpoint(lambda a: a * 2, x, use_reentrant=False)
    assert type(y.grad_fn).__name__ == "MulBackward0"


def test_reentrant_needs_an_input_that_requires_grad():
    from symgrad.utils.checkpoint import checkpoint

    w = symgrad.nn.Parameter(symgrad.ones(2))
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(lambda a: a * w, symgrad.ones(2), use_reentrant=True)
    assert not y.requires_grad
    y = checkpoint(lambda a: a * w, symgrad.ones(2), use_reentrant=False)
    assert y.requires_grad


def test_errors():
    from symgrad.utils.checkpoint import checkpoint, checkpoint_sequential

    x = symgrad.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: b"):
        checkpoint(lambda a, b=1: a * b, x, b=2, use_reentrant=True)
    with pytest.raises(ValueError, match="`context_fn` or `debug` is only supported when"):
        checkpoint(lambda a: a, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(lambda a: a, x, use_reentrant=False, determinism_check="x")
    with pytest.raises(ValueError, match="debug=True is incompatible with non-default context_fn"):
        checkpoint(lambda a: a, x, use_reentrant=False, debug=True, context_fn=lambda: (1, 1))
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential([lambda a: a], 1, x, use_reentrant=False, foo=1)
    y = checkpoint(lambda a, b=1: a * b, x, b=symgrad.tensor(3.0), use_reentrant=False)
    assert y.tolist() == [3.0, 3.0]
    functions = [lambda a: a + 1, lambda a: a * 2, lambda a: a - 3]
    assert checkpoint_sequential(functions, 2, x, use_reentrant=False).tolist() == [1.0, 1.0]
    with pytest.raises(ZeroDivisionError):
        checkpoint_sequential(functions, 0, x, use_reentrant=False)


def test_context_fn_enters_its_forward_context():
    import contextlib

    from symgrad.utils.checkpoint import checkpoint

    log = []

    @contextlib.contextmanager
    def note(what):
        log.append(what)
        yield

    out = checkpoint(
        lambda a: a * 2,
        symgrad.ones(1, requires_grad=True),
        use_reentrant=False,
        context_fn=lambda: (note("forward"), note("recompute")),
    )
    assert out.tolist() == [2.0] and log == ["forward"]


def test_against_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.checkpoint import checkpoint as torch_checkpoint

    from symgrad.utils.checkpoint import checkpoint

    results = []
    for lib, ckpt in ((symgrad, checkpoint), (torch, torch_checkpoint)):
        x = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        w = lib.tensor([0.3, 0.1, -0.7], requires_grad=True)
        y = ckpt(lambda a, b: (a * b).tanh().sum(), x, w, use_reentrant=True)
        y.backward()
        results.append((y.item(), x.grad.tolist(), w.grad.tolist(), type(y.grad_fn).__name__))
    assert results[0][3] == results[1][3] == "CheckpointFunctionBackward"
    assert np.allclose(results[0][0], results[1][0])
    assert np.allclose(results[0][1], results[1][1]) and np.allclose(results[0][2], results[1][2])
