"""Programs that make their own tensors: dtype promotion, printing and autograd semantics."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# -- dtype promotion and printing: ``fn(T)`` returning one tensor ----------------------------------

DTYPE_CASES: dict[str, Callable[[Any], Any]] = {
    "float_literal": lambda T: T.tensor([1.0, 2.0]),
    "int_literal": lambda T: T.tensor([1, 2]),
    "bool_literal": lambda T: T.tensor([True, False]),
    "float32_times_python_float": lambda T: T.tensor([1.0, 2.0]) * 2.5,
    "float32_plus_python_int": lambda T: T.tensor([1.0, 2.0]) + 3,
    "float64_times_python_float": lambda T: T.tensor([1.0], dtype=T.float64) * 2.5,
    "int_times_python_float": lambda T: T.tensor([1, 2]) * 1.5,
    "int_plus_python_int": lambda T: T.tensor([1, 2]) + 3,
    "python_float_minus_int": lambda T: 0.5 - T.tensor([1, 2]),
    "int_true_division": lambda T: T.tensor([1, 2]) / T.tensor([2, 4]),
    "int_floor_division": lambda T: T.tensor([7, -7]) // 2,
    "int_pow_int": lambda T: T.tensor([1, 2]) ** 2,
    "int_pow_float": lambda T: T.tensor([1, 2]) ** 0.5,
    "python_float_pow_int": lambda T: 2.0 ** T.tensor([1, 2]),
    "float32_plus_float64": lambda T: T.tensor([1.0]) + T.tensor([2.0], dtype=T.float64),
    "float32_plus_int_tensor": lambda T: T.tensor([1.5, 2.5]) + T.tensor([1, 2]),
    "float64_plus_int_tensor": lambda T: T.tensor([1.5], dtype=T.float64) + T.tensor([1]),
    "float32_plus_0d_float64": lambda T: T.tensor([1.0, 2.0]) + T.tensor(2.0, dtype=T.float64),
    "int_plus_0d_float64": lambda T: T.tensor([1, 2]) + T.tensor(2.0, dtype=T.float64),
    "bool_plus_int": lambda T: T.tensor([True, False]) + 1,
    "bool_times_python_float": lambda T: T.tensor([True, False]) * 1.5,
    "int_sum": lambda T: T.tensor([1, 2]).sum(),
    "bool_sum": lambda T: T.tensor([True, True]).sum(),
    "int_exp": lambda T: T.tensor([0, 1]).exp(),
    "int_sqrt": lambda T: T.sqrt(T.tensor([4, 9])),
    "int_sigmoid": lambda T: T.sigmoid(T.tensor([0, 1])),
    "int_mean_with_dtype": lambda T: T.tensor([1, 2]).mean(dtype=T.float64),
    "int_neg_abs": lambda T: -T.tensor([1, -2]).abs(),
    "int_clamp_float_bound": lambda T: T.tensor([-1, 2]).clamp(0.5),
    "int_maximum_float": lambda T: T.maximum(T.tensor([1, 5]), T.tensor([2.5, 3.5])),
    "int_matmul": lambda T: T.tensor([[1, 2]]) @ T.tensor([[3], [4]]),
    "where_float64_scalar": lambda T: T.where(
        T.tensor([True, False]), T.tensor([1.0, 2.0], dtype=T.float64), 0.0
    ),
    "where_int_python_float": lambda T: T.where(T.tensor([True, False]), T.tensor([1, 2]), 0.5),
    "cat_float32_float64": lambda T: T.cat([T.tensor([1.0]), T.tensor([2.0], dtype=T.float64)]),
    "comparison": lambda T: T.tensor([1.0, 2.0]) > 1.5,
    "double_then_scale": lambda T: T.tensor([1.0]).double() * 3,
    "int_to_float_division": lambda T: T.tensor([1, 2]).float() / 3,
    "arange_int": lambda T: T.arange(3),
    "arange_float": lambda T: T.arange(0.0, 1.0, 0.25),
    "linspace": lambda T: T.linspace(0, 1, 5),
    "zeros": lambda T: T.zeros(2, 3),
    "ones_float64": lambda T: T.ones(2, dtype=T.float64),
    "full_int": lambda T: T.full((2,), 7),
    "full_float": lambda T: T.full((2,), 7.0),
    "eye": lambda T: T.eye(2),
    "scalar_repr": lambda T: T.tensor(3.14159),
    "scientific_repr": lambda T: T.tensor([1e6, 1.0, 1e-5]),
    "integral_float_repr": lambda T: T.tensor([[1.0, 2.0], [300.0, -4.0]]),
    "requires_grad_repr": lambda T: T.tensor([2.0], requires_grad=True),
    "grad_fn_repr_float64": lambda T: T.tensor([1.5], dtype=T.float64, requires_grad=True) * 2,
}


# -- scenarios: ``fn(T)`` returning a structure of tensors, numbers and strings --------------------

SCENARIOS: dict[str, Callable[[Any], Any]] = {}


def scenario(fn: Callable) -> Callable:
    """Register ``fn(T)`` as a scenario named after the function."""
    SCENARIOS[fn.__name__] = fn
    return fn


def error_name(thunk: Callable[[], Any]) -> str:
    """The class name of the exception ``thunk()`` raises, or "no error"."""
    try:
        thunk()
    except Exception as exc:  # noqa: BLE001 - the class is the result
        return type(exc).__name__
    return "no error"


def _node_names(t: Any) -> list:
    """``grad_fn`` name of ``t`` and of each of its next functions."""
    nexts = [None if f is None else type(f).__name__ for f, _ in t.grad_fn.next_functions]
    return [type(t.grad_fn).__name__, nexts]


@scenario
def tutorial_graph_retain_grad(T):
    """The ``a, b, c, d -> e`` graph: leaves get ``.grad``, ``retain_grad`` keeps c's."""
    a = T.tensor([2.0], requires_grad=True)
    b = T.tensor([6.0], requires_grad=True)
    c = a * b
    c.retain_grad()
    d = c + a.exp()
    e = d.pow(2).sum()
    e.backward()
    return [a.grad, b.grad, c.grad, c.retains_grad, c.is_leaf, d.is_leaf, e, _node_names(d)]


