"""Programs over torch.func and forward-mode AD that once differed from PyTorch: vmap's
results keep their own ``grad_fn`` and map empty batches, the transforms' errors for integer
inputs and outputs, and the forward-mode checks (symgrad.func, symgrad.autograd.forward_ad,
symgrad.autograd.functional).

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

from _torch_table import table_tests

F32, F64 = "float32", "float64"


def _x(T, values=(0.5, -1.0, 2.0), requires_grad=True):
    return T.tensor(list(values), dtype=T.float64, requires_grad=requires_grad)


def _rows(T, requires_grad=True):
    return T.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=T.float64, requires_grad=requires_grad)


def _vmap_backward(T):
    x = _rows(T)
    out = T.func.vmap(lambda r: (r * r).sum())(x)
    out.sum().backward()
    return out, x.grad


def _ensemble(T):
    """Model ensembling: one forward of stacked copies of a linear layer, as in PyTorch's
    tutorial; the result is the addition's own output."""
    layers = [T.nn.Linear(2, 1, dtype=T.float64) for _ in range(2)]
    with T.no_grad():
        for k, layer in enumerate(layers):
            layer.weight.fill_(k + 1.0)
            layer.bias.fill_(0.5)
    params, buffers = T.func.stack_module_state(layers)

    def run(p, b, x):
        return T.func.functional_call(layers[0], (p, b), (x,))

    return T.func.vmap(run, in_dims=(0, 0, None))(params, buffers, _rows(T, False))


CASES = {
    # -- vmap: with the batch at dimension 0 in and out, the result is the op's own output
    "vmap_exp_grad_fn": (
        lambda T: T.func.vmap(T.exp)(T.tensor([[0.0], [1.0]], requires_grad=True)),
        ([[1.0], [2.7183]], F32, "ExpBackward0"),
    ),
    "vmap_sum_backward": (
        _vmap_backward,
        (([5.0, 10.0], F64, "SumBackward1"), ([[2.0, 4.0], [6.0, -2.0]], F64, None)),
    ),
    "vmap_unbatched_output_is_expanded": (
        lambda T: T.func.vmap(lambda r, w: w * 2, in_dims=(0, None))(
            _rows(T, False), _x(T, (1.0, 2.0))
        ),
        ([[2.0, 4.0], [2.0, 4.0]], F64, "ExpandBackward0"),
    ),
    "vmap_ensemble": (
        _ensemble,
        ([[[3.5], [2.5]], [[6.5], [4.5]]], F64, "AddBackward0"),
    ),
    # -- vmap over an empty batch runs the function once on it
    "vmap_empty_batch_sum": (
        lambda T: T.func.vmap(lambda r: r.sum())(T.zeros(0, 3)),
        ([], F32, None),
    ),
    "vmap_empty_batch_matmul": (
        lambda T: T.func.vmap(lambda r, w: r @ w, in_dims=(0, None))(T.zeros(0, 3), T.ones(3, 2)),
        ([], F32, None),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
