"""Devices: symgrad.device, Tensor.to/cpu/cuda, the cuda/backends/accelerator queries, the
default device and autograd.Variable. Each test states PyTorch's (CPU build) answer and, where
PyTorch is installed, checks it is still PyTorch's answer."""

from __future__ import annotations

import importlib.util
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import symgrad

HAS_TORCH = importlib.util.find_spec("torch") is not None
CUDA = AssertionError  # what PyTorch built without CUDA raises for a CUDA device


def both(check: Callable[[Any], None]) -> None:
    """Run ``check`` on symgrad, then on PyTorch (a CPU build) when it is installed."""
    check(symgrad)
    if HAS_TORCH:
        import torch

        if not torch.cuda.is_available():
            check(torch)


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the exception type is what is compared
        return type(e)


# -- the device class ---------------------------------------------------------------------------
def test_device_repr_str_and_fields():
    def check(T):
        d = T.device("cpu")
        assert (repr(d), str(d), d.type, d.index) == ("device(type='cpu')", "cpu", "cpu", None)
        d0 = T.device("cpu", 0)
        assert (repr(d0), str(d0), d0.index) == ("device(type='cpu', index=0)", "cpu:0", 0)
        assert T.device("cpu:0") == d0 and T.device("cuda:1").index == 1
        assert repr(T.device("cuda")) == "device(type='cuda')"
        assert T.device(d) == d and T.device(type="cpu", index=None) == d

    both(check)


def test_device_equality_and_hash():
    def check(T):
        d = T.device("cpu")
        assert d == T.device("cpu") and hash(d) == hash(T.device("cpu"))
        assert d != T.device("cpu", 0) and d != T.device("cuda")
        # a device does not equal its string, in PyTorch too: compare str(d) or d.type
        assert (d == "cpu") is False and str(d) == "cpu"
        assert {d: 1}[T.device("cpu")] == 1

    both(check)


@pytest.mark.parametrize(
    "args, error",
    [
        (("foo",), RuntimeError),
        (("CPU",), RuntimeError),
        (("cpu:x",), RuntimeError),
        ((0,), RuntimeError),  # an int names an accelerator's device: none exists
        (("cpu", -1), RuntimeError),
        (("cpu", "0"), TypeError),
        ((1.5,), TypeError),
    ],
)
def test_bad_devices_raise(args, error):
    def check(T):
        assert outcome(lambda: T.device(*args)) is error

    both(check)


def test_bad_device_messages():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda.*string: foo"):
        symgrad.device("foo")
    with pytest.raises(RuntimeError, match="Device index must not be negative"):
        symgrad.device("cpu", -1)


def test_device_pickles():
    d = symgrad.device("cpu", 0)
    assert pickle.loads(pickle.dumps(d)) == d


# -- tensors and factories ----------------------------------------------------------------------
def test_tensor_device_is_a_cpu_device():
    def check(T):
        t = T.ones(2)
        assert type(t.device) is T.device and t.device == T.device("cpu")
        assert repr(t.device) == "device(type='cpu')" and f"{t.device}" == "cpu"
        assert t.is_cuda is False and t.get_device() == -1 and t.cpu() is t

    both(check)


FACTORIES = {
    "tensor": lambda T, d: T.tensor([1.0], device=d),
    "as_tensor": lambda T, d: T.as_tensor([1.0], device=d),
    "zeros": lambda T, d: T.zeros(2, device=d),
    "ones": lambda T, d: T.ones(2, device=d),
    "empty": lambda T, d: T.empty(2, device=d),
    "full": lambda T, d: T.full((2,), 3.0, device=d),
    "eye": lambda T, d: T.eye(2, device=d),
    "arange": lambda T, d: T.arange(3, device=d),
    "linspace": lambda T, d: T.linspace(0, 1, 3, device=d),
    "rand": lambda T, d: T.rand(2, device=d),
    "randn": lambda T, d: T.randn(2, device=d),
    "randint": lambda T, d: T.randint(0, 3, (2,), device=d),
    "zeros_like": lambda T, d: T.zeros_like(T.ones(2), device=d),
    "ones_like": lambda T, d: T.ones_like(T.ones(2), device=d),
    "empty_like": lambda T, d: T.empty_like(T.ones(2), device=d),
    "full_like": lambda T, d: T.full_like(T.ones(2), 2.0, device=d),
    "rand_like": lambda T, d: T.rand_like(T.ones(2), device=d),
    "randn_like": lambda T, d: T.randn_like(T.ones(2), device=d),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_take_a_device(name):
    make = FACTORIES[name]

    def check(T):
        for d in ("cpu", "cpu:0", T.device("cpu"), None):
            assert make(T, d).device == T.device("cpu")
        assert outcome(lambda: make(T, "cuda")) is CUDA
        assert outcome(lambda: make(T, T.device("cuda:0"))) is CUDA
        assert outcome(lambda: make(T, "mps")) in (RuntimeError, NotImplementedError)

    both(check)


def test_cuda_error_says_symgrad_computes_on_the_cpu():
    with pytest.raises(AssertionError, match="not compiled with CUDA.*computes on the CPU"):
        symgrad.zeros(2, device="cuda")
    with pytest.raises(AssertionError, match="computes on the CPU"):
        symgrad.ones(2).cuda()


def test_to_conversions():
    def check(T):
        t = T.ones(2, requires_grad=True)
        assert t.to("cpu") is t and t.to(T.device("cpu")) is t and t.to(device="cpu") is t
        assert t.to(T.float32) is t and t.to("cpu", T.float32) is t
        for moved in (
            t.to("cpu", T.float64),
            t.to(T.device("cpu"), dtype=T.float64),
            t.to(device="cpu", dtype=T.float64),
            t.to(T.zeros(1, dtype=T.float64)),
            t.to(T.float64, False, True),
            t.to(float),
        ):
            assert moved.dtype == T.float64 and moved.tolist() == [1.0, 1.0]
            assert type(moved.grad_fn).__name__ == "ToCopyBackward0"
        copied = t.to("cpu", copy=True)
        assert copied is not t and type(copied.grad_fn).__name__ == "ToCopyBackward0"
        assert t.to(T.zeros(1, dtype=T.int64)).tolist() == [1, 1]
        assert t.to(int).dtype == T.int64 and t.to(bool).dtype == T.bool

    both(check)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda t: t.cuda(), CUDA),
        (lambda t: t.cuda(0), RuntimeError),  # an index: no accelerator
        (lambda t: t.to("cuda"), CUDA),
        (lambda t: t.to("cuda:0", copy=True), CUDA),
        (lambda t: t.to(device="cuda"), CUDA),
        (lambda t: t.to("mps"), RuntimeError),
        (lambda t: t.to(0), RuntimeError),
        (lambda t: t.to("cpu", "cpu"), TypeError),
        (lambda t: t.to(foo=1), TypeError),
        (lambda t: t.to([1]), TypeError),
        (lambda t: t.to(object()), TypeError),
    ],
)
def test_to_errors(call, error):
    def check(T):
        assert outcome(lambda: call(T.ones(2))) is error

    both(check)


