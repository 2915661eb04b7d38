"""Lazy modules, uninitialized parameters and buffers, ``nn.Buffer`` and ``BatchNorm3d``
(symgrad.nn.modules.lazy, lazy_conv, symgrad.nn.parameter).

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(class names, shapes, values, gradients, grad_fn names, or the exception's type): the table
holds the expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from _torch_table import outcome

import symgrad
from symgrad import nn
from symgrad.nn.parameter import is_lazy


def _fill(T, module):
    """Deterministic values for every parameter: 0.1, 0.2, ... in each."""
    with T.no_grad():
        for p in module.parameters():
            n = math.prod(p.shape)
            p.copy_(T.arange(1, n + 1, dtype=p.dtype).reshape(p.shape) / 10)
    return module


def _shape(t):
    return tuple(t.shape)


def _linear_first_call(T):
    m = T.nn.LazyLinear(2)
    before = (type(m).__name__, type(m.weight).__name__, m.in_features)
    x = T.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    y = m(x)
    return before, (type(m).__name__, type(m.weight).__name__, m.in_features, _shape(y))


def _linear_values(T):
    m = T.nn.LazyLinear(2)
    x = T.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]], requires_grad=True)
    m.initialize_parameters(x)
    _fill(T, m)
    y = m(x)
    y.sum().backward()
    return (
        type(m).__name__,
        np.round(y.tolist(), 4).tolist(),
        type(y.grad_fn).__name__,
        np.round(m.weight.grad.tolist(), 4).tolist(),
        np.round(x.grad.tolist(), 4).tolist(),
    )


def _uninitialized_use(T, use):
    p = T.nn.UninitializedParameter()
    return use(T, p)


def _materialize(T, shape, **kwargs):
    p = T.nn.UninitializedParameter()
    p.materialize(shape, **kwargs)
    return type(p).__name__, _shape(p), str(p.dtype).rsplit(".", 1)[-1], p.requires_grad


def _materialize_int(T):
    p = T.nn.UninitializedParameter()
    try:
        p.materialize((2,), dtype=T.int64)
    except RuntimeError:
        return "RuntimeError", type(p).__name__
    return "no error"


def _buffer_materialize(T):
    b = T.nn.UninitializedBuffer()
    b.materialize((2,), dtype=T.float64)
    return type(b).__name__, _shape(b), str(b.dtype).rsplit(".", 1)[-1], b.requires_grad


def _state_types(T, make):
    return [(k, type(v).__name__) for k, v in make(T).state_dict().items()]


def _load_into_lazy(T):
    src = _fill(T, T.nn.Linear(3, 2))
    m = T.nn.LazyLinear(2)
    result = m.load_state_dict(src.state_dict())
    values = np.round(m.weight.tolist(), 4).tolist()
    loaded = (type(m).__name__, type(m.weight).__name__, _shape(m.weight), values)
    m(T.ones(1, 3))
    return str(result), loaded, type(m).__name__


def _load_lazy_into_lazy(T):
    m = T.nn.LazyLinear(2)
    result = m.load_state_dict(T.nn.LazyLinear(2).state_dict())
    return str(result), type(m.weight).__name__


def _norm_first_call(T, make, shape):
    m = make(T)
    m(T.arange(math.prod(shape), dtype=T.float32).reshape(shape))
    stats = None if m.running_mean is None else np.round(m.running_mean.tolist(), 4).tolist()
    weight = None if m.weight is None else _shape(m.weight)
    return type(m).__name__, m.num_features, weight, stats


def _conv_first_call(T, make, shape):
    m = make(T)
    y = m(T.ones(*shape))
    return type(m).__name__, m.in_channels, _shape(m.weight), _shape(y), repr(m)


def _double_then_call(T):
    m = T.nn.LazyBatchNorm1d().double()
    before = type(m.running_mean).__name__, str(m.running_mean.dtype).rsplit(".", 1)[-1]
    m(T.ones(2, 3, dtype=T.float64))
    return before, str(m.weight.dtype).rsplit(".", 1)[-1], m.running_mean.tolist()


def _buffers(T):
    m = T.nn.Module()
    m.mean = T.nn.Buffer(T.zeros(2))
    m.scratch = T.nn.Buffer(T.ones(1), persistent=False)
    m.plain = T.nn.Buffer(T.ones(1))
    m.plain = T.zeros(1)  # a tensor keeps the buffer's persistence
    m.scratch = T.nn.Buffer(T.ones(1))  # a Buffer brings its own
    return [n for n, _ in m.named_buffers()], list(m.state_dict())


def _buffer_alias(T):
    t = T.ones(2, requires_grad=True)
    b = T.nn.Buffer(t)
    with T.no_grad():
        t.add_(1)
    return (
        b is t,
        b.requires_grad,
        b.tolist(),
        isinstance(b, T.nn.Buffer),
        isinstance(t, T.nn.Buffer),
    )


def _register_buffer_flag(T):
    m = T.nn.Module()
    m.register_buffer("z", T.nn.Buffer(T.ones(1), persistent=False))
    return list(m.state_dict())


def _buffer_over_attribute(T):
    m = T.nn.Module()
    m.q = T.ones(1)
    m.q = T.nn.Buffer(T.ones(1))


def _buffer_over_parameter(T):
    m = T.nn.Module()
    m.p = T.nn.Parameter(T.ones(1))
    m.p = T.nn.Buffer(T.ones(1))


def _buffer_before_init(T):
    class M(T.nn.Module):
        def __init__(self):
            self.z = T.nn.Buffer(T.ones(1))

    M()


def _batchnorm3d(T):
    bn = T.nn.BatchNorm3d(2)
    x = T.arange(16.0).reshape(2, 2, 2, 2, 1).requires_grad_()
    y = bn(x)
    (y * (T.arange(16.0) % 3).reshape(y.shape)).sum().backward()
    return (
        np.round(y[:, 0].flatten().tolist(), 4).tolist(),
        type(y.grad_fn).__name__,
        np.round(bn.running_mean.tolist(), 4).tolist(),
        np.round(bn.running_var.tolist(), 4).tolist(),
        int(bn.num_batches_tracked),
        np.round(x.grad[:, 0].flatten().tolist(), 4).tolist(),
        repr(bn),
    )


U = "UninitializedParameter"
CASES = {
    # -- UninitializedParameter / UninitializedBuffer
    "uninitialized_repr": (lambda T: repr(T.nn.UninitializedParameter()), "<" + U + ">"),
    "uninitialized_flags": (
        lambda T: _uninitialized_use(
            T, lambda T, p: (p.requires_grad, str(p.dtype).rsplit(".", 1)[-1], p.grad, p.is_leaf)
        ),
        (True, "float32", None, True),
    ),
    "uninitialized_is_parameter": (
        lambda T: isinstance(T.nn.UninitializedParameter(), T.nn.Parameter),
        True,
    ),
    "uninitialized_dtype": (
        lambda T: str(T.nn.UninitializedParameter(dtype=T.float64).dtype).rsplit(".", 1)[-1],
        "float64",
    ),
    "uninitialized_no_grad": (
        lambda T: T.nn.UninitializedParameter(requires_grad=False).requires_grad,
        False,
    ),
    "uninitialized_add": (
        lambda T: _uninitialized_use(T, lambda T, p: p + 1),
        ("raises", "ValueError"),
    ),
    "uninitialized_exp": (
        lambda T: _uninitialized_use(T, lambda T, p: T.exp(p)),
        ("raises", "ValueError"),
    ),
    "uninitialized_sum": (
        lambda T: _uninitialized_use(T, lambda T, p: p.sum()),
        ("raises", "ValueError"),
    ),
    "uninitialized_numel": (
        lambda T: _uninitialized_use(T, lambda T, p: p.numel()),
        ("raises", "ValueError"),
    ),
    "uninitialized_clone": (
        lambda T: _uninitialized_use(T, lambda T, p: p.clone()),
        ("raises", "ValueError"),
    ),
    "uninitialized_index": (
        lambda T: _uninitialized_use(T, lambda T, p: p[0]),
        ("raises", "ValueError"),
    ),
    "uninitialized_len": (
        lambda T: _uninitialized_use(T, lambda T, p: len(p)),
        ("raises", "ValueError"),
    ),
    "uninitialized_linear": (
        lambda T: _uninitialized_use(T, lambda T, p: T.nn.functional.linear(T.ones(1, 2), p)),
        ("raises", "ValueError"),
    ),
    "uninitialized_shape": (
        lambda T: _uninitialized_use(T, lambda T, p: p.shape),
        ("raises", "RuntimeError"),
    ),
    "uninitialized_share_memory": (
        lambda T: _uninitialized_use(T, lambda T, p: p.share_memory_()),
        ("raises", "RuntimeError"),
    ),
    "uninitialized_allowed": (
        lambda T: _uninitialized_use(
            T, lambda T, p: (tuple(p.size()), p.is_floating_point(), p.get_device())
        ),
        ((0,), True, -1),
    ),
    "materialize": (lambda T: _materialize(T, (2, 3)), ("Parameter", (2, 3), "float32", True)),
    "materialize_int_shape": (lambda T: _materialize(T, 3), ("Parameter", (3,), "float32", True)),
    "materialize_dtype": (
        lambda T: _materialize(T, (1,), dtype=T.float64),
        ("Parameter", (1,), "float64", True),
    ),
    "materialize_int_dtype": (_materialize_int, ("RuntimeError", U)),
    "buffer_materialize": (_buffer_materialize, ("Tensor", (2,), "float64", False)),
    "buffer_add": (lambda T: T.nn.UninitializedBuffer() * 2, ("raises", "ValueError")),
    "buffer_conversion_stays_lazy": (
        lambda T: type(T.nn.UninitializedBuffer().double()).__name__,
        "UninitializedBuffer",
    ),
    # -- LazyLinear
    "lazy_linear_repr": (
        lambda T: repr(T.nn.LazyLinear(3)),
        "LazyLinear(in_features=0, out_features=3, bias=True)",
    ),
    "lazy_linear_first_call": (
        _linear_first_call,
        (("LazyLinear", U, 0), ("Linear", "Parameter", 3, (1, 2))),
    ),
    "lazy_linear_values": (
        _linear_values,
        (
            "Linear",
            [[1.5, 3.4], [0.2, 0.3]],
            "AddmmBackward0",
            [[1.0, 1.0, 4.0], [1.0, 1.0, 4.0]],
            [[0.5, 0.7, 0.9], [0.5, 0.7, 0.9]],
        ),
    ),
    "lazy_linear_repr_after": (
        lambda T: (lambda m: (m(T.ones(4, 5)), repr(m))[1])(T.nn.LazyLinear(3, bias=False)),
        "Linear(in_features=5, out_features=3, bias=False)",
    ),
    "lazy_linear_has_uninitialized": (
        lambda T: T.nn.LazyLinear(2).has_uninitialized_params(),
        True,
    ),
    "lazy_linear_scalar_input": (
        lambda T: T.nn.LazyLinear(2)(T.ones(())),
        ("raises", "IndexError"),
    ),
    "lazy_linear_extra_argument": (
        lambda T: T.nn.LazyLinear(2)(T.ones(1, 3), T.ones(1)),
        ("raises", "TypeError"),
    ),
    "lazy_linear_initialize_directly": (
        lambda T: (lambda m: (m.initialize_parameters(T.ones(1, 7)), type(m).__name__)[1])(
            T.nn.LazyLinear(2)
        ),
        "LazyLinear",
    ),
    "lazy_linear_meta": (
        lambda T: (
            (lambda m: (m.initialize_parameters(T.ones(1, 3, device="meta")), m.weight))(
                T.nn.LazyLinear(2, device="meta")
            )[1].is_meta
        ),
        True,
    ),
    "lazy_linear_dtype": (
        lambda T: str(T.nn.LazyLinear(2, dtype=T.float64).weight.dtype).rsplit(".", 1)[-1],
        "float64",
    ),
    "lazy_linear_double": (
        lambda T: (lambda m: (m.double()(T.ones(1, 3, dtype=T.float64)), str(m.weight.dtype)))(
            T.nn.LazyLinear(2)
        )[1].rsplit(".", 1)[-1],
        "float64",
    ),
    "lazy_linear_dtype_mismatch": (
        lambda T: T.nn.LazyLinear(2)(T.ones(1, 3, dtype=T.float64)),
        ("raises", "RuntimeError"),
    ),
    "lazy_state_dict": (
        lambda T: _state_types(T, lambda T: T.nn.LazyLinear(2)),
        [("weight", U), ("bias", U)],
    ),
    "lazy_load_initialized": (
        _load_into_lazy,
        (
            "<All keys matched successfully>",
            ("LazyLinear", "Parameter", (2, 3), [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]),
            "Linear",
        ),
    ),
    "lazy_load_lazy": (_load_lazy_into_lazy, ("<All keys matched successfully>", U)),
    "load_lazy_into_initialized": (
        lambda T: T.nn.Linear(3, 2).load_state_dict(T.nn.LazyLinear(2).state_dict()),
        ("raises", "RuntimeError"),
    ),
    "lazy_deepcopy": (
        lambda T: (lambda c: (type(c).__name__, type(c.weight).__name__))(
            copy.deepcopy(T.nn.LazyLinear(2))
        ),
        ("LazyLinear", U),
    ),
    # -- lazy norms
    "lazy_batchnorm_state_dict": (
        lambda T: _state_types(T, lambda T: T.nn.LazyBatchNorm2d()),
        [
            ("weight", U),
            ("bias", U),
            ("running_mean", "UninitializedBuffer"),
            ("running_var", "UninitializedBuffer"),
            ("num_batches_tracked", "Tensor"),
        ],
    ),
    "lazy_batchnorm_repr": (
        lambda T: repr(T.nn.LazyBatchNorm1d()),
        "LazyBatchNorm1d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, "
        "track_running_stats=True)",
    ),
    "lazy_batchnorm1d": (
        lambda T: _norm_first_call(T, lambda T: T.nn.LazyBatchNorm1d(), (2, 3)),
        ("BatchNorm1d", 3, (3,), [0.15, 0.25, 0.35]),
    ),
    "lazy_batchnorm2d": (
        lambda T: _norm_first_call(T, lambda T: T.nn.LazyBatchNorm2d(), (2, 2, 1, 1)),
        ("BatchNorm2d", 2, (2,), [0.1, 0.2]),
    ),
    "lazy_batchnorm3d": (
        lambda T: _norm_first_call(T, lambda T: T.nn.LazyBatchNorm3d(), (1, 2, 2, 1, 1)),
        ("BatchNorm3d", 2, (2,), [0.05, 0.25]),
    ),
    "lazy_batchnorm_without_state": (
        lambda T: _norm_first_call(
            T, lambda T: T.nn.LazyBatchNorm1d(affine=False, track_running_stats=False), (4, 3)
        ),
        ("BatchNorm1d", 0, None, None),
    ),
    "lazy_batchnorm_wrong_rank": (
        lambda T: _norm_first_call(T, lambda T: T.nn.LazyBatchNorm1d(), (2, 3, 4, 5)),
        ("raises", "ValueError"),
    ),
    "lazy_instancenorm1d": (
        lambda T: _norm_first_call(T, lambda T: T.nn.LazyInstanceNorm1d(), (2, 3, 2)),
        ("InstanceNorm1d", 3, (3,), [0.35, 0.55, 0.75]),
    ),
    "lazy_instancenorm2d": (
        lambda T: _norm_first_call(
            T, lambda T: T.nn.LazyInstanceNorm2d(affine=False), (1, 2, 2, 1)
        ),
        ("InstanceNorm2d", 2, None, [0.05, 0.25]),
    ),
    "lazy_instancenorm3d": (
        lambda T: _norm_first_call(T, lambda T: T.nn.LazyInstanceNorm3d(), (1, 1, 2, 1, 1)),
        ("InstanceNorm3d", 1, (1,), [0.05]),
    ),
    "lazy_instancenorm_unbatched": (
        # PyTorch reads num_features from dimension 1 even for an unbatched input
        lambda T: _norm_first_call(T, lambda T: T.nn.LazyInstanceNorm1d(), (3, 5)),
        ("raises", "ValueError"),
    ),
    "lazy_batchnorm_double": (
        _double_then_call,
        (("UninitializedBuffer", "float64"), "float64", [0.1, 0.1, 0.1]),
    ),
    # -- lazy convolutions
    "lazy_conv_repr": (
        lambda T: repr(T.nn.LazyConv2d(4, 3)),
        "LazyConv2d(0, 4, kernel_size=(3, 3), stride=(1, 1))",
    ),
    "lazy_conv1d": (
        lambda T: _conv_first_call(T, lambda T: T.nn.LazyConv1d(4, 3), (2, 5, 8)),
        ("Conv1d", 5, (4, 5, 3), (2, 4, 6), "Conv1d(5, 4, kernel_size=(3,), stride=(1,))"),
    ),
    "lazy_conv2d_unbatched": (
        lambda T: _conv_first_call(T, lambda T: T.nn.LazyConv2d(4, 3), (3, 5, 5)),
        ("Conv2d", 3, (4, 3, 3, 3), (4, 3, 3), "Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1))"),
    ),
    "lazy_conv3d": (
        lambda T: _conv_first_call(T, lambda T: T.nn.LazyConv3d(2, 1, bias=False), (1, 3, 2, 2, 2))[
            :4
        ],
        ("Conv3d", 3, (2, 3, 1, 1, 1), (1, 2, 2, 2, 2)),
    ),
    "lazy_conv_groups": (
        lambda T: _conv_first_call(T, lambda T: T.nn.LazyConv2d(4, 3, groups=2), (1, 3, 5, 5)),
        ("raises", "ValueError"),
    ),
    "lazy_conv_wrong_rank": (
        lambda T: _conv_first_call(T, lambda T: T.nn.LazyConv2d(4, 3), (3, 5, 5, 5, 5)),
        ("raises", "RuntimeError"),
    ),
    "lazy_conv_transpose1d": (
        lambda T: _conv_first_call(T, lambda T: T.nn.LazyConvTranspose1d(4, 3), (1, 2, 5))[:4],
        ("ConvTranspose1d", 2, (2, 4, 3), (1, 4, 7)),
    ),
    "lazy_conv_transpose2d_groups": (
        lambda T: _conv_first_call(
            T, lambda T: T.nn.LazyConvTranspose2d(4, 3, groups=2), (1, 2, 5, 5)
        ),
        (
            "ConvTranspose2d",
            2,
            (2, 2, 3, 3),
            (1, 4, 7, 7),
            "ConvTranspose2d(2, 4, kernel_size=(3, 3), stride=(1, 1), groups=2)",
        ),
    ),
    "lazy_conv_transpose3d": (
        lambda T: _conv_first_call(T, lambda T: T.nn.LazyConvTranspose3d(2, 2), (1, 3, 1, 1, 1))[
            :4
        ],
        ("ConvTranspose3d", 3, (3, 2, 2, 2, 2), (1, 2, 2, 2, 2)),
    ),
    # -- nn.Buffer
    "buffers": (_buffers, (["mean", "scratch", "plain"], ["mean", "scratch", "plain"])),
    "buffer_alias": (_buffer_alias, (False, True, [2.0, 2.0], True, False)),
    "buffer_empty": (lambda T: (T.nn.Buffer().tolist(), T.nn.Buffer().persistent), ([], True)),
    "buffer_persistent_positional": (
        lambda T: T.nn.Buffer(T.ones(1), False),
        ("raises", "TypeError"),
    ),
    "buffer_over_attribute": (_buffer_over_attribute, ("raises", "KeyError")),
    "buffer_over_parameter": (_buffer_over_parameter, ("raises", "TypeError")),
    "buffer_before_init": (_buffer_before_init, ("raises", "AttributeError")),
    "register_buffer_ignores_buffer_flag": (_register_buffer_flag, ["z"]),
    # -- BatchNorm3d
    "batchnorm3d": (
        _batchnorm3d,
        (
            [-1.3242, -1.0835, -0.8427, -0.6019, 0.6019, 0.8427, 1.0835, 1.3242],
            "NativeBatchNormBackward0",
            [0.55, 0.95],
            [2.8714, 2.8714],
            1,
            [-0.1544, 0.0707, 0.2957, -0.2015, 0.2015, -0.2957, -0.0707, 0.1544],
            "BatchNorm3d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, "
            "track_running_stats=True)",
        ),
    ),
    "batchnorm3d_wrong_rank": (
        lambda T: T.nn.BatchNorm3d(2)(T.ones(2, 2, 3, 3)),
        ("raises", "ValueError"),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_symgrad(name):
    fn, expected = CASES[name]
    assert outcome(symgrad, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert outcome(torch, fn) == expected


def test_lazy_linear_gradient_matches_finite_differences():
    m = nn.LazyLinear(2, dtype=symgrad.float64)
    x = symgrad.tensor([[0.3, -1.2, 2.0]], dtype=symgrad.float64, requires_grad=True)
    (m(x) ** 2).sum().backward()
    w = m.weight.detach().numpy().copy()
    b = m.bias.detach().numpy()

    def loss(w):
        return float(((x.detach().numpy() @ w.T + b) ** 2).sum())

    h = 1e-6
    numeric = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = h
        numeric[i] = (loss(w + e) - loss(w - e)) / (2 * h)
    assert np.allclose(m.weight.grad.numpy(), numeric, atol=1e-6)


def test_lazy_module_with_an_optimizer():
    m = nn.LazyLinear(1)
    opt = symgrad.optim.SGD(m.parameters(), lr=0.5)
    m(symgrad.ones(1, 2)).sum().backward()
    before = m.weight.detach().clone()
    opt.step()
    assert np.allclose(m.weight.detach().numpy(), (before - 0.5).numpy())


def test_hook_is_dropped_after_the_first_call():
    m = nn.LazyLinear(2)
    assert m._forward_pre_hooks
    m(symgrad.ones(1, 3))
    assert not m._forward_pre_hooks
    assert "_initialize_hook" not in m.__dict__
    assert type(m) is nn.Linear


def test_subclass_becomes_the_plain_class():
    class Mine(nn.LazyLinear):
        pass

    m = Mine(2)
    m(symgrad.ones(1, 3))
    assert type(m) is nn.Linear


def test_uninitialized_pickles_and_copies():
    p = nn.UninitializedParameter(requires_grad=False, dtype=symgrad.float64)
    for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
        assert type(q) is nn.UninitializedParameter
        assert q.requires_grad is False
        assert q.dtype is symgrad.float64
        assert is_lazy(q)


def test_uninitialized_error_names_the_method():
    with pytest.raises(ValueError, match="uninitialized parameter in Tensor.sum"):
        nn.UninitializedParameter().sum()
    with pytest.raises(ValueError, match="nn.parameter.UninitializedBuffer"):
        nn.UninitializedBuffer().mean()


def test_not_fully_initialized_module():
    class Half(nn.LazyLinear):
        def initialize_parameters(self, input):
            self.weight.materialize((2, input.shape[-1]))

    with pytest.raises(RuntimeError, match="module Half has not been fully initialized"):
        Half(2)(symgrad.ones(1, 3))


def test_lazy_buffer_load_materializes_running_stats():
    src = nn.BatchNorm1d(4)
    with symgrad.no_grad():
        src.running_mean.fill_(2.0)
    m = nn.LazyBatchNorm1d()
    m.load_state_dict(src.state_dict())
    assert m.running_mean.tolist() == [2.0] * 4
    assert type(m).__name__ == "LazyBatchNorm1d"
    m.eval()
    y = m(symgrad.full((1, 4), 2.0))
    assert type(m) is nn.BatchNorm1d
    assert np.allclose(y.detach().numpy(), 0.0)


def test_batchnorm3d_gradient_matches_finite_differences():
    bn = nn.BatchNorm3d(2, dtype=symgrad.float64)
    rng = np.random.default_rng(0)
    values = rng.standard_normal((2, 2, 2, 1, 2))
    weights = rng.standard_normal(values.shape)
    x = symgrad.tensor(values, requires_grad=True)
    (bn(x) * symgrad.tensor(weights)).sum().backward()

    def loss(v):
        mean = v.mean(axis=(0, 2, 3, 4), keepdims=True)
        var = v.var(axis=(0, 2, 3, 4), keepdims=True)
        return float((((v - mean) / np.sqrt(var + 1e-5)) * weights).sum())

    h = 1e-6
    numeric = np.zeros_like(values)
    for i in np.ndindex(values.shape):
        e = np.zeros_like(values)
        e[i] = h
        numeric[i] = (loss(values + e) - loss(values - e)) / (2 * h)
    assert np.allclose(x.grad.numpy(), numeric, atol=1e-6)


def test_lazy_module_saves_and_loads():
    import io

    buffer = io.BytesIO()
    symgrad.save(nn.LazyLinear(2).state_dict(), buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="UninitializedParameter"):
        symgrad.load(buffer)  # not one of the classes the safe loader rebuilds, as PyTorch
    buffer.seek(0)
    state = symgrad.load(buffer, weights_only=False)
    assert [type(v).__name__ for v in state.values()] == ["UninitializedParameter"] * 2
    buffer = io.BytesIO()
    symgrad.save(nn.LazyLinear(2), buffer)
    buffer.seek(0)
    m = symgrad.load(buffer, weights_only=False)
    assert m(symgrad.ones(1, 3)).shape == (1, 2)
    assert type(m) is nn.Linear


def test_uninitialized_use_in_another_thread_still_raises():
    import threading

    p = nn.UninitializedParameter()
    errors = []

    def use():
        try:
            p.sum()
        except ValueError as e:
            errors.append(e)

    thread = threading.Thread(target=use)
    thread.start()
    thread.join()
    assert len(errors) == 1
