"""Forward mode through the eps clamps of ``cosine_similarity`` and ``gaussian_nll_loss``:
PyTorch clamps a norm or the variance in place under ``no_grad``, which backward never sees
(the gradient passes through) but forward mode does: the clamped elements' tangents are 0."""

from __future__ import annotations

import pytest

import symgrad


def _tangents(T):
    fw, F = T.autograd.forward_ad, T.nn.functional
    f64 = T.float64
    x = T.tensor([[1.0, 2.0, -1.0]], dtype=f64) * 1e-10  # a norm below eps: clamped
    y = T.tensor([[0.5, -1.0, 2.0]], dtype=f64)
    var = T.tensor([2e-9, 0.5], dtype=f64)  # the first variance below eps: clamped
    with fw.dual_level():
        cos = F.cosine_similarity(fw.make_dual(x, T.tensor([[1.0, 0.0, 3.0]], dtype=f64)), y)
        nll = F.gaussian_nll_loss(
            T.tensor([0.1, 0.2], dtype=f64),
            T.zeros(2, dtype=f64),
            fw.make_dual(var, T.ones(2, dtype=f64)),
        )
        return fw.unpack_dual(cos).tangent.item(), fw.unpack_dual(nll).tangent.item()


def test_clamped_elements_have_no_tangent():
    cos, nll = _tangents(symgrad)
    assert cos == pytest.approx(283683257.3067901, rel=1e-12)
    assert nll == pytest.approx(0.46, rel=1e-12)  # only the unclamped variance's term


@pytest.mark.torch
def test_clamped_tangents_are_pytorchs():
    torch = pytest.importorskip("torch")
    assert _tangents(symgrad) == pytest.approx(_tangents(torch), rel=1e-12)
