"""Training a small network the PyTorch way: ``nn.Module``, ``nn.Sequential``, a loss module
and ``optim.Adam``, written exactly as for PyTorch (only the import differs).

The network learns XOR: four points, targets -1 and 1. The script prints the loss as it falls,
the trained predictions, and checks that a ``state_dict`` copied into a fresh model predicts
the same. The weights start from symgrad's random generator, so the numbers differ from
PyTorch's, not the outcome.

Run it with ``python examples/train_mlp.py``.
"""

import symgrad as torch
from symgrad import nn


class MLP(nn.Module):
    def __init__(self, hidden: int = 8) -> None:
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.layers(x).squeeze(1)


torch.manual_seed(0)
x = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
y = torch.tensor([-1.0, 1.0, 1.0, -1.0])

model = MLP()
print(model)
print("parameters:", [name for name, _ in model.named_parameters()])

loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(301):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    if step % 100 == 0:
        print(f"step {step:3d}  loss {loss.item():.6f}")

model.eval()
with torch.no_grad():
    predictions = model(x)
    print("predictions:", predictions)
    print("final loss:", loss_fn(predictions, y))

copy = MLP()
copy.load_state_dict(model.state_dict())
with torch.no_grad():
    print("a copy from the state_dict predicts the same:", bool((copy(x) == predictions).all()))
