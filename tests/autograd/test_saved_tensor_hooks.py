"""Saved-tensor hooks (``autograd.graph.saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks``, ``grad_fn._raw_saved_*.register_hooks``) and the saved values
under PyTorch's names (``grad_fn._saved_self``, ``_saved_result``, ...).

Each scenario takes the library as ``T`` and returns a log of plain values: the test checks it
against the values written here, and, when PyTorch imports, PyTorch's log against the same."""

from __future__ import annotations

import threading

import pytest

import symgrad

LIBRARIES = ["symgrad", pytest.param("torch", marks=pytest.mark.torch)]


def library(name: str):
    return symgrad if name == "symgrad" else pytest.importorskip("torch")


def leaf(T, data):
    return T.tensor(data, dtype=T.float64, requires_grad=True)


def failure(fn) -> tuple:
    """(exception type name, message start) of what ``fn()`` raises."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return type(exc).__name__, str(exc)[:60]
    return ("no error", "")


def logging_hooks(T, log):
    """Hooks that log what they are given (the tensor's first value) and pass it on."""

    def pack(t):
        log.append(("pack", t.flatten()[0].item()))
        return t

    def unpack(t):
        log.append(("unpack", t.flatten()[0].item()))
        return t

    return T.autograd.graph.saved_tensors_hooks(pack, unpack)


# -- when pack and unpack run ------------------------------------------------------------------


def mul_of_two_leaves(T):
    log = []
    a, b = leaf(T, [1.0, 1.0]), leaf(T, [2.0, 2.0])
    with logging_hooks(T, log):
        y = a * b
    log.append("forward done")
    y.sum().backward()
    return log, a.grad.tolist(), b.grad.tolist()


def exp_saves_its_result(T):
    log = []
    a = leaf(T, [0.0, 1.0])
    with logging_hooks(T, log):
        y = a.exp()
    y.sum().backward()
    return log, [round(v, 6) for v in a.grad.tolist()]


def only_what_the_backward_reads(T):
    # a * c with c not requiring grad: only c is read (for a's gradient), only c is packed
    log = []
    a, c = leaf(T, [1.0]), T.tensor([5.0], dtype=T.float64)
    with logging_hooks(T, log):
        y = a * c
    return log, y.grad_fn._saved_self, y.grad_fn._saved_other.tolist()


def unpacked_at_every_read(T):
    log = []
    a, b = leaf(T, [3.0]), leaf(T, [4.0])
    with logging_hooks(T, log):
        y = (a * b).sum()
    y.backward(retain_graph=True)
    y.backward()
    return log, a.grad.tolist()


def numbers_are_not_packed(T):
    log = []
    a = leaf(T, [1.0, 2.0])
    with logging_hooks(T, log):
        y = a.pow(3)
    y.sum().backward()
    return log, a.grad.tolist()


def packed_in_argument_name_order(T):
    # PyTorch keeps a node's saved tensors sorted by argument name, the result last:
    # pow(self, exponent) packs exponent, then self, then the result
    log = []
    a, b = leaf(T, [2.0]), leaf(T, [3.0])
    with logging_hooks(T, log):
        y = a.pow(b)
    y.backward()
    return log


def innermost_pair_packs(T):
    log = []
    x = leaf(T, [1.0])
    outer = T.autograd.graph.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t)
    inner = T.autograd.graph.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t)
    with outer:
        with inner:
            x.sin()
        x.sin()
    x.sin()
    return log


# -- what the hooks may return ---------------------------------------------------------------------


def pack_anything(T):
    storage = []

    def pack(t):
        storage.append(t * 4)
        return len(storage) - 1

    def unpack(i):
        return storage[i] / 4

    x = leaf(T, [1.0, -2.0])
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
    y.sum().backward()
    return storage[0].tolist(), x.grad.tolist()


def unpack_gives_other_values(T):
    # the backward uses what unpack returns
    x = leaf(T, [0.0, 1.0])
    with T.autograd.graph.saved_tensors_hooks(lambda t: None, lambda p: T.ones(2, dtype=T.float64)):
        y = x.sin()
    saved = y.grad_fn._saved_self
    y.sum().backward()
    grads = [round(v, 6) for v in x.grad.tolist()]
    return saved.tolist(), saved.requires_grad, saved.grad_fn, grads


def unpack_must_give_a_tensor(T):
    x = leaf(T, [1.0])
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x * x
    return failure(lambda: y.backward())


def pack_must_not_change_its_input(T):
    x = leaf(T, [1.0])
    z = x * 1

    def pack(t):
        t.mul_(2)
        return t

    with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        return failure(lambda: z.exp())


