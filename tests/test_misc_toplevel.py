"""Top-level names PyTorch programs call on occasion: the ``sym_*`` helpers,
``is_vulkan_available``, ``frombuffer``, ``from_dlpack``/``to_dlpack``, ``empty_permuted``,
the deprecated ``range``, ``hardshrink`` and ``embedding_renorm_``.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import array
import math

import numpy as np
import pytest
from _torch_table import NAN, values
from _torch_table import run as _run

import symgrad


def _bytes():
    return bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")


def _buffer_shared(T):
    data = _bytes()
    t = T.frombuffer(data, dtype=T.uint8)
    data[0] = 9
    t[1] = 3
    return t[:2], data[1]


def _numpy_shared(T):
    a = np.arange(3.0)
    t = T.from_dlpack(a)
    a[0] = 7.0
    t[1] = 5.0
    return t, a[1]


def _tensor_shared(T, through_capsule):
    s = T.arange(3.0)
    t = T.from_dlpack(T.to_dlpack(s) if through_capsule else s)
    t[0] = 10.0
    return s


def _renorm(T, weight, indices, max_norm, norm_type, **kw):
    w = T.tensor(weight, **kw)
    before = w._version
    out = T.embedding_renorm_(w, T.tensor(indices), max_norm, norm_type)
    return out, w._version - before


def _renorm_backward(T):
    w = T.tensor([[3.0, 4.0]], requires_grad=True) * 1
    T.embedding_renorm_(w, T.tensor([0]), 1.0, 2.0)
    w.sum().backward()


def _hardshrink_grad(T):
    x = T.tensor([-1.0, 0.3, 2.0], requires_grad=True)
    out = T.hardshrink(x, 0.5)
    out.sum().backward()
    return out, x.grad


def _range(T, *args, **kw):
    return T.range(*args, **kw)


CASES = {
    # -- sym_* helpers
    "sym_max": (lambda T: (T.sym_max(2, 3), T.sym_max(2.0, 3), T.sym_max(3, 2.0)), (3, 3.0, 3.0)),
    "sym_min": (lambda T: (T.sym_min(2, 3), T.sym_min(2.0, 3), T.sym_min(True, 3)), (2, 2.0, True)),
    "sym_max_numpy": (lambda T: T.sym_max(np.float64(2), 3), 3.0),
    "sym_max_nan_order": (
        lambda T: values([T.sym_max(math.nan, 1), T.sym_max(1, math.nan)]),
        (NAN, 1.0),
    ),
    "sym_max_tensor": (lambda T: T.sym_max(T.tensor(2.0), 3), ("raises", "AssertionError")),
    "sym_min_str": (lambda T: T.sym_min("a", 3), ("raises", "AssertionError")),
    "sym_float": (
        lambda T: (T.sym_float(3), T.sym_float(True), T.sym_float("2.5")),
        (3.0, 1.0, 2.5),
    ),
    "sym_int": (lambda T: (T.sym_int(3.7), T.sym_int(-3.7), T.sym_int(True)), (3, -3, 1)),
    "sym_int_inf": (lambda T: T.sym_int(math.inf), ("raises", "OverflowError")),
    "sym_not": (
        lambda T: (T.sym_not(True), T.sym_not(0), T.sym_not(T.tensor(True))),
        (False, True, False),
    ),
    "sym_not_many": (lambda T: T.sym_not(T.tensor([True, False])), ("raises", "RuntimeError")),
    "sym_sqrt": (lambda T: (T.sym_sqrt(4), T.sym_sqrt(T.tensor(9.0))), (2.0, 3.0)),
    "sym_sqrt_negative": (lambda T: T.sym_sqrt(-1), ("raises", "ValueError")),
    "sym_sum": (
        lambda T: (
            T.sym_sum([1, 2, 3]),
            T.sym_sum([1.5, 2]),
            T.sym_sum([]),
            T.sym_sum(3),
            T.sym_sum(1, 2),
        ),
        (6, 3.5, 0, 3, 3),
    ),
    "sym_sum_tensor": (lambda T: T.sym_sum([T.tensor(1.0), 2]), (3.0, "float32", None)),
    "sym_ite": (lambda T: (T.sym_ite(True, 1, 2), T.sym_ite(False, 1, 2)), (1, 2)),
    "sym_ite_int": (lambda T: T.sym_ite(1, 1, 2), ("raises", "AssertionError")),
    "sym_ite_types": (lambda T: T.sym_ite(True, 1, 2.0), ("raises", "AssertionError")),
    "is_vulkan_available": (lambda T: T.is_vulkan_available(), False),
    # -- frombuffer
    "frombuffer": (lambda T: T.frombuffer(_bytes(), dtype=T.int32), ([1, 2], "int32", None)),
    "frombuffer_count_offset": (
        lambda T: T.frombuffer(_bytes(), dtype=T.int16, count=2, offset=2),
        ([0, 2], "int16", None),
    ),
    "frombuffer_rest": (
        lambda T: T.frombuffer(_bytes(), dtype=T.int32, count=-2, offset=4),
        ([2], "int32", None),
    ),
    "frombuffer_shares": (_buffer_shared, (([9, 3], "uint8", None), 3)),
    "frombuffer_array": (
        lambda T: T.frombuffer(array.array("f", [1.0, 2.0]), dtype=T.float32),
        ([1.0, 2.0], "float32", None),
    ),
    "frombuffer_bytes": (lambda T: T.frombuffer(b"ab", dtype=T.uint8), ([97, 98], "uint8", None)),
    "frombuffer_requires_grad": (
        lambda T: T.frombuffer(_bytes(), dtype=T.float32, requires_grad=True).requires_grad,
        True,
    ),
    "frombuffer_int_requires_grad": (
        lambda T: T.frombuffer(_bytes(), dtype=T.int32, requires_grad=True),
        ("raises", "RuntimeError"),
    ),
    "frombuffer_empty": (
        lambda T: T.frombuffer(bytearray(), dtype=T.uint8),
        ("raises", "ValueError"),
    ),
    "frombuffer_zero_count": (
        lambda T: T.frombuffer(_bytes(), dtype=T.int32, count=0),
        ("raises", "ValueError"),
    ),
    "frombuffer_too_many": (
        lambda T: T.frombuffer(_bytes(), dtype=T.int32, count=3),
        ("raises", "ValueError"),
    ),
    "frombuffer_offset_end": (
        lambda T: T.frombuffer(_bytes(), dtype=T.int32, offset=8),
        ("raises", "ValueError"),
    ),
    "frombuffer_negative_offset": (
        lambda T: T.frombuffer(_bytes(), dtype=T.int32, offset=-1),
        ("raises", "ValueError"),
    ),
    "frombuffer_ragged": (
        lambda T: T.frombuffer(_bytes(), dtype=T.int32, offset=2),
        ("raises", "ValueError"),
    ),
    "frombuffer_list": (lambda T: T.frombuffer([1, 2], dtype=T.int16), ("raises", "ValueError")),
    "frombuffer_no_dtype": (lambda T: T.frombuffer(_bytes()), ("raises", "TypeError")),
    "frombuffer_positional_dtype": (
        lambda T: T.frombuffer(_bytes(), T.int32),
        ("raises", "TypeError"),
    ),
    # -- DLPack
    "from_dlpack_numpy": (_numpy_shared, (([7.0, 5.0, 2.0], "float64", None), np.float64(5.0))),
    "from_dlpack_tensor": (lambda T: _tensor_shared(T, False), ([10.0, 1.0, 2.0], "float32", None)),
    "from_dlpack_capsule": (lambda T: _tensor_shared(T, True), ([10.0, 1.0, 2.0], "float32", None)),
    "from_dlpack_int": (
        lambda T: T.from_dlpack(np.array([1, 2], dtype=np.int32)),
        ([1, 2], "int32", None),
    ),
    "from_dlpack_strided": (
        lambda T: T.from_dlpack(np.arange(4.0)[::2]),
        ([0.0, 2.0], "float64", None),
    ),
    "from_dlpack_bool": (
        lambda T: T.from_dlpack(np.array([True, False])),
        ([True, False], "bool", None),
    ),
    "from_dlpack_list": (lambda T: T.from_dlpack([1, 2]), ("raises", "RuntimeError")),
    "from_dlpack_requires_grad": (
        lambda T: T.from_dlpack(T.tensor([1.0], requires_grad=True)),
        ("raises", "BufferError"),
    ),
    "to_dlpack_requires_grad": (
        lambda T: type(T.to_dlpack(T.tensor([1.0], requires_grad=True))).__name__,
        "PyCapsule",
    ),
    "dunder_dlpack_requires_grad": (
        lambda T: T.tensor([1.0], requires_grad=True).__dlpack__(),
        ("raises", "BufferError"),
    ),
    "dlpack_device": (lambda T: tuple(int(v) for v in T.ones(1).__dlpack_device__()), (1, 0)),
    "numpy_reads_tensor": (lambda T: np.from_dlpack(T.arange(3.0)).tolist(), (0.0, 1.0, 2.0)),
    # -- empty_permuted
    "empty_permuted": (lambda T: T.empty_permuted((2, 3, 4), (0, 2, 1)).stride(), (12, 1, 3)),
    "empty_permuted_outer_last": (
        lambda T: T.empty_permuted((2, 3, 4), (2, 0, 1)).stride(),
        (3, 1, 6),
    ),
    "empty_permuted_options": (
        lambda T: (lambda t: (t.shape, t.dtype is T.int64, t.requires_grad))(
            T.empty_permuted([2, 3], [1, 0], dtype=T.int64)
        ),
        ((2, 3), True, False),
    ),
    "empty_permuted_grad": (
        lambda T: T.empty_permuted((2,), (0,), requires_grad=True).requires_grad,
        True,
    ),
    "empty_permuted_zero_dim": (lambda T: T.empty_permuted((), ()).shape, ()),
    "empty_permuted_duplicate": (
        lambda T: T.empty_permuted((2, 3), (0, 0)),
        ("raises", "RuntimeError"),
    ),
    "empty_permuted_short": (lambda T: T.empty_permuted((2, 3), (0,)), ("raises", "RuntimeError")),
    "empty_permuted_out_of_range": (
        lambda T: T.empty_permuted((2, 3), (1, 2)),
        ("raises", "RuntimeError"),
    ),
    "empty_permuted_negative": (
        lambda T: T.empty_permuted((2, 3), (1, -1)),
        ("raises", "RuntimeError"),
    ),
    # -- range: end included
    "range": (lambda T: _range(T, 1, 4), ([1.0, 2.0, 3.0, 4.0], "float32", None)),
    "range_half_steps": (
        lambda T: _range(T, 1, 4, 0.5),
        ([1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0], "float32", None),
    ),
    "range_int": (lambda T: _range(T, 1, 4, dtype=T.int64), ([1, 2, 3, 4], "int64", None)),
    "range_inexact": (lambda T: _range(T, 0, 1, 0.3), ([0.0, 0.3, 0.6, 0.9], "float32", None)),
    "range_tenths": (
        lambda T: _range(T, 0, 1, 0.1),
        ([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], "float32", None),
    ),
    "range_down": (lambda T: _range(T, -2, -5, -1.5), ([-2.0, -3.5, -5.0], "float32", None)),
    "range_tensor_start": (lambda T: _range(T, T.tensor(1), 3), ([1.0, 2.0, 3.0], "float32", None)),
    "range_requires_grad": (
        lambda T: _range(T, 1, 2, requires_grad=True),
        ([1.0, 2.0], "float32", None),
    ),
    "range_wrong_sign": (lambda T: _range(T, 4, 1), ("raises", "RuntimeError")),
    "range_zero_step": (lambda T: _range(T, 1, 4, 0), ("raises", "RuntimeError")),
    "range_no_end": (lambda T: _range(T, 4), ("raises", "TypeError")),
    # -- hardshrink, embedding_renorm_
    "hardshrink": (
        _hardshrink_grad,
        (([-1.0, 0.0, 2.0], "float32", "HardshrinkBackward0"), ([1.0, 0.0, 1.0], "float32", None)),
    ),
    "hardshrink_lambd": (
        lambda T: T.hardshrink(T.tensor([-1.0, 0.3, 2.0]), lambd=1.5),
        ([0.0, 0.0, 2.0], "float32", None),
    ),
    "hardshrink_int": (lambda T: T.hardshrink(T.tensor([1, 2])), ("raises", "NotImplementedError")),
    "hardshrink_number": (lambda T: T.hardshrink(2.0), ("raises", "TypeError")),
    "renorm": (
        lambda T: _renorm(T, [[3.0, 4.0], [1.0, 0.0], [6.0, 8.0]], [0, 2, 0], 1.0, 2.0),
        (([[0.6, 0.8], [1.0, 0.0], [0.6, 0.8]], "float32", None), 1),
    ),
    "renorm_l1_matrix_indices": (
        lambda T: _renorm(T, [[3.0, 4.0], [1.0, 0.0], [6.0, 8.0]], [[0], [1]], 2.0, 1.0),
        (([[0.8571, 1.1429], [1.0, 0.0], [6.0, 8.0]], "float32", None), 1),
    ),
    "renorm_inf_norm": (
        lambda T: _renorm(T, [[3.0, 4.0]], [0], 1.0, math.inf),
        (([[0.75, 1.0]], "float32", None), 1),
    ),
    "renorm_half_norm_float64": (
        lambda T: _renorm(T, [[3.0, 4.0], [0.1, 0.1]], [0, 1], 1.0, 0.5, dtype=T.float64),
        (([[0.2154, 0.2872], [0.1, 0.1]], "float64", None), 1),
    ),
    "renorm_negative_index": (
        lambda T: _renorm(T, [[3.0, 4.0]], [-1], 1.0, 2.0),
        (([[0.6, 0.8]], "float32", None), 1),
    ),
    "renorm_int32_index": (
        lambda T: T.embedding_renorm_(T.tensor([[3.0, 4.0]]), T.tensor([0], dtype=T.int32), 1, 2),
        ([[0.6, 0.8]], "float32", None),
    ),
    "renorm_leaf": (
        lambda T: T.embedding_renorm_(
            T.tensor([[3.0, 4.0]], requires_grad=True), T.tensor([0]), 1.0, 2.0
        ),
        ("raises", "RuntimeError"),
    ),
    "renorm_recorded": (
        lambda T: T.embedding_renorm_(
            T.tensor([[3.0, 4.0]], requires_grad=True) * 1, T.tensor([0]), 1.0, 2.0
        ),
        ([[0.6, 0.8]], "float32", "EmbeddingRenormBackward0"),
    ),
    "renorm_no_derivative": (_renorm_backward, ("raises", "NotImplementedError")),
    "renorm_float_index": (
        lambda T: _renorm(T, [[3.0, 4.0]], [0.0], 1.0, 2.0),
        ("raises", "RuntimeError"),
    ),
    "renorm_out_of_range": (
        lambda T: _renorm(T, [[3.0, 4.0]], [1], 1.0, 2.0),
        ("raises", "IndexError"),
    ),
    "renorm_vector": (lambda T: _renorm(T, [3.0, 4.0], [0], 1.0, 2.0), ("raises", "RuntimeError")),
    "renorm_int_weight": (
        lambda T: _renorm(T, [[3, 4]], [0], 1.0, 2.0),
        ("raises", "RuntimeError"),
    ),
    "renorm_list_index": (
        lambda T: T.embedding_renorm_(T.ones(1, 2), [0], 1.0, 2.0),
        ("raises", "TypeError"),
    ),
    "renorm_no_norm_type": (
        lambda T: T.embedding_renorm_(T.ones(1, 2), T.tensor([0]), 1.0),
        ("raises", "TypeError"),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_symgrad(name):
    fn, expected = CASES[name]
    assert _run(symgrad, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert _run(torch, fn) == expected


def test_range_warns_deprecated():
    with pytest.warns(UserWarning, match="range is deprecated"):
        symgrad.range(0, 1)


def test_frombuffer_of_read_only_memory_warns():
    with pytest.warns(UserWarning, match="not writable"):
        symgrad.frombuffer(b"ab", dtype=symgrad.uint8)


def test_from_dlpack_of_an_unsupported_dtype_names_it():
    with pytest.raises(TypeError, match="complex128"):
        symgrad.from_dlpack(np.array([1 + 2j]))
