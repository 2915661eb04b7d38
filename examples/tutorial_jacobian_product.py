"""The Jacobian-product tutorial: ``backward(v)`` on a non-scalar output computes ``v^T J``.

``out = (inp + 1) ** 2`` with ``inp = eye(5)``, so ``d out_ij / d inp_ij = 2 (inp_ij + 1)``: 4 on
the diagonal, 2 elsewhere. With ``v`` all ones, ``v^T J`` is that matrix. Gradients accumulate:
the second call doubles them, and ``grad.zero_()`` starts over.

Run it with ``python examples/tutorial_jacobian_product.py``.
"""

import symgrad as torch

inp = torch.eye(5, requires_grad=True)
out = (inp + 1).pow(2)

# we compute J itself as `v` is a vectors of ones
out.backward(torch.ones_like(inp), retain_graph=True)
print("First call\n", inp.grad)

out.backward(torch.ones_like(inp), retain_graph=True)
print("\nSecond call\n", inp.grad)

inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
print("\nCall after zeroing gradients\n", inp.grad)
