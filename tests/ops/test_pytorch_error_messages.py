"""Misuse that PyTorch reports in a fixed sentence gets that sentence first (symgrad may add
a hint on the lines after it): softmax of integers or without ``dim``, a gradient hook that
returns no tensor, masked_fill of a mask that is not boolean or a value with dimensions,
``torch.func`` transforms given integers or an ``argnums`` out of range."""

from __future__ import annotations

import pytest
from _torch_table import table_tests


def _ints(T):
    return T.arange(6).reshape(2, 3)


def _hook_returns_a_number(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: 5)
    y.sum().backward()


# name -> (call, exception type, the first line of PyTorch's message)
CASES = {
    "softmax_method_without_dim": (
        lambda T: T.ones(2, 3).softmax(),
        TypeError,
        'softmax() missing 1 required positional arguments: "dim"',
    ),
    "log_softmax_method_without_dim": (
        lambda T: T.ones(2, 3).log_softmax(),
        TypeError,
        'log_softmax() missing 1 required positional arguments: "dim"',
    ),
    "softmax_of_ints_last_dim": (
        lambda T: _ints(T).softmax(1),
        NotImplementedError,
        "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'",
    ),
    "softmax_of_ints_first_dim": (
        lambda T: T.softmax(_ints(T), 0),
        NotImplementedError,
        "\"softmax_kernel_impl\" not implemented for 'Long'",
    ),
    "log_softmax_of_int32_last_dim": (
        lambda T: _ints(T).int().log_softmax(-1),
        NotImplementedError,
        "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Int'",
    ),
    "hook_returns_a_number": (
        _hook_returns_a_number,
        TypeError,
        "expected Variable, but hook returned 'int'",
    ),
    "masked_fill_of_an_int_mask": (
        lambda T: T.zeros(3).masked_fill(T.tensor([1, 0, 1]), 2.0),
        RuntimeError,
        "masked_fill_ only supports boolean masks, but got mask with dtype long int",
    ),
    "masked_fill_of_a_float_mask_in_place": (
        lambda T: T.zeros(3).masked_fill_(T.tensor([1.0, 0.0, 1.0]), 2.0),
        RuntimeError,
        "masked_fill_ only supports boolean masks, but got mask with dtype float",
    ),
    "masked_fill_of_a_value_with_dimensions": (
        lambda T: T.zeros(3).masked_fill(T.tensor([True, False, True]), T.ones(1)),
        RuntimeError,
        "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
        "dimension(s).",
    ),
    "func_grad_of_a_number": (
        lambda T: T.func.grad(lambda x: x.sum())(3.0),
        ValueError,
        "Thing passed to transform API must be Tensor, got <class 'float'>",
    ),
    "func_grad_aux_not_a_tensor": (
        lambda T: T.func.grad(lambda x: (x.sum(), 1), has_aux=True)(T.ones(2)),
        RuntimeError,
        "Expected tensors, got unsupported type <class 'int'>",
    ),
    "func_grad_argnums_not_an_int": (
        lambda T: T.func.grad(lambda x: x.sum(), argnums=1.5)(T.ones(2)),
        RuntimeError,
        "argnums must be int or Tuple[int, ...], got: <class 'float'>",
    ),
    "func_grad_argnums_repeated": (
        lambda T: T.func.grad(lambda x: x.sum(), argnums=(0, 0))(T.ones(2)),
        RuntimeError,
        "argnums elements must be unique, got (0, 0)",
    ),
    "func_grad_of_ints": (
        lambda T: T.func.grad(lambda x: x.sum())(T.ones(2, dtype=T.long)),
        RuntimeError,
        "only Tensors of floating point dtype can require gradients",
    ),
    "func_jacrev_of_ints": (
        lambda T: T.func.jacrev(lambda x: x.sum())(T.ones(2, dtype=T.long)),
        RuntimeError,
        "only Tensors of floating point dtype can require gradients",
    ),
    "func_grad_argnums_out_of_range": (
        lambda T: T.func.grad(lambda x: x.sum(), argnums=1)(T.ones(2)),
        RuntimeError,
        "Got argnum=1, but only 1 positional inputs",
    ),
    "func_grad_negative_argnums_out_of_range": (
        lambda T: T.func.grad(lambda x, y: x.sum(), argnums=(0, -3))(T.ones(2), T.ones(2)),
        RuntimeError,
        "Got argnum=-3, but only 2 positional inputs",
    ),
}


def _first_line(T, name):
    call, kind, _ = CASES[name]
    with pytest.raises(kind) as error:
        call(T)
    return str(error.value).split("\n")[0]


test_symgrad, test_pytorch = table_tests(
    {name: (lambda T, name=name: _first_line(T, name), case[2]) for name, case in CASES.items()}
)
