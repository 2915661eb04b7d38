"""symgrad.special: PyTorch's torch.special names."""

import math

import numpy as np
import pytest

import symgrad

X = [0.0, 0.3, -1.2, 2.0]
P = [0.1, 0.5, 0.9]


def test_plain_values():
    sp = symgrad.special
    assert sp.expit(symgrad.tensor([0.0])).tolist() == [0.5]
    assert sp.logit(symgrad.tensor([0.5])).tolist() == [0.0]
    assert sp.logit(symgrad.tensor([0.0]), eps=0.25).item() == pytest.approx(math.log(1 / 3))
    assert sp.ndtr(symgrad.tensor([0.0])).tolist() == [0.5]
    assert sp.ndtri(symgrad.tensor([0.5])).tolist() == [0.0]
    assert sp.entr(symgrad.tensor([0.0, 1.0, -1.0])).tolist() == [0.0, -0.0, -math.inf]
    assert sp.xlog1py(symgrad.tensor([0.0, 2.0]), symgrad.tensor([-1.0, 1.0])).tolist()[0] == 0
    assert sp.gammaln is symgrad.lgamma and sp.psi is symgrad.digamma
    x = symgrad.tensor([0.5], requires_grad=True)
    sp.ndtr(x).sum().backward()
    assert x.grad.item() == pytest.approx(math.exp(-0.125) / math.sqrt(2 * math.pi))


@pytest.mark.parametrize(
    "name",
    [
        "expit",
        "erf",
        "erfc",
        "gammaln",
        "digamma",
        "ndtr",
        "entr",
        "log_ndtr",
        "logit",
        "ndtri",
        "expm1",
        "sinc",
    ],
)
def test_against_torch(name):
    torch = pytest.importorskip("torch")
    data = P if name in ("logit", "ndtri") else X
    ours = getattr(symgrad.special, name)(symgrad.tensor(data)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(data)).numpy()
    assert np.allclose(ours, theirs, equal_nan=True)
