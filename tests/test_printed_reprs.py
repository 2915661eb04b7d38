"""What programs print, character for character as PyTorch 2.13 prints it: reprs of modules
with their parametrizations, of optimizers and schedulers, of tensors.

Each case builds the same object with ``T`` either symgrad or torch and returns its text (a
Size's or dtype's module prefix ``symgrad.`` is written ``torch.``): the table holds the
expected text, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings

import numpy as np
import pytest
from _torch_table import table_tests


def _text(T, value) -> str:
    return str(value).replace("symgrad.", "torch.")


def _spectral_norm_linear(T):
    linear = T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 3))
    return _text(T, linear)


def _warnings(T, fn) -> list:
    """The (category, text) of each warning ``fn(T)`` gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(T)
    return [(w.category.__name__, str(w.message)) for w in caught]


def _error(T, fn) -> tuple:
    """The type and text of the exception ``fn(T)`` raises."""
    try:
        fn(T)
    except Exception as error:
        return type(error).__name__, _text(T, error)
    return ()


_COPY_ADVICE = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than "
)
_PER_CHANNEL = "Expected more than 1 value per channel when training, got input size "


def _after_options(T, **options) -> str:
    """A tensor's text after ``set_printoptions(**options)`` (the defaults restored after)."""
    try:
        T.set_printoptions(**options)
        return _text(T, T.tensor([1.123456789, 2e-3, 1000.0]))
    finally:
        T.set_printoptions(profile="default")


class _Scale:
    """A scale_fn object with state of its own."""

    def __init__(self, k: float) -> None:
        self.k = k

    def __call__(self, x: float) -> float:
        return self.k


def _cyclic(T, scale_fn=None):
    param = T.nn.Parameter(T.ones(1))
    optimizer = T.optim.SGD([param], lr=0.1, momentum=0.9)
    return T.optim.lr_scheduler.CyclicLR(optimizer, 0.01, 0.1, step_size_up=2, scale_fn=scale_fn)


def _cyclic_state(T) -> tuple:
    """The keys of CyclicLR's state dict, and what it keeps of a scale_fn object and gives
    back to another."""
    state = _cyclic(T, _Scale(0.5)).state_dict()
    saved = state["_scale_fn_custom"]
    other = _cyclic(T, _Scale(1.0))
    other.load_state_dict({**state, "_scale_fn_custom": {"k": 0.25}})
    plain = _cyclic(T, lambda x: 1.0).state_dict()["_scale_fn_custom"]
    return list(_cyclic(T).state_dict())[-3:], repr(saved), other._scale_fn_custom.k, plain


def _backward_hook_warnings(T) -> list:
    """The FutureWarning of register_backward_hook for each way it misses gradients."""
    nn = T.nn

    class ListOut(nn.Module):
        def forward(self, x):
            return [x * 2]

    class Pair(nn.Module):
        def forward(self, x):
            return x * 2, x * 3

    class Scaled(nn.Module):
        def forward(self, x, k):
            return x * k

    runs = [
        (nn.Sequential(nn.Linear(2, 2), nn.ReLU()), lambda m, x: m(x).sum()),
        (Pair(), lambda m, x: sum(o.sum() for o in m(x))),
        (ListOut(), lambda m, x: m(x)[0].sum()),
        (Scaled(), lambda m, x: m(x, 2).sum()),
    ]
    texts = []
    for module, run in runs:
        module.register_backward_hook(lambda *args: None)
        x = T.ones(1, 2, requires_grad=True) * 1
        texts += _warnings(T, lambda T, module=module, run=run, x=x: run(module, x).backward())
    return texts


_WILL_BE_REMOVED = (
    "is deprecated and will be removed in future versions. This hook will be missing some"
)
_USE_FULL = "Please use register_full_backward_hook to get the documented behavior."


