"""``inference_mode``, ``is_inference_mode_enabled`` and inference tensors.

Each scenario takes the library as ``T`` and returns a log of plain values: the test checks it
against the values written here, and, when PyTorch imports, PyTorch's log against the same."""

from __future__ import annotations

import threading

import pytest

import symgrad

LIBRARIES = ["symgrad", pytest.param("torch", marks=pytest.mark.torch)]

SAVED = "Inference tensors cannot be saved for backward."
INPLACE = "Inplace update to inference tensor outside InferenceMode is not allowed."
REQUIRES_GRAD = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
)


def library(name: str):
    return symgrad if name == "symgrad" else pytest.importorskip("torch")


def error(fn) -> str:
    """What ``fn()`` raises, as 'Type: first sentence of the message'."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return f"{type(exc).__name__}: {str(exc).split('.')[0]}."
    return "no error"


def modes(T) -> list:
    x = T.ones(2, requires_grad=True)

    def state(label):
        y = x * 2
        return (label, T.is_grad_enabled(), T.is_inference_mode_enabled(), y.requires_grad)

    log = [state("outside")]
    with T.inference_mode():
        log.append(state("inside"))
        with T.no_grad():
            log.append(state("no_grad inside"))
        with T.enable_grad():
            log.append(state("enable_grad inside"))
        with T.inference_mode(False):
            log.append(state("inference_mode(False) inside"))
        log.append(state("inside again"))
        T.set_grad_enabled(True)
        log.append(state("set_grad_enabled(True) inside"))
    with T.no_grad():
        with T.inference_mode(False):
            log.append(state("inference_mode(False) in no_grad"))
        with T.inference_mode():
            pass
        log.append(state("no_grad after"))
    log.append(state("outside after"))
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_grad_mode_and_inference_mode_together(lib):
    assert modes(library(lib)) == [
        ("outside", True, False, True),
        ("inside", False, True, False),
        ("no_grad inside", False, True, False),
        ("enable_grad inside", True, True, False),  # grad mode on, yet nothing records
        ("inference_mode(False) inside", True, False, True),
        ("inside again", False, True, False),
        ("set_grad_enabled(True) inside", True, True, False),
        ("inference_mode(False) in no_grad", True, False, True),
        ("no_grad after", False, False, False),
        ("outside after", True, False, True),
    ]


def kinds_of_tensors(T) -> list:
    x = T.ones(2, requires_grad=True)
    n = T.ones(2, 2)
    with T.inference_mode():
        y = x * 2
        z = T.ones(2, 2)
        made = T.tensor([1.0, 2.0])
        n.add_(1)  # a normal tensor may change in place inside
        with T.enable_grad():
            x.add_(1)  # so may a leaf that requires grad: nothing records
        normal_views = [n[0], n.t(), n.detach(), n.data]
    log = [
        ("y", y.is_inference(), y.requires_grad, y.grad_fn is None, y.is_leaf),
        ("factories", z.is_inference(), made.is_inference()),
        ("normal tensors stay normal", n.is_inference(), n._version, x.is_inference(), x.tolist()),
        ("views of a normal tensor", [v.is_inference() for v in normal_views]),
    ]
    views = [z[0], z[:, 1:], z.reshape(4), z.t(), z.expand(3, 2, 2), z.detach(), z.data, z.float()]
    copies = [z.clone(), z.double(), z[[0]], z * 2, z.sum()]
    log.append(("views of an inference tensor", [v.is_inference() for v in views]))
    log.append(("new tensors made from it", [c.is_inference() for c in copies]))
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_which_tensors_are_inference_tensors(lib):
    assert kinds_of_tensors(library(lib)) == [
        ("y", True, False, True, True),
        ("factories", True, True),
        ("normal tensors stay normal", False, 1, False, [2.0, 2.0]),
        ("views of a normal tensor", [False, False, False, False]),
        ("views of an inference tensor", [True] * 8),
        ("new tensors made from it", [False] * 5),
    ]


def refusals(T) -> list:
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with T.inference_mode():
        z = T.tensor([3.0, 4.0])
        z.add_(1)  # inside: fine
        inside = z.requires_grad_().requires_grad  # inside: fine too
        z.requires_grad_(False)
    s = x + z  # add saves neither input
    s.sum().backward()
    log = [inside, s.grad_fn.name(), x.grad.tolist(), (x * z.clone()).requires_grad]
    log += [
        error(lambda: x * z),
        error(lambda: x.exp() * z),
        error(lambda: x.reshape(1, 2) @ z.reshape(2, 1)),
        error(lambda: z.add_(1)),
        error(lambda: z.zero_()),
        error(lambda: z.__setitem__(0, 1.0)),
        error(lambda: z.copy_(T.ones(2))),
        error(lambda: T.ones(2).add_(z)),  # the source may be an inference tensor
        error(lambda: z.requires_grad_()),
        error(lambda: setattr(z, "requires_grad", True)),
        error(lambda: z._version),
        z.requires_grad_(False).requires_grad,
    ]
    w = T.ones(2, requires_grad=True)
    with T.inference_mode():
        w.grad = T.ones(2)
    log.append(error(lambda: (w * w).sum().backward()))  # accumulating into an inference .grad
    return log


@pytest.mark.parametrize("lib", LIBRARIES)
def test_what_an_inference_tensor_refuses_outside_inference_mode(lib):
    assert refusals(library(lib)) == [
        True,
        "AddBackward0",
        [1.0, 1.0],
        True,
        f"RuntimeError: {SAVED}",
        f"RuntimeError: {SAVED}",
        f"RuntimeError: {SAVED}",
        f"RuntimeError: {INPLACE}",
        f"RuntimeError: {INPLACE}",
        f"RuntimeError: {INPLACE}",
        f"RuntimeError: {INPLACE}",
        "no error",
        f"RuntimeError: {REQUIRES_GRAD}",
        f"RuntimeError: {REQUIRES_GRAD}",
        "RuntimeError: Inference tensors do not track version counter.",
        False,
        f"RuntimeError: {INPLACE}",
    ]


def test_a_refused_in_place_update_leaves_the_values_alone():
    # (PyTorch writes copy_'s values before it refuses)
    with symgrad.inference_mode():
        z = symgrad.tensor([3.0, 4.0])
    for update in (lambda: z.add_(1), lambda: z.copy_(symgrad.ones(2)), lambda: z.zero_()):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            update()
    assert z.tolist() == [3.0, 4.0]


def custom_functions(T) -> list:
    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            (b,) = ctx.saved_tensors
            return g * b, None

    x = T.ones(2, requires_grad=True)
    with T.inference_mode():
        z = T.tensor([2.0, 3.0])
        inside = Scale.apply(x, z)
    return [
        (inside.requires_grad, inside.is_inference()),
        Scale.apply(T.ones(2), z).tolist(),  # records nothing: saving z is fine
        error(lambda: Scale.apply(x, z)),
    ]


@pytest.mark.parametrize("lib", LIBRARIES)
def test_custom_function_saving_an_inference_tensor(lib):
    assert custom_functions(library(lib)) == [
        (False, True),
        [2.0, 3.0],
        f"RuntimeError: {SAVED}",
    ]


def decorators(T) -> list:
    x = T.ones(2, requires_grad=True)

    @T.inference_mode
    def bare(a):
        return a * 2

    @T.inference_mode()
    def called(a):
        return a * 2

    @T.inference_mode(False)
    def off(a):
        return a * 2

    @T.inference_mode()
    def numbers():
        for _ in range(2):
            yield T.is_inference_mode_enabled()

    results = [bare(x), called(x), off(x)]
    return [(r.is_inference(), r.requires_grad) for r in results] + [
        list(numbers()),
        T.is_inference_mode_enabled(),
    ]


@pytest.mark.parametrize("lib", LIBRARIES)
def test_inference_mode_as_a_decorator(lib):
    assert decorators(library(lib)) == [
        (True, False),
        (True, False),
        (False, True),
        [True, True],
        False,
    ]


def per_thread(T) -> list:
    seen = []

    def other():
        t = T.ones(1)
        seen.append((T.is_inference_mode_enabled(), t.is_inference()))

    with T.inference_mode():
        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
        seen.append((T.is_inference_mode_enabled(), T.ones(1).is_inference()))
    return seen


@pytest.mark.parametrize("lib", LIBRARIES)
def test_the_mode_is_per_thread(lib):
    assert per_thread(library(lib)) == [(False, False), (True, True)]


def test_a_thread_in_inference_mode_leaves_the_others_alone():
    entered, release = threading.Event(), threading.Event()
    made = []

    def worker():
        with symgrad.inference_mode():
            entered.set()
            release.wait(5)
            made.append(symgrad.ones(1).is_inference())

    thread = threading.Thread(target=worker)
    thread.start()
    entered.wait(5)
    x = symgrad.ones(1, requires_grad=True)
    here = (x * 2, symgrad.ones(1))
    release.set()
    thread.join()
    assert here[0].requires_grad and not here[0].is_inference()
    assert not here[1].is_inference()
    assert made == [True]
    assert not symgrad.ones(1).is_inference()  # every thread has left: no inference tensors


def test_inference_mode_refuses_an_argument_that_is_neither_a_mode_nor_a_function():
    with pytest.raises(TypeError, match="expects True or False"):
        symgrad.inference_mode("yes")


def test_exported_where_pytorch_exports_it():
    assert symgrad.autograd.inference_mode is symgrad.inference_mode
    assert symgrad.autograd.grad_mode.inference_mode is symgrad.inference_mode
    assert not symgrad.ones(1).is_inference()


def test_the_error_says_what_to_do():
    x = symgrad.ones(2, requires_grad=True)
    with symgrad.inference_mode():
        z = symgrad.ones(2)
    with pytest.raises(RuntimeError, match=r"make a clone .* or use `symgrad.no_grad\(\)`"):
        x * z
    with pytest.raises(RuntimeError, match=r"t = t.clone\(\)"):
        z.mul_(2)
