"""``repeat_interleave``'s counts as PyTorch 2.13 takes them: their dtype kept in the
counts-only form, ``output_size`` checked against the counts, counts of other dtypes or
shapes refused, and the graph of a number of repeats (a contiguous clone of an expand, zero
repeats too); ``roll``'s shifts and dims (none of either); ``flip``'s dims (a list, or ints
one by one in the method form).

Each case is reduced to plain data (values, dtype, grad_fn name, or the exception's type),
checked for symgrad always and for PyTorch when it is installed."""

from __future__ import annotations

from _torch_table import table_tests


def _x(T):
    return T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)


def _graph_of_zero_repeats(T):
    y = T.repeat_interleave(_x(T), 0, dim=1)
    clone = y.grad_fn.next_functions[0][0]
    return y, type(clone).__name__, type(clone.next_functions[0][0]).__name__


def _rolled_empty(T, *args):
    x = T.zeros(0, 3, requires_grad=True)
    node = x.roll(*args).grad_fn
    x.roll(*args).sum().backward()
    return type(node).__name__, node._saved_shifts, node._saved_dims, list(x.grad.shape)


CASES = {
    "counts_int32_keep_their_dtype": (
        lambda T: T.repeat_interleave(T.tensor([1, 2], dtype=T.int32)),
        ([0, 1, 1], "int32", None),
    ),
    "counts_with_their_output_size": (
        lambda T: T.repeat_interleave(T.tensor([1, 2, 0, 3]), output_size=6),
        ([0, 1, 1, 3, 3, 3], "int64", None),
    ),
    "counts_output_size_too_small": (
        lambda T: T.repeat_interleave(T.tensor([1, 2, 0, 3]), output_size=5),
        ("raises", "RuntimeError"),
    ),
    "counts_output_size_too_big": (
        lambda T: T.repeat_interleave(T.tensor([1, 2]), output_size=4),
        ("raises", "RuntimeError"),
    ),
    "tensor_repeats_output_size_wrong": (
        lambda T: T.repeat_interleave(_x(T), T.tensor([2, 1]), dim=0, output_size=5),
        ("raises", "RuntimeError"),
    ),
    "one_tensor_repeat_output_size_wrong": (
        lambda T: T.repeat_interleave(_x(T), T.tensor(2), dim=0, output_size=3),
        ("raises", "RuntimeError"),
    ),
    "number_repeats_output_size_wrong": (
        lambda T: T.repeat_interleave(_x(T), 2, dim=0, output_size=3),
        ("raises", "RuntimeError"),
    ),
    "number_repeats_flat_output_size_wrong": (
        lambda T: T.repeat_interleave(_x(T), 2, output_size=7),
        ("raises", "RuntimeError"),
    ),
    "number_repeats_output_size_right": (
        lambda T: T.repeat_interleave(_x(T), 2, dim=0, output_size=4).shape,
        (4, 3),
    ),
    "float_counts": (
        lambda T: T.repeat_interleave(T.tensor([1.0, 2.0])),
        ("raises", "NotImplementedError"),
    ),
    "uint8_counts": (
        lambda T: T.repeat_interleave(T.tensor([1, 2], dtype=T.uint8)),
        ("raises", "NotImplementedError"),
    ),
    "bool_repeats": (
        lambda T: T.repeat_interleave(_x(T), T.tensor([True, False]), dim=0),
        ("raises", "NotImplementedError"),
    ),
    "float_repeats": (
        lambda T: T.repeat_interleave(_x(T), T.tensor([2.0, 1.0]), dim=0),
        ("raises", "NotImplementedError"),
    ),
    "int32_repeats": (
        lambda T: T.repeat_interleave(_x(T), T.tensor([0, 2], dtype=T.int32), dim=0),
        ([[4.0, 5.0, 6.0], [4.0, 5.0, 6.0]], "float32", "IndexSelectBackward0"),
    ),
    "counts_of_two_dimensions": (
        lambda T: T.repeat_interleave(T.tensor([[1, 2]])),
        ("raises", "RuntimeError"),
    ),
    "counts_of_no_dimension": (
        lambda T: T.repeat_interleave(T.tensor(2)),
        ("raises", "RuntimeError"),
    ),
    "repeats_of_two_dimensions": (
        lambda T: T.repeat_interleave(_x(T), T.tensor([[2]]), dim=0),
        ("raises", "RuntimeError"),
    ),
    "negative_counts": (
        lambda T: T.repeat_interleave(T.tensor([1, -2])),
        ("raises", "RuntimeError"),
    ),
    "zero_repeats_graph": (
        _graph_of_zero_repeats,
        (([[], []], "float32", "ViewBackward0"), "CloneBackward0", "ExpandBackward0"),
    ),
    "roll_without_shifts": (
        lambda T: T.roll(T.arange(6.0).reshape(2, 3), [], []),
        ("raises", "RuntimeError"),
    ),
    "roll_without_shifts_of_an_empty_tensor": (
        lambda T: T.roll(T.ones(0, 3), []),
        ("raises", "RuntimeError"),
    ),
    "roll_with_empty_dims_rolls_the_flat_tensor": (
        lambda T: T.roll(T.arange(6.0).reshape(2, 3), [1], []),
        ([[5.0, 0.0, 1.0], [2.0, 3.0, 4.0]], "float32", None),
    ),
    "roll_two_shifts_with_empty_dims": (
        lambda T: T.roll(T.arange(6.0).reshape(2, 3), [1, 2], ()),
        ("raises", "RuntimeError"),
    ),
    # an empty tensor is copied without its dims looked at, recorded as a roll
    "roll_of_an_empty_tensor_graph": (
        lambda T: _rolled_empty(T, 1, 1),
        ("RollBackward0", (1,), (1,), (0, 3)),
    ),
    "roll_of_an_empty_tensor_dim_out_of_range": (
        lambda T: _rolled_empty(T, 1, 5),
        ("RollBackward0", (1,), (5,), (0, 3)),
    ),
    "roll_of_an_empty_tensor_flat": (
        lambda T: _rolled_empty(T, 2),
        ("RollBackward0", (2,), (), (0, 3)),
    ),
    "roll_of_an_empty_tensor_two_shifts_one_dim": (
        lambda T: _rolled_empty(T, (1, 2), 0),
        ("raises", "RuntimeError"),
    ),
    "flip_of_an_int_dim": (
        lambda T: T.flip(T.arange(6.0).reshape(2, 3), 0),
        ("raises", "TypeError"),
    ),
    "flip_method_of_an_int_dim": (
        lambda T: T.arange(6.0).reshape(2, 3).flip(0),
        ([[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]], "float32", None),
    ),
    "flip_method_of_ints": (
        lambda T: T.arange(6.0).reshape(2, 3).flip(0, 1),
        ([[5.0, 4.0, 3.0], [2.0, 1.0, 0.0]], "float32", None),
    ),
    "flip_method_keyword_int": (
        lambda T: T.arange(6.0).reshape(2, 3).flip(dims=0),
        ("raises", "TypeError"),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
