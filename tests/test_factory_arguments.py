"""Factory arguments PyTorch's parser refuses where symgrad made a tensor: no size at all
(``zeros()``: ``zeros(())`` is the 0-d tensor), an int for ``full``'s size, ``None`` for an
``arange`` bound (``arange(1, None)`` gave ``[0]``), a float or a bool for ``linspace``'s and
``logspace``'s steps or ``randint``'s bounds, and ``dtype`` given by position to ``tensor``
and ``as_tensor``.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when it is
installed.
"""

from __future__ import annotations

from _torch_table import table_tests

TYPE = ("raises", "TypeError")


def _x(T):
    return T.tensor([0.5, 2.0])


CASES = {
    "zeros_no_size": (lambda T: T.zeros(), TYPE),
    "ones_no_size": (lambda T: T.ones(dtype=T.float64), TYPE),
    "empty_no_size": (lambda T: T.empty(), TYPE),
    "rand_no_size": (lambda T: T.rand(), TYPE),
    "randn_no_size": (lambda T: T.randn(), TYPE),
    "new_zeros_no_size": (lambda T: _x(T).new_zeros(), TYPE),
    "new_ones_no_size": (lambda T: _x(T).new_ones(dtype=T.int32), TYPE),
    "new_empty_no_size": (lambda T: _x(T).new_empty(), TYPE),
    "zeros_0d": (lambda T: T.zeros(()), (0.0, "float32", None)),
    "zeros_size_0d": (lambda T: T.zeros(size=()), (0.0, "float32", None)),
    "empty_0d_shape": (lambda T: tuple(T.empty(()).shape), ()),
    "empty_size_shape": (lambda T: tuple(T.empty(2, 3).shape), (2, 3)),
    "new_ones_0d": (lambda T: _x(T).new_ones(size=()), (1.0, "float32", None)),
    "full_int_size": (lambda T: T.full(2, 3), TYPE),
    "new_full_int_size": (lambda T: _x(T).new_full(2, 3), TYPE),
    "full_list_size": (lambda T: T.full([2], 3), ([3, 3], "int64", None)),
    "arange_end_None": (lambda T: T.arange(1, None), TYPE),
    "arange_step_None": (lambda T: T.arange(1, 5, None), TYPE),
    "arange_None": (lambda T: T.arange(None), TYPE),
    "arange_keyword_end_None": (lambda T: T.arange(end=None), TYPE),
    "arange_start_end": (lambda T: T.arange(1, 3), ([1, 2], "int64", None)),
    "arange_keywords": (lambda T: T.arange(start=1, end=5, step=2), ([1, 3], "int64", None)),
    "linspace_float_steps": (lambda T: T.linspace(0, 1, 5.0), TYPE),
    "linspace_bool_steps": (lambda T: T.linspace(0, 1, True), TYPE),
    "linspace_keyword_float_steps": (lambda T: T.linspace(0, 1, steps=3.0), TYPE),
    "linspace_tensor_steps": (
        lambda T: T.linspace(0, 1, T.tensor(3)),
        ([0.0, 0.5, 1.0], "float32", None),
    ),
    "logspace_float_steps": (lambda T: T.logspace(0, 1, 2.0), TYPE),
    "logspace_tensor_steps": (
        lambda T: T.logspace(0, 1, T.tensor(2)),
        ([1.0, 10.0], "float32", None),
    ),
    "randint_float_high": (lambda T: T.randint(0, 5.0, (2,)), TYPE),
    "randint_float_only_high": (lambda T: T.randint(5.0, (2,)), TYPE),
    "randint_tensor_high": (lambda T: tuple(T.randint(T.tensor(5), (2,)).shape), (2,)),
    "tensor_positional_dtype": (lambda T: T.tensor([1], T.float64), TYPE),
    "as_tensor_positional_dtype": (lambda T: T.as_tensor([1], T.float64), TYPE),
    "tensor_keyword_dtype": (lambda T: T.tensor([1], dtype=T.float64), ([1.0], "float64", None)),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