# -- cuda, backends, accelerator, default device -----------------------------------------------
def test_queries_answer_for_a_cpu_only_build():
    def check(T):
        assert T.cuda.is_available() is False and T.cuda.device_count() == 0
        assert T.cuda.is_initialized() is False and T.cuda.memory_allocated() == 0
        assert T.cuda.manual_seed(0) is None and T.cuda.manual_seed_all(0) is None
        assert T.cuda.empty_cache() is None
        assert T.backends.mps.is_available() is False and T.backends.mps.is_built() is False
        assert T.backends.cudnn.is_available() is False
        assert T.accelerator.is_available() is False
        assert T.accelerator.current_accelerator() is None
        assert T.accelerator.device_count() == 0
        for call in (T.cuda.current_device, T.cuda.get_device_name, T.cuda.synchronize):
            assert outcome(call) is CUDA

    both(check)


def test_the_tutorial_device_line_picks_the_cpu():
    def check(T):
        name = (
            "cuda" if T.cuda.is_available() else "mps" if T.backends.mps.is_available() else "cpu"
        )
        device = T.device(name)
        x = T.randn(3, 2, device=device)
        assert x.to(device).device == T.device("cpu") and x.device.type == "cpu"

    both(check)


def test_default_device():
    def check(T):
        try:
            assert T.get_default_device() == T.device("cpu")
            assert T.set_default_device("cpu") is None
            assert T.zeros(2).device == T.device("cpu")
            T.set_default_device("cuda")  # accepted; the factories then raise
            assert outcome(lambda: T.zeros(2)) is CUDA
            assert outcome(T.get_default_device) is CUDA
            # a *_like factory follows its input's device, not the default
            assert T.zeros_like(T.ones(2, device="cpu")).device == T.device("cpu")
        finally:
            T.set_default_device(None)
        assert T.get_default_device() == T.device("cpu")
        with T.device("cpu"):
            assert T.ones(1).device == T.device("cpu")

    both(check)


def test_cudnn_flags_can_be_set():
    def check(T):
        old = T.backends.cudnn.deterministic, T.backends.cudnn.benchmark
        assert old == (False, False)
        T.backends.cudnn.deterministic = True
        assert T.backends.cudnn.deterministic is True
        T.backends.cudnn.deterministic, T.backends.cudnn.benchmark = old

    both(check)


# -- autograd.Variable --------------------------------------------------------------------------
def test_variable_makes_a_leaf_tensor():
    def check(T):
        V = T.autograd.Variable
        x = T.ones(2, requires_grad=True) * 2
        v = V(x, requires_grad=True)
        assert type(v) is T.Tensor and v is not x and isinstance(v, V)
        assert v.is_leaf and v.requires_grad and v.grad_fn is None and v.tolist() == [2.0, 2.0]
        w = V(x)
        assert w.grad_fn is None and not w.requires_grad
        assert V(T.ones(2), True).requires_grad
        assert V().shape == (0,) and V().dtype == T.float32
        assert isinstance(T.ones(1), V) and not isinstance([1.0], V)
        assert outcome(lambda: V([1.0])) is TypeError
        assert outcome(lambda: V(T.ones(2, dtype=T.int64), requires_grad=True)) is RuntimeError
        (v * v).sum().backward()
        assert v.grad.tolist() == [4.0, 4.0]

    both(check)


def test_variable_shares_memory_and_warns_on_volatile():
    x = symgrad.zeros(2)
    v = symgrad.autograd.Variable(x)
    x.add_(1)
    assert v.tolist() == [1.0, 1.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        symgrad.autograd.Variable(x, volatile=True)
    assert "volatile was removed" in str(caught[0].message)