def errors_of_pack_pass_through(T):
    def pack(t):
        raise ValueError("boom")

    x = leaf(T, [1.0])
    with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        return failure(lambda: x.sin())


def double_backward_through_packed(T):
    x = leaf(T, [1.0, 2.0])
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.detach() * 4, lambda t: t / 4):
        y = x.pow(3)
    (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
    g.sum().backward()
    return g.tolist(), x.grad.tolist()


def freed_after_backward(T):
    x = leaf(T, [1.0])
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.exp()
    y.backward()
    return failure(lambda: y.grad_fn._saved_result)[0], failure(lambda: y.backward())[0]


def custom_function_saves(T):
    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * g * x**2

    log = []
    x = leaf(T, [2.0])
    with logging_hooks(T, log):
        y = Cube.apply(x)
    y.backward()
    return log, x.grad.tolist()


def save_on_cpu_keeps_values(T):
    out = []
    for pin in (False, True):
        w = leaf(T, [1.0, 2.0])
        with T.autograd.graph.save_on_cpu(pin_memory=pin):
            y = (w * w).exp().sum()
        y.backward()
        out.append([round(v, 4) for v in w.grad.tolist()])
    return out


def disabled_hooks(T):
    graph = T.autograd.graph
    hooks = graph.saved_tensors_hooks(lambda t: t, lambda t: t)

    def enter_inside_disabled():
        with graph.disable_saved_tensors_hooks("no hooks here"):
            with hooks:
                pass

    def disable_inside_hooks():
        with hooks:
            with graph.disable_saved_tensors_hooks("not now"):
                pass

    @graph.disable_saved_tensors_hooks("decorated")
    def decorated():
        with hooks:
            pass

    with hooks:  # usable again afterwards
        pass
    return [failure(enter_inside_disabled), failure(disable_inside_hooks), failure(decorated)]


# -- saved values under PyTorch's names ------------------------------------------------------


def saved_names(T):
    a, b = leaf(T, [1.0, 2.0]), leaf(T, [3.0, 4.0])
    m = leaf(T, [[1.0, 2.0], [3.0, 4.0]])
    mul = (a * b).grad_fn
    exp_ = a.exp()
    pow_ = a.pow(2).grad_fn
    leaky = T.nn.functional.leaky_relu(a, 0.2).grad_fn
    mm = (m @ m).grad_fn
    soft = T.softmax(m, 1).grad_fn
    where = T.where(a > 1, a, b).grad_fn
    return [
        mul._saved_self is a,
        mul._saved_other is b,
        exp_.grad_fn._saved_result.tolist() == exp_.tolist(),
        exp_.grad_fn._saved_result is exp_,
        type(exp_.grad_fn._saved_result.grad_fn).__name__,
        pow_._saved_exponent,
        pow_._saved_self is a,
        leaky._saved_negative_slope,
        mm._saved_mat2 is m,
        tuple(mm._saved_self_sym_sizes),
        soft._saved_dim,
        where._saved_condition.tolist(),
        (a * 2.5).grad_fn._saved_other.tolist(),
    ]


def missing_saved_names(T):
    a = leaf(T, [1.0])
    return [
        hasattr((a + a).grad_fn, "_saved_self"),
        hasattr(a.exp().grad_fn, "_saved_self"),
        hasattr(a.sin().grad_fn, "_saved_result"),
        failure(lambda: a.exp().grad_fn._saved_nothing)[0],
    ]


def saved_after_in_place_change(T):
    a = leaf(T, [1.0])
    c = a * 1
    y = c.sin()
    with T.no_grad():
        c.add_(1)
    return failure(lambda: y.grad_fn._saved_self)[0]


def raw_saved_tensor_hooks(T):
    log = []
    a, b = leaf(T, [1.0, 2.0]), leaf(T, [3.0, 4.0])
    y = a * b
    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(
        lambda t: (log.append(("pack", t is a, t.requires_grad)), t * 10)[1],
        lambda t: (log.append("unpack"), t)[1],
    )
    seen = y.grad_fn._saved_self.tolist()
    y.sum().backward(retain_graph=True)
    again = failure(lambda: raw.register_hooks(lambda t: t, lambda t: t))
    y.sum().backward()  # b.grad accumulates the packed a again
    freed = failure(lambda: raw.register_hooks(lambda t: t, lambda t: t))
    return log, seen, b.grad.tolist(), again, freed


def raw_saved_of_nothing(T):
    a, c = leaf(T, [1.0]), T.tensor([2.0], dtype=T.float64)
    y = a * c  # self is not saved: c needs no gradient
    return failure(lambda: y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t))


