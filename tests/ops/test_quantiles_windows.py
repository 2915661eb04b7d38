"""quantile, Tensor.unfold, logit, heaviside, gcd and lcm."""

import numpy as np
import pytest

import symgrad


def test_plain_values():
    x = symgrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    q = symgrad.quantile(x, 0.5)
    assert q.item() == 2.5
    q.backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0]
    m = symgrad.tensor([[0.0, 4.0], [2.0, 8.0]])
    assert m.quantile(symgrad.tensor([0.25, 0.5]), dim=1).tolist() == [[1.0, 3.5], [2.0, 5.0]]
    assert m.quantile(0.5, dim=0, keepdim=True).shape == (1, 2)
    assert symgrad.tensor([1.0, 2.0, 3.0]).quantile(0.25, interpolation="higher").item() == 2.0
    with pytest.raises(RuntimeError):
        symgrad.tensor([1, 2]).quantile(0.5)
    with pytest.raises(RuntimeError):
        m.quantile(1.5)
    w = symgrad.arange(6.0, requires_grad=True)
    win = w.unfold(0, 3, 1)
    assert win.tolist() == [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]]
    win.sum().backward()
    assert w.grad.tolist() == [1.0, 2.0, 3.0, 3.0, 2.0, 1.0]
    assert symgrad.ones(2, 3, 4).unfold(1, 2, 1).shape == (2, 2, 4, 2)
    with pytest.raises(RuntimeError):
        w.unfold(0, 7, 1)
    assert symgrad.logit(symgrad.tensor([0.5])).tolist() == [0.0]
    assert symgrad.heaviside(symgrad.tensor([-1.0, 0.0, 2.0]), symgrad.tensor(0.5)).tolist() == [
        0,
        0.5,
        1,
    ]
    assert symgrad.tensor([12, 9]).gcd(symgrad.tensor([8, 6])).tolist() == [4, 3]
    assert symgrad.tensor([4, 6]).lcm(symgrad.tensor([6, 4])).tolist() == [12, 12]


def test_against_torch():
    torch = pytest.importorskip("torch")
    data = np.random.RandomState(0).randn(3, 7)
    cases = [{}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": 1, "interpolation": "nearest"}]
    cases += [{"dim": 1, "interpolation": "midpoint"}, {"dim": -1, "interpolation": "lower"}]
    for kw in cases:
        for q in (0.3, [0.1, 0.5, 0.95]):
            ours = symgrad.tensor(data).quantile(
                symgrad.tensor(q, dtype=symgrad.float64) if isinstance(q, list) else q, **kw
            )
            theirs = torch.tensor(data).quantile(
                torch.tensor(q, dtype=torch.float64) if isinstance(q, list) else q, **kw
            )
            assert np.allclose(ours.numpy(), theirs.numpy())
    x, y = symgrad.arange(24.0).view(2, 3, 4), torch.arange(24.0).view(2, 3, 4)
    for args in [(2, 2, 1), (1, 2, 1), (0, 1, 1), (-1, 3, 2)]:
        assert np.array_equal(x.unfold(*args).numpy(), y.unfold(*args).numpy())
