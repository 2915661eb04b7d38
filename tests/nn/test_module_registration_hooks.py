"""The global registration hooks of ``torch.nn.modules.module`` (parameters, buffers,
submodules) and buffer assignment through ``register_buffer``, as PyTorch's."""

import pytest

import symgrad


def _registrations(T):
    """What each registration hook sees while modules are built and changed."""
    hooks = T.nn.modules.module
    nn = T.nn
    seen = []

    def shape(b):
        return None if b is None else tuple(b.shape)

    handles = [
        hooks.register_module_buffer_registration_hook(
            lambda m, n, b: seen.append(("buf", type(m).__name__, n, shape(b)))
        ),
        hooks.register_module_parameter_registration_hook(
            lambda m, n, p: seen.append(("par", type(m).__name__, n))
        ),
        hooks.register_module_module_registration_hook(
            lambda m, n, s: seen.append(("mod", type(m).__name__, n, type(s).__name__))
        ),
    ]
    try:
        bn = nn.BatchNorm1d(2)
        bn.running_mean = T.ones(2)
        bn.register_buffer("x", None)
        bn.register_parameter("p", None)  # (None: no hook)
        bn.weight = nn.Parameter(T.ones(2))
        bn.weight = None
        seq = nn.Sequential(nn.ReLU())
        seq[0] = nn.Tanh()
        seq.add_module("z", None)
        seq.z = None
        plain = nn.Module()
        plain.b = nn.Buffer(T.ones(3), persistent=False)
        nn.Linear(1, 1).double()  # (conversions register nothing)
    finally:
        for h in handles:
            h.remove()
    nn.Linear(1, 1)  # removed: nothing more seen
    return seen


def _replacements(T):
    """A hook's result is registered in place of the value."""
    hooks = T.nn.modules.module
    h = hooks.register_module_buffer_registration_hook(lambda m, n, b: T.zeros(1) + len(n))
    try:
        m = T.nn.Module()
        m.register_buffer("abc", T.ones(1))
        m.abc = T.ones(1)
    finally:
        h.remove()
    h = hooks.register_module_module_registration_hook(lambda m, n, s: T.nn.Identity())
    try:
        seq = T.nn.Sequential(T.nn.ReLU())
    finally:
        h.remove()
    return m.abc.tolist(), type(seq[0]).__name__


class _NoPersistent(symgrad.nn.Module):
    """An override of register_buffer without ``persistent`` (PyTorch calls it without)."""

    def __init__(self):
        super().__init__()
        self.calls = []
        self.register_buffer("b", symgrad.ones(1))

    def register_buffer(self, name, tensor):
        self.calls.append(name)
        super().register_buffer(name, tensor)


def test_registration_hooks_see_each_registration():
    assert _registrations(symgrad) == [
        ("par", "BatchNorm1d", "weight"),
        ("par", "BatchNorm1d", "bias"),
        ("buf", "BatchNorm1d", "running_mean", (2,)),
        ("buf", "BatchNorm1d", "running_var", (2,)),
        ("buf", "BatchNorm1d", "num_batches_tracked", ()),
        ("buf", "BatchNorm1d", "running_mean", (2,)),
        ("buf", "BatchNorm1d", "x", None),
        ("par", "BatchNorm1d", "weight"),
        ("mod", "Sequential", "0", "ReLU"),
        ("mod", "Sequential", "0", "Tanh"),
        ("mod", "Sequential", "z", "NoneType"),
        ("mod", "Sequential", "z", "NoneType"),
        ("buf", "Module", "b", (3,)),
        ("par", "Linear", "weight"),
        ("par", "Linear", "bias"),
    ]
    assert _replacements(symgrad) == ([3.0], "Identity")


def test_assigning_a_buffer_calls_register_buffer():
    m = _NoPersistent()
    m.b = symgrad.zeros(1)
    assert m.calls == ["b", "b"]
    assert m.b.tolist() == [0.0]


@pytest.mark.torch
def test_registration_hooks_as_torch():
    torch = pytest.importorskip("torch")
    assert _registrations(symgrad) == _registrations(torch)
    assert _replacements(symgrad) == _replacements(torch)
