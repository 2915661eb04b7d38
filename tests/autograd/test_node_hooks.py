"""Hooks on graph nodes (``Node.register_hook``, ``Node.register_prehook``), on a leaf's
``AccumulateGrad`` node and after a leaf's accumulation (``register_post_accumulate_grad_hook``).

Each scenario takes the library as ``T`` and returns a log of plain values: the test checks it
against the values written here, and, when PyTorch imports, PyTorch's log against the same."""

from __future__ import annotations

import pytest

import symgrad

LIBRARIES = ["symgrad", pytest.param("torch", marks=pytest.mark.torch)]


def library(name: str):
    return symgrad if name == "symgrad" else pytest.importorskip("torch")


def values(grads):
    """A tuple of gradients as lists (None stays None)."""
    return [None if g is None else g.tolist() for g in grads]


def leaf(T, data):
    return T.tensor(data, dtype=T.float64, requires_grad=True)


def failure(fn) -> tuple:
    """(exception type name, message) of what ``fn()`` raises."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return type(exc).__name__, str(exc)
    return ("no error", "")


# -- order -----------------------------------------------------------------------------------


def order_of_every_hook(T) -> list:
    a = leaf(T, [1.0, 2.0])
    y = a * T.tensor([3.0, 4.0], dtype=T.float64)
    node = y.grad_fn
    acc = node.next_functions[0][0]
    log = []
    node.register_prehook(lambda go: log.append(("pre", values(go))))
    node.register_hook(lambda gi, go: log.append(("post", values(gi), values(go))))
    y.register_hook(lambda g: log.append(("tensor", g.tolist())))
    y.retain_grad()
    acc.register_prehook(lambda go: log.append(("acc pre", values(go))))
    acc.register_hook(lambda gi, go: log.append(("acc post", values(gi), values(go))))
    a.register_hook(lambda g: log.append(("leaf tensor", g.tolist())))
    a.register_post_accumulate_grad_hook(lambda t: log.append(("post accumulate", t.grad.tolist())))
    y.sum().backward()
    log.append(("y.grad", y.grad.tolist()))
    log.append(("acc.variable is a", acc.variable is a))
    return log


ORDER = [
    ("tensor", [1.0, 1.0]),
    ("pre", [[1.0, 1.0]]),
    ("post", [[3.0, 4.0], None], [[1.0, 1.0]]),
    ("leaf tensor", [3.0, 4.0]),
    ("acc pre", [[3.0, 4.0]]),
    ("post accumulate", [3.0, 4.0]),
    ("acc post", [], [[3.0, 4.0]]),
    ("y.grad", [1.0, 1.0]),
    ("acc.variable is a", True),
]


@pytest.mark.parametrize("lib", LIBRARIES)
def test_hooks_run_in_pytorchs_order(lib):
    assert order_of_every_hook(library(lib)) == ORDER


def replacements_chain(T) -> list:
    log = []
    x = leaf(T, [1.0])
    y = x * 3
    y.grad_fn.register_prehook(lambda go: (go[0] + 1,))
    y.grad_fn.register_prehook(lambda go: log.append(("second pre", values(go))) or (go[0] * 10,))
    y.register_hook(lambda g: log.append(("tensor", g.tolist())) or g + 100)
    y.sum().backward()
    log.append(("x.grad", x.grad.tolist()))  # 3 * ((1 + 100) + 1) * 10

    x = leaf(T, [1.0])
    y = x * 3
    # x * 3 has two inputs, the second a number (no gradient)
    y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))
    y.grad_fn.register_hook(
        lambda gi, go: log.append(("second post", values(gi))) or (gi[0] * 10, None)
    )
    y.sum().backward()
    log.append(("x.grad", x.grad.tolist()))  # (3 + 1) * 10
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_each_hook_sees_and_replaces_what_the_previous_one_returned(lib):
    assert replacements_chain(library(lib)) == [
        ("tensor", [1.0]),
        ("second pre", [[102.0]]),
        ("x.grad", [3060.0]),
        ("second post", [[4.0], None]),
        ("x.grad", [40.0]),
    ]


def accumulate_node_hooks(T) -> list:
    a = leaf(T, [1.0, 2.0])
    acc = (a * 1).grad_fn.next_functions[0][0]
    log = [("same node for every use", acc is (a * 2).grad_fn.next_functions[0][0])]
    h = acc.register_prehook(lambda go: (go[0] * 100,))
    (a * 3).sum().backward()
    log.append(("pre-hook replaced", a.grad.tolist()))
    h.remove()
    a.grad = None
    h = acc.register_hook(lambda gi, go: ())
    (a * 3).sum().backward()
    log.append(("post-hook returning ()", a.grad.tolist()))
    h.remove()
    h = acc.register_prehook(lambda go: (None,))
    a.grad = None
    (a * 3).sum().backward()
    log.append(("pre-hook dropping the gradient", a.grad))
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_a_leafs_accumulate_grad_node_takes_hooks(lib):
    assert accumulate_node_hooks(library(lib)) == [
        ("same node for every use", True),
        ("pre-hook replaced", [300.0, 300.0]),
        ("post-hook returning ()", [3.0, 3.0]),
        ("pre-hook dropping the gradient", None),
    ]


def dropping_every_gradient(T) -> list:
    x = leaf(T, [1.0, 2.0])
    y = x * 3
    y.grad_fn.register_prehook(lambda go: (None,))
    log = []
    y.grad_fn.register_hook(lambda gi, go: log.append(("post", values(gi), values(go))))
    (y * 2).sum().backward()
    log.append(("x.grad", x.grad))
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_a_pre_hook_may_take_every_gradient_away(lib):
    assert dropping_every_gradient(library(lib)) == [
        ("post", [None, None], [None]),
        ("x.grad", None),
    ]


# -- handles ---------------------------------------------------------------------------------


def removal(T) -> list:
    x = leaf(T, [1.0])
    y = x * 3
    calls = []
    h1 = y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    h2 = y.grad_fn.register_prehook(lambda go: calls.append("pre"))
    h1.remove()
    h1.remove()  # harmless
    h2.remove()
    with x.register_post_accumulate_grad_hook(lambda t: calls.append("in with")):
        (x * 2).sum().backward()
    y.sum().backward()
    return calls


@pytest.mark.parametrize("lib", LIBRARIES)
def test_removed_hooks_no_longer_run(lib):
    assert removal(library(lib)) == ["in with"]


def registered_during_backward(T) -> list:
    x = leaf(T, [1.0])
    y = x * 3
    z = y * 2
    log = []

    def register_on_y(gi, go):
        y.grad_fn.register_prehook(lambda go: log.append(values(go)))

    z.grad_fn.register_hook(register_on_y)
    z.sum().backward()
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_a_hook_registered_during_backward_on_a_node_yet_to_run_runs(lib):
    assert registered_during_backward(library(lib)) == [[[2.0]]]


# -- what a hook may return ------------------------------------------------------------------


def hook_result_errors(T) -> list:
    def run(register, result):
        x = leaf(T, [1.0, 2.0])
        y = x * T.tensor([3.0, 4.0], dtype=T.float64)

        def bad(*args):
            return result(*args)

        register(y.grad_fn, bad)
        return failure(lambda: y.sum().backward())

    def pre(node, hook):
        node.register_prehook(hook)

    def post(node, hook):
        node.register_hook(hook)

    cases = [
        run(post, lambda gi, go: (gi[0],)),
        run(pre, lambda go: (go[0], go[0])),
        run(pre, lambda go: go[0]),
        run(pre, lambda go: [go[0]]),
        run(post, lambda gi, go: 5),
        run(post, lambda gi, go: (gi[0], gi[0])),
    ]
    shape = run(pre, lambda go: (go[0][:1],))
    dtype = run(post, lambda gi, go: (gi[0].float(), None))
    cases.append((shape[0], shape[1].startswith("hook 'bad' has changed the size of value")))
    cases.append((dtype[0], dtype[1].startswith("hook 'bad' has changed the type of value")))
    return cases


@pytest.mark.parametrize("lib", LIBRARIES)
def test_hook_results_are_checked_as_pytorch_checks_them(lib):
    assert hook_result_errors(library(lib)) == [
        (
            "RuntimeError",
            "hook 'bad' has returned an incorrect number of values (got 1, but expected 2)",
        ),
        (
            "RuntimeError",
            "hook 'bad' has returned an incorrect number of values (got 2, but expected 1)",
        ),
        ("TypeError", "expected tuple, but hook returned 'Tensor'"),
        ("TypeError", "expected tuple, but hook returned 'list'"),
        ("TypeError", "expected tuple, but hook returned 'int'"),
        ("RuntimeError", "can't replace a None gradient with a non-None value"),
        ("RuntimeError", True),
        ("RuntimeError", True),
    ]


def test_the_accumulate_node_has_no_input_gradients_to_replace():
    a = leaf(symgrad, [1.0])
    acc = (a * 1).grad_fn.next_functions[0][0]
    acc.register_hook(lambda gi, go: (go[0],))
    with pytest.raises(RuntimeError, match=r"got 1, but expected 0"):
        (a * 1).sum().backward()


# -- post-accumulate hooks -------------------------------------------------------------------


def post_accumulate(T) -> list:
    w = leaf(T, [1.0, 2.0])
    log = [
        failure(lambda: (w * 2).register_post_accumulate_grad_hook(print))[0],
        failure(lambda: T.ones(2).register_post_accumulate_grad_hook(print)),
    ]

    def step(p):  # the optimizer-in-backward pattern
        with T.no_grad():
            p -= 0.5 * p.grad
        p.grad = None

    h = w.register_post_accumulate_grad_hook(step)
    (w * w).sum().backward()
    log.append((w.tolist(), w.grad))
    h.remove()
    w.register_post_accumulate_grad_hook(lambda t: log.append("first"))
    w.register_post_accumulate_grad_hook(lambda t: log.append("second"))
    (w * 1).sum().backward()
    T.autograd.grad((w * 1).sum(), w)  # accumulates nothing: no call
    v = leaf(T, [1.0])
    v.register_post_accumulate_grad_hook(lambda t: log.append("v"))
    (w * v).sum().backward(inputs=[w])  # v is not accumulated: no call
    w2 = leaf(T, [1.0])
    w2.register_post_accumulate_grad_hook(lambda t: t * 2)
    log.append(failure(lambda: (w2 * 1).sum().backward()))
    w3 = leaf(T, [1.0])
    w3.register_post_accumulate_grad_hook(lambda t: 5)
    log.append(failure(lambda: (w3 * 1).sum().backward())[0])
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_post_accumulate_grad_hooks(lib):
    assert post_accumulate(library(lib)) == [
        "RuntimeError",
        ("RuntimeError", "cannot register a hook on a tensor that doesn't require gradient"),
        ([0.0, 0.0], None),
        "first",
        "second",
        "first",
        "second",
        ("RuntimeError", "Tensor post accumulate grad hooks should return None."),
        "TypeError",
    ]


def test_post_accumulate_hook_on_a_non_leaf_says_where_to_put_it():
    y = leaf(symgrad, [1.0]) * 2
    with pytest.raises(RuntimeError, match="non-leaf tensors: this tensor was made by MulBack"):
        y.register_post_accumulate_grad_hook(print)


# -- autograd.grad, inputs= and double backward ----------------------------------------------


def partial_passes(T) -> list:
    a = leaf(T, [1.0, 2.0])
    b = T.tensor([3.0, 4.0], dtype=T.float64)
    y = a * b
    acc = y.grad_fn.next_functions[0][0]
    log = []
    y.grad_fn.register_prehook(lambda go: log.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: log.append("post"))
    acc.register_prehook(lambda go: log.append("acc pre"))
    acc.register_hook(lambda gi, go: log.append("acc post"))
    a.register_hook(lambda g: log.append("leaf tensor") or g * 10)
    a.register_post_accumulate_grad_hook(lambda t: log.append("post accumulate"))
    (g,) = T.autograd.grad(y.sum(), a, retain_graph=True)
    log.append(("autograd.grad", g.tolist()))
    y.sum().backward(inputs=[a], retain_graph=True)
    log.append(("inputs=[a]", a.grad.tolist()))
    z = y * 2
    (gy,) = T.autograd.grad(z.sum(), y)  # nothing behind y runs
    log.append(("grad wrt y", gy.tolist()))
    c = leaf(T, [1.0, 1.0])
    (y * c).sum().backward(inputs=[c])  # a's node is not needed: none of its hooks
    log.append(("inputs=[c]", c.grad.tolist()))
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_hooks_in_autograd_grad_and_backward_with_inputs(lib):
    assert partial_passes(library(lib)) == [
        "pre",
        "post",
        "leaf tensor",
        ("autograd.grad", [30.0, 40.0]),
        "pre",
        "post",
        "leaf tensor",
        "acc pre",
        "post accumulate",
        "acc post",
        ("inputs=[a]", [30.0, 40.0]),
        ("grad wrt y", [2.0, 2.0]),
        ("inputs=[c]", [3.0, 8.0]),
    ]


def double_backward(T) -> list:
    x = leaf(T, 2.0)
    y = x**3
    log = []

    def doubled(gi, go):
        log.append(("post", gi[0].requires_grad, gi[0].item()))
        return (gi[0] * 2,)

    y.grad_fn.register_hook(doubled)
    (g,) = T.autograd.grad(y, x, create_graph=True)  # 2 * 3 x**2
    log.append(("first", g.item(), g.requires_grad))
    g.grad_fn.register_prehook(lambda go: (go[0] * 5,))
    g.backward()  # 5 * d(6 x**2)/dx = 5 * 12 x
    log.append(("second", x.grad.item()))
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_hooks_under_create_graph_see_and_return_differentiable_gradients(lib):
    assert double_backward(library(lib)) == [
        ("post", True, 12.0),
        ("first", 24.0, True),
        ("second", 120.0),
    ]


def custom_function_node(T) -> list:
    class Two(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    x = leaf(T, [1.0])
    u, v = Two.apply(x)
    log = []
    u.grad_fn.register_prehook(lambda go: log.append(("pre", values(go))))
    u.grad_fn.register_hook(lambda gi, go: log.append(("post", values(gi), values(go))))
    u.sum().backward()
    log.append(("x.grad", x.grad.tolist()))
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_hooks_of_a_node_with_two_outputs_see_none_for_the_unused_one(lib):
    assert custom_function_node(library(lib)) == [
        ("pre", [[1.0], None]),
        ("post", [[2.0]], [[1.0], None]),
        ("x.grad", [2.0]),
    ]


def test_hooks_on_a_plain_pass_leave_other_passes_as_fast_as_before():
    # a node without hooks holds no hook lists: the engine tests one attribute
    x = leaf(symgrad, [1.0])
    y = x * 2
    assert y.grad_fn._hooks is None
    y.grad_fn.register_hook(lambda gi, go: None)
    assert y.grad_fn._hooks is not None
    assert (x * 3).grad_fn._hooks is None


def off_the_path(T) -> list:
    w0 = leaf(T, [1.0])
    w1 = leaf(T, [2.0])
    h = w0 * 3
    log = []
    h.register_hook(lambda g: log.append("h tensor"))
    h.grad_fn.register_prehook(lambda go: log.append("h pre"))
    loss = (h * w1).sum()
    (g,) = T.autograd.grad(loss, w1, retain_graph=True)
    loss.backward(inputs=[w1])
    return [g.tolist(), w1.grad.tolist(), w0.grad] + log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_a_node_not_needed_for_the_inputs_asked_for_runs_no_hook(lib):
    assert off_the_path(library(lib)) == [[3.0], [3.0], None]
