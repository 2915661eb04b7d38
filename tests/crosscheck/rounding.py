"""Rounding: floor, ceil, round (with decimals), trunc/fix, frac and sign, at ties and steps, in
products, straight-through estimators and in place, and on integer tensors."""

from __future__ import annotations

from crosscheck.scenarios import DTYPE_CASES
from crosscheck.spec import PROGRAMS, F, Program, V, program

# halves (round's ties), integers (the steps of the others), and 0.295 and -0.575, which round
# to two decimals differently in float32 (0.29, -0.58) and float64 (0.3, -0.57)
TIES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.0, 2.0, 0.295, -0.575, 0.0]

_ROUNDING = {
    "floor": lambda T, x: T.floor(x),
    "ceil": lambda T, x: x.ceil(),
    "round": lambda T, x: T.round(x),
    "round_decimals": lambda T, x: x.round(decimals=2),
    "round_decimals_0": lambda T, x: T.round(x, decimals=0),
    "round_negative_decimals": lambda T, x: T.round(x * 40, decimals=-1),
    "trunc": lambda T, x: T.trunc(x),
    "fix": lambda T, x: x.fix(),
    "frac": lambda T, x: T.frac(x),
    "sign_at_ties": lambda T, x: T.sign(x),
}

for _name, _fn in _ROUNDING.items():
    PROGRAMS.append(Program(f"{_name}_at_ties", _fn, (V(TIES),), float32=True))
    PROGRAMS.append(
        Program(
            f"{_name}_times_input",
            lambda T, x, _fn=_fn: _fn(T, x) * x,
            (F(2, 3, lo=-3.0, hi=3.0),),
            second_order=True,
            float32=True,
        )
    )


@program(F(2, 3, lo=-3.0, hi=3.0), second_order=True, float32=True)
def straight_through_round(T, x):
    """The straight-through estimator: round's values, the identity's gradient."""
    return (x + (x.round() - x).detach()) * x


@program(F(2, 3, lo=-3.0, hi=3.0), second_order=True)
def frac_squared(T, x):
    return T.frac(x) ** 2 + T.floor(x) * T.ceil(x)


@program(V([float("inf"), -float("inf"), float("nan"), -0.4, -2.0, 0.0, -0.0, 2.5]))
def special_values(T, x):
    """inf, nan and signed zeros: frac(inf) is nan, sign(nan) is 0."""
    return (
        x.floor(),
        x.ceil(),
        x.round(),
        x.round(decimals=2),
        x.trunc(),
        x.frac(),
        x.sign(),
    )


@program(F(2, 3, lo=-3.0, hi=3.0), float32=True)
def rounding_in_place(T, x):
    y, z, w = x * 2, x * 3, x + 0.25
    y.floor_()
    z.round_(decimals=1)
    w.frac_()
    return y, z, w * w


@program(F(2, 3, lo=-3.0, hi=3.0))
def trunc_ceil_sign_in_place(T, x):
    y, z, w = x * 2, x * 3, x - 1
    y.trunc_()
    z.ceil_()
    w.sign_()
    return y * x, z, w


DTYPE_CASES.update(
    {
        "int_floor": lambda T: T.tensor([1, -2, 3]).floor(),
        "int_ceil": lambda T: T.ceil(T.tensor([1, -2, 3])),
        "int_round": lambda T: T.tensor([1, -2, 3]).round(),
        "int_trunc": lambda T: T.trunc(T.tensor([1, -2, 3])),
        "int_sign": lambda T: T.tensor([1, -2, 0]).sign(),
        "bool_sign": lambda T: T.tensor([True, False]).sign(),
        "float64_round_decimals": lambda T: T.tensor(
            [1.55, 2.675, -1.55, 0.125], dtype=T.float64
        ).round(decimals=2),
        "float16_round_decimals": lambda T: T.tensor([1.55, 2.5, 0.125], dtype=T.float16).round(
            decimals=2
        ),
    }
)