@scenario
def eye_pow_backward_twice(T):
    """``(eye(5) + 1).pow(2)`` with ``backward(ones_like)`` twice, then ``grad.zero_()``."""
    inp = T.eye(5, requires_grad=True)
    out = (inp + 1).pow(2)
    out.backward(T.ones_like(inp), retain_graph=True)
    first = inp.grad.clone()
    out.backward(T.ones_like(inp), retain_graph=True)
    second = inp.grad.clone()
    inp.grad.zero_()
    out.backward(T.ones_like(inp))
    return [first, second, inp.grad, out]


@scenario
def hooks_on_leaf_and_intermediate(T):
    """A hook that doubles an intermediate's gradient, one that records a leaf's."""
    x = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.clone()))
    y = x * x
    y.register_hook(lambda g: g * 2)
    y.retain_grad()
    (y.sin().sum()).backward()
    return [x.grad, y.grad, seen]


@scenario
def hook_removed(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    first = x.grad.clone()
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    return [first, x.grad]


@scenario
def custom_function_exp(T):
    """The tutorial's custom exp: saves its result, reuses it in backward."""

    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    x = T.tensor([0.5, -1.0], dtype=T.float64, requires_grad=True)
    y = Exp.apply(x)
    (y * T.tensor([1.0, 3.0], dtype=T.float64)).sum().backward()
    return [y, x.grad, type(y.grad_fn).__name__]


@scenario
def custom_function_two_inputs(T):
    """``needs_input_grad``, a None gradient for a constant, a non-differentiable output."""
    flags = []

    class ScaledSquare(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x, scale)
            flags.append(tuple(ctx.needs_input_grad))
            mask = x > 0
            ctx.mark_non_differentiable(mask)
            return x * x * scale, mask

        @staticmethod
        def backward(ctx, grad, _grad_mask):
            x, scale = ctx.saved_tensors
            return 2 * x * scale * grad, None

    x = T.tensor([1.5, -0.5], requires_grad=True)
    y, mask = ScaledSquare.apply(x, T.tensor([2.0, 3.0]))
    y.sum().backward()
    return [y, mask, mask.requires_grad, x.grad, flags]


@scenario
def backward_inputs_argument(T):
    w = T.tensor([1.0, 2.0], requires_grad=True)
    b = T.tensor([0.5], requires_grad=True)
    (w * w + b).sum().backward(inputs=[w])
    return [w.grad, b.grad]


@scenario
def autograd_grad_non_scalar(T):
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.log() * x
    (gx,) = T.autograd.grad(y, x, grad_outputs=T.ones_like(y))
    return [gx, x.grad]


@scenario
def grad_mode_switches(T):
    x = T.tensor([1.0], requires_grad=True)
    with T.no_grad():
        a = x * 2
        with T.enable_grad():
            b = x * 2
    with T.set_grad_enabled(False):
        c = x * 2

    @T.no_grad()
    def doubled(v):
        return v * 2

    return [
        a.requires_grad,
        b.requires_grad,
        c.requires_grad,
        doubled(x).requires_grad,
        T.is_grad_enabled(),
    ]


@scenario
def detach_shares_data(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    with T.no_grad():
        d.mul_(3)
    return [x, d.requires_grad, x.detach().is_leaf]


@scenario
def errors_like_pytorch(T):
    """The errors PyTorch raises, by class."""

    def backward_twice():
        y = (T.tensor([1.0], requires_grad=True) * 2).exp().sum()
        y.backward()
        y.backward()

    def modified_saved():
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        z = y * 1
        y.add_(1)
        (z + y).sum().backward()
        y.sum().backward()

    leaf = T.tensor([1.0], requires_grad=True)
    return [
        error_name(backward_twice),
        error_name(modified_saved),
        error_name(lambda: (T.tensor([1.0, 2.0], requires_grad=True) * 2).backward()),
        error_name(lambda: T.tensor([1.0]).sum().backward()),
        error_name(lambda: leaf.add_(1)),
        error_name(lambda: T.tensor([1, 2]).requires_grad_()),
        error_name(lambda: T.tensor([1.0], requires_grad=True).numpy()),
        error_name(lambda: (leaf * 2).backward(T.ones(2))),
    ]


@scenario
def in_place_on_non_leaf(T):
    x = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 2
    y.add_(1)
    y.mul_(x)
    y.sub_(0.5)
    y.div_(2)
    y.sum().backward()
    return [y, x.grad, type(y.grad_fn).__name__]


@scenario
def in_place_on_slices_changes_the_tensor_sliced(T):
    """Augmented assignment to slices, and in-place ops on a slice and a slice of a slice:
    the values land in the tensor sliced, and the gradients follow (CopySlices)."""
    x = T.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    w = T.tensor([0.5, -1.0], requires_grad=True)
    y = x * 1
    y[1:] *= 2
    y[0] += 1
    y[3:] -= w
    head = y[0:3]
    head[1:].mul_(w)
    head.add_(1)
    loss = (head * head).sum() + (y * y).sum()
    loss.backward()
    return [y, head, x.grad, w.grad, type(y.grad_fn).__name__]


@scenario
def non_leaf_grad_warns(T):
    import warnings

    x = T.tensor([1.0], requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = y.grad
    return [value, [w.category.__name__ for w in caught]]


@scenario
def max_min_named_results(T):
    x = T.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 6.0]], requires_grad=True)
    top = x.max(dim=1)
    low = T.min(x, 0)
    (top.values.sum() + low.values.sum()).backward()
    return [top.values, top.indices, low.indices, x.grad, T.argmax(x), x.argmin(1)]


@scenario
def default_dtype_float64(T):
    """With a float64 default, literals and int-float promotion follow it."""
    before = T.get_default_dtype()
    T.set_default_dtype(T.float64)
    try:
        return [
            T.tensor([1.5]),
            T.tensor([1, 2]) * 1.5,
            T.zeros(2),
            T.tensor([1.0]).dtype,
            repr(T.tensor([0.5], dtype=T.float32)),
        ]
    finally:
        T.set_default_dtype(before)


@scenario
def tensor_attributes(T):
    x = T.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    y = x.sum(1)
    return [
        x.shape,
        list(x.size()),
        x.size(1),
        x.dim(),
        x.ndim,
        x.numel(),
        y.item(),
        x.tolist(),
        x.is_leaf,
        y.is_leaf,
        x.grad_fn,
        str(x.device),
        x.T.shape,
        x.detach().numpy().tolist(),
        x.data,
    ]


@scenario
def var_without_degrees_of_freedom(T):
    """nan, with PyTorch's UserWarning about the degrees of freedom."""
    import warnings

    x = T.tensor([[1.0], [3.0]], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = x.var(1)
    v.sum().backward()
    return [v, x.grad, [w.category.__name__ for w in caught]]
