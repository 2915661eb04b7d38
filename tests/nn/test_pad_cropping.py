"""Negative pads of ``F.pad``'s reflect, replicate and circular modes as PyTorch 2.13 takes
them: a 1-d reflect or replicate pad keeps at least one element, the others crop down to an
empty dimension at most; cropping past it raises.

Each case is reduced to plain data (values, dtype, grad_fn name, or the exception's type),
checked for symgrad always and for PyTorch when it is installed."""

from __future__ import annotations

from _torch_table import table_tests


def _pad(shape, pad, mode):
    return lambda T: T.nn.functional.pad(T.ones(shape), pad, mode=mode).shape


CASES = {
    **{
        f"{mode}_1d_cropped_to_nothing": (
            _pad((1, 3, 4), (-2, -2), mode),
            ("raises", "RuntimeError"),
        )
        for mode in ("reflect", "replicate")
    },
    **{
        f"{mode}_1d_cropped_past_nothing": (_pad((3, 4), (-5, 1), mode), ("raises", "RuntimeError"))
        for mode in ("reflect", "replicate")
    },
    "reflect_1d_cropped_to_one": (_pad((1, 3, 4), (-2, -1), "reflect"), (1, 3, 1)),
    **{
        f"{mode}_2d_cropped_to_nothing": (_pad((2, 3, 4, 5), (0, 0, -2, -2), mode), (2, 3, 0, 5))
        for mode in ("reflect", "replicate", "circular")
    },
    **{
        f"{mode}_{n}d_cropped_past_nothing": (
            _pad((1, 1, 1, 3, 4)[-(n + 2) :], (-3, -3) + (0, 0) * (n - 1), mode),
            ("raises", "RuntimeError"),
        )
        for mode in ("reflect", "replicate", "circular")
        for n in (2, 3)
    },
    "circular_1d_cropped_to_nothing": (_pad((1, 3, 4), (-4, 0), "circular"), (1, 3, 0)),
    "circular_1d_cropped_past_nothing": (
        _pad((1, 3, 4), (-3, -3), "circular"),
        ("raises", "RuntimeError"),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
