"""The benchmark cases: one forward+backward step each, in three spellings.

Every case gives
- ``inputs(rng)``: NumPy arrays, split into ``params`` (differentiated) and ``consts``;
- ``numpy_step(p, c)``: hand-written NumPy forward and backward, returning the gradients;
- ``torchlike_step(T, F, p, c)``: the PyTorch-API program (run by symgrad and by PyTorch),
  which calls ``backward`` itself;
- ``functional_loss(xp, p, c)``: the same function for gradient-of-a-function libraries (HIPS
  autograd, JAX), with ``xp`` their NumPy namespace.
All three compute the same gradients; ``run.py`` checks that before timing anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from _training import (
    adam_numpy_step,
    adam_torchlike_step,
    epoch_numpy_step,
    epoch_torchlike_step,
)

__all__ = ["Case", "CASES"]


@dataclass(frozen=True)
class Case:
    """One benchmark: what it computes, its targets and its three implementations."""

    key: str
    label: str  # a short name for the targets table
    title: str
    inputs: Callable[[np.random.Generator], tuple[dict, dict]]
    numpy_step: Callable[[dict, dict], dict]
    torchlike_step: Callable
    # the output whose backward the step takes, with the upstream gradient ``upstream``
    # names among the consts (None: a scalar), for symgrad.compile
    torchlike_loss: Callable | None
    functional_loss: Callable | None  # None: the functional peers sit the case out
    # the targets set for this case, by implementation: a ratio to NumPy's time, or with
    # ``ops`` given, microseconds per op
    targets: dict = field(default_factory=dict)
    ops: int | None = None  # ops in the graph, for a per-op time
    rtol: float = 1e-5  # gradient agreement with the NumPy reference
    atol: float = 1e-6
    upstream: str | None = None


# -- 1. the tutorial's one-layer network ----------------------------------------------------------


def _one_layer_inputs(rng: np.random.Generator) -> tuple[dict, dict]:
    params = {
        "w": rng.standard_normal((5, 3)).astype(np.float32),
        "b": rng.standard_normal(3).astype(np.float32),
    }
    consts = {"x": np.ones(5, np.float32), "y": np.zeros(3, np.float32)}
    return params, consts


def _one_layer_numpy(p: dict, c: dict) -> dict:
    x, y, w, b = c["x"], c["y"], p["w"], p["b"]
    z = x @ w + b
    # exp of a non-positive number only: stable for any logit, shared by loss and gradient
    e = np.exp(-np.abs(z))
    loss = np.mean(np.maximum(z, 0) - z * y + np.log1p(e))
    sigmoid = np.where(z >= 0, 1, e) / (1 + e)
    dz = (sigmoid - y) / z.size
    return {"loss": loss, "w": np.outer(x, dz), "b": dz}


def _one_layer_torchlike(T, F, p: dict, c: dict):
    z = T.matmul(c["x"], p["w"]) + p["b"]
    return F.binary_cross_entropy_with_logits(z, c["y"])


def _one_layer_functional(xp, p: dict, c: dict):
    z = xp.dot(c["x"], p["w"]) + p["b"]
    return xp.mean(xp.maximum(z, 0) - z * c["y"] + xp.log1p(xp.exp(-xp.abs(z))))


# -- 2. a chain of 300 ops on one element ---------------------------------------------------------
# One cycle is six ops: mul by the input (a two-input op, so the input's gradient is summed from
# every cycle), add, sin, tanh, exp, mul by a constant; sin and tanh keep the values bounded.
_CYCLES = 50
_OPS_PER_CYCLE = 6


def _chain_inputs(rng: np.random.Generator) -> tuple[dict, dict]:
    return {"x": np.array([0.5])}, {}


def _chain_numpy(p: dict, c: dict) -> dict:
    x = p["x"]
    y, tape = x, []
    for _ in range(_CYCLES):
        y_in = y
        a = y * x + 0.1
        t = np.tanh(np.sin(a))
        e = np.exp(t)
        y = e * 0.5
        tape.append((y_in, a, t, e))
    g, gx = np.ones_like(x), np.zeros_like(x)
    for y_in, a, t, e in reversed(tape):
        g = g * 0.5 * e * (1 - t * t) * np.cos(a)
        gx = gx + g * y_in
        g = g * x
    return {"loss": y, "x": gx + g}  # the chain starts at y = x: its gradient joins x's


def _chain_torchlike(T, F, p: dict, c: dict):
    x = p["x"]
    y = x
    for _ in range(_CYCLES):
        y = T.exp(T.tanh(T.sin(y * x + 0.1))) * 0.5
    return y


def _chain_functional(xp, p: dict, c: dict):
    x = p["x"]
    y = x
    for _ in range(_CYCLES):
        y = xp.exp(xp.tanh(xp.sin(y * x + 0.1))) * 0.5
    return xp.sum(y)


# -- 3. an MLP 784-128-10, batch 64 ----------------------------------------------------------------


def _mlp_inputs(rng: np.random.Generator) -> tuple[dict, dict]:
    def uniform(shape: tuple, fan_in: int) -> np.ndarray:
        bound = 1 / np.sqrt(fan_in)  # nn.Linear's initialisation
        return rng.uniform(-bound, bound, shape).astype(np.float32)

    params = {
        "w1": uniform((128, 784), 784),
        "b1": uniform((128,), 784),
        "w2": uniform((10, 128), 128),
        "b2": uniform((10,), 128),
    }
    consts = {
        "x": rng.standard_normal((64, 784)).astype(np.float32),
        "labels": rng.integers(0, 10, 64).astype(np.int64),
    }
    return params, consts


def _mlp_numpy(p: dict, c: dict) -> dict:
    x, labels = c["x"], c["labels"]
    n, rows = len(labels), np.arange(len(labels))
    a = x @ p["w1"].T + p["b1"]
    h = np.maximum(a, 0)
    z = h @ p["w2"].T + p["b2"]
    shifted = z - z.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -logp[rows, labels].mean()
    dz = np.exp(logp)
    dz[rows, labels] -= 1
    dz /= n
    dh = dz @ p["w2"]
    da = dh * (a > 0)
    return {
        "loss": loss,
        "w1": da.T @ x,
        "b1": da.sum(axis=0),
        "w2": dz.T @ h,
        "b2": dz.sum(axis=0),
    }


def _mlp_torchlike(T, F, p: dict, c: dict):
    h = F.relu(F.linear(c["x"], p["w1"], p["b1"]))
    return F.cross_entropy(F.linear(h, p["w2"], p["b2"]), c["labels"])


def _mlp_functional(xp, p: dict, c: dict):
    h = xp.maximum(xp.dot(c["x"], p["w1"].T) + p["b1"], 0)
    z = xp.dot(h, p["w2"].T) + p["b2"]
    shifted = z - xp.max(z, axis=1, keepdims=True)
    logp = shifted - xp.log(xp.sum(xp.exp(shifted), axis=1, keepdims=True))
    return -xp.mean(logp[np.arange(len(c["labels"])), c["labels"]])


def _epoch_inputs(rng: np.random.Generator) -> tuple[dict, dict]:
    params, consts = _mlp_inputs(rng)
    consts["x"] = rng.standard_normal((1024, 784)).astype(np.float32)
    consts["labels"] = rng.integers(0, 10, 1024).astype(np.int64)
    return params, consts


# -- 4. an element-wise formula on 10^6 values ----------------------------------------------------


def _elementwise_inputs(rng: np.random.Generator) -> tuple[dict, dict]:
    return {"x": rng.standard_normal(10**6)}, {}


def _elementwise_numpy(p: dict, c: dict) -> dict:
    x = p["x"]
    s, e, t = np.sin(x), np.exp(-x * x), np.tanh(x)
    loss = (s * e + t).sum()
    return {"loss": loss, "x": (np.cos(x) - 2 * x * s) * e + (1 - t * t)}


def _elementwise_torchlike(T, F, p: dict, c: dict):
    x = p["x"]
    return (T.sin(x) * T.exp(-x * x) + T.tanh(x)).sum()


def _elementwise_functional(xp, p: dict, c: dict):
    x = p["x"]
    return xp.sum(xp.sin(x) * xp.exp(-x * x) + xp.tanh(x))


# -- 5. a 1024x1024 matmul with a given upstream gradient ------------------------------------------


def _matmul_inputs(rng: np.random.Generator) -> tuple[dict, dict]:
    def normal() -> np.ndarray:
        return rng.standard_normal((1024, 1024)).astype(np.float32)

    return {"a": normal(), "b": normal()}, {"g": normal()}


def _matmul_numpy(p: dict, c: dict) -> dict:
    out = p["a"] @ p["b"]
    return {"loss": out, "a": c["g"] @ p["b"].T, "b": p["a"].T @ c["g"]}


def _matmul_torchlike(T, F, p: dict, c: dict):
    return p["a"] @ p["b"]


def _matmul_functional(xp, p: dict, c: dict):
    # the same VJP through a scalar: one extra element-wise pass, small next to the products
    return xp.sum(xp.dot(p["a"], p["b"]) * c["g"])


# -- 6. a 3x3 convolution, padding 1, with a given upstream gradient ------------------------------


def _conv_inputs(rng: np.random.Generator) -> tuple[dict, dict]:
    def normal(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    return {"x": normal(8, 3, 32, 32), "w": normal(16, 3, 3, 3), "b": normal(16)}, {
        "g": normal(8, 16, 32, 32)
    }


def _conv_numpy(p: dict, c: dict) -> dict:
    """im2col by hand: the windows of the padded input as one (27, 8192) matrix."""
    x, w, g = p["x"], p["w"], c["g"]
    n, ch, h, wd = x.shape
    o = w.shape[0]
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    view = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))
    cols = view.transpose(1, 4, 5, 0, 2, 3).reshape(ch * 9, n * h * wd)
    out = (w.reshape(o, -1) @ cols).reshape(o, n, h, wd).transpose(1, 0, 2, 3) + p["b"][
        :, None, None
    ]
    g2 = g.transpose(1, 0, 2, 3).reshape(o, -1)
    gcols = (w.reshape(o, -1).T @ g2).reshape(ch, 3, 3, n, h, wd)
    gpad = np.zeros_like(padded)
    for i in range(3):
        for j in range(3):
            gpad[:, :, i : i + h, j : j + wd] += gcols[:, i, j].transpose(1, 0, 2, 3)
    return {
        "loss": out,
        "x": gpad[:, :, 1:-1, 1:-1],
        "w": (g2 @ cols.T).reshape(w.shape),
        "b": g.sum(axis=(0, 2, 3)),
    }


def _conv_torchlike(T, F, p: dict, c: dict):
    return F.conv2d(p["x"], p["w"], p["b"], padding=1)


def _backward(loss: Callable, upstream: str | None = None) -> Callable:
    """The training step of ``loss``: its output's backward (from ``c[upstream]``)."""

    def step(T, F, p: dict, c: dict) -> None:
        loss(T, F, p, c).backward(None if upstream is None else c[upstream])

    return step


