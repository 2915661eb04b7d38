"""Pieces of PyTorch's tutorials where symgrad once differed from PyTorch: the pruning
tutorial's walk over ``module._forward_pre_hooks.values()`` (PyTorch keeps a module's forward
hooks in ``OrderedDict``s keyed by the handles' ids, their flags in dicts beside them), ,
the extending tutorial's ``LinearFunction`` whose ``setup_context`` unpacks a defaulted input,
WGAN-GP's gradient penalty, which flattens a convolution's input gradient with ``view``,
the layouts of matrix products' gradients, the lengths ``pack_padded_sequence`` takes,
binary cross-entropy's second derivatives, the regression losses' size warnings, and
``Module.compile()``.

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import warnings
from importlib import import_module

import numpy as np
from _torch_table import run, table_tests

import symgrad


def _init(T, module, seed=0, scale=0.5):
    """``module`` with its parameters drawn from NumPy, the same for symgrad and PyTorch."""
    rng = np.random.default_rng(seed)
    with T.no_grad():
        for p in module.parameters():
            p.copy_(T.tensor(rng.normal(size=tuple(p.shape)) * scale))
    return module


def _pruning_history(T):
    """The pruning tutorial finds the weight's hook among the forward pre-hooks and lists the
    methods its container holds."""
    prune = import_module(T.__name__ + ".nn.utils.prune")
    conv = _init(T, T.nn.Conv2d(1, 3, 2))
    prune.l1_unstructured(conv, "weight", amount=0.3)
    prune.ln_structured(conv, "weight", amount=1, n=2, dim=0)
    for hook in conv._forward_pre_hooks.values():
        if hook._tensor_name == "weight":
            break
    names = [type(method).__name__ for method in hook]
    prune.remove(conv, "weight")
    return type(hook).__name__, names, len(conv._forward_pre_hooks), conv.weight.eq(0).sum()


def _hook_tables(T):
    """Forward hooks keyed by their handles' ids, in call order (``prepend`` first), the
    ``with_kwargs`` and ``always_call`` flags in their own dicts; removing or clearing works
    on the dicts."""
    layer = _init(T, T.nn.Linear(2, 1))
    seen = []
    post = layer.register_forward_hook(lambda m, args, out: seen.append("post"))
    pre = layer.register_forward_pre_hook(lambda m, args: seen.append("pre"), prepend=True)
    keyword = layer.register_forward_hook(
        lambda m, args, kwargs, out: seen.append("kwargs"), with_kwargs=True, always_call=True
    )
    layer(T.ones(1, 2))
    tables = (
        layer._forward_pre_hooks,
        layer._forward_hooks,
        layer._forward_hooks_with_kwargs,
        layer._forward_hooks_always_called,
    )
    counts = [len(t) for t in tables]
    keys = list(layer._forward_hooks) == [post.id, keyword.id], list(tables[0]) == [pre.id]
    keyword.remove()
    after_remove = [len(t) for t in tables]
    layer._forward_hooks.clear()
    layer(T.ones(1, 2))
    return type(tables[1]).__name__, seen, counts, keys, after_remove


def _linear_function(T):
    """The extending tutorial's ``LinearFunction``: ``forward(input, weight, bias=None)`` with
    ``setup_context``, which receives the inputs with the defaults filled in (so ``bias`` is
    an input too, and backward returns three gradients)."""

    class LinearFunction(T.autograd.Function):
        @staticmethod
        def forward(input, weight, bias=None):
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def setup_context(ctx, inputs, output):
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    x = T.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=T.float64, requires_grad=True)
    w = T.tensor([[0.5, 1.0], [-1.0, 2.0], [0.25, 0.0]], dtype=T.float64, requires_grad=True)
    out = LinearFunction.apply(x, w)
    out.sum().backward()
    checked = T.autograd.gradcheck(LinearFunction.apply, (x, w))
    return out, x.grad, w.grad, type(out.grad_fn).__name__, checked


def _gradient_penalty(T):
    """WGAN-GP's penalty: the critic's gradient at the interpolates, taken with
    ``create_graph=True`` through a padded convolution, flattened with ``view`` (a fresh
    tensor, as PyTorch's, not a slice of a padded one), then trained through."""
    nn = T.nn
    critic = nn.Sequential(
        nn.Conv2d(1, 2, 3, padding=1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(2 * 9, 1)
    )
    _init(T, critic.double(), scale=1.0)
    rng = np.random.default_rng(1)
    real, fake = T.tensor(rng.random((2, 1, 3, 3))), T.tensor(rng.random((2, 1, 3, 3)))
    alpha = T.tensor([[[[0.25]]], [[[0.75]]]], dtype=T.float64)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = critic(interpolates)
    gradients = T.autograd.grad(out, interpolates, T.ones_like(out), create_graph=True)[0]
    flat = gradients.view(gradients.size(0), -1)
    penalty = ((flat.norm(2, dim=1) - 1) ** 2).mean()
    penalty.backward()
    conv = critic[0]
    return gradients.is_contiguous(), penalty, conv.weight.grad[0, 0], conv.bias.grad


def _product_gradient_layouts(T):
    """Gradients of the transposed operands of matrix products (linear's ``weight.t()``, a
    ``x.t() @ b``) are row-major, also under ``create_graph`` (PyTorch's mm backward keeps a
    column-major operand's layout), so ``view(-1)`` works on them."""
    x = T.arange(6.0).view(2, 3).requires_grad_()
    weight = T.arange(12.0).view(4, 3).requires_grad_()
    a = T.arange(6.0).view(3, 2).requires_grad_()
    layouts = []
    for create_graph in (False, True):
        y = T.nn.functional.linear(x, weight)
        (gw,) = T.autograd.grad((y**2).sum(), weight, create_graph=create_graph)
        z = a.t() @ T.arange(6.0).view(3, 2)
        (ga,) = T.autograd.grad((z**2).sum(), a, create_graph=create_graph)
        layouts.append((gw.is_contiguous(), ga.is_contiguous()))
    return layouts, gw.view(-1)[:4], ga.view(-1)


def _pack_lengths(T, lengths):
    """``pack_padded_sequence`` reads the lengths as an int64 tensor: any 1-D sequence of
    numbers; PyTorch's RuntimeError for another number of dimensions."""
    rnn_utils = import_module(T.__name__ + ".nn.utils.rnn")
    packed = rnn_utils.pack_padded_sequence(T.arange(6.0).view(3, 2), lengths)
    return packed.data, packed.batch_sizes


def _bce_second_derivatives(T):
    """Second derivatives of binary cross-entropy (a gradient penalty or meta-learning over a
    saturated sigmoid) by PyTorch's double-backward formulas: eps added in the input's, so a
    right prediction of exactly 0 or 1 gives 0 and a wrong one 1 / eps^2."""
    p = T.tensor([0.0, 1.0, 0.0, 1.0, 1e-8, 0.5], dtype=T.float64, requires_grad=True)
    t = T.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 0.3], dtype=T.float64, requires_grad=True)
    w = T.tensor(2.0, dtype=T.float64, requires_grad=True)
    loss = T.nn.functional.binary_cross_entropy(p, t, reduction="none") * w
    (g,) = T.autograd.grad(loss.sum(), p, create_graph=True)
    gp, gt, gw = T.autograd.grad(g.sum(), (p, t, w))
    return gp[:2] / 1e24, gp[2:], gt[4:], round(gw.item() / 1e6, 4)


