"""Examples for Tensor methods whose docstrings come from one template each (the in-place
forms, the conversions) or are shared with a function of another signature (``symgrad.mul``
is ``Tensor.mul``): each gets a short ``Examples`` section once, when :mod:`symgrad.ops` is
imported, and ``tests/ops/test_method_examples.py`` runs them all as doctests.

An in-place method without an example of its own gets one comparing it with its out-of-place
op: ``x.name_(args)`` returns ``x``, holding ``x.name(args)``.
"""

from __future__ import annotations

from typing import Any

from symgrad.ops.method_example_calls import BOOLS as _BOOLS
from symgrad.ops.method_example_calls import CALLS as _CALLS
from symgrad.ops.method_example_calls import INTS as _INTS
from symgrad.ops.method_example_calls import MATRIX as _MATRIX
from symgrad.ops.method_example_calls import X as _X

__all__ = ["add_examples"]

# the arguments of in-place methods compared with their out-of-place ops
_IN_PLACE_ARGS = {
    "clamp_max_": "0.5",
    "clamp_min_": "0.5",
    "clamp_": "0.3, 0.6",
    "clip_": "0.3, 0.6",
    "copysign_": "-1.0",
    "cumprod_": "0",
    "cumsum_": "0",
    "index_add_": "0, symgrad.tensor([1]), symgrad.tensor([2.0])",
    "index_copy_": "0, symgrad.tensor([1]), symgrad.tensor([2.0])",
    "index_fill_": "0, symgrad.tensor([1]), 2.0",
    "lerp_": "symgrad.tensor([1.0, 1.0]), 0.5",
    "scatter_": "0, symgrad.tensor([1, 0]), symgrad.tensor([2.0, 3.0])",
    "scatter_add_": "0, symgrad.tensor([1, 0]), symgrad.tensor([2.0, 3.0])",
    "scatter_reduce_": "0, symgrad.tensor([1, 0]), symgrad.tensor([2.0, 3.0]), 'sum'",
    "pow_": "2",
    "add_": "2.0",
    "sub_": "2.0",
    "mul_": "2.0",
    "div_": "2.0",
    "true_divide_": "2.0",
    "heaviside_": "symgrad.tensor(0.5)",
    "fmod_": "0.5",
    "remainder_": "0.5",
    "floor_divide_": "0.5",
    "masked_fill_": "symgrad.tensor([True, False]), 0.0",
    "atan2_": "symgrad.tensor([1.0, 1.0])",
    "arctan2_": "symgrad.tensor([1.0, 1.0])",
    "hypot_": "symgrad.tensor([1.0, 1.0])",
    "xlogy_": "2.0",
    "igamma_": "symgrad.tensor([1.0, 1.0])",
    "igammac_": "symgrad.tensor([1.0, 1.0])",
    "polygamma_": "1",
    "mvlgamma_": "1",
    "addcmul_": "symgrad.tensor([2.0, 2.0]), symgrad.tensor([3.0, 3.0])",
    "addcdiv_": "symgrad.tensor([2.0, 2.0]), symgrad.tensor([4.0, 4.0])",
    "bitwise_and_": "6",
    "bitwise_or_": "6",
    "bitwise_xor_": "6",
    "bitwise_left_shift_": "1",
    "bitwise_right_shift_": "1",
    "logical_and_": "symgrad.tensor([True, True])",
    "logical_or_": "symgrad.tensor([False, False])",
    "logical_xor_": "symgrad.tensor([True, True])",
}
_SET_UP = {"tril_": _MATRIX, "triu_": _MATRIX}
_SET_UP.update(dict.fromkeys(("bitwise_and_", "bitwise_or_", "bitwise_xor_"), _INTS))
_SET_UP.update(dict.fromkeys(("bitwise_left_shift_", "bitwise_right_shift_"), _INTS))
_SET_UP.update(dict.fromkeys(("logical_and_", "logical_or_", "logical_xor_"), _BOOLS))


def _section(set_up: str, call: str, shown: str) -> str:
    lines = ["", "Examples", "--------", ">>> import symgrad"]
    lines += [f">>> {statement}" for statement in set_up.split("; ")]
    lines.append(f">>> {call}")
    lines += shown.split("\n")
    return "\n".join(lines) + "\n"


def _in_place(name: str) -> tuple:
    """An example comparing ``x.name(args)`` with the out-of-place op."""
    args = _IN_PLACE_ARGS.get(name, "")
    set_up = _SET_UP.get(name, _X)
    same = "symgrad.allclose" if set_up in (_X, _MATRIX) else "symgrad.equal"
    nan = ", equal_nan=True" if same == "symgrad.allclose" else ""
    set_up += f"; expected = x.{name[:-1]}({args}).to(x.dtype)"  # in place: x's dtype
    return set_up, f"x.{name}({args}) is x, {same}(x, expected{nan})", "(True, True)"


def _example(cls: type, name: str) -> tuple | None:
    if name in _CALLS:
        return _CALLS[name]
    if name.endswith("_") and callable(getattr(cls, name[:-1], None)):
        return _in_place(name)
    return None


def add_examples(cls: Any) -> None:
    """Give each public method and property of ``cls`` lacking an example the one above."""
    for name in dir(cls):
        if name.startswith("_"):
            continue
        member = cls.__dict__.get(name)
        target = member if isinstance(member, property) else getattr(cls, name)
        doc = getattr(target, "__doc__", None) or ""
        example = _example(cls, name)
        if ">>>" in doc or example is None:
            continue
        try:
            target.__doc__ = (doc.rstrip() or f"``Tensor.{name}``.") + "\n" + _section(*example)
        except (AttributeError, TypeError):  # a builtin's docstring is fixed
            continue
