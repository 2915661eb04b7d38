"""A custom differentiable op: the ``Exp`` Function from PyTorch's documentation.

``forward`` saves its result and ``backward`` multiplies the incoming gradient by it, since
``d exp(x) / dx = exp(x)``. Its node is named ``ExpBackward`` after the class, and its gradient
matches the built-in ``torch.exp``'s.

Run it with ``python examples/custom_function.py``.
"""

import symgrad as torch
from symgrad.autograd import Function


class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
output = Exp.apply(x)
print(output)
print(output.grad_fn)
output.sum().backward()
print("custom Exp gradient:", x.grad)

# the same gradient from the built-in op, on a fresh copy of the input
x_builtin = x.detach().clone().requires_grad_()
torch.exp(x_builtin).sum().backward()
print("torch.exp gradient: ", x_builtin.grad)
print("equal:", bool((x.grad == x_builtin.grad).all()))
