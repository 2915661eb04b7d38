"""Train a small network on two moons, then look inside one training step.

The data set is made here: two interleaved half circles with a little noise, 200 points. A
two-layer network (``nn.Module`` with ``nn.Linear`` and ``tanh``) learns to separate them with
``optim.Adam``, a ``StepLR`` schedule and mini-batches from a ``DataLoader``, written as for
PyTorch. Then symgrad shows what PyTorch cannot:

- the closed-form gradient of the loss at one point with respect to the first layer's
  weights, in matrix form (the back-propagated delta) and, for one hidden neuron, written out;
- a check of one training step's gradients: engine, finite differences and closed form agree.

Run it with ``python examples/two_moons.py``.
"""

import math

import numpy as np

import symgrad as torch
from symgrad import nn, symbolic
from symgrad.func import functional_call
from symgrad.utils.data import DataLoader, TensorDataset


def two_moons(n: int, noise: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points on two interleaved half circles, and their labels (0 upper, 1 lower)."""
    angle = rng.uniform(0, math.pi, n)
    upper = rng.random(n) < 0.5
    x = np.where(upper, np.cos(angle), 1 - np.cos(angle))
    y = np.where(upper, np.sin(angle), 0.5 - np.sin(angle))
    points = np.stack([x, y], axis=1) + noise * rng.standard_normal((n, 2))
    return points.astype(np.float32), (~upper).astype(np.float32)


class Net(nn.Module):
    def __init__(self, hidden: int = 8) -> None:
        super().__init__()
        self.hidden = nn.Linear(2, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x))).squeeze(1)


points, labels = two_moons(200, 0.1, np.random.default_rng(0))
data = TensorDataset(torch.from_numpy(points), torch.from_numpy(labels))
torch.manual_seed(0)
loader = DataLoader(data, batch_size=32, shuffle=True)
model = Net()
loss_fn = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
schedule = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)

print("== training ==")
for epoch in range(60):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
    schedule.step()
    if epoch % 20 == 19:
        with torch.no_grad():
            accuracy = ((model(data.tensors[0]) > 0).float() == data.tensors[1]).float().mean()
        print(
            f"epoch {epoch + 1:2d}  loss {total / len(data):.3f}  "
            f"accuracy {accuracy.item():.3f}  lr {schedule.get_last_lr()[0]:g}"
        )

print("\n== the gradient at one point, in closed form ==")
# named data stays symbolic; the parameters are called by their paths (hidden.weight, ...)
x = torch.tensor([[0.5, 0.25]], name="x")
y = torch.tensor([1.0], name="y")
loss = loss_fn(model(x), y)
(matrix_form,) = symbolic.gradient(loss, [model.hidden.weight], form="matrix")
print("dL/d hidden.weight =", matrix_form)
(per_element,) = symbolic.gradient(loss, [model.hidden.weight], simplify=True)
print("dL/d hidden.weight[0, 0] =", per_element[0, 0])  # every neuron feeds the output
model.zero_grad()  # the last training step's gradients would add to this one's
loss.backward()
engine = model.hidden.weight.grad[0, 0].item()
at = {}
for t in [x, y, *model.parameters()]:
    at.update(zip(np.ravel(symbolic.symbols(t)), t.detach().numpy().ravel().tolist()))
exact = float(per_element[0, 0].subs(at))
print(f"at the trained weights: {exact:.6f} (backward: {engine:.6f})")

print("\n== one training step's gradients, checked ==")
names = [name for name, _ in model.named_parameters()]
xb, yb = data.tensors[0][:32], data.tensors[1][:32]


def batch_loss(*weights):
    # verify works on float64 copies of the weights: the batch follows their dtype
    outputs = functional_call(model, dict(zip(names, weights)), (xb.to(weights[0].dtype),))
    return loss_fn(outputs, yb.to(weights[0].dtype))


weights = [p.detach().requires_grad_() for p in model.parameters()]
report = torch.verify(batch_loss, *weights, closed_form=True)
print(report)
