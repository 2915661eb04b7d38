"""isclose/allclose/equal/count_nonzero, nansum/nanmean, var_mean/std_mean, aminmax, and
``symgrad.testing.assert_close`` with PyTorch's tolerances and messages (stored as PyTorch
2.13 prints them, and compared with PyTorch's when it is installed)."""

from __future__ import annotations

import importlib.util

import pytest

import symgrad

HAS_TORCH = importlib.util.find_spec("torch") is not None
NAN = float("nan")


def test_comparisons_and_counts():
    a, b = symgrad.tensor([1.0, NAN, 2.0]), symgrad.tensor([1.0 + 1e-9, NAN, 2.1])
    assert symgrad.isclose(a, b).tolist() == [True, False, False]
    assert symgrad.isclose(a, b, equal_nan=True).tolist() == [True, True, False]
    assert not symgrad.allclose(a, b) and symgrad.allclose(a[:1], b[:1])
    assert symgrad.equal(symgrad.tensor([1, 2]), symgrad.tensor([1, 2]))
    assert not symgrad.equal(symgrad.tensor([1, 2]), symgrad.tensor([[1, 2]]))
    assert symgrad.count_nonzero(symgrad.tensor([[0, 1], [2, 0]]), dim=0).tolist() == [1, 1]


def test_nan_reductions_and_their_gradients():
    x = symgrad.tensor([1.0, 2.0, NAN], requires_grad=True)
    s = symgrad.nansum(x)
    assert s.item() == 3.0 and s.grad_fn.name() == "NansumBackward0"
    s.backward()
    assert x.grad.tolist() == [1.0, 1.0, 0.0]
    x.grad = None
    m = x.nanmean()
    assert m.item() == 1.5
    m.backward()
    assert x.grad.tolist() == [0.5, 0.5, 0.0]


def test_pairs():
    x = symgrad.tensor([1.0, 2.0, 4.0])
    v, m = symgrad.var_mean(x)
    assert v.item() == pytest.approx(7 / 3) and m.item() == pytest.approx(7 / 3)
    s, m = symgrad.std_mean(x, 0, correction=0)
    assert s.item() == pytest.approx((14 / 9) ** 0.5)
    mm = symgrad.aminmax(x)
    assert (mm.min.item(), mm.max.item()) == (1.0, 4.0)
    assert repr(mm).startswith("symgrad.return_types.aminmax(\nmin=tensor(1.)")


CASES = {
    "float_scalars": (1.0, 1.1),
    "int_scalars": (1, 2),
    "nested": ([symgrad.tensor([1.0])], [symgrad.tensor([2.0])]),
    "mapping_0d": ({"a": symgrad.tensor(1.0)}, {"a": symgrad.tensor(2.0)}),
    "lengths": ([1, 2], [1, 2, 3]),
    "int_tensors": (symgrad.tensor([1, 2]), symgrad.tensor([1, 3])),
    "float_tensors": (symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 2.1])),
}
MESSAGES = {
    "float_scalars": (
        "Scalars are not close!\n"
        "\n"
        "Expected 1.1 but got 1.0.\n"
        "Absolute difference: 0.10000000000000009 (up to 1e-07 allowed)\n"
        "Relative difference: 0.09090909090909098 (up to 1e-07 allowed)"
    ),
    "int_scalars": (
        "Scalars are not equal!\n"
        "\n"
        "Expected 2 but got 1.\n"
        "Absolute difference: 1\n"
        "Relative difference: 0.5"
    ),
    "nested": (
        "Tensor-likes are not close!\n"
        "\n"
        "Mismatched elements: 1 / 1 (100.0%)\n"
        "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.5 at index (0,) (up to 1.3e-06 allowed)\n"
        "\n"
        "The failure occurred for item [0]"
    ),
    "mapping_0d": (
        "Scalars are not close!\n"
        "\n"
        "Expected 2.0 but got 1.0.\n"
        "Absolute difference: 1.0 (up to 1e-05 allowed)\n"
        "Relative difference: 0.5 (up to 1.3e-06 allowed)\n"
        "\n"
        "The failure occurred for item ['a']"
    ),
    "lengths": ("The length of the sequences mismatch: 2 != 3"),
    "int_tensors": (
        "Tensor-likes are not equal!\n"
        "\n"
        "Mismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 1 at index (1,)\n"
        "Greatest relative difference: 0.3333333432674408 at index (1,)"
    ),
    "float_tensors": (
        "Tensor-likes are not close!\n"
        "\n"
        "Mismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 0.09999990463256836 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.04761900380253792 at index (1,) (up to 1.3e-06 allowed)"
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_assert_close_messages(case):
    actual, expected = CASES[case]
    with pytest.raises(AssertionError) as info:
        symgrad.testing.assert_close(actual, expected)
    assert str(info.value) == MESSAGES[case]


def _to_torch(value, torch):
    if isinstance(value, symgrad.Tensor):
        return torch.tensor(value.numpy())
    if isinstance(value, dict):
        return {k: _to_torch(v, torch) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_torch(v, torch) for v in value]
    return value


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("case", sorted(CASES))
def test_messages_are_torchs(case):
    import torch

    actual, expected = (_to_torch(v, torch) for v in CASES[case])
    with pytest.raises(AssertionError) as info:
        torch.testing.assert_close(actual, expected)
    assert str(info.value) == MESSAGES[case]


def test_assert_close_passes_tolerances_and_options():
    symgrad.testing.assert_close(symgrad.tensor([1.0]), symgrad.tensor([1.000001]))
    symgrad.testing.assert_close(symgrad.tensor([NAN]), symgrad.tensor([NAN]), equal_nan=True)
    symgrad.testing.assert_close(symgrad.tensor([1.0]), symgrad.tensor([1.5]), rtol=0.5, atol=0.0)
    with pytest.raises(AssertionError, match="^custom$"):
        symgrad.testing.assert_close(symgrad.ones(1), symgrad.ones(1) * 2, msg="custom")
    with pytest.raises(ValueError, match="must be either specified or omitted, but got no atol"):
        symgrad.testing.assert_close(symgrad.ones(1), symgrad.ones(1), rtol=1e-3)
    with pytest.raises(AssertionError, match="attribute 'dtype' do not match"):
        symgrad.testing.assert_close(symgrad.ones(1), symgrad.ones(1, dtype=symgrad.int64))
    symgrad.testing.assert_close(
        symgrad.ones(1), symgrad.ones(1, dtype=symgrad.float64), check_dtype=False
    )
    with pytest.raises(TypeError, match="No comparison pair"):
        symgrad.testing.assert_close(symgrad.ones(1), 1.0)
