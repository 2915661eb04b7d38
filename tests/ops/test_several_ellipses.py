"""Keys with several ellipses, which PyTorch reads and NumPy refuses: each ``...`` passes over
as many dimensions as the key leaves unindexed (``x[..., 0, ...]`` is ``x[:, :, 0]``), for
reading, writing and the gradient.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when it is
installed.
"""

from __future__ import annotations

from _torch_table import table_tests


def _read(key):
    def case(T):
        x = T.arange(24.0).reshape(2, 3, 4).requires_grad_()
        y = key(x)
        (y * y).sum().backward()
        return tuple(y.shape), y.sum().item(), type(y.grad_fn).__name__, x.grad.sum().item()

    return case


def _write(key):
    def case(T):
        x = T.zeros(2, 3, 4)
        x[key(x)] = 1.0
        return x.sum(dim=(0, 1)).tolist(), x.sum(dim=(0, 2)).tolist()

    return case


F32 = "float32"
CASES = {
    "middle_int": (_read(lambda x: x[..., 0, ...]), ((2, 3), 60.0, "SelectBackward0", 120.0)),
    "leading_int": (_read(lambda x: x[0, ..., ...]), ((3, 4), 66.0, "SelectBackward0", 132.0)),
    "two_only": (_read(lambda x: x[..., ...]), ((2, 3, 4), 276.0, "AliasBackward0", 552.0)),
    "none": (
        _read(lambda x: x[..., None, ...]),
        ((2, 3, 4, 1), 276.0, "UnsqueezeBackward0", 552.0),
    ),
    "int_between": (_read(lambda x: x[1, ..., 2, ...]), ((3,), 54.0, "SelectBackward0", 108.0)),
    "three": (_read(lambda x: x[..., 0, ..., ...]), ((2, 3), 60.0, "SelectBackward0", 120.0)),
    "none_first": (
        _read(lambda x: x[None, ..., 0, ...]),
        ((1, 2, 3), 60.0, "SelectBackward0", 120.0),
    ),
    "list": (_read(lambda x: x[..., [0, 1], ...]), ((2, 3, 2), 126.0, "IndexBackward0", 252.0)),
    "mask": (
        _read(lambda x: x[..., x[0, 0] > 1, ...]),
        ((2, 3, 2), 150.0, "IndexBackward0", 300.0),
    ),
    # each ellipsis passes over the same count: here one, so 2 indexes a third dimension of a
    # result with two
    "too_far": (_read(lambda x: x[..., 1, ..., 2]), ("raises", "IndexError")),
    "slice_too_far": (_read(lambda x: x[..., 0:2, ..., 1]), ("raises", "IndexError")),
    "write_middle": (_write(lambda x: (..., 1, ...)), ((0.0, 6.0, 0.0, 0.0), (2.0, 2.0, 2.0))),
    "write_between": (_write(lambda x: (1, ..., 2, ...)), ((0.0, 0.0, 3.0, 0.0), (1.0, 1.0, 1.0))),
}
test_symgrad, test_table_is_pytorchs = table_tests(CASES)
