"""float32 powers rounded as PyTorch's loop over a tensor's elements rounds them (the C
library's ``powf``, whose result is the correctly rounded power): NumPy's own float32 power
is an ulp off for about one value in five. The oracle is the float64 power rounded once to
float32; with PyTorch installed, small tensors (its element-by-element loop) are compared bit
for bit."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

RNG = np.random.default_rng(7)
BASES = RNG.uniform(0.5, 2.0, 24).astype(np.float32)


def _rounded_power(x, e):
    return np.power(np.asarray(x, np.float64), np.asarray(e, np.float64)).astype(np.float32)


def test_a_tie_close_power_rounds_down_as_powf():
    # 1.0000059604644775 ** 0.75 = 1.00000447034502..., just below the float32 midpoint
    x = symgrad.tensor(1.0000059604644775)
    assert (x**0.75).item() == 1.0000044107437134
    assert x.pow(0.75).item() == 1.0000044107437134


@pytest.mark.parametrize("exponent", [0.75, 1.5, -0.3, 2.5, 0.1])
def test_number_exponent_is_the_rounded_double_power(exponent):
    got = (symgrad.tensor(BASES) ** exponent).numpy()
    np.testing.assert_array_equal(got, _rounded_power(BASES, exponent))
    assert got.dtype == np.float32


def test_tensor_exponent_and_number_base_are_rounded_doubles():
    exponents = RNG.uniform(-2.0, 2.0, 24).astype(np.float32)
    got = (symgrad.tensor(BASES) ** symgrad.tensor(exponents)).numpy()
    np.testing.assert_array_equal(got, _rounded_power(BASES, exponents))
    got = (1.7 ** symgrad.tensor(exponents)).numpy()
    np.testing.assert_array_equal(got, _rounded_power(np.float32(1.7), exponents))


def test_gradient_uses_the_same_power():
    x = symgrad.tensor(BASES, requires_grad=True)
    (x**0.75).sum().backward()
    want = (np.float32(0.75) * _rounded_power(BASES, -0.25)).astype(np.float32)
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_float64_and_float16_powers_are_unchanged():
    x64 = BASES.astype(np.float64)
    np.testing.assert_array_equal((symgrad.tensor(x64) ** 0.75).numpy(), x64**0.75)
    x16 = BASES.astype(np.float16)
    np.testing.assert_array_equal((symgrad.tensor(x16) ** 0.75).numpy(), x16 ** np.float16(0.75))


@pytest.mark.torch
@pytest.mark.parametrize("exponent", [0.75, 1.5, -0.3, 2.5, 0.1])
def test_small_tensors_match_torch_bit_for_bit(exponent):
    torch = pytest.importorskip("torch")
    got = (symgrad.tensor(BASES) ** exponent).numpy()
    want = np.array([(torch.tensor(float(b)) ** exponent).item() for b in BASES], np.float32)
    np.testing.assert_array_equal(got, want)
    got = (1.0000059604644775 * symgrad.tensor(BASES)) ** exponent
    want = (1.0000059604644775 * torch.tensor(BASES)) ** exponent
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.torch
def test_number_base_matches_torch_bit_for_bit():
    torch = pytest.importorskip("torch")
    exponents = RNG.uniform(-2.0, 2.0, 24).astype(np.float32)
    got = (1.7 ** symgrad.tensor(exponents)).numpy()
    np.testing.assert_array_equal(got, (1.7 ** torch.tensor(exponents)).numpy())
    assert (1e40 ** symgrad.tensor([0.5, -1.0])).tolist() == [float("inf"), 0.0]
    assert (1e40 ** torch.tensor([0.5, -1.0])).tolist() == [float("inf"), 0.0]
