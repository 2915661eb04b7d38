"""Per-sample gradients, ``vmap(grad(loss), in_dims=(None, 0, 0))``, side by side.

Usage::

    python benchmarks/per_sample.py              # 15 rounds
    python benchmarks/per_sample.py --rounds 5
    python benchmarks/per_sample.py --model bag  # embedding, max over tokens, cross-entropy

The model is an MLP 20-64-1 (tanh) with a mean-squared-error loss, batch 64, float32; or, with
``--model bag``, a bag-of-tokens classifier: each sample's 12 tokens looked up in an embedding
table 100 x 32, the maximum over the tokens, a linear layer to 10 classes and cross-entropy
(per-sample index tensors: the embedding's rows and the maximum's positions differ per sample;
no JAX row). Rows:
hand-written NumPy (the per-sample backward written out, the reference), symgrad's batched
``vmap`` (one pass through the batching rules), symgrad's per-element loop (what ``vmap`` falls
back to), ``torch.func.vmap`` and ``jax.vmap`` (compiled with ``jit``) when installed. Every
row's gradients are first checked against NumPy's; then all rows are timed in interleaved
rounds, and each is reported by its median time and its paired ratio to NumPy (median and
interquartile range), at the libraries' default thread settings.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import Settings, time_side_by_side  # noqa: E402

import symgrad  # noqa: E402

BATCH, IN, HIDDEN = 64, 20, 64


def make_data(seed: int = 0) -> tuple[dict, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    params = {
        "w1": rng.standard_normal((HIDDEN, IN)) / np.sqrt(IN),
        "b1": rng.standard_normal(HIDDEN) * 0.1,
        "w2": rng.standard_normal((1, HIDDEN)) / np.sqrt(HIDDEN),
        "b2": rng.standard_normal(1) * 0.1,
    }
    params = {k: v.astype(np.float32) for k, v in params.items()}
    x = rng.standard_normal((BATCH, IN)).astype(np.float32)
    y = rng.standard_normal(BATCH).astype(np.float32)
    return params, x, y


def numpy_per_sample(p: dict, x: np.ndarray, y: np.ndarray) -> dict:
    h = np.tanh(x @ p["w1"].T + p["b1"])  # (B, H)
    out = h @ p["w2"][0] + p["b2"][0]  # (B,)
    g_out = 2 * (out - y)  # d (out - y)^2 / d out, per sample
    g_h = g_out[:, None] * p["w2"][0] * (1 - h * h)  # (B, H)
    return {
        "w1": g_h[:, :, None] * x[:, None, :],
        "b1": g_h,
        "w2": (g_out[:, None] * h)[:, None, :],
        "b2": g_out[:, None],
    }


def torchlike(T: object, params: dict, x: np.ndarray, y: np.ndarray, loop: bool = False):
    names = {"w1": "0.weight", "b1": "0.bias", "w2": "2.weight", "b2": "2.bias"}
    model = T.nn.Sequential(T.nn.Linear(IN, HIDDEN), T.nn.Tanh(), T.nn.Linear(HIDDEN, 1))
    p = {names[k]: T.from_numpy(v.copy()) for k, v in params.items()}
    xs, ys = T.from_numpy(x.copy()), T.from_numpy(y.copy())

    def loss(p: dict, x: object, y: object) -> object:
        out = T.func.functional_call(model, p, (x.unsqueeze(0),))
        return T.nn.functional.mse_loss(out.squeeze(), y)

    per_sample = T.func.vmap(T.func.grad(loss), in_dims=(None, 0, 0))
    vmap_module = importlib.import_module("symgrad.func.vmap") if loop else None

    def step() -> dict:
        if not loop:
            return per_sample(p, xs, ys)
        saved = vmap_module._batched_run
        vmap_module._batched_run = lambda *args, **kwargs: vmap_module._LOOP
        try:
            return per_sample(p, xs, ys)
        finally:
            vmap_module._batched_run = saved

    def gradients() -> dict:
        found = step()
        return {k: found[names[k]].detach().numpy() for k in params}

    return step, gradients


def jax_rows(params: dict, x: np.ndarray, y: np.ndarray):
    import jax
    import jax.numpy as jnp

    def loss(p: dict, x: object, y: object) -> object:
        h = jnp.tanh(p["w1"] @ x + p["b1"])
        return (p["w2"][0] @ h + p["b2"][0] - y) ** 2

    per_sample = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
    p = {k: jnp.asarray(v) for k, v in params.items()}
    xs, ys = jnp.asarray(x), jnp.asarray(y)

    def step() -> object:
        return jax.block_until_ready(per_sample(p, xs, ys))

    def gradients() -> dict:
        return {k: np.asarray(v) for k, v in step().items()}

    return step, gradients


VOCAB, DIM, CLASSES, TOKENS = 100, 32, 10, 12


def make_bag_data(seed: int = 0) -> tuple[dict, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    params = {
        "embed": rng.standard_normal((VOCAB, DIM)),
        "w": rng.standard_normal((CLASSES, DIM)) / np.sqrt(DIM),
        "b": rng.standard_normal(CLASSES) * 0.1,
    }
    params = {k: v.astype(np.float32) for k, v in params.items()}
    tokens = rng.integers(0, VOCAB, size=(BATCH, TOKENS))
    return params, tokens, rng.integers(0, CLASSES, size=BATCH)


def numpy_bag(p: dict, tokens: np.ndarray, y: np.ndarray) -> dict:
    rows = p["embed"][tokens]  # (B, T, D)
    at = rows.argmax(1)  # (B, D): the token each feature's maximum came from
    h = np.take_along_axis(rows, at[:, None, :], 1)[:, 0]  # (B, D)
    z = h @ p["w"].T + p["b"]
    e = np.exp(z - z.max(1, keepdims=True))
    g_z = e / e.sum(1, keepdims=True)
    g_z[np.arange(len(y)), y] -= 1  # d cross_entropy / d logits, per sample
    g_h = g_z @ p["w"]
    g_embed = np.zeros((len(y), VOCAB, DIM), dtype=p["embed"].dtype)
    b, d = np.meshgrid(np.arange(len(y)), np.arange(DIM), indexing="ij")
    np.add.at(g_embed, (b, np.take_along_axis(tokens, at, 1), d), g_h)
    return {"embed": g_embed, "w": g_z[:, :, None] * h[:, None, :], "b": g_z}


def torchlike_bag(T: object, params: dict, tokens: np.ndarray, y: np.ndarray, loop=False):
    F = T.nn.functional
    p = {k: T.from_numpy(v.copy()) for k, v in params.items()}
    xs, ys = T.from_numpy(tokens.copy()), T.from_numpy(y.copy())

    def loss(p: dict, tokens: object, y: object) -> object:
        h = F.embedding(tokens, p["embed"]).max(0).values
        return F.cross_entropy(F.linear(h, p["w"], p["b"]).unsqueeze(0), y.unsqueeze(0))

    return _stepper(T.func.vmap(T.func.grad(loss), in_dims=(None, 0, 0)), (p, xs, ys), loop)


def _stepper(per_sample: object, args: tuple, loop: bool):
    vmap_module = importlib.import_module("symgrad.func.vmap") if loop else None

    def step() -> dict:
        if not loop:
            return per_sample(*args)
        saved = vmap_module._batched_run
        vmap_module._batched_run = lambda *a, **kwargs: vmap_module._LOOP
        try:
            return per_sample(*args)
        finally:
            vmap_module._batched_run = saved

    def gradients() -> dict:
        return {k: v.detach().numpy() for k, v in step().items()}

    return step, gradients


def bag_rows(params: dict, x: np.ndarray, y: np.ndarray) -> dict:
    found = {
        "numpy": (lambda: numpy_bag(params, x, y), lambda: numpy_bag(params, x, y)),
        "symgrad vmap": torchlike_bag(symgrad, params, x, y),
        "symgrad loop": torchlike_bag(symgrad, params, x, y, loop=True),
    }
    try:
        import torch

        found["torch.func"] = torchlike_bag(torch, params, x, y)
    except ImportError:
        pass
    return found


def rows(params: dict, x: np.ndarray, y: np.ndarray) -> dict:
    found = {
        "numpy": (lambda: numpy_per_sample(params, x, y), lambda: numpy_per_sample(params, x, y)),
        "symgrad vmap": torchlike(symgrad, params, x, y),
        "symgrad loop": torchlike(symgrad, params, x, y, loop=True),
    }
    try:
        import torch

        found["torch.func"] = torchlike(torch, params, x, y)
    except ImportError:
        pass
    try:
        found["jax (jit)"] = jax_rows(params, x, y)
    except ImportError:
        pass
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--model", choices=("mlp", "bag"), default="mlp")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # the loop row's one-time vmap warning
    if args.model == "bag":
        params, x, y = make_bag_data()
        found, reference = bag_rows(params, x, y), numpy_bag(params, x, y)
        title = (
            f"per-sample gradients, embedding {VOCAB}x{DIM}, max over {TOKENS} tokens, "
            f"linear to {CLASSES}, cross-entropy, batch {BATCH}, float32"
        )
    else:
        params, x, y = make_data()
        found, reference = rows(params, x, y), numpy_per_sample(params, x, y)
        title = f"per-sample gradients, MLP {IN}-{HIDDEN}-1 (tanh), mse, batch {BATCH}, float32"
    for name, (_, gradients) in found.items():
        got = gradients()
        for k, want in reference.items():
            np.testing.assert_allclose(got[k], want, rtol=2e-4, atol=2e-5, err_msg=f"{name} {k}")
    timings = time_side_by_side(
        {name: step for name, (step, _) in found.items()}, Settings(rounds=args.rounds, target=0.1)
    )
    base = np.array(timings["numpy"].per_call)
    print(title)
    print(f"{'':14} {'median':>10}   ratio to NumPy (median [IQR], paired)")
    for name, timing in timings.items():
        per_call = np.array(timing.per_call)
        q1, median, q3 = np.percentile(per_call / base, [25, 50, 75])
        print(f"{name:14} {np.median(per_call) * 1e3:8.3f} ms   {median:7.2f}x [{q1:.2f}-{q3:.2f}]")


if __name__ == "__main__":
    main()
