"""``nn.utils.prune`` (masks as ``<name>_mask`` buffers, ``<name>_orig`` parameters and the
forward pre-hook) and ``nn.utils``'s gradient clipping and parameter vectors.

Each scenario takes the library as ``T`` and returns plain values: the test checks them
against the values written here, and, when PyTorch imports, PyTorch's against the same. The
random methods are checked by what does not depend on the random draw."""

from __future__ import annotations

import importlib
import math

import pytest

import symgrad

LIBRARIES = ["symgrad", pytest.param("torch", marks=pytest.mark.torch)]


def library(name: str):
    if name == "symgrad":
        return symgrad
    torch = pytest.importorskip("torch")
    importlib.import_module("torch.nn.utils.prune")  # PyTorch loads it only when asked
    return torch


def failure(fn) -> tuple:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return type(exc).__name__, str(exc)[:40]
    return ("no error", "")


WEIGHT = [[0.5, -3.0, 0.1], [2.0, -0.2, 1.0]]


def layer(T, weight=WEIGHT):
    lin = T.nn.Linear(3, 2).double()
    with T.no_grad():
        lin.weight.copy_(T.tensor(weight, dtype=T.float64))
        lin.bias.copy_(T.tensor([1.0, -1.0], dtype=T.float64))
    return lin


def names(module):
    return [n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()]


def l1_unstructured(T):
    lin = layer(T)
    orig = lin.weight
    prune = T.nn.utils.prune
    prune.l1_unstructured(lin, "weight", amount=2)
    lin(T.ones(1, 3, dtype=T.float64)).sum().backward()
    return [
        names(lin),
        lin.weight_mask.tolist(),
        lin.weight.tolist(),
        lin.weight_orig is orig,
        orig.grad.tolist(),
        type(lin.weight.grad_fn).__name__,
        list(lin.state_dict()),
    ]


def pruned_again_among_the_rest(T):
    lin = layer(T)
    prune = T.nn.utils.prune
    prune.l1_unstructured(lin, "weight", amount=2)
    prune.l1_unstructured(lin, "weight", amount=0.25)  # a quarter of the 4 left: 1 more
    hooks = [type(h).__name__ for h in _pre_hooks(lin)]
    return lin.weight_mask.tolist(), hooks, len(_pre_hooks(lin)[0])


def _pre_hooks(module):
    hooks = module._forward_pre_hooks
    if isinstance(hooks, dict):  # PyTorch's
        return list(hooks.values())
    return [entry[0] for entry in hooks]


def forward_pre_hook_recomputes(T):
    lin = layer(T)
    prune = T.nn.utils.prune
    prune.custom_from_mask(lin, "weight", T.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]))
    with T.no_grad():
        lin.weight_orig.fill_(2.0)
    before = lin.weight.tolist()
    out = lin(T.ones(1, 3, dtype=T.float64))
    return before, lin.weight.tolist(), out.tolist()


def ln_structured(T):
    prune = T.nn.utils.prune
    rows = layer(T)
    prune.ln_structured(rows, "weight", amount=1, n=1, dim=0)
    cols = layer(T)
    prune.ln_structured(cols, "weight", amount=0.34, n=float("inf"), dim=1)
    cols_after = cols.weight_mask.tolist()
    prune.ln_structured(cols, "weight", amount=1, n=2, dim=1)
    return rows.weight_mask.tolist(), cols_after, cols.weight_mask.tolist()


def importance_scores(T):
    lin = layer(T)
    scores = T.tensor([[9.0, 9.0, 0.0], [9.0, 9.0, 1.0]], dtype=T.float64)
    T.nn.utils.prune.l1_unstructured(lin, "weight", amount=2, importance_scores=scores)
    return lin.weight_mask.tolist()


def random_methods(T):
    prune = T.nn.utils.prune
    unstructured = prune.random_unstructured(T.nn.Linear(5, 4), "weight", amount=0.3)
    structured = prune.random_structured(T.nn.Linear(5, 4), "weight", amount=2, dim=1)
    col_zeros = (structured.weight_mask.sum(0) == 0).sum().item()
    return [
        int((unstructured.weight_mask == 0).sum()),
        col_zeros,
        sorted(set(structured.weight_mask.sum(0).tolist())),
    ]


