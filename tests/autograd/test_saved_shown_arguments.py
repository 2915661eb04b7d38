"""``grad_fn._saved_<name>`` of padding, pixel shuffles, ``cdist``, diagonals and the index
ops: the names PyTorch 2.13's node shows in ``dir(grad_fn)``, with its values (arguments as
given, a negative one as the unsigned 64-bit number of its bits; a source saved only where
it needs a gradient), and PyTorch's errors for their saved source changed in place and for
an index that is not int64.

Each case is reduced to plain data, checked for symgrad always and for PyTorch when it is
installed."""

from __future__ import annotations

from _torch_table import table_tests

_MINUS_1, _MINUS_2 = 2**64 - 1, 2**64 - 2


def _counting(T, *shape):
    n = 1
    for s in shape:
        n *= s
    return (T.arange(float(n)) + 1).reshape(shape).requires_grad_()


def _shown(y):
    """The node's name and its ``_saved_*`` names with their values."""
    node = y.grad_fn
    names = sorted(a for a in dir(node) if a.startswith("_saved_"))
    return type(node).__name__, tuple((a, getattr(node, a)) for a in names)


def _pad(mode, shape, pad):
    return lambda T: _shown(T.nn.functional.pad(_counting(T, *shape), pad, mode=mode))


_ROW = ([[[1.0, 2.0, 3.0, 4.0]]], "float32", None)
CASES = {
    "reflect_1d": (
        _pad("reflect", (1, 1, 4), (1, 2)),
        ("ReflectionPad1DBackward0", (("_saved_padding", (1, 2)), ("_saved_self", _ROW))),
    ),
    "reflect_1d_cropping": (
        _pad("reflect", (1, 1, 4), (-1, 2)),
        ("ReflectionPad1DBackward0", (("_saved_padding", (_MINUS_1, 2)), ("_saved_self", _ROW))),
    ),
    "replicate_1d": (
        _pad("replicate", (1, 1, 4), (3, 0)),
        ("ReplicationPad1DBackward0", (("_saved_padding", (3, 0)), ("_saved_self", _ROW))),
    ),
    "reflect_2d": (
        lambda T: _shown(T.nn.functional.pad(_counting(T, 1, 1, 2, 3), (1, 2, 0, 1), "reflect"))[1][
            0
        ],
        ("_saved_padding", (1, 2, 0, 1)),
    ),
    "replicate_3d": (
        lambda T: _shown(
            T.nn.functional.pad(_counting(T, 1, 1, 2, 2, 2), (1, 1, 0, 1, 1, 0), "replicate")
        )[0],
        "ReplicationPad3DBackward0",
    ),
    "pixel_shuffle": (
        lambda T: _shown(T.nn.functional.pixel_shuffle(_counting(T, 1, 4, 1, 1), 2)),
        ("PixelShuffleBackward0", (("_saved_upscale_factor", 2),)),
    ),
    "pixel_unshuffle": (
        lambda T: _shown(T.nn.functional.pixel_unshuffle(_counting(T, 1, 1, 2, 2), 2)),
        ("PixelUnshuffleBackward0", (("_saved_downscale_factor", 2),)),
    ),
    "cdist": (
        lambda T: _shown(T.cdist(_counting(T, 1, 2), T.tensor([[1.0, 5.0]]), p=1.0)),
        (
            "CdistBackward0",
            (
                ("_saved_p", 1.0),
                ("_saved_result", ([[3.0]], "float32", "CdistBackward0")),
                ("_saved_x1", ([[1.0, 2.0]], "float32", None)),
                ("_saved_x2", ([[1.0, 5.0]], "float32", None)),
            ),
        ),
    ),
    "diagonal": (
        lambda T: _shown(_counting(T, 2, 3, 3).diagonal(-1, 1, -1)),
        (
            "DiagonalBackward0",
            (
                ("_saved_dim1", 1),
                ("_saved_dim2", _MINUS_1),
                ("_saved_offset", _MINUS_1),
                ("_saved_self_sym_sizes", (2, 3, 3)),
            ),
        ),
    ),
    "diag": (
        lambda T: _shown(T.diag(_counting(T, 3, 3), -2)),
        (
            "DiagonalBackward0_copy",
            (
                ("_saved_dim1", 0),
                ("_saved_dim2", 1),
                ("_saved_offset", _MINUS_2),
                ("_saved_self_sym_sizes", (3, 3)),
            ),
        ),
    ),
    "diagonal_copy": (
        lambda T: _shown(T.diagonal_copy(_counting(T, 3, 3), 1, -1, 0))[1][:3],
        (("_saved_dim1", _MINUS_1), ("_saved_dim2", 0), ("_saved_offset", 1)),
    ),
    "index_add_without_source_gradient": (
        lambda T: _shown(_counting(T, 3).index_add(-1, T.tensor([0, 2]), T.ones(2), alpha=2)),
        (
            "IndexAddBackward0",
            (
                ("_saved_alpha", 2),
                ("_saved_dim", _MINUS_1),
                ("_saved_index", None),
                ("_saved_source", None),
                ("_saved_source_dim", 1),
            ),
        ),
    ),
    "index_add_with_source_gradient": (
        lambda T: _shown(T.ones(3).index_add(0, T.tensor([2]), _counting(T, 1)))[1][2:4],
        (("_saved_index", ([2], "int64", None)), ("_saved_source", ([1.0], "float32", None))),
    ),
    "index_copy": (
        lambda T: _shown(_counting(T, 2, 2).index_copy(1, T.tensor([1]), T.ones(2, 1))),
        (
            "IndexCopyBackward0",
            (
                ("_saved_dim", 1),
                ("_saved_index", ([1], "int64", None)),
                ("_saved_source", None),
                ("_saved_source_dim", 2),
            ),
        ),
    ),
    "index_fill": (
        lambda T: _shown(_counting(T, 2, 2).index_fill(-2, T.tensor([0]), 5.0)),
        ("IndexFillBackward0", (("_saved_dim", _MINUS_2), ("_saved_index", ([0], "int64", None)))),
    ),
    "index_fill_tensor": (
        lambda T: _shown(_counting(T, 2).index_fill(0, T.tensor([1]), T.tensor(5.0)))[0],
        "IndexFillBackward1",
    ),
    "index_fill_int32_index": (
        lambda T: T.ones(3).index_fill(0, T.tensor([0], dtype=T.int32), 1.0),
        ("raises", "IndexError"),
    ),
    "index_copy_int32_index": (
        lambda T: T.ones(3).index_copy(0, T.tensor([0], dtype=T.int32), T.ones(1)),
        ("raises", "RuntimeError"),
    ),
    "index_add_int32_index": (
        lambda T: T.ones(2).index_add(0, T.tensor([1], dtype=T.int32), T.ones(1)),
        ([1.0, 2.0], "float32", None),
    ),
}


def _source_changed(op, requires_grad):
    """The gradient of an index op whose source changed in place before the backward."""

    def run(T):
        x = T.ones(3, 2, requires_grad=True)
        s = T.ones(2, 2, requires_grad=requires_grad)
        source = s * 1 if requires_grad else s
        y = getattr(x * 1, op)(0, T.tensor([0, 2]), source)
        source.mul_(2)
        y.sum().backward()
        return x.grad

    return run


for _op in ("index_add", "index_copy"):
    CASES[f"{_op}_source_changed"] = (_source_changed(_op, True), ("raises", "RuntimeError"))
    CASES[f"{_op}_source_changed_without_gradient"] = (
        _source_changed(_op, False),
        (
            [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
            if _op == "index_add"
            else [[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]],
            "float32",
            None,
        ),
    )

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
