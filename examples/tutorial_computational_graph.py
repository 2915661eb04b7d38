"""The computational-graph tutorial: leaves, ``grad_fn``, ``retain_grad`` and four gradients.

The graph is ``e = a*b + log(d)*c`` with the leaves ``a, b, c, d`` and the root ``e``. Before
``backward`` no tensor has a gradient; afterwards the leaves (and ``t``, which asked for it with
``retain_grad``) have theirs, while ``e`` (a non-leaf) still has none and reading it warns, as in
PyTorch.

Run it with ``python examples/tutorial_computational_graph.py``.
"""

import symgrad as torch

# Define the graph a,b,c,d are leaf nodes and e is the root node
# The graph is constructed with every line since the
# computational graphs are dynamic in PyTorch
a = torch.tensor([2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
c = torch.tensor([5.0], requires_grad=True)
d = torch.tensor([10.0], requires_grad=True)
u = a * b
t = torch.log(d)
v = t * c
t.retain_grad()
e = u + v

print(a.is_leaf)
print(a.grad_fn)
print(a.grad)
print()

print(e.is_leaf)
print(e.grad_fn)
print(e.grad)  # a non-leaf without retain_grad: None, with PyTorch's UserWarning
print()

print(t.is_leaf)
print(t.grad_fn)
print(t.grad)
print()

e.backward()
# The tutorial renders these with IPython's display(Math(...)); plain print shows the same LaTeX.
print(rf"\frac{{\partial e}}{{\partial a}} = {a.grad.item()}")
print(rf"\frac{{\partial e}}{{\partial b}} = {b.grad.item()}")
print(rf"\frac{{\partial e}}{{\partial c}} = {c.grad.item()}")
print(rf"\frac{{\partial e}}{{\partial d}} = {d.grad.item()}")
print()

print(a.is_leaf)
print(a.grad_fn)
print(a.grad)
print()

print(e.is_leaf)
print(e.grad_fn)
print(e.grad)
print()

print(t.is_leaf)
print(t.grad_fn)
print(t.grad)