def global_unstructured(T):
    prune = T.nn.utils.prune
    a = layer(T)
    b = layer(T, [[0.05, 4.0, 5.0], [6.0, 7.0, 8.0]])
    params = [(a, "weight"), (b, "weight")]
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=3)
    return a.weight_mask.tolist(), b.weight_mask.tolist(), names(a)


def remove_makes_it_permanent(T):
    lin = layer(T)
    orig = lin.weight
    prune = T.nn.utils.prune
    prune.l1_unstructured(lin, "weight", amount=3)
    was = prune.is_pruned(lin)
    prune.remove(lin, "weight")
    return [
        was,
        prune.is_pruned(lin),
        names(lin),
        lin.weight is orig,
        [[abs(v) for v in row] for row in lin.weight.tolist()],
        lin.weight.requires_grad,
        lin.weight.grad_fn,
    ]


def identity_and_is_pruned(T):
    prune = T.nn.utils.prune
    net = T.nn.Sequential(layer(T), T.nn.ReLU())
    before = prune.is_pruned(net)
    prune.identity(net[0], "bias")
    return before, prune.is_pruned(net), net[0].bias_mask.tolist(), names(net[0])


def prune_method_alone(T):
    method = T.nn.utils.prune.L1Unstructured(amount=1)
    t = T.tensor([3.0, -1.0, 2.0], dtype=T.float64)
    return method.prune(t).tolist()


def refused(T):
    prune = T.nn.utils.prune
    return [
        failure(lambda: prune.l1_unstructured(layer(T), "weight", amount=1.5)),
        failure(lambda: prune.l1_unstructured(layer(T), "weight", amount=-1)),
        failure(lambda: prune.l1_unstructured(layer(T), "weight", amount="all")),
        failure(lambda: prune.l1_unstructured(layer(T), "weight", amount=7))[0],
        failure(lambda: prune.ln_structured(layer(T), "bias", amount=1, n=2, dim=0))[0],
        failure(lambda: prune.ln_structured(layer(T), "weight", amount=1, n=2, dim=2))[0],
        failure(lambda: prune.remove(layer(T), "weight"))[0],
        failure(
            lambda: prune.global_unstructured(
                [(layer(T), "weight")], pruning_method=prune.RandomStructured, amount=1
            )
        )[0],
    ]


def failed_pruning_leaves_the_module(T):
    lin = layer(T)
    err = failure(lambda: T.nn.utils.prune.l1_unstructured(lin, "weight", amount=7))[0]
    return err, names(lin), lin.weight.tolist() == WEIGHT


EXPECTED = {
    l1_unstructured: [
        (["bias", "weight_orig"], ["weight_mask"]),
        [[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]],
        [[0.5, -3.0, 0.0], [2.0, -0.0, 1.0]],
        True,
        [[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]],
        "MulBackward0",
        ["bias", "weight_orig", "weight_mask"],
    ],
    pruned_again_among_the_rest: (
        [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]],
        ["PruningContainer"],
        2,
    ),
    forward_pre_hook_recomputes: (
        [[0.5, -0.0, 0.1], [0.0, -0.2, 1.0]],
        [[2.0, 0.0, 2.0], [0.0, 2.0, 2.0]],
        [[5.0, 3.0]],
    ),
    ln_structured: (
        [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]],
        [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]],
        [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
    ),
    importance_scores: [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]],
    random_methods: [6, 2, [0.0, 4.0]],
    global_unstructured: (
        [[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]],
        [[0.0, 1.0, 1.0], [1.0, 1.0, 1.0]],
        (["bias", "weight_orig"], ["weight_mask"]),
    ),
    remove_makes_it_permanent: [
        True,
        False,
        (["bias", "weight"], []),
        True,
        [[0.0, 3.0, 0.0], [2.0, 0.0, 1.0]],
        True,
        None,
    ],
    identity_and_is_pruned: (False, True, [1.0, 1.0], (["weight", "bias_orig"], ["bias_mask"])),
    prune_method_alone: [3.0, -0.0, 2.0],
    refused: [
        ("ValueError", "amount=1.5 should either be a float in t"),
        ("ValueError", "amount=-1 should either be a float in th"),
        ("TypeError", "Invalid type for amount: all. Must be in"),
        "ValueError",
        "ValueError",
        "IndexError",
        "ValueError",
        "TypeError",
    ],
    failed_pruning_leaves_the_module: ("ValueError", (["bias", "weight"], []), True),
}