CASES = {
    # the parametrization's class is PyTorch's _SpectralNorm
    "spectral_norm_parametrization": (
        _spectral_norm_linear,
        "ParametrizedLinear(\n"
        "  in_features=2, out_features=3, bias=True\n"
        "  (parametrizations): ModuleDict(\n"
        "    (weight): ParametrizationList(\n"
        "      (0): _SpectralNorm()\n"
        "    )\n"
        "  )\n"
        ")",
    ),
    # -- print options: a profile PyTorch doesn't know changes nothing
    "unknown_profile": (
        lambda T: _after_options(T, profile="bogus", precision=2),
        "tensor([1.12e+00, 2.00e-03, 1.00e+03])",
    ),
    # -- schedulers' state: a scale_fn object's attributes, saved last
    "cyclic_lr_state": (
        _cyclic_state,
        (("_get_lr_called_within_step", "_last_lr", "_scale_fn_custom"), "{'k': 0.5}", 0.25, None),
    ),
    # -- Size reads ints, as PyTorch: other items are TypeErrors, not cut to ints
    "size_of_ints": (
        lambda T: T.Size([True, np.int32(2), T.tensor(3), T.tensor([4]), np.array(5)]),
        (1, 2, 3, 4, 5),
    ),
    "size_item_types": (
        lambda T: [
            _error(T, lambda T, v=v: T.Size([1, v])) for v in (2.5, "2", None, np.float64(2))
        ],
        tuple(
            ("TypeError", f"torch.Size() takes an iterable of 'int' (item 1 is '{name}')")
            for name in ("float", "str", "NoneType", "numpy.float64")
        ),
    ),
    "size_of_float_tensor": (
        lambda T: _error(T, lambda T: T.Size([T.tensor(2.5)])),
        ("TypeError", "torch.Size() takes an iterable of 'int' (item 0 is 'Tensor')"),
    ),
    # -- a meta tensor names every dtype but the default float type, int64 and bool too
    "meta_dtypes": (
        lambda T: [
            _text(T, T.empty(2, dtype=d, device="meta"))
            for d in (T.int64, T.bool, T.int32, T.float64, T.float32)
        ],
        tuple(
            f"tensor(..., device='meta', size=(2,){dtype})"
            for dtype in (
                ", dtype=torch.int64",
                ", dtype=torch.bool",
                ", dtype=torch.int32",
                ", dtype=torch.float64",
                "",
            )
        ),
    ),
    # -- storages print under the module of their classes, torch.storage
    "untyped_storage": (
        lambda T: _text(T, T.tensor([True, False]).untyped_storage()),
        " 1\n 0\n[torch.storage.UntypedStorage(device=cpu) of size 2]",
    ),
    "typed_storage": (
        lambda T: _text(T, T.tensor([1.5, 2.0]).storage()),
        " 1.5\n 2.0\n[torch.storage.TypedStorage(dtype=torch.float32, device=cpu) of size 2]",
    ),
    "storage_module": (
        lambda T: [T.storage.UntypedStorage is T.UntypedStorage, T.storage.TypedStorage.__name__],
        (True, "TypedStorage"),
    ),
    # -- warnings and messages as PyTorch words them
    "backward_hook_warnings": (
        _backward_hook_warnings,
        tuple(
            ("FutureWarning", text)
            for text in (
                "Using a non-full backward hook when the forward contains multiple autograd Nodes "
                f"{_WILL_BE_REMOVED} grad_input. {_USE_FULL}",
                "Using a non-full backward hook when outputs are generated by different autograd "
                f"Nodes {_WILL_BE_REMOVED} grad_output. {_USE_FULL}",
                "Using non-full backward hooks on a Module that does not return a single Tensor "
                f"or a tuple of Tensors {_WILL_BE_REMOVED} of the grad_output. {_USE_FULL}",
                "Using non-full backward hooks on a Module that does not take as input a single "
                f"Tensor or a tuple of Tensors {_WILL_BE_REMOVED} of the grad_input. {_USE_FULL}",
            )
        ),
    ),
    # -- seeds: a generator's manual_seed takes only ints of 64 bits
    "generator_seed_errors": (
        lambda T: [
            _error(T, lambda T, v=v: T.Generator().manual_seed(v))
            for v in ("a", 2**64, -(2**63) - 1, T.tensor(3))
        ],
        (
            ("RuntimeError", "manual_seed expected a long, but got str"),
            ("ValueError", "Overflow when unpacking long long"),
            ("ValueError", "Overflow when unpacking long long"),
            ("RuntimeError", "manual_seed expected a long, but got Tensor"),
        ),
    ),
    "copy_construct_warning": (
        lambda T: _warnings(T, lambda T: T.tensor(T.ones(2))),
        (("UserWarning", _COPY_ADVICE + "torch.tensor(sourceTensor)."),),
    ),
    "new_tensor_warning": (
        lambda T: _warnings(T, lambda T: T.ones(2).new_tensor(T.ones(2))),
        (("UserWarning", _COPY_ADVICE + "tensor.new_tensor(sourceTensor)."),),
    ),
    "group_norm_one_value": (
        lambda T: _error(T, lambda T: T.nn.functional.group_norm(T.ones(1, 2), 2)),
        ("ValueError", _PER_CHANNEL + "[1, 2]"),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


# float(t) and a tensor built from a list holding t, of a t that requires grad, warn once per
# process (never under no_grad); each library in a process of its own
_SCALAR_PROGRAM = """
import ast
import subprocess
import sys
import warnings
import {T} as torch
t = torch.tensor(1.5, requires_grad=True) * 2
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.no_grad():
        torch.tensor([t]), float(t)
    values = [torch.tensor([t, 1.0]).tolist(), float(t), torch.tensor([[t]]).tolist()]
print(repr((values, [str(w.message).split(" (Triggered")[0] for w in caught])))
"""

_SCALAR_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)


def _scalar_of_grad(T: str) -> tuple:
    done = subprocess.run(
        [sys.executable, "-c", _SCALAR_PROGRAM.format(T=T)],
        capture_output=True,
        text=True,
        check=True,
    )
    return ast.literal_eval(done.stdout)


def test_scalar_of_grad_warns_once():
    assert _scalar_of_grad("symgrad") == ([[3.0, 1.0], 3.0, [[3.0]]], [_SCALAR_WARNING])


@pytest.mark.torch
def test_scalar_of_grad_warns_once_in_pytorch():
    pytest.importorskip("torch")
    assert _scalar_of_grad("torch") == ([[3.0, 1.0], 3.0, [[3.0]]], [_SCALAR_WARNING])


# a list holding NumPy arrays with values: PyTorch's warning that this is slow, once per process
_ARRAYS_PROGRAM = """
import warnings
import numpy as np
import {T} as torch
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    empty = torch.tensor([np.zeros(0)]).shape
    pair = torch.tensor([np.array([1, 2]), [3, 4]])
    values = [pair.tolist(), torch.tensor([np.ones(1)]).tolist()]
print(repr(((tuple(empty), values), [str(w.message).split(" (Triggered")[0] for w in caught])))
"""

_ARRAYS_WARNING = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
    "converting the list to a single numpy.ndarray with numpy.array() before converting to a "
    "tensor."
)
_ARRAYS_OUTCOME = (((1, 0), [[[1, 2], [3, 4]], [[1.0]]]), [_ARRAYS_WARNING])


def _arrays_in_list(T: str) -> tuple:
    done = subprocess.run(
        [sys.executable, "-c", _ARRAYS_PROGRAM.format(T=T)],
        capture_output=True,
        text=True,
        check=True,
    )
    return ast.literal_eval(done.stdout)


def test_arrays_in_list_warn_once():
    assert _arrays_in_list("symgrad") == _ARRAYS_OUTCOME


@pytest.mark.torch
def test_arrays_in_list_warn_once_in_pytorch():
    pytest.importorskip("torch")
    assert _arrays_in_list("torch") == _ARRAYS_OUTCOME