def _target_size_messages(T):
    """An actor-critic's value of shape (1, 1) against a return of shape (1,): PyTorch's
    broadcasting warning, the same words for every regression loss (binary cross-entropy
    refuses, with its ValueError)."""
    F = T.nn.functional
    messages = []
    for loss in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.binary_cross_entropy):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                loss(T.full((1, 1), 0.5), T.tensor([0.25]))
            except ValueError as error:
                messages.append(str(error).replace(T.__name__, "T"))
        messages += [str(w.message).replace(T.__name__, "T") for w in caught]
    return messages


_BROADCAST = (
    "Using a target size (T.Size([1])) that is different to the input size (T.Size([1, 1])). "
    "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
    "the same size."
)


def _compile_in_place(T):
    """``model.compile()`` compiles the model's calls in place: the same module and type, the
    same state-dict keys, the eager values and gradients, hooks run at every call, and a
    mode change (``eval()``) is seen."""
    nn = T.nn
    model = _init(T, nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)))
    x = T.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], requires_grad=True)
    eager = model(x).detach()
    calls = []
    model.register_forward_hook(lambda module, args, out: calls.append(tuple(out.shape)))
    done = model.compile()
    first = model(x)
    first.sum().backward()
    model.eval()
    second = model(x).detach()
    keys = list(model.state_dict())
    return done, type(model).__name__, keys, bool((first == eager).all()), second, x.grad, calls


