"""The training cases: the MLP of case 3 as an ``nn.Module`` trained by ``optim.Adam``.

One call is one training step: ``zero_grad``, forward, ``backward``, ``Adam.step``; for the
epoch case, one pass of such steps over the batches a ``DataLoader`` reads from a
``TensorDataset`` (the NumPy reference gathers the same rows with an index array). symgrad and
PyTorch run the same program; the NumPy reference is the hand-written forward and backward of
case 3 and Adam's update written out. The gradients compared are those of the first step, from
the same starting weights. HIPS autograd and JAX have no ``nn.Module``/``optim``: they sit this
case out.
"""

from __future__ import annotations

import numpy as np

__all__ = ["adam_numpy_step", "adam_torchlike_step", "epoch_numpy_step", "epoch_torchlike_step"]

LR, BETAS, EPS = 1e-3, (0.9, 0.999), 1e-8
_STATE: dict = {}  # per implementation and inputs: the model, optimizer or NumPy copies


def adam_numpy_step(mlp_numpy, p: dict, c: dict) -> dict:
    """One step of the hand-written MLP with Adam on private copies of ``p``."""
    key = ("numpy", id(p))
    if key not in _STATE:
        weights = {k: v.copy() for k, v in p.items()}
        moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in p.items()}
        _STATE[key] = (weights, moments, [0])
    weights, moments, step = _STATE[key]
    grads = mlp_numpy(weights, c)
    step[0] += 1
    beta1, beta2 = BETAS
    for k, w in weights.items():
        g, (m, v) = grads[k], moments[k]
        m += (g - m) * (1 - beta1)
        v *= beta2
        v += g * (1 - beta2) * g
        denom = np.sqrt(v) / np.sqrt(1 - beta2 ** step[0]) + EPS
        w -= (LR / (1 - beta1 ** step[0])) * m / denom
    return grads


BATCH = 64


def epoch_numpy_step(mlp_numpy, p: dict, c: dict) -> dict:
    """One epoch of ``adam_numpy_step`` over batches of ``BATCH`` rows, in order (each batch
    gathered with an index array, as a loader copies its rows); the last batch's gradients."""
    x, labels = c["x"], c["labels"]
    order = np.arange(len(labels))
    for start in range(0, len(labels), BATCH):
        rows = order[start : start + BATCH]
        grads = adam_numpy_step(mlp_numpy, p, {"x": x[rows], "labels": labels[rows]})
    return grads


def epoch_torchlike_step(T, F, p: dict, c: dict) -> None:
    """One epoch of ``adam_torchlike_step`` over a ``DataLoader`` of ``BATCH`` samples of a
    ``TensorDataset`` of the inputs (in order: the gradients compared are the last batch's)."""
    key = (T.__name__, "loader", id(c))
    if key not in _STATE:
        dataset = T.utils.data.TensorDataset(c["x"], c["labels"])
        _STATE[key] = T.utils.data.DataLoader(dataset, batch_size=BATCH)
    for x, labels in _STATE[key]:
        adam_torchlike_step(T, F, p, {"x": x, "labels": labels})


def adam_torchlike_step(T, F, p: dict, c: dict) -> None:
    """One training step of ``Sequential(Linear, ReLU, Linear)`` with ``optim.Adam``; on the
    first call the model takes ``p``'s values and ``p`` is pointed at the model's parameters,
    so the gradient check reads the module's gradients."""
    key = (T.__name__, id(p))
    if key not in _STATE:
        model = T.nn.Sequential(T.nn.Linear(784, 128), T.nn.ReLU(), T.nn.Linear(128, 10))
        names = {"w1": "0.weight", "b1": "0.bias", "w2": "2.weight", "b2": "2.bias"}
        model.load_state_dict({names[k]: v.detach() for k, v in p.items()})
        parameters = dict(model.named_parameters())
        for k in list(p):
            p[k] = parameters[names[k]]
        _STATE[key] = (model, T.optim.Adam(model.parameters(), lr=LR, betas=BETAS, eps=EPS))
    model, optimizer = _STATE[key]
    optimizer.zero_grad()
    F.cross_entropy(model(c["x"]), c["labels"]).backward()
    optimizer.step()