@pytest.mark.parametrize("name", LIBRARIES)
@pytest.mark.parametrize("scenario", list(EXPECTED), ids=lambda f: f.__name__)
def test_scenario(scenario, name):
    assert scenario(library(name)) == EXPECTED[scenario]


# -- gradient clipping and parameter vectors -----------------------------------------------------


def with_grads(T, grads):
    params = []
    for g in grads:
        p = T.nn.Parameter(T.zeros(len(g), dtype=T.float64))
        p.grad = T.tensor(g, dtype=T.float64)
        params.append(p)
    return params


def clip_grad_norm(T):
    utils = T.nn.utils
    params = with_grads(T, [[3.0, 0.0], [0.0, 4.0]])
    total = utils.clip_grad_norm_(params, max_norm=1.0)
    small = with_grads(T, [[0.3], [0.4]])
    untouched = utils.clip_grad_norm_(small, max_norm=1.0)
    inf_norm = utils.clip_grad_norm_(with_grads(T, [[-6.0, 2.0]]), 3.0, norm_type=float("inf"))
    nothing = utils.clip_grad_norm_([T.nn.Parameter(T.ones(2))], 1.0)
    return [
        round(total.item(), 6),
        [[round(v, 6) for v in p.grad.tolist()] for p in params],
        round(untouched.item(), 6),
        [p.grad.tolist() for p in small],
        inf_norm.item(),
        nothing.item(),
    ]


def clip_grad_norm_nonfinite(T):
    params = with_grads(T, [[math.inf, 1.0]])
    return failure(lambda: T.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True))


def clip_grad_value(T):
    params = with_grads(T, [[-3.0, 0.5], [2.0]])
    T.nn.utils.clip_grad_value_(params, 1.0)
    return [p.grad.tolist() for p in params]


def parameter_vectors(T):
    utils = T.nn.utils
    lin = layer(T)
    vec = utils.parameters_to_vector(lin.parameters())
    utils.vector_to_parameters(vec * 2, lin.parameters())
    return [
        vec.tolist(),
        lin.weight.tolist(),
        lin.bias.tolist(),
        failure(lambda: utils.vector_to_parameters([1.0], lin.parameters()))[0],
    ]


CLIPPING = {
    clip_grad_norm: [
        5.0,
        [[0.6, 0.0], [0.0, 0.8]],
        0.5,
        [[0.3], [0.4]],
        6.0,
        0.0,
    ],
    clip_grad_norm_nonfinite: ("RuntimeError", "The total norm of order 2.0 for gradient"),
    clip_grad_value: [[-1.0, 0.5], [1.0]],
    parameter_vectors: [
        [0.5, -3.0, 0.1, 2.0, -0.2, 1.0, 1.0, -1.0],
        [[1.0, -6.0, 0.2], [4.0, -0.4, 2.0]],
        [2.0, -2.0],
        "TypeError",
    ],
}


@pytest.mark.parametrize("name", LIBRARIES)
@pytest.mark.parametrize("scenario", list(CLIPPING), ids=lambda f: f.__name__)
def test_clipping_and_vectors(scenario, name):
    assert scenario(library(name)) == CLIPPING[scenario]


def test_old_module_path_still_names_parameters():
    from symgrad.nn.utils import name_parameters

    net = name_parameters(symgrad.nn.Linear(1, 1), prefix="fc")
    assert [p.name for p in net.parameters()] == ["fc.weight", "fc.bias"]


def test_custom_mask_of_another_shape_is_an_assertion_error():
    lin = symgrad.nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="the mask has shape \\[3\\]"):
        symgrad.nn.utils.prune.custom_from_mask(lin, "bias", symgrad.tensor([0.0, 1.0, 1.0]))


@pytest.mark.torch
def test_custom_mask_of_another_shape_as_torch():
    pytest.importorskip("torch")
    torch_prune = importlib.import_module("torch.nn.utils.prune")
    torch = importlib.import_module("torch")
    with pytest.raises(AssertionError):
        torch_prune.custom_from_mask(torch.nn.Linear(2, 2), "bias", torch.tensor([0.0, 1.0, 1.0]))
