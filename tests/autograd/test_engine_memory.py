"""The engine walks iteratively and lets go of the graph: deep chains, freed saved tensors,
and no growth over many training steps."""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import symgrad


@pytest.mark.slow
def test_chain_of_100000_ops_backpropagates_without_recursion_error():
    x = symgrad.tensor([1.5], dtype=symgrad.float64, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0  # saves its input: the whole chain holds tensors until backward
    y.backward()
    assert x.grad.item() == 1.0
    del y  # tearing the chain down must not recurse either


def test_backward_frees_saved_tensors_while_the_graph_is_still_referenced():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.sin()
    loss = (y * y).sum()  # MulBackward0 saves y
    saved = weakref.ref(y)
    del y
    assert saved() is not None  # kept alive by the graph
    loss.backward()
    assert saved() is None  # released by backward, though loss (and its graph) lives on


def test_graph_is_released_once_the_root_is_dropped():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    hidden = x.exp()
    loss = (hidden * x).sum()
    node_ref, hidden_ref = weakref.ref(hidden.grad_fn), weakref.ref(hidden)
    loss.backward()
    del hidden, loss
    # plain reference counting suffices: the graph holds no reference cycles
    assert node_ref() is None and hidden_ref() is None


def test_a_leaf_keeps_one_accumulate_grad_node_and_both_go_with_it():
    leaf = symgrad.tensor([1.0, 2.0], requires_grad=True)
    first = (leaf * 2).grad_fn.next_functions[0][0]
    second = (leaf * 3).grad_fn.next_functions[0][0]
    assert first is second and first.variable is leaf  # one node, not one per graph
    leaf_ref, node_ref = weakref.ref(leaf), weakref.ref(first)
    del leaf, first, second
    assert leaf_ref() is None and node_ref() is None  # no reference cycle: no gc needed


def test_a_graph_keeps_the_leaves_it_accumulates_into():
    y = symgrad.tensor([1.0, 2.0], requires_grad=True) * 2  # the leaf has no other holder
    node = y.grad_fn.next_functions[0][0]
    y.sum().backward()
    assert node.variable.grad.tolist() == [2.0, 2.0]


def test_retained_graph_is_released_once_the_root_is_dropped():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    loss = (x.exp() * x).sum()
    node_ref = weakref.ref(loss.grad_fn)
    loss.backward(retain_graph=True)
    assert node_ref() is not None
    del loss
    assert node_ref() is None


def test_create_graph_result_is_released_with_its_references():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    (g,) = symgrad.autograd.grad((x**3).sum(), x, create_graph=True)
    node_ref = weakref.ref(g.grad_fn)
    del g
    gc.collect()
    assert node_ref() is None


def _training_step(w, x):
    loss = (w * x).sum()
    loss.backward()
    with symgrad.no_grad():
        w.sub_(w.grad, alpha=0.01)
    w.grad = None


@pytest.mark.slow
def test_no_object_growth_over_2000_training_steps():
    w = symgrad.zeros(3, requires_grad=True)
    x = symgrad.tensor([1.0, 2.0, 3.0])
    for _ in range(50):  # warm caches (kernels, node classes) first
        _training_step(w, x)
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(2_000):
        _training_step(w, x)
    gc.collect()
    # one leaked object per step would show as 2,000, one every 100 steps as 20
    assert len(gc.get_objects()) - before < 20
    np.testing.assert_allclose(w.detach().numpy(), -0.01 * 2_050 * x.numpy(), rtol=1e-3)


@pytest.mark.slow
def test_no_memory_growth_over_training_steps():
    w = symgrad.randn(8, 4, requires_grad=True)
    b = symgrad.zeros(4, requires_grad=True)
    x = symgrad.randn(16, 8)

    def step():
        loss = ((x @ w + b).sigmoid() ** 2).mean()
        loss.backward()
        with symgrad.no_grad():
            w.sub_(0.1 * w.grad)
            b.sub_(0.1 * b.grad)
            w.grad.zero_()
            b.grad.zero_()

    for _ in range(20):
        step()
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for _ in range(250):
            step()
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    # a graph kept per step would cost well over 1 kB each, 250 kB in all; the bound is the
    # same 64 bytes a step it was over 1,000 steps
    assert growth < 16_000
