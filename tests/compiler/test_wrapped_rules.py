"""Rules wrapped to record PyTorch's nodes of a gradient under create_graph (a convolution's
ConvolutionBackwardBackward0, pooling's and grid_sample's) keep their NumPy path in compiled
programs: the generated backward calls the rule (col2im by strided slices, the windows'
products) rather than writing out its vocabulary words (a loop of index_put per kernel
position, several times slower)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F

CASES = {
    "conv2d": lambda x, w: F.conv2d(x, w, padding=1),
    "avg_pool2d": lambda x, w: F.avg_pool2d(x, 2) * w.sum(),
    "grid_sample": lambda x, w: F.grid_sample(
        x, w[:1, :2].reshape(1, 3, 3, 2), align_corners=False
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_backward_calls_the_rule(name):
    rng = np.random.default_rng(0)
    x = symgrad.tensor(rng.standard_normal((1, 3, 6, 6)), requires_grad=True)
    w = symgrad.tensor(rng.standard_normal((4, 3, 3, 3)) / 3, requires_grad=True)
    fn = symgrad.compile(lambda x, w: CASES[name](x, w).sum(), fullgraph=True)
    fn(x, w).backward()
    compiled = (x.grad.clone(), w.grad.clone())
    x.grad = w.grad = None
    CASES[name](x, w).sum().backward()
    assert np.allclose(compiled[0].numpy(), x.grad.numpy())
    assert np.allclose(compiled[1].numpy(), w.grad.numpy())
    backward = fn.source.split("def backward")[1]
    assert "index_put" not in backward and "r = b" in backward
