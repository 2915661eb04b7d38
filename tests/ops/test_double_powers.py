"""float_power (in float64, PyTorch's ToCopy + Pow graph) and signbit."""

import pytest

import symgrad


def test_float_power_values_dtypes_and_graph():
    x = symgrad.tensor([1.5, -2.0], requires_grad=True)
    y = symgrad.float_power(x, 2)
    assert y.dtype == symgrad.float64 and y.tolist() == [2.25, 4.0]
    assert y.grad_fn.name() == "PowBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"
    y.sum().backward()
    assert x.grad.dtype == symgrad.float32 and x.grad.tolist() == [3.0, -4.0]
    assert symgrad.float_power(2, symgrad.tensor([1, 2])).tolist() == [2.0, 4.0]
    assert symgrad.float_power(2.0, x).grad_fn.name() == "PowBackward2"
    assert x.float_power(symgrad.tensor([2.0, 1.0])).grad_fn.name() == "PowBackward1"
    d = symgrad.tensor([3.0], dtype=symgrad.float64)
    assert d.float_power_(2).tolist() == [9.0]
    with pytest.raises(RuntimeError, match="float_power_ has dtype Float"):
        symgrad.tensor([1.0]).float_power_(2)


def test_signbit():
    assert symgrad.signbit(symgrad.tensor([-0.0, 1.0, -1.0])).tolist() == [True, False, True]
    assert symgrad.tensor([-1, 2]).signbit().tolist() == [True, False]


def test_matches_torch():
    torch = pytest.importorskip("torch")
    ours = symgrad.float_power(symgrad.tensor([2.0, 3.0]), symgrad.tensor([0.5, -1.0]))
    theirs = torch.float_power(torch.tensor([2.0, 3.0]), torch.tensor([0.5, -1.0]))
    assert ours.tolist() == theirs.tolist()
    values = [-0.0, 0.0, -3.5, float("inf"), float("-inf")]
    assert (
        symgrad.signbit(symgrad.tensor(values)).tolist()
        == torch.signbit(torch.tensor(values)).tolist()
    )
