"""SparseAdam: PyTorch's constructor, and PyTorch's RuntimeError at a step with a dense
gradient, which every symgrad gradient is (``nn.Embedding(sparse=True)``'s too)."""

from __future__ import annotations

import pytest

import symgrad


def test_defaults_and_groups():
    w = symgrad.zeros(3, requires_grad=True)
    opt = symgrad.optim.SparseAdam([w])
    assert opt.defaults == {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "maximize": False}
    assert list(opt.state_dict()["param_groups"][0]) == ["lr", "betas", "eps", "maximize", "params"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lr": -1.0}, "Invalid learning rate: -1.0"),
        ({"eps": -1.0}, "Invalid epsilon value: -1.0"),
        ({"lr": 0.0}, "Invalid learning rate: 0.0"),
        ({"eps": 0.0}, "Invalid epsilon value: 0.0"),
        ({"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
        ({"betas": (0.9, -1.0)}, "Invalid beta parameter at index 1: -1.0"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        symgrad.optim.SparseAdam([symgrad.zeros(2, requires_grad=True)], **kwargs)


def test_no_weight_decay_argument():
    with pytest.raises(TypeError):
        symgrad.optim.SparseAdam([symgrad.zeros(2, requires_grad=True)], weight_decay=0.1)


def test_a_dense_gradient_is_refused_and_nothing_changes():
    w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    opt = symgrad.optim.SparseAdam([w])
    opt.step()  # no gradient yet: nothing to do
    (w * 2).sum().backward()
    with pytest.raises(RuntimeError, match="^SparseAdam does not support dense gradients, ple"):
        opt.step()
    assert w.tolist() == [1.0, 2.0]
    assert not opt.state


def test_sparse_embedding_names_the_limitation():
    emb = symgrad.nn.Embedding(5, 2, sparse=True)
    opt = symgrad.optim.SparseAdam(emb.parameters(), lr=0.1)
    emb(symgrad.tensor([1, 3])).sum().backward()
    with pytest.raises(RuntimeError, match=r"nn.Embedding\(sparse=True\)"):
        opt.step()


def test_against_torch():
    torch = pytest.importorskip("torch")
    for lib in (symgrad, torch):
        w = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SparseAdam([w], lr=0.01)
        (w * 2).sum().backward()
        with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
            opt.step()
    assert symgrad.optim.SparseAdam([symgrad.zeros(1, requires_grad=True)]).state_dict() == (
        torch.optim.SparseAdam([torch.zeros(1, requires_grad=True)]).state_dict()
    )


def test_a_learning_rate_that_is_not_a_number_fails_on_pytorchs_comparison():
    with pytest.raises(TypeError, match="'<' not supported between instances of 'float' and"):
        symgrad.optim.SparseAdam([symgrad.zeros(2, requires_grad=True)], lr=None)
