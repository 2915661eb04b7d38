"""Structural steps written into the compiled program as NumPy lines (the code interpreter of
the rule vocabulary), and the engine's walk of a compiled function's one node."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.compiler.code_xp import CodeXP, Emitter, Unemittable, Var
from symgrad.compiler.inline import without_dead_lines
from symgrad.prim.vocab import missing_words


def test_the_code_interpreter_speaks_the_whole_vocabulary():
    assert missing_words(CodeXP(Emitter({}, "_t"))) == []


def _linear_loss(w, b, x, y):
    return F.binary_cross_entropy_with_logits(symgrad.matmul(x, w) + b, y)


def _one_layer():
    rng = np.random.default_rng(0)
    w = symgrad.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    b = symgrad.tensor(rng.standard_normal(3), requires_grad=True)
    x = symgrad.tensor(np.linspace(-1, 1, 5))
    y = symgrad.tensor([0.0, 1.0, 0.0])
    return w, b, x, y


def test_a_layer_s_rules_become_lines_and_give_the_eager_gradients():
    w, b, x, y = _one_layer()
    _linear_loss(w, b, x, y).backward()
    eager = w.grad.numpy().copy(), b.grad.numpy().copy()
    w.grad = b.grad = None
    f = symgrad.compile(_linear_loss)
    for _ in range(2):
        w.grad = b.grad = None
        loss = f(w, b, x, y)
        loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), eager[0], rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), eager[1], rtol=1e-12)
    source = f.source
    assert " @ " in source  # the matrix product and its gradient, written out
    assert "= b1(" not in source and "= f1(" not in source  # no call of matmul's rule
    assert "v0 = a2.reshape(" in source  # unsqueeze: a reshape to its known shape


def test_a_linear_layer_s_weight_gradient_is_row_major_as_pytorch_s():
    rng = np.random.default_rng(1)
    w = symgrad.tensor(rng.standard_normal((4, 6)), requires_grad=True)
    x = symgrad.tensor(rng.standard_normal((8, 6)))
    f = symgrad.compile(lambda w, x: F.linear(x, w).tanh().sum())
    f(w, x).backward()
    assert w.grad.numpy().flags.c_contiguous
    expected = (1 - np.tanh(x.numpy() @ w.detach().numpy().T) ** 2).T @ x.numpy()
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-12)
    # the transpose of the transposed product is the product itself: no line transposes twice
    assert ".swapaxes(0, 1).swapaxes" not in f.source


def test_a_rule_the_code_interpreter_can_not_write_is_called():
    a = symgrad.tensor([[0.1, 0.2], [0.3, -0.4]], requires_grad=True)
    f = symgrad.compile(lambda a: symgrad.linalg.matrix_exp(a).sum())
    f(a).backward()
    compiled = a.grad.numpy().copy()
    a.grad = None
    symgrad.linalg.matrix_exp(a).sum().backward()
    np.testing.assert_allclose(compiled, a.grad.numpy(), rtol=1e-12)
    assert "r = b" in f.source  # its VJP rule, called


def test_values_refuse_what_the_code_can_not_say():
    em = Emitter({}, "_t")
    v = Var(em, "a0", np.ones((2, 3)))
    with pytest.raises(Unemittable):
        bool(v)
    with pytest.raises(Unemittable):
        np.asarray(v)
    with pytest.raises(TypeError):
        np.exp(v)  # a NumPy function on a value: the rule is called instead
    w = CodeXP(em).sum(v * 2.5 + 1, (0,), False)
    assert w.shape == (3,) and np.allclose(w.value, 7.0)
    # names and numbers: the number lives in the namespace, never in the text
    assert all("2.5" not in line for line in em.lines)
    assert any(em.ns.get(name) == 2.5 for name in em.ns)


def test_sum_to_a_shape_is_settled_from_the_shapes():
    em = Emitter({}, "_t")
    xp = CodeXP(em)
    g = Var(em, "g", np.ones((4, 2, 3)))
    assert xp.sum_to_size(g, (4, 2, 3)) is g and em.lines == []  # already that shape
    r = xp.sum_to_size(g, (1, 3))
    assert r.shape == (1, 3) and np.all(r.value == 8.0)
    assert len(em.lines) == 2  # one sum over the broadcast axes, one reshape


def test_dead_lines_are_dropped_and_their_reads_forgotten():
    lines = [
        "    _b1_1 = v0.swapaxes(0, 1)",
        "    _b1_2 = _b1_1 @ gv1",
        "    gv0 = _b1_1",
        "    ga0 = _b1_2",
        "    return (ga0,)",
    ]
    kept, read = without_dead_lines(lines)
    assert kept == [lines[0], lines[1], lines[3], lines[4]]
    assert "v0" in read and "gv1" in read


def test_the_root_gradient_of_the_one_node_walk_is_never_a_leaf_s_grad():
    x = symgrad.tensor([2.0], requires_grad=True)
    f = symgrad.compile(lambda x: x.reshape(()))
    f(x).backward()
    x.grad.add_(5.0)  # the .grad is the leaf's own array: changing it changes nothing else
    x.grad = None
    f(x).backward()
    assert x.grad.tolist() == [1.0]
    f(x).backward()
    assert x.grad.tolist() == [2.0]


def test_the_one_node_walk_keeps_pytorch_s_rules():
    w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    f = symgrad.compile(lambda w: (w * w).sum())
    out = f(w)
    out.backward(retain_graph=True)
    out.backward()
    assert w.grad.tolist() == [4.0, 8.0]
    with pytest.raises(RuntimeError, match="second time"):
        out.backward()
    seen = []
    w.register_hook(lambda g: seen.append(g.tolist()))  # a hook: the general walk runs it
    w.grad = None
    f(w).backward()
    assert seen == [[2.0, 4.0]] and w.grad.tolist() == [2.0, 4.0]
    # the same leaf twice among the node's inputs: its two gradients are summed
    v = symgrad.tensor([1.0, 2.0], requires_grad=True)
    g = symgrad.compile(lambda a, b: (a * b * b).sum())
    g(v, v).backward()
    assert v.grad.tolist() == [3.0, 12.0]  # 3 v²


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_whole_reduction_computes_with_numpy_s_scalar_and_returns_an_array(dtype):
    # inside a step, a mean divides NumPy's scalar (no 0-d array in between), and a loss's
    # gradient is read as a scalar; the step's results are still 0-d arrays of the dtype
    x = symgrad.tensor(np.linspace(-1, 2, 7).astype(dtype), requires_grad=True)

    def loss(x):
        return F.mse_loss(x, x.detach() * 0.5) + (x * x).mean()

    loss(x).backward()
    eager_value, eager_grad = loss(x).detach().numpy(), x.grad.numpy().copy()
    f = symgrad.compile(loss)
    x.grad = None
    out = f(x)
    out.backward()
    assert type(out._data) is np.ndarray and out._data.shape == () and out.dtype == x.dtype
    assert out.detach().numpy() == eager_value
    np.testing.assert_array_equal(x.grad.numpy(), eager_grad)
    assert x.grad.dtype == x.dtype
    backward = f.source.split("def backward")[1]
    assert "gv1[()]" in backward  # the loss's gradient read as a scalar


def test_an_addition_passes_its_gradient_on_and_each_leaf_owns_its_grad():
    x = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = symgrad.tensor([0.5, -1.0, 4.0], requires_grad=True)
    f = symgrad.compile(lambda x, y: ((x + y) * 2.0).sum())
    f(x, y).backward()
    backward = f.source.split("def backward")[1]
    assert "k0_0(" not in backward and "k0_1(" not in backward  # no kernel for g * 1
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 2.0, 2.0])
    assert not np.shares_memory(x.grad.numpy(), y.grad.numpy())
    x.grad.add_(1.0)  # one leaf's .grad changed in place leaves the other's alone
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 2.0, 2.0])
    with symgrad.no_grad():
        b = symgrad.tensor([1.0, 1.0, 1.0]).requires_grad_()
    g = symgrad.compile(lambda x, b: (x.reshape(3, 1) + b).sum())  # a broadcast operand
    g(x.detach().requires_grad_(), b).backward()
    np.testing.assert_array_equal(b.grad.numpy(), [3.0, 3.0, 3.0])
