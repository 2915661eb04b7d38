"""Whole programs of kinds the other tables leave out (a DCGAN step, WGAN-GP, VAEs, policy
gradients, DQN, seq2seq with attention, packed LSTMs, style transfer, adversarial examples,
distillation, ...), and the pieces of such programs where symgrad once differed from PyTorch.

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests


def _error(fn, *args, **kwargs) -> tuple | None:
    """The type and message of what ``fn(*args, **kwargs)`` raises (None when it returns)."""
    try:
        fn(*args, **kwargs)
    except Exception as error:  # the type and message are the expected answer
        return type(error).__name__, str(error)
    return None


def _batch_norm_sizes(T):
    """A batch norm given an input of other channels than it was built for (a wrong
    ``in_features`` after a Linear): PyTorch names the running mean first, then the running
    variance, then the weight and bias, and in evaluation asks for missing statistics first."""
    F = T.nn.functional
    x, three, four = T.ones(2, 4), T.ones(3), T.ones(4)
    found = [_error(lambda: T.nn.BatchNorm1d(3)(x))]
    found.append(_error(lambda: T.nn.BatchNorm1d(3, track_running_stats=False)(x)))
    for stats, affine in (
        ((four, three), (three, three)),
        ((four, four), (three, three)),
        ((None, four), (three, three)),
        ((four, None), (three, three)),
        ((four, None), (four, four)),
    ):
        for training in (True, False):
            found.append(_error(F.batch_norm, x, *stats, *affine, training=training))
    found.append(_error(lambda: T.batch_norm(x, three, three, four, three, True, 0.1, 1e-5, False)))
    return found


def _views_of_views(T):
    """In-place changes to a view of a piece of ``split``/``unbind`` or of a custom Function's
    output (a module with a full backward hook, as Grad-CAM registers, returns one): PyTorch's
    views inherit how their base was made, so these raise its RuntimeError at once, naming the
    view's own op."""

    class Same(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    layer = T.nn.Linear(3, 3)
    layer.register_full_backward_hook(lambda module, grad_input, grad_output: None)
    found = []
    for make, change in (
        (lambda x: x.split(2)[0], lambda piece: piece[1:].mul_(2)),
        (lambda x: x.unbind(0)[1], lambda piece: piece.view(3, 1).add_(1)),
        (lambda x: x.chunk(2)[1], lambda piece: piece.t().add_(1)),
        (lambda x: Same.apply(x), lambda out: out[0].mul_(2)),
        (lambda x: layer(x), lambda out: out.view(-1).relu_()),
    ):
        x = T.ones(4, 3, requires_grad=True) * 1
        found.append(_error(lambda c, m, x: c(m(x)), change, make, x))
    plain = T.ones(4, 3).unbind(0)[1]
    found.append(_error(lambda: plain[1:].mul_(T.ones(2, requires_grad=True)))[1][:48])
    kept = T.ones(4, 3, requires_grad=True) * 1
    kept.split(2)[0].detach()[0].add_(1)  # a detached alias is a tensor of its own
    return [(kind, message.split(" is ")[0], message[-33:]) for kind, message in found[:-1]] + [
        found[-1],
        kept.sum(),
    ]


def _no_grad_views(T):
    """Views of parameters taken under no_grad (printing a row of a weight in an evaluation
    loop, a frozen copy of part of a layer): in PyTorch they require grad, without history;
    gradients reaching them go nowhere (no ``.grad``, no error from ``backward``); a view
    of one taken while recording records its op, and changing either in place while
    recording raises; ``numpy()`` asks for ``detach()``."""
    layer = T.nn.Linear(3, 2)
    with T.no_grad():
        layer.weight.copy_(T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        row, pieces, columns = layer.weight[0], layer.weight.split(1), layer.weight.t()
        strided = layer.weight.as_strided((2,), (3,))
    found = [t.requires_grad for t in (row, pieces[1], columns, strided)]
    found += [row.is_leaf, row.grad_fn is None, "requires_grad=True" in repr(row)]
    loss = (row * T.tensor([1.0, -1.0, 2.0])).sum()
    loss.backward()
    found += [type(loss.grad_fn).__name__, row.grad, layer.weight.grad]
    found.append(_error(row.numpy)[0])
    later = row[1:]
    found += [type(later.grad_fn).__name__, later.requires_grad]
    for changed in (row, later):
        kind, message = _error(changed.mul_, 2)
        found.append((kind, message.split(" no_grad mode")[0]))
    with T.no_grad():
        row.mul_(2)
    return found + [layer.weight, (layer.weight * 1).sum()]


def _init(T, module, seed: int, scale: float = 0.3):
    """``module`` with its parameters drawn from NumPy, the same for symgrad and PyTorch."""
    rng = np.random.default_rng(seed)
    with T.no_grad():
        for p in module.parameters():
            p.copy_(T.tensor(rng.normal(size=tuple(p.shape)) * scale))
    return module


def _names(fn) -> list:
    return [None if n is None else type(n).__name__ for n, _ in fn.next_functions]


def _conv_gradient_penalty(T):
    """WGAN-GP with a convolutional critic (and a transposed convolution, as a DCGAN
    generator's): the gradient of the critic at the interpolates, taken with
    ``create_graph=True``, is the output of PyTorch's ``ConvolutionBackwardBackward0`` node
    (edges: the output's gradient, input, weight), and the penalty's backward goes through it."""
    nn = T.nn
    critic = nn.Sequential(
        nn.Conv2d(1, 2, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(2 * 2 * 2, 1)
    )
    _init(T, critic, 5)
    rng = np.random.default_rng(1)
    real, fake = (T.tensor(rng.normal(size=(2, 1, 4, 4)), dtype=T.float32) for _ in range(2))
    alpha = T.tensor([0.3, 0.8]).view(2, 1, 1, 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d = critic(interp)
    (g,) = T.autograd.grad(d, interp, T.ones_like(d), create_graph=True)
    penalty = ((g.reshape(2, -1).norm(2, dim=1) - 1) ** 2).mean()
    penalty.backward()
    up = _init(T, nn.ConvTranspose2d(2, 1, 4, 2, 1), 2)
    z = T.tensor(rng.normal(size=(1, 2, 2, 2)), dtype=T.float32, requires_grad=True)
    (gz,) = T.autograd.grad(up(z).pow(2).sum(), z, create_graph=True)
    gz.sum().backward()
    return (
        type(g.grad_fn).__name__,
        _names(g.grad_fn),
        penalty,
        critic[0].weight.grad.sum((1, 2, 3)),
        critic[0].bias.grad,
        critic[3].weight.grad,
        type(gz.grad_fn).__name__,
        _names(gz.grad_fn),
        up.weight.grad.sum((0, 2, 3)),
        z.grad.sum((0, 2, 3)),
    )


_MULTI = "replace the inplace operation by an out-of-place one."
_CUSTOM = "by cloning the output of the custom Function."


def _channels(name: str) -> tuple:
    return ("RuntimeError", f"{name} should contain 4 elements not 3")


def _undefined(name: str) -> tuple:
    return ("RuntimeError", f"{name} must be defined in evaluation mode")


_BOTH = ("ValueError", "running_mean and running_var must either both be None or neither be None")

_TWICE = "ConvolutionBackwardBackward0"

CASES = {
    "conv_gradient_penalty": (
        _conv_gradient_penalty,
        (
            _TWICE,
            ("LeakyReluBackwardBackward0", "AccumulateGrad", "AccumulateGrad"),
            (0.6315, "float32", "MeanBackward0"),
            ([-0.0044, 0.0824], "float32", None),
            ([0.0, 0.0], "float32", None),
            (
                [[0.0162, -0.2562, -0.0106, -0.0102, -0.4921, -0.609, 0.0134, 0.7636]],
                "float32",
                None,
            ),
            _TWICE,
            ("MulBackward0", "AccumulateGrad", "AccumulateGrad"),
            ([33.5874], "float32", None),
            ([8.9317, 7.8175], "float32", None),
        ),
    ),
    "views_made_under_no_grad": (
        _no_grad_views,
        (
            True,
            True,
            True,
            True,
            True,
            True,
            True,
            "SumBackward0",
            None,
            None,
            "RuntimeError",
            "SliceBackward0",
            True,
            ("RuntimeError", "A view was created in"),
            ("RuntimeError", "Output 0 of Slice is a view of a view which was created in"),
            ([[2.0, 4.0, 6.0], [4.0, 5.0, 6.0]], "float32", None),
            (27.0, "float32", "SumBackward0"),
        ),
    ),
    "views_of_views_inherit": (
        _views_of_views,
        (
            ("RuntimeError", "Output 0 of Slice", _MULTI[-33:]),
            ("RuntimeError", "Output 0 of View", _MULTI[-33:]),
            ("RuntimeError", "Output 0 of T", _MULTI[-33:]),
            ("RuntimeError", "Output 0 of Select", _CUSTOM[-33:]),
            ("RuntimeError", "Output 0 of View", _CUSTOM[-33:]),
            "A view was created in no_grad mode and is being ",
            (15.0, "float32", "SumBackward0"),
        ),
    ),
    "batch_norm_size_checks": (
        _batch_norm_sizes,
        (
            _channels("running_mean"),
            _channels("weight"),
            _channels("running_var"),
            _channels("running_var"),
            _channels("weight"),
            _channels("weight"),
            _channels("weight"),
            _undefined("running_mean"),
            _channels("weight"),
            _undefined("running_var"),
            _BOTH,
            _undefined("running_var"),
            _channels("running_var"),
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