EXPECTED = {
    mul_of_two_leaves: (
        [("pack", 2.0), ("pack", 1.0), "forward done", ("unpack", 2.0), ("unpack", 1.0)],
        [2.0, 2.0],
        [1.0, 1.0],
    ),
    exp_saves_its_result: (
        [("pack", 1.0), ("unpack", 1.0)],
        [1.0, 2.718282],
    ),
    only_what_the_backward_reads: ([("pack", 5.0), ("unpack", 5.0)], None, [5.0]),
    unpacked_at_every_read: (
        [("pack", 4.0), ("pack", 3.0), ("unpack", 4.0), ("unpack", 3.0)]
        + [("unpack", 4.0), ("unpack", 3.0)],
        [8.0],
    ),
    numbers_are_not_packed: ([("pack", 1.0), ("unpack", 1.0)], [3.0, 12.0]),
    packed_in_argument_name_order: [
        ("pack", 3.0),
        ("pack", 2.0),
        ("pack", 8.0),
        ("unpack", 3.0),
        ("unpack", 2.0),
        ("unpack", 8.0),
    ],
    innermost_pair_packs: ["inner", "outer"],
    pack_anything: ([4.0, -8.0], [2.0, -4.0]),
    unpack_gives_other_values: ([1.0, 1.0], True, None, [0.540302, 0.540302]),
    unpack_must_give_a_tensor: (
        "TypeError",
        "Output of saved tensor unpack_hook expected to be a Tensor b",
    ),
    pack_must_not_change_its_input: (
        "RuntimeError",
        "A saved tensor pack hook is modifying its input in place. Te",
    ),
    errors_of_pack_pass_through: ("ValueError", "boom"),
    double_backward_through_packed: ([3.0, 12.0], [6.0, 12.0]),
    freed_after_backward: ("RuntimeError", "RuntimeError"),
    custom_function_saves: ([("pack", 2.0), ("unpack", 2.0)], [12.0]),
    save_on_cpu_keeps_values: [[5.4366, 218.3926], [5.4366, 218.3926]],
    disabled_hooks: [
        ("RuntimeError", "no hooks here"),
        ("RuntimeError", "not now"),
        ("RuntimeError", "decorated"),
    ],
    saved_names: [True, True, True, False, "ExpBackward0", 2, True, 0.2, True, (2, 2), 1]
    + [[False, True], 2.5],
    missing_saved_names: [False, False, False, "AttributeError"],
    saved_after_in_place_change: "RuntimeError",
    raw_saved_tensor_hooks: (
        [("pack", False, False), "unpack", "unpack", "unpack"],
        [10.0, 20.0],
        [20.0, 40.0],
        ("RuntimeError", "Calling register_hooks on a saved tensor whose hooks have al"),
        ("RuntimeError", "Calling register_hooks on a saved tensor after it has been f"),
    ),
    raw_saved_of_nothing: (
        "RuntimeError",
        "Calling register_hooks on a saved tensor with value None is ",
    ),
}


@pytest.mark.parametrize("name", LIBRARIES)
@pytest.mark.parametrize("scenario", list(EXPECTED), ids=lambda f: f.__name__)
def test_scenario(scenario, name):
    assert scenario(library(name)) == EXPECTED[scenario]


def test_hooks_are_thread_local():
    log = []
    x = leaf(symgrad, [1.0])
    hooks = symgrad.autograd.graph.saved_tensors_hooks(lambda t: log.append("packed") or t, id)
    with hooks:
        thread = threading.Thread(target=lambda: x.sin())
        thread.start()
        thread.join()
        assert log == []
        x.sin()
    assert log == ["packed"]


def test_factorization_outputs_are_packed_and_unpacked():
    log = []
    m = symgrad.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=symgrad.float64, requires_grad=True)
    plain = symgrad.tensor(m.detach().numpy(), requires_grad=True)
    with logging_hooks(symgrad, log):
        q, r = symgrad.linalg.qr(m)
    (q.sum() + r.sum()).backward()
    q2, r2 = symgrad.linalg.qr(plain)
    (q2.sum() + r2.sum()).backward()
    assert [e[0] for e in log].count("pack") == 2  # Q and R: PyTorch saves no input
    assert symgrad.allclose(m.grad, plain.grad)
    assert sorted(n for n in dir(q.grad_fn) if n.startswith("_saved_") and n[7].isupper()) == [
        "_saved_Q",
        "_saved_R",
    ]


def test_no_hooks_leave_nodes_unpacked():
    x = leaf(symgrad, [1.0])
    assert x.exp().grad_fn._packed is None
    with symgrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        assert x.exp().grad_fn._packed is not None
    assert x.exp().grad_fn._packed is None
