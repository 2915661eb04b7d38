"""The one-layer-network tutorial: ``binary_cross_entropy_with_logits(x @ w + b, y)``.

Shows the ``grad_fn`` of ``z`` and of the loss, the gradients of the parameters ``w`` and ``b``,
how ``retain_graph=True`` lets ``backward`` run twice and the gradients accumulate (double),
``grad.zero_()``, and the two ways to stop recording: ``no_grad`` and ``detach``.

The weights are random, so the gradients differ from the tutorial's printout (symgrad draws
from NumPy's generator, not PyTorch's); the structure does not: with ``x`` all ones every row of
``w.grad`` equals ``b.grad``, which is ``sigmoid(z) / 3`` because ``y`` is all zeros.

Run it with ``python examples/tutorial_one_layer_network.py``.
"""

import symgrad as torch

torch.manual_seed(0)

# -- the computational graph --------------------------------------------------------------
x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output

w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b  # y_hat

loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

print("Gradient function for z = ", z.grad_fn)
print("Gradient function for loss = ", loss.grad_fn)

# -- computing gradients ------------------------------------------------------------------
loss.backward()
print(w.grad)
print(b.grad)

# -- gradients accumulate when the graph is kept ---------------------------------------------
x = torch.ones(5)
y = torch.zeros(3)

w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b

loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

loss.backward(retain_graph=True)
print("w gradients after backward 1: ", w.grad)

loss.backward(retain_graph=True)
print("w gradients after backward 2: ", w.grad)

w.grad.zero_()
print("w gradients after grad.zero: ", w.grad)

# -- disabling gradient tracking ---------------------------------------------------------------
z = torch.matmul(x, w) + b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)

z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)