CASES = [
    Case(
        key="one_layer",
        label="one-layer network",
        title="one-layer net 5->3, BCE-with-logits (f32)",
        inputs=_one_layer_inputs,
        numpy_step=_one_layer_numpy,
        torchlike_step=_backward(_one_layer_torchlike),
        torchlike_loss=_one_layer_torchlike,
        functional_loss=_one_layer_functional,
        targets={"symgrad": 4.0, "compiled": 1.5},
        rtol=1e-5,
        atol=1e-6,
    ),
    Case(
        key="chain",
        label="per-op overhead (chain)",
        title=f"{_CYCLES * _OPS_PER_CYCLE}-op chain on one element (f64)",
        inputs=_chain_inputs,
        numpy_step=_chain_numpy,
        torchlike_step=_backward(_chain_torchlike),
        torchlike_loss=_chain_torchlike,
        functional_loss=_chain_functional,
        ops=_CYCLES * _OPS_PER_CYCLE,
        targets={"symgrad": 6.0, "compiled": 1.5},
        rtol=1e-10,
        atol=1e-12,
    ),
    Case(
        key="mlp",
        label="MLP 784-128-10",
        title="MLP 784-128-10, batch 64, cross_entropy (f32)",
        inputs=_mlp_inputs,
        numpy_step=_mlp_numpy,
        torchlike_step=_backward(_mlp_torchlike),
        torchlike_loss=_mlp_torchlike,
        functional_loss=_mlp_functional,
        targets={"symgrad": 1.3, "compiled": 1.05},
        rtol=1e-4,
        atol=1e-6,
    ),
    Case(
        key="elementwise",
        label="element-wise, 10^6",
        title="(sin(x)*exp(-x*x) + tanh(x)).sum(), 10^6 (f64)",
        inputs=_elementwise_inputs,
        numpy_step=_elementwise_numpy,
        torchlike_step=_backward(_elementwise_torchlike),
        torchlike_loss=_elementwise_torchlike,
        functional_loss=_elementwise_functional,
        targets={"symgrad": 1.1, "compiled": 0.9, "compiled-numexpr": 0.5},
        rtol=1e-10,
        atol=1e-12,
    ),
    Case(
        key="matmul",
        label="matmul 1024x1024",
        title="1024x1024 matmul, given upstream grad (f32)",
        inputs=_matmul_inputs,
        numpy_step=_matmul_numpy,
        torchlike_step=_backward(_matmul_torchlike, "g"),
        torchlike_loss=_matmul_torchlike,
        functional_loss=_matmul_functional,
        # float32 sums of 1024 products, accumulated in different orders by each library
        targets={"symgrad": 1.05, "compiled": 1.0},
        rtol=1e-3,
        atol=1e-3,
        upstream="g",
    ),
    Case(
        key="conv2d",
        label="conv2d 3x3",
        title="conv2d 8x3x32x32 by 16x3x3x3, padding 1, given upstream grad (f32)",
        inputs=_conv_inputs,
        numpy_step=_conv_numpy,
        torchlike_step=_backward(_conv_torchlike, "g"),
        torchlike_loss=_conv_torchlike,
        functional_loss=None,
        rtol=1e-3,
        atol=1e-3,
        upstream="g",
    ),
    Case(
        key="adam_mlp",
        label="nn.Module MLP + Adam",
        title="MLP 784-128-10 as nn.Sequential, one optim.Adam training step, batch 64 (f32)",
        inputs=_mlp_inputs,
        numpy_step=lambda p, c: adam_numpy_step(_mlp_numpy, p, c),
        torchlike_step=adam_torchlike_step,
        torchlike_loss=None,
        functional_loss=None,
        rtol=1e-4,
        atol=1e-6,
    ),
    Case(
        key="epoch",
        label="DataLoader epoch + Adam",
        title="the MLP trained for one epoch of 1024 samples: DataLoader over a TensorDataset, "
        "batch 64, optim.Adam (f32)",
        inputs=_epoch_inputs,
        numpy_step=lambda p, c: epoch_numpy_step(_mlp_numpy, p, c),
        torchlike_step=epoch_torchlike_step,
        torchlike_loss=None,
        functional_loss=None,
        rtol=1e-3,
        atol=1e-5,
    ),
]
