"""A training loop sped up by ``symgrad.compile``, with the same numbers as without it.

A small network (2-16-16-1, tanh) learns XOR-like labels on 256 points by full-batch gradient
descent, twice from the same starting weights: once eagerly, once with the loss function
compiled. The compiled function is traced on its first call into one NumPy program for the
forward and one for the backward pass; the script prints both final losses, whether the trained
weights agree, the time per step of each, and the generated forward program.

Run it with ``python examples/compiled_training.py``.
"""

import time

import numpy as np

import symgrad as torch
from symgrad import nn


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)
    )


rng = np.random.default_rng(0)
points = rng.uniform(-1, 1, (256, 2))
x = torch.tensor(points, dtype=torch.float32)
y = torch.tensor((points[:, 0] * points[:, 1] > 0).astype(np.float32)).unsqueeze(1)

results = {}
for mode in ("eager", "compiled"):
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

    def loss_fn(x, y, model=model):
        return nn.functional.binary_cross_entropy_with_logits(model(x), y)

    step_loss = torch.compile(loss_fn) if mode == "compiled" else loss_fn
    start = time.perf_counter()
    for step in range(300):
        optimizer.zero_grad()
        loss = step_loss(x, y)
        loss.backward()
        optimizer.step()
    seconds = time.perf_counter() - start
    weights = [p.detach().numpy().copy() for p in model.parameters()]
    results[mode] = (loss.item(), weights, seconds / 300)
    print(f"{mode:8s}  final loss {loss.item():.6f}  {seconds / 300 * 1e6:7.0f} us per step")

same = all(
    np.allclose(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(results["eager"][1], results["compiled"][1])
)
print("the trained weights agree:", same)
print("speed-up:", f"{results['eager'][2] / results['compiled'][2]:.1f}x")
print("the generated forward program:")
print(step_loss.source.split("\n\n\n")[0])
