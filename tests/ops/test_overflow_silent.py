"""Values that overflow a narrow dtype become inf silently, as in PyTorch: float16 ops that
compute in float32 and round once, and running statistics, give no NumPy RuntimeWarning
("overflow encountered in cast"), which mixed-precision training (loss scaling looks for the
infs) would otherwise print at every step. Checked with warnings raised as errors; the values
are PyTorch's."""

from __future__ import annotations

import math
import warnings

import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])
INF = math.inf

CASES = {
    "mul": (lambda T, x: x * x, [INF, 4.0]),
    "add": (lambda T, x: x + x, [INF, 4.0]),
    "mul_number": (lambda T, x: x * 2, [INF, 4.0]),
    "square": (lambda T, x: T.square(x), [INF, 4.0]),
    "pow": (lambda T, x: x**3, [INF, 8.0]),
    "reciprocal": (lambda T, x: T.reciprocal(x * 1e-7)[1:], [INF]),  # 1 / 2.4e-7
    "outer": (lambda T, x: T.outer(x, x)[1], [INF, 4.0]),
    "rad2deg": (lambda T, x: T.rad2deg(x)[:1], [INF]),
    "hypot": (lambda T, x: T.hypot(x, x)[:1], [INF]),
}


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(CASES))
def test_half_overflow_is_silent(lib, name):
    fn, expected = CASES[name]
    x = lib.tensor([60000.0, 2.0], dtype=lib.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = fn(lib, x)
    assert out.dtype == lib.float16
    assert out.tolist() == expected


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_half_batch_norm_statistics_overflow_silently(lib):
    m = lib.nn.BatchNorm1d(3).half()
    x = lib.full((4, 3), 60000.0, dtype=lib.float16)
    x[0] = -60000.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m(x)
    assert m.running_mean.tolist() == [3000.0] * 3
    assert m.running_var.tolist() == [INF] * 3


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_float32_instance_norm_statistics_overflow_silently(lib):
    m = lib.nn.InstanceNorm1d(2, track_running_stats=True)
    x = lib.tensor([[[3e38, -3e38, 3e38], [1.0, 2.0, 3.0]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m(x)
    assert m.running_var.tolist()[0] == INF
    assert m.running_var.tolist()[1] == pytest.approx(1.0)


# A fill value is converted to the tensor's dtype with a range check: a finite number beyond a
# float16 or float32 range is PyTorch's RuntimeError (not a silent inf), except for PyTorch's
# one-element float16 fill. Arithmetic with such a number is not checked (inf).
FILLS = {
    "full_half": (lambda T: T.full((2,), 1e6, dtype=T.float16), "raises"),
    "full_half_rounds_down": (lambda T: T.full((2,), 65519.0, dtype=T.float16), "raises"),
    "full_half_max": (lambda T: T.full((2,), 65504.0, dtype=T.float16), [65504.0] * 2),
    "full_half_one_element": (lambda T: T.full((1,), 1e6, dtype=T.float16), [INF]),
    "full_float_one_element": (lambda T: T.full((1,), 1e300), "raises"),
    "full_inf": (lambda T: T.full((2,), -INF, dtype=T.float16), [-INF] * 2),
    "full_like": (lambda T: T.full_like(T.zeros(2, dtype=T.float16), 1e6), "raises"),
    "fill_": (lambda T: T.zeros(2).fill_(-1e300), "raises"),
    "fill_int_into_half": (lambda T: T.zeros(2, dtype=T.float16).fill_(100000), "raises"),
    "masked_fill": (
        lambda T: T.zeros(2, dtype=T.float16).masked_fill(T.tensor([True, False]), 1e6),
        "raises",
    ),
    "clamp": (lambda T: T.zeros(2, dtype=T.float16).clamp(min=1e6), "raises"),
    "clamp_in_range": (lambda T: T.zeros(2, dtype=T.float16).clamp(max=-3.0), [-3.0] * 2),
    "scatter": (lambda T: T.zeros(2, dtype=T.float16).scatter(0, T.tensor([0]), 1e6), "raises"),
    "index_fill": (
        lambda T: T.zeros(2, dtype=T.float16).index_fill(0, T.tensor([0]), 1e6),
        "raises",
    ),
    "threshold": (lambda T: T.nn.functional.threshold(T.zeros(2).half(), 0.5, 1e6), "raises"),
    "hardtanh": (lambda T: T.nn.functional.hardtanh(T.zeros(2).half(), -1e6, 1.0), "raises"),
    "linspace": (lambda T: T.linspace(0, 1e6, 3, dtype=T.float16), "raises"),
    "add_number": (lambda T: T.zeros(2, dtype=T.float16) + 1e6, [INF] * 2),
    "mask_setitem": (
        lambda T: T.zeros(2, dtype=T.float16).index_put_((T.tensor([0]),), T.tensor(1e6).half()),
        [INF, 0.0],
    ),
    "remainder": (lambda T: T.ones(2, dtype=T.float16).remainder(1e6), [1.0, 1.0]),
}


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(FILLS))
def test_fill_value_range(lib, name):
    fn, expected = FILLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if expected == "raises":
            with pytest.raises(RuntimeError, match="cannot be converted to type"):
                fn(lib)
        else:
            out = fn(lib)
            if out is not None:
                assert out.tolist() == expected


# PyTorch's values after two steps on a float16 parameter whose gradient's square overflows
ADAM_STEPS = {
    "Adam": [60000.0, 0.7998046875, -2.19921875],
    "AdamW": [59872.0, 0.7978515625, -2.1953125],
    "Adamax": [60000.0, 0.7998046875, -2.19921875],
    "Adagrad": [60000.0, 0.8291015625, -2.0],
}


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(ADAM_STEPS))
def test_half_optimizer_step_overflows_silently(lib, name):
    p = lib.nn.Parameter(lib.tensor([60000.0, 1.0, -2.0], dtype=lib.float16))
    opt = getattr(lib.optim, name)([p], lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            p.grad = lib.tensor([60000.0, 0.5, 300.0], dtype=lib.float16)
            opt.step()
    assert p.tolist() == ADAM_STEPS[name]


# A double becomes a half through a float, as PyTorch converts it: two roundings, which now and
# then differ from one (-957.7499999999 is -958, not -957.5; 2049.0000001 is 2048, not 2050)
DOUBLES = [-957.7499999999, 2049.0000001, 0.1, 1e-6]
HALVES = [-958.0, 2048.0, 0.0999755859375, 1.0132789611816406e-06]
CONVERSIONS = {
    "half": lambda T, x: x.half(),
    "to": lambda T, x: x.to(T.float16),
    "tensor": lambda T, x: T.tensor(DOUBLES, dtype=T.float16),
    "copy_": lambda T, x: T.zeros(4, dtype=T.float16).copy_(x),
    "setitem": lambda T, x: T.zeros(4, dtype=T.float16).index_copy(0, T.arange(4), x.half()),
    "add_": lambda T, x: T.zeros(4, dtype=T.float16).add_(x),
    "full": lambda T, x: T.cat([T.full((1,), v, dtype=T.float16) for v in DOUBLES]),
}


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_double_to_half_through_float(lib, name):
    x = lib.tensor(DOUBLES, dtype=lib.float64)
    assert CONVERSIONS[name](lib, x).tolist() == HALVES
