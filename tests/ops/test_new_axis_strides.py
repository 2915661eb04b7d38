"""The strides of the dimensions ``None`` adds in an index key, as PyTorch's ``unsqueeze``
gives them (the size times the stride of the input's dimension where ``None`` stands, 1 after
the last), not NumPy's 0; those of size-1 dimensions of a result indexed by tensors, laid out
as PyTorch lays it out; those of size-1 dimensions of ``expand`` (kept where the size is kept,
the size times the next stride for a new one), of ``unsqueeze`` of a transposed tensor and of
``view`` (PyTorch's ``computeStride``, where NumPy's reshape chose others).

Each case gives the result's shape and strides, checked for symgrad always and for PyTorch when
it is installed."""

from __future__ import annotations

from _torch_table import table_tests


def _b(T):
    return T.arange(40.0).reshape(2, 4, 5)


def _layout(t):
    return tuple(t.shape), t.stride()


CASES = {
    "leading": (lambda T: _layout(_b(T)[None]), ((1, 2, 4, 5), (40, 20, 5, 1))),
    "slice_none_step": (
        lambda T: _layout(_b(T)[1:2, None, ::3]),
        ((1, 1, 2, 5), (20, 20, 15, 1)),
    ),
    "middle": (lambda T: _layout(_b(T)[:, None]), ((2, 1, 4, 5), (20, 20, 5, 1))),
    "after_ellipsis": (lambda T: _layout(_b(T)[..., None]), ((2, 4, 5, 1), (20, 5, 1, 1))),
    "two": (lambda T: _layout(_b(T)[None, None]), ((1, 1, 2, 4, 5), (40, 40, 20, 5, 1))),
    "after_an_int": (lambda T: _layout(_b(T)[0, None]), ((1, 4, 5), (20, 5, 1))),
    "transposed": (
        lambda T: _layout(_b(T).transpose(0, 2)[None]),
        ((1, 5, 4, 2), (5, 1, 5, 20)),
    ),
    "of_a_0d_tensor": (lambda T: _layout(T.tensor(3.0)[None]), ((1,), (1,))),
    "around_a_vector": (lambda T: _layout(T.arange(3.0)[None, :, None]), ((1, 3, 1), (3, 1, 1))),
    "contiguous_keeps_them": (
        lambda T: _layout(_b(T)[None].contiguous()),
        ((1, 2, 4, 5), (40, 20, 5, 1)),
    ),
    "moved": (lambda T: _layout(_b(T)[None].movedim(0, 2)), ((2, 4, 1, 5), (20, 5, 40, 1))),
    "with_an_index": (lambda T: _layout(_b(T)[None, [0, 1]]), ((1, 2, 4, 5), (40, 20, 5, 1))),
    "index_after_a_step": (
        lambda T: _layout(T.arange(6.0).reshape(2, 3).t()[None, ::2]),
        ((1, 2, 2), (3, 2, 3)),
    ),
    "expand_keeps_a_size_1_stride": (
        lambda T: _layout(T.arange(8.0).reshape(2, 1, 4).expand(2, 1, 4)),
        ((2, 1, 4), (4, 4, 1)),
    ),
    "expand_new_size_1": (lambda T: _layout(T.ones(3).expand(1, 3)), ((1, 3), (3, 1))),
    "expand_new_size_1_inside": (
        lambda T: _layout(T.ones(3).expand(2, 1, 3)),
        ((2, 1, 3), (0, 3, 1)),
    ),
    "expand_transposed": (
        lambda T: _layout(T.ones(2, 1).t().expand(3, 1, 2)),
        ((3, 1, 2), (0, 1, 1)),
    ),
    "expand_0d": (lambda T: _layout(T.tensor(1.0).expand(2, 1)), ((2, 1), (0, 0))),
    "unsqueeze_of_a_transposed_tensor": (
        lambda T: _layout(T.arange(2.0).reshape(1, 2, 1).transpose(0, -1).unsqueeze(1)),
        ((1, 1, 2, 1), (1, 2, 1, 2)),
    ),
    "unsqueeze_keeps_size_1_strides": (
        lambda T: _layout(T.arange(6.0).reshape(3, 1, 1, 2).transpose(0, -1).unsqueeze(1)),
        ((2, 1, 1, 1, 3), (1, 2, 2, 2, 2)),
    ),
    "reshape_of_a_narrowed_column": (
        lambda T: _layout(T.arange(6.0).reshape(2, 1, 3).narrow(-1, 0, 1).reshape(-1, 1)),
        ((2, 1), (3, 1)),
    ),
    "view_of_a_narrowed_column": (
        lambda T: _layout(T.arange(6.0).reshape(2, 1, 3).narrow(-1, 0, 1).view(2, 1)),
        ((2, 1), (3, 1)),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
