"""A short tour of symgrad: PyTorch's autograd on NumPy, with SymPy derivatives on every node.

1. The tutorial graph ``e = a*b + log(d)*c`` and its gradients, through ``backward``.
2. The same graph read symbolically: each node's ``expression`` and ``local_derivatives``,
   and the chain rule multiplied out by hand along ``d -> t -> v -> e``.
3. The whole chain rule done by ``symgrad.symbolic``: closed forms of ``e`` and its gradient.
4. A vector-Jacobian product: ``backward(v)`` on a non-scalar output.
5. A second derivative with ``create_graph=True``.
6. The one-layer network ``binary_cross_entropy_with_logits(x @ w + b, y)``.

Run it with ``python examples/walkthrough.py``.
"""

import numpy as np
import sympy

import symgrad as torch
from symgrad.symbolic import expression, gradient


def rename(expr, **symbols):
    """``expr`` with a node's input symbols (``x``, ``y``) replaced by the given ones."""
    return expr.subs({s: symbols[s.name] for s in expr.free_symbols})


print("1. The tutorial graph e = a*b + log(d)*c")
a = torch.tensor([2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
c = torch.tensor([5.0], requires_grad=True)
d = torch.tensor([10.0], requires_grad=True)
u = a * b
t = torch.log(d)
v = t * c
e = u + v
print("e =", e)
e.backward()
print("a.grad =", a.grad, "  (de/da = b)")
print("b.grad =", b.grad, "  (de/db = a)")
print("c.grad =", c.grad, "  (de/dc = log(d))")
print("d.grad =", d.grad, "  (de/dd = c/d)")
print()

print("2. Every node knows its forward formula and local derivatives as SymPy expressions")
for label, tensor in [("u = a*b", u), ("t = log(d)", t), ("v = t*c", v), ("e = u + v", e)]:
    node = tensor.grad_fn
    print(
        f"  {label:<11} {node.name():<13} expression: {str(node.expression):<7}"
        f" local_derivatives: {node.local_derivatives}"
    )
# The node's symbols x, y stand for its inputs: rename them to the tensors of the graph.
c_, d_, t_, u_, v_ = sympy.symbols("c d t u v", positive=True)
de_dv = rename(e.grad_fn.local_derivatives[1], x=u_, y=v_)
dv_dt = rename(v.grad_fn.local_derivatives[0], x=t_, y=c_)
dt_dd = rename(t.grad_fn.local_derivatives[0], x=d_)
de_dd = de_dv * dv_dt * dt_dd
print("Chain rule along d -> t -> v -> e:")
print(f"  de/dd = de/dv * dv/dt * dt/dd = {de_dv} * {dv_dt} * {dt_dd} = {de_dd}")
by_hand = de_dd.subs({c_: 5, d_: 10})
print(f"  at c = 5, d = 10: de/dd = {by_hand} = {float(by_hand)};  d.grad.item() = {d.grad.item()}")
print()

print("3. The same graph in closed form, from tensors named after their symbols")
a = torch.tensor([2.0], requires_grad=True, name="a")
b = torch.tensor([3.0], requires_grad=True, name="b")
c = torch.tensor([5.0], requires_grad=True, name="c")
d = torch.tensor([10.0], requires_grad=True, name="d")
e = a * b + torch.log(d) * c
print("  e =", expression(e))
print("  (de/da, de/db, de/dc, de/dd) =", gradient(e, [a, b, c, d]))
print()

print("4. A vector-Jacobian product: y = x**2, y.backward(v) gives v * 2x")
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
print(f"  y.grad_fn: {y.grad_fn.name()}  d(x**2)/dx: {y.grad_fn.local_derivatives[0]}")
y.backward(torch.tensor([1.0, 0.1, 0.01]))
print("  x.grad =", x.grad)
print()

print("5. A second derivative: d/dd (de/dd) = d/dd (c/d) = -c/d**2")
d = torch.tensor([10.0], requires_grad=True)
e = a * b + torch.log(d) * c
(de_dd,) = torch.autograd.grad(e, d, create_graph=True)
(d2e_dd2,) = torch.autograd.grad(de_dd, d)
print(f"  de/dd = {de_dd.item()}  (a tensor with a graph: requires_grad={de_dd.requires_grad})")
print("  d2e/dd2 =", d2e_dd2, "  (by hand: -5/100 = -0.05)")
print()

print("6. The one-layer network")
torch.manual_seed(0)
x = torch.ones(5)  # input
y = torch.zeros(3)  # target
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print("  loss =", loss)
loss.backward()
print("  b.grad =", b.grad)
# With y = 0 the loss is mean(log(1 + exp(z))), whose gradient is sigmoid(z) / 3.
sigmoid_z = 1 / (1 + np.exp(-z.detach().numpy()))
print("  by hand, sigmoid(z) / 3 =", np.round(sigmoid_z / 3, 4))
print("  every row of w.grad equals b.grad (x is all ones):", bool((w.grad == b.grad).all()))
with torch.no_grad():
    print("  under no_grad, (x @ w + b).requires_grad =", (torch.matmul(x, w) + b).requires_grad)