CASES = {
    "pruning_history": (
        _pruning_history,
        ("PruningContainer", ("L1Unstructured", "LnStructured"), 0, (5, "int64", None)),
    ),
    "forward_hook_tables": (
        _hook_tables,
        (
            "OrderedDict",
            ("pre", "post", "kwargs", "pre"),
            (1, 2, 1, 1),
            (True, True),
            (1, 1, 0, 0),
        ),
    ),
    "function_defaults_to_setup_context": (
        _linear_function,
        (
            ([[-1.5, -5.0, 0.25], [3.25, 5.5, 0.125]], "float64", "LinearFunctionBackward"),
            ([[-0.25, 3.0], [-0.25, 3.0]], "float64", None),
            ([[1.5, 1.0], [1.5, 1.0], [1.5, 1.0]], "float64", None),
            "LinearFunctionBackward",
            True,
        ),
    ),
    "gradient_penalty": (
        _gradient_penalty,
        (
            True,
            (7.6918, "float64", "MeanBackward0"),
            (
                [[-1.1654, -0.7561, 4.4201], [0.7713, -5.889, 0.9207], [5.6961, 3.2046, -4.138]],
                "float64",
                None,
            ),
            ([0.0, 0.0], "float64", None),
        ),
    ),
    "product_gradient_layouts": (
        _product_gradient_layouts,
        (
            ((True, True), (True, True)),
            ([84.0, 122.0, 160.0, 300.0], "float32", "SliceBackward0"),
            ([52.0, 70.0, 236.0, 314.0, 420.0, 558.0], "float32", "ViewBackward0"),
        ),
    ),
    "pack_lengths_floats": (
        lambda T: _pack_lengths(T, [3.5, 2]),
        (([0.0, 1.0, 2.0, 3.0, 4.0], "float32", None), ([2, 2, 1], "int64", None)),
    ),
    "pack_lengths_nested": (lambda T: _pack_lengths(T, [[3, 2]]), ("raises", "RuntimeError")),
    "pack_lengths_number": (lambda T: _pack_lengths(T, 3), ("raises", "RuntimeError")),
    "pack_lengths_2d": (
        lambda T: _pack_lengths(T, T.tensor([[3, 2]])),
        ("raises", "RuntimeError"),
    ),
    "pack_lengths_text": (lambda T: _pack_lengths(T, "ab"), ("raises", "TypeError")),
    "bce_second_derivatives": (
        _bce_second_derivatives,
        (
            ([2.0, 2.0], "float64", None),
            ([0.0, 0.0, 1.999600059988002e16, 8.0], "float64", None),
            ([-200000002.0, -8.0], "float64", None),
            -99.99,
        ),
    ),
    "target_size_messages": (
        _target_size_messages,
        (_BROADCAST,) * 3
        + (
            "Using a target size (T.Size([1])) that is different to the input size "
            "(T.Size([1, 1])) is deprecated. Please ensure they have the same size.",
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


def _shout(module, args):
    return (args[0] * 10,)


def test_module_pickled_with_hook_lists_loads():
    """A module pickled when symgrad kept its forward hooks in lists of ``(hook,
    with_kwargs, always_call)`` loads with them in PyTorch's dicts, and its hooks run."""
    import pickle

    import symgrad

    layer = symgrad.nn.Identity()
    layer.__dict__["_forward_pre_hooks"] = [(_shout, False, False)]
    layer.__dict__["_forward_hooks"] = []
    for name in ("_forward_hooks_with_kwargs", "_forward_hooks_always_called"):
        del layer.__dict__[name]
    loaded = pickle.loads(pickle.dumps(layer))
    assert list(loaded._forward_pre_hooks.values()) == [_shout]
    assert not loaded._forward_pre_hooks_with_kwargs and not loaded._forward_hooks_always_called
    assert loaded(symgrad.tensor([1.0])).tolist() == [10.0]


# PyTorch's model.compile() sets up its compiler, which switches off the validation of
# torch.distributions for the whole process (and patches tracing); its answers are kept here
COMPILE_IN_PLACE = (
    None,
    "Sequential",
    ("0.weight", "0.bias", "2.weight", "2.bias"),
    True,
    ([[0.131, 0.6564], [0.3491, -0.2]], "float32", None),
    ([[-0.4091, -0.2937, 0.0024], [-0.2408, -0.279, 0.1119]], "float32", None),
    ((2, 2), (2, 2)),
)


def test_compile_in_place():
    assert run(symgrad, _compile_in_place) == COMPILE_IN_PLACE
