"""Differences from PyTorch found in torch.nn modules by running small models both ways: the
recurrent layers (module API, dtype and size checks, packing and padding nodes), the
containers' operators, nn.init's checks, the normalisation layers' parameter dtypes and
rms_norm's precision, attention masks (their checks, a query that sees no key), module hooks
(full, deprecated and global backward hooks, global forward hooks), transposed convolution
edge cases, SyncBatchNorm, nn.grad, skip_init, loss arguments and PyTorch's warnings.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import warnings

from _torch_table import NAN, table_tests

F32 = "float32"
NOT_IMPLEMENTED = ("raises", "NotImplementedError")


def _flatten_parameters(T):
    lstm = T.nn.LSTM(2, 3, num_layers=2, bidirectional=True)
    return lstm.flatten_parameters(), len(lstm._flat_weights)


def _all_weights(T):
    gru = T.nn.GRU(2, 3, num_layers=2, bias=False)
    return [[tuple(w.shape) for w in ws] for ws in gru.all_weights]


def _all_weights_are_parameters(T):
    lstm = T.nn.LSTM(2, 3, proj_size=1)
    return [w is p for w, p in zip(lstm.all_weights[0], lstm.parameters())]


def _rnn_input(T, mode, dtype):
    layer = getattr(T.nn, mode)(2, 3)
    return layer(T.zeros(4, 2, dtype=getattr(T, dtype)))


def _names(module):
    return list(module._modules)  # named_children() lists a repeated module once


def _sequential_sum(T):
    a = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU())
    total = a + T.nn.Sequential(T.nn.Tanh())
    a += T.nn.Sequential(T.nn.Sigmoid())
    return _names(total), [type(m).__name__ for m in total], _names(a), type(a[2]).__name__


def _sequential_product(T):
    a = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU())
    twice, thrice = a * 2, 3 * a
    same = twice[0] is twice[2]
    a *= 2
    return _names(twice), len(thrice), same, _names(a), a(T.ones(1, 2)).shape


def _sequential_pop(T):
    a = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU(), T.nn.Tanh())
    popped = a.pop(1)
    return type(popped).__name__, _names(a), type(a[1]).__name__


def _init(T, name, dtype="float32", *args, **kwargs):
    return getattr(T.nn.init, name)(T.zeros(3, 4, dtype=getattr(T, dtype)), *args, **kwargs)


def _norm(T, name, input_dtype, args, *param_dtypes, **kwargs):
    """``F.<name>(x, *args, *params)`` of a (2, 2) input, the parameters of the given dtypes
    (None: left out)."""
    x = T.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=getattr(T, input_dtype))
    params = [None if d is None else T.ones(2, dtype=getattr(T, d)) for d in param_dtypes]
    return getattr(T.nn.functional, name)(x, *args, *params, **kwargs)


def _norm_module(T, make, dtype, train=True):
    module = make(T).train(train)
    return module(T.arange(12.0, dtype=getattr(T, dtype)).reshape(2, 2, 3))


def _rms_norm(T, input_dtype, weight_dtype):
    x = T.tensor([[1.0, -2.0, 2.0], [0.5, 0.25, 3.0]], dtype=getattr(T, input_dtype))
    x.requires_grad_()
    w = T.tensor([0.5, 1.0, 2.0], dtype=getattr(T, weight_dtype), requires_grad=True)
    out = T.nn.functional.rms_norm(x, (3,), w)
    out.backward(T.tensor([[1.0, 2.0, -1.0], [0.5, -3.0, 1.0]], dtype=out.dtype))
    return out, x.grad, w.grad


def _rms_norm_half(T):
    x = T.tensor([[1.0, -2.0, 2.0], [0.5, 0.25, 3.0]], dtype=T.float16, requires_grad=True)
    out = T.nn.functional.rms_norm(x, (3,))
    out.backward(T.tensor([[1.0, 2.0, -1.0], [0.5, -3.0, 1.0]], dtype=out.dtype))
    return out, x.grad


def _hooked(T, forward, inputs, loss):
    """What a module's full backward pre-hook and hook see: ``forward`` called on ``inputs``
    (a function of ``T``), then backward of ``loss(outputs)``."""

    def grads(gs):
        return [None if g is None else g.tolist() for g in gs]

    seen = []
    module = type("M", (T.nn.Module,), {"forward": lambda self, *a: forward(*a)})()
    module.register_full_backward_pre_hook(lambda m, go: seen.append(("pre", grads(go))))
    module.register_full_backward_hook(lambda m, gi, go: seen.append((grads(gi), grads(go))))
    loss(module(*inputs(T))).backward()
    return seen


def _leaf(T, *values, requires_grad=True):
    return T.tensor(list(values), requires_grad=requires_grad)


def _pre_hook_wrong_count(T):
    lin = T.nn.Linear(2, 1)
    lin.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
    lin(T.ones(1, 2)).sum().backward()


def _hooked_lstm(T):
    seen = []
    lstm = T.nn.LSTM(2, 3)
    lstm.register_full_backward_hook(lambda m, gi, go: seen.append([g is None for g in go]))
    output, (h, c) = lstm(T.ones(4, 1, 2, requires_grad=True))
    output.sum().backward()
    return seen


def _padded_packed(T, batch_first, lengths, enforce_sorted):
    x = T.arange(12.0).reshape(3, 2, 2).transpose(0, 1 if batch_first else 0)
    x = x.contiguous().requires_grad_()
    packed = T.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    out, lengths = T.nn.utils.rnn.pad_packed_sequence(packed, batch_first)
    before = out.grad_fn.next_functions[0][0]
    return out, lengths, type(before).__name__, out.is_contiguous()


def _pad_packed_view(T):
    packed = T.nn.utils.rnn.pack_sequence([T.ones(1, 2), T.ones(3, 2) * 2], False)
    out, _ = T.nn.utils.rnn.pad_packed_sequence(packed)
    return out.view(-1, 4)


def _viewed(T, index):
    x = T.arange(12.0).reshape(2, 3, 2)
    return index(T, x).view(-1)


def _attention(T, batched=True, key_shape=None, **masks):
    """A 2-head attention of 4 queries and 5 keys (a batch of 2 when ``batched``), with
    ``masks`` given as (shape, dtype name)."""
    attn = T.nn.MultiheadAttention(8, 2)
    lead = (2,) if batched else ()
    q, k = T.ones(4, *lead, 8), T.ones(*(key_shape or (5, *lead, 8)))
    made = {name: T.zeros(*shape, dtype=getattr(T, d)) for name, (shape, d) in masks.items()}
    out, weights = attn(q, k, k, **made)
    return out.shape, weights.shape


def _conv_transpose_output_padding(T):
    """A transposed convolution whose output padding is at least its stride (allowed when
    below the dilation): the output has room for more windows than the input has positions."""
    layer = T.nn.ConvTranspose1d(1, 1, 2, stride=1, dilation=2, output_padding=1, bias=False)
    layer.weight.data = T.tensor([[[1.0, -2.0]]], dtype=T.float64)
    layer.double()
    x = T.tensor([[[1.0, 2.0, 3.0]]], dtype=T.float64, requires_grad=True)
    out = layer(x)
    out.backward(T.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]], dtype=T.float64))
    return out, x.grad, layer.weight.grad


def _node_hook_shapes(T, make, shape):
    """The shapes ``register_backward_hook``'s hook sees: the gradients of the inputs of the
    node that made the module's output, and of its output."""
    seen = []

    def shapes(gs):
        return [None if g is None else tuple(g.shape) for g in gs]

    module = make(T)
    module.register_backward_hook(lambda m, gi, go: seen.append((shapes(gi), shapes(go))))
    module(T.ones(*shape, requires_grad=True)).sum().backward()
    return seen


def _guided_relu(T):
    relu = T.nn.ReLU()
    relu.register_backward_hook(lambda m, gi, go: (gi[0].clamp(min=0),))
    x = T.tensor([1.0, 2.0, -1.0], requires_grad=True)
    (relu(x) * T.tensor([-1.0, 3.0, 2.0])).sum().backward()
    return x.grad


def _both_kinds_of_backward_hook(T, full_first):
    relu = T.nn.ReLU()
    first, second = (
        (relu.register_full_backward_hook, relu.register_backward_hook)
        if full_first
        else (relu.register_backward_hook, relu.register_full_backward_hook)
    )
    first(lambda *a: None)
    second(lambda *a: None)


def _packed_nodes(T, batch_first):
    x = T.arange(6.0).reshape(3, 2, 1)
    x = (x.transpose(0, 1) if batch_first else x).contiguous().requires_grad_()
    packed = T.nn.utils.rnn.pack_padded_sequence(x, [3, 1], batch_first)
    (packed.data * T.arange(4.0).reshape(4, 1)).sum().backward()
    return packed.data, x.grad.flatten()


def _pad_sequence(T, **kwargs):
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = T.tensor([3.0], requires_grad=True)
    out = T.nn.utils.rnn.pad_sequence([a, b], **kwargs)
    (out * T.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return out, a.grad, b.grad


def _global_hooks(T):
    """Every kind of global module hook, and the order it runs in with a module's own."""
    module_hooks = T.nn.modules.module
    seen = []

    def grads(gs):
        return [None if g is None else g.tolist() for g in gs]

    def name(m):
        return type(m).__name__

    handles = [
        module_hooks.register_module_forward_pre_hook(lambda m, a: seen.append(("pre", name(m)))),
        module_hooks.register_module_forward_hook(lambda m, a, o: seen.append(("fwd", name(m)))),
        module_hooks.register_module_forward_hook(
            lambda m, a, k, o: seen.append(("kwargs", name(m), sorted(k))), with_kwargs=True
        ),
        module_hooks.register_module_full_backward_pre_hook(
            lambda m, go: seen.append(("bpre", name(m), grads(go)))
        ),
        module_hooks.register_module_full_backward_hook(
            lambda m, gi, go: seen.append(("b", name(m), grads(gi), grads(go)))
        ),
    ]
    try:
        seq = T.nn.Sequential(T.nn.Linear(2, 1), T.nn.ReLU())
        seq[0].weight.data.fill_(1.0)
        seq[0].bias.data.fill_(0.5)
        seq[1].register_forward_pre_hook(lambda m, a: seen.append(("own pre",)))
        seq[1].register_full_backward_hook(lambda m, gi, go: seen.append(("own b",)))
        seq(T.ones(1, 2, requires_grad=True)).sum().backward()
    finally:
        for h in handles:
            h.remove()
    T.nn.ReLU()(T.ones(1))  # removed: nothing more seen
    return seen


def _global_hook_results(T):
    module_hooks = T.nn.modules.module
    with module_hooks.register_module_forward_hook(lambda m, a, o: o * 2):
        doubled = T.nn.ReLU()(T.ones(1))
    with module_hooks.register_module_forward_pre_hook(lambda m, a: (a[0] * 3,)):
        tripled = T.nn.ReLU()(T.ones(1))
    return doubled.tolist(), tripled.tolist(), T.nn.ReLU()(T.ones(1)).tolist()


def _synced(T, train):
    model = T.nn.Sequential(
        T.nn.Conv2d(1, 2, 1, bias=False),
        T.nn.Sequential(T.nn.BatchNorm2d(2, momentum=None)),
        T.nn.InstanceNorm2d(2),
    )
    model[0].weight.data = T.tensor([[[[1.0]]], [[[-2.0]]]])
    model = T.nn.SyncBatchNorm.convert_sync_batchnorm(model).train(train)
    x = T.tensor([[[[1.0, 2.0], [3.0, 5.0]]], [[[0.0, 1.0], [1.0, 3.0]]]])
    out = model[1](model[0](x))
    bn = model[1][0]
    kinds = [type(m).__name__ for m in model.modules()]
    return out, bn.running_mean, bn.running_var, bn.num_batches_tracked, kinds


def _synced_layer(T):
    bn = T.nn.BatchNorm1d(3, affine=False).eval()
    synced = T.nn.SyncBatchNorm.convert_sync_batchnorm(bn)
    return (
        type(synced).__name__,
        synced.running_var is bn.running_var,
        synced.training,
        repr(synced),
    )


def _conv_grads(T):
    """nn.grad's products for a strided, padded, grouped convolution, against autograd's."""
    x = T.arange(24.0).reshape(1, 2, 3, 4).requires_grad_()
    w = (T.arange(16.0).reshape(4, 1, 2, 2) - 8).requires_grad_()
    args = (2, 1, 1, 2)  # stride, padding, dilation, groups
    out = T.nn.functional.conv2d(x, w, None, *args)
    go = T.arange(float(out.numel())).reshape(out.shape)
    gx, gw = T.autograd.grad(out, (x, w), go)
    with T.no_grad():
        by_input = T.nn.grad.conv2d_input(x.shape, w, go, *args)
        by_weight = T.nn.grad.conv2d_weight(x, w.shape, go, *args)
    return T.equal(by_input, gx), T.equal(by_weight, gw), by_input.grad_fn, by_input[0, :, 0]


def _conv1d_grads_recorded(T):
    w = T.tensor([[[1.0, -1.0]]], requires_grad=True)
    go = T.tensor([[[2.0, 3.0]]], requires_grad=True)
    by_input = T.nn.grad.conv1d_input((1, 1, 3), w, go)
    (by_input * T.tensor([1.0, 2.0, 4.0])).sum().backward()
    return by_input.detach(), by_input.requires_grad, w.grad, go.grad


def _skip_init(T):
    layer = T.nn.utils.skip_init(T.nn.Linear, 5, 2, bias=False)
    conv = T.nn.utils.skip_init(T.nn.Conv2d, in_channels=1, out_channels=2, kernel_size=3)
    weight = layer.weight
    return tuple(weight.shape), type(weight).__name__, weight.requires_grad, conv.weight.shape


def _stateless_call(T):
    layer = T.nn.Linear(2, 1, bias=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = T.nn.utils.stateless.functional_call(
            layer, {"weight": T.ones(1, 2)}, T.ones(1, 2) * 3
        )
    return out, [w.category.__name__ for w in seen]


def _reset(T):
    prelu, norm = T.nn.PReLU(2, init=0.1), T.nn.RMSNorm(2)
    with T.no_grad():
        prelu.weight.fill_(3.0)
        norm.weight.fill_(3.0)
    prelu.reset_parameters()
    norm.reset_parameters()
    return prelu.weight.detach(), norm.weight.detach()


def _warned(T, make):
    """The categories and first words of the warnings ``make(T)`` gives."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        make(T)
    return [(w.category.__name__, " ".join(str(w.message).split()[:4])) for w in seen]


def _left_padded_causal(T, need_weights):
    """Attention where the first query of the first sequence sees only padding (a causal
    mask over a left-padded batch)."""
    T.manual_seed(0)
    attn = T.nn.MultiheadAttention(2, 1, batch_first=True)
    attn.in_proj_weight.data = T.eye(2).repeat(3, 1)
    attn.in_proj_bias.data.zero_()
    attn.out_proj.weight.data = T.eye(2)
    attn.out_proj.bias.data = T.tensor([0.5, -0.5])
    x = T.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [2.0, 0.0]]], requires_grad=True)
    causal = T.tensor([[False, True], [False, False]])
    padding = T.tensor([[True, False], [False, False]])
    out, _ = attn(x, x, x, key_padding_mask=padding, attn_mask=causal, need_weights=need_weights)
    out[1].sum().backward()
    return out[0].detach(), x.grad[1]


def _byte_targets(T, make_loss, input_shape=(2, 3), target=(2, 0)):
    x = T.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -1.0]]).reshape(input_shape).requires_grad_()
    loss = make_loss(T)(x, T.tensor(target, dtype=T.uint8))
    loss.backward()
    return loss, x.grad.flatten()


def _transferred(T, split):
    parametrize = T.nn.utils.parametrize

    class Half(T.nn.Module):  # two originals, each half the weight
        def forward(self, a, b):
            return a + b

        def right_inverse(self, w):
            return w * 0.5, w * 0.5

    class Twice(T.nn.Module):
        def forward(self, w):
            return w * 2

    source, target = T.nn.Linear(2, 1), T.nn.Linear(2, 1)
    source.weight.data = T.tensor([[1.0, 2.0]])
    parametrize.register_parametrization(source, "weight", Half() if split else Twice())
    out = parametrize.transfer_parametrizations_and_params(source, target, "weight")
    shared = [
        getattr(out.parametrizations.weight, name) is getattr(source.parametrizations.weight, name)
        for name in (("original0", "original1") if split else ("original",))
    ]
    return out is target, type(out).__name__, out.weight.detach(), shared, list(out.state_dict())


RAISES_RUNTIME = ("raises", "RuntimeError")
RAISES_ASSERTION = ("raises", "AssertionError")
RAISES_VALUE = ("raises", "ValueError")
F16 = "float16"
F64 = "float64"
HALF_OUT = ([[-1.0, -1.0], [1.0, 1.0]], F16, None)
CASES = {
    # -- recurrent layers: the cuDNN hook is a no-op on the CPU, the weights by layer
    "rnn_flatten_parameters": (_flatten_parameters, (None, 16)),
    "rnn_all_weights": (_all_weights, (((9, 2), (9, 3)), ((9, 3), (9, 3)))),
    "rnn_all_weights_parameters": (_all_weights_are_parameters, (True,) * 5),
    "rnn_input_float64": (lambda T: _rnn_input(T, "RNN", "float64"), ("raises", "ValueError")),
    "lstm_input_int64": (lambda T: _rnn_input(T, "LSTM", "int64"), ("raises", "ValueError")),
    "gru_input_float16": (lambda T: _rnn_input(T, "GRU", "float16"), ("raises", "ValueError")),
    "rnn_empty_sequence": (lambda T: T.nn.GRU(2, 3)(T.ones(0, 1, 2)), RAISES_RUNTIME),
    "rnn_empty_sequence_batch_first": (
        lambda T: T.nn.LSTM(2, 3, batch_first=True)(T.ones(1, 0, 2)),
        RAISES_RUNTIME,
    ),
    "rnn_empty_unbatched_sequence": (lambda T: T.nn.RNN(2, 3)(T.ones(0, 2)), RAISES_RUNTIME),
    # -- Sequential's operators
    "sequential_add": (
        _sequential_sum,
        (("0", "1", "2"), ("Linear", "ReLU", "Tanh"), ("0", "1", "2"), "Sigmoid"),
    ),
    "sequential_add_other": (
        lambda T: T.nn.Sequential() + T.nn.ModuleList(),
        ("raises", "ValueError"),
    ),
    "sequential_iadd_other": (
        lambda T: T.nn.Sequential().__iadd__([T.nn.ReLU()]),
        ("raises", "ValueError"),
    ),
    "sequential_mul": (
        _sequential_product,
        (("0", "1", "2", "3"), 6, True, ("0", "1", "2", "3"), (1, 2)),
    ),
    "sequential_mul_zero": (lambda T: T.nn.Sequential() * 0, ("raises", "ValueError")),
    "sequential_mul_float": (lambda T: T.nn.Sequential() * 2.0, ("raises", "TypeError")),
    "sequential_imul_negative": (
        lambda T: T.nn.Sequential().__imul__(-1),
        ("raises", "ValueError"),
    ),
    "sequential_pop": (_sequential_pop, ("ReLU", ("0", "1"), "Tanh")),
    "modules_remove_duplicate": (
        lambda T: [
            len(list(T.nn.Sequential(*[T.nn.Tanh()] * 2).modules())),
            len(list(T.nn.Sequential(*[T.nn.Tanh()] * 2).modules(remove_duplicate=False))),
        ],
        (2, 3),
    ),
    "container_dir": (
        lambda T: [
            "0" in dir(T.nn.ModuleList([T.nn.ReLU()])),
            "0" in dir(T.nn.Sequential(T.nn.ReLU())),
            "weight" in dir(T.nn.Linear(1, 1)),
        ],
        (False, False, True),
    ),
    # -- nn.init: PyTorch's checks of the dtype and of the bounds
    "init_uniform_int": (lambda T: _init(T, "uniform_", "int64"), NOT_IMPLEMENTED),
    "init_uniform_bool": (lambda T: _init(T, "uniform_", "bool"), NOT_IMPLEMENTED),
    "init_normal_int": (lambda T: _init(T, "normal_", "int32"), NOT_IMPLEMENTED),
    "init_kaiming_uniform_int": (
        lambda T: _init(T, "kaiming_uniform_", "int64"),
        NOT_IMPLEMENTED,
    ),
    "init_kaiming_normal_int": (
        lambda T: _init(T, "kaiming_normal_", "int64"),
        NOT_IMPLEMENTED,
    ),
    "init_xavier_uniform_int": (
        lambda T: _init(T, "xavier_uniform_", "int64"),
        NOT_IMPLEMENTED,
    ),
    "init_xavier_normal_int": (
        lambda T: _init(T, "xavier_normal_", "int64"),
        NOT_IMPLEMENTED,
    ),
    "init_uniform_reversed": (
        lambda T: _init(T, "uniform_", "float32", 2.0, 1.0),
        ("raises", "RuntimeError"),
    ),
    "init_normal_negative_std": (
        lambda T: _init(T, "normal_", "float32", 0.0, -1.0),
        ("raises", "RuntimeError"),
    ),
    "init_uniform_equal_bounds": (
        lambda T: _init(T, "uniform_", "float64", 2.0, 2.0).tolist(),
        ((2.0,) * 4,) * 3,
    ),
    "init_normal_zero_std": (
        lambda T: _init(T, "normal_", "float16", 1.0, 0.0),
        ([[1.0] * 4] * 3, "float16", None),
    ),
    # -- normalization: PyTorch's CPU rule for the parameters' dtype (the input's, or float32
    # for a float16 input)
    "layer_norm_float64_float32": (
        lambda T: _norm(T, "layer_norm", F64, [(2,)], F32, F32),
        RAISES_RUNTIME,
    ),
    "layer_norm_float32_float64": (
        lambda T: _norm(T, "layer_norm", F32, [(2,)], F64),
        RAISES_RUNTIME,
    ),
    "layer_norm_bias_only": (
        lambda T: _norm(T, "layer_norm", F64, [(2,)], None, F32),
        RAISES_RUNTIME,
    ),
    "layer_norm_float16_float32": (
        lambda T: _norm(T, "layer_norm", F16, [(2,)], F32, F32),
        ([[0.0, 2.0], [0.0, 2.0]], F16, None),
    ),
    "layer_norm_float16_mixed": (
        lambda T: _norm(T, "layer_norm", F16, [(2,)], F32, F16),
        RAISES_RUNTIME,
    ),
    "layer_norm_float16_weight_float32_bias": (
        lambda T: _norm(T, "layer_norm", F16, [(2,)], F16, F32),
        RAISES_RUNTIME,
    ),
    "group_norm_float64_float32": (
        lambda T: _norm(T, "group_norm", F64, [1], F32, F32),
        RAISES_RUNTIME,
    ),
    "batch_norm_float64_stats_float32": (
        lambda T: _norm(T, "batch_norm", F64, [], F32, F32, training=True),
        RAISES_RUNTIME,
    ),
    "batch_norm_eval_float32_float64": (
        lambda T: _norm(T, "batch_norm", F32, [], F64, F64),
        RAISES_RUNTIME,
    ),
    "batch_norm_float16_float32": (
        lambda T: _norm(T, "batch_norm", F16, [], F32, F32, training=True),
        HALF_OUT,
    ),
    "batch_norm_module_float64_input": (
        lambda T: _norm_module(T, lambda T: T.nn.BatchNorm1d(2), F64),
        RAISES_RUNTIME,
    ),
    "batch_norm_module_eval_float64_input": (
        lambda T: _norm_module(T, lambda T: T.nn.BatchNorm1d(2), F64, train=False),
        RAISES_RUNTIME,
    ),
    "group_norm_module_float64_input": (
        lambda T: _norm_module(T, lambda T: T.nn.GroupNorm(1, 2), F64),
        RAISES_RUNTIME,
    ),
    "layer_norm_module_float64_input": (
        lambda T: _norm_module(T, lambda T: T.nn.LayerNorm(3), F64),
        RAISES_RUNTIME,
    ),
    "instance_norm_affine_float64_input": (
        lambda T: _norm_module(T, lambda T: T.nn.InstanceNorm1d(2, affine=True), F64),
        RAISES_RUNTIME,
    ),
    "instance_norm_stats_float64_input": (
        lambda T: _norm_module(
            T, lambda T: T.nn.InstanceNorm1d(2, track_running_stats=True), F64, train=False
        ),
        ([[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], [[6.0, 7.0, 8.0], [9.0, 10.0, 10.9999]]], F64, None),
    ),
    # -- rms_norm: PyTorch's composite, computed in float32 for float16 and cast back to the
    # input's dtype
    "rms_norm_float32_float64": (
        lambda T: _rms_norm(T, F32, F64),
        (
            ([[0.2887, -1.1547, 2.3094], [0.1419, 0.1419, 3.4055]], F32, "ToCopyBackward0"),
            ([[0.7698, 0.1925, -0.1925], [-0.0219, -1.7846, 0.1524]], F32, None),
            ([0.7192, -2.7351, 0.548], F64, None),
        ),
    ),
    "rms_norm_float16_float32": (
        lambda T: _rms_norm(T, F16, F32),
        (
            ([[0.2886, -1.1543, 2.3086], [0.1418, 0.1418, 3.4062]], F16, "ToCopyBackward0"),
            ([[0.77, 0.1925, -0.1925], [-0.0219, -1.7842, 0.1523]], F16, None),
            ([0.7192, -2.7351, 0.548], F32, None),
        ),
    ),
    "rms_norm_float64_float32": (
        lambda T: _rms_norm(T, F64, F32)[0],
        ([[0.2887, -1.1547, 2.3094], [0.1419, 0.1419, 3.4055]], F64, "MulBackward0"),
    ),
    "rms_norm_float16": (
        _rms_norm_half,
        (
            ([[0.5771, -1.1543, 1.1543], [0.2837, 0.1418, 1.7031]], F16, "ToCopyBackward0"),
            ([[0.8979, 0.5132, 0.0641], [0.2076, -1.7412, 0.1105]], F16, None),
        ),
    ),
    # -- full backward hooks: one entry per positional argument and per output, None where it
    # is not a tensor or (an output) got no gradient, zeros for an input that needs none
    "backward_hook_non_tensors": (
        lambda T: _hooked(
            T,
            lambda x, n, y: (x * n, n, (y, y), y * 2),
            lambda T: (_leaf(T, 1.0, 2.0), 3, _leaf(T, 1.0)),
            lambda out: out[0].sum() + out[3].sum(),
        ),
        (
            ("pre", ((1.0, 1.0), None, None, (1.0,))),
            (((3.0, 3.0), None, (2.0,)), ((1.0, 1.0), None, None, (1.0,))),
        ),
    ),
    "backward_hook_unused_output": (
        lambda T: _hooked(
            T,
            lambda x: (x * 2, x * 3),
            lambda T: (_leaf(T, 1.0),),
            lambda out: out[0].sum(),
        ),
        (("pre", ((1.0,), None)), (((2.0,),), ((1.0,), None))),
    ),
    "backward_hook_input_without_grad": (
        lambda T: _hooked(
            T,
            lambda x, y, z: x * y,
            lambda T: (_leaf(T, 1.0), _leaf(T, 2.0, requires_grad=False), _leaf(T, 3.0)),
            lambda out: out.sum(),
        ),
        (("pre", ((1.0,),)), (((2.0,), (0.0,), (0.0,)), ((1.0,),))),
    ),
    "backward_hook_lstm": (_hooked_lstm, ((False, True),)),
    "backward_hook_dict_output": (
        lambda T: _hooked(
            T, lambda x: {"a": x * 2}, lambda T: (_leaf(T, 1.0),), lambda out: out["a"].sum()
        ),
        (),
    ),
    "backward_hook_list_output": (
        lambda T: _hooked(
            T, lambda x: [x * 2, x], lambda T: (_leaf(T, 1.0),), lambda out: out[0].sum()
        ),
        (),
    ),
    "backward_pre_hook_wrong_count": (_pre_hook_wrong_count, RAISES_RUNTIME),
    # -- pad_packed_sequence: PyTorch's nodes (CopySlices, the transpose, then the index), and
    # a contiguous result where PyTorch's is one
    "pad_packed_sorted": (
        lambda T: _padded_packed(T, False, [3, 2], True),
        (
            ([[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0], [0.0, 0.0]]],)
            + (F32, "CopySlices"),
            ([3, 2], "int64", None),
            "CopySlices",
            True,
        ),
    ),
    "pad_packed_unsorted": (
        lambda T: _padded_packed(T, False, [2, 3], False),
        (
            ([[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]], [[0.0, 0.0], [10.0, 11.0]]],)
            + (F32, "IndexSelectBackward0"),
            ([2, 3], "int64", None),
            "CopySlices",
            True,
        ),
    ),
    "pad_packed_batch_first_unsorted": (
        lambda T: _padded_packed(T, True, [2, 3], False),
        (
            ([[[0.0, 1.0], [4.0, 5.0], [0.0, 0.0]], [[2.0, 3.0], [6.0, 7.0], [10.0, 11.0]]],)
            + (F32, "IndexSelectBackward0"),
            ([2, 3], "int64", None),
            "TransposeBackward0",
            True,
        ),
    ),
    "pad_packed_view": (
        _pad_packed_view,
        ([[1.0, 1.0, 2.0, 2.0], [0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 2.0, 2.0]], F32, None),
    ),
    # -- an index's copy of a contiguous tensor is contiguous: .view() works on it
    "index_select_view": (
        lambda T: _viewed(T, lambda T, x: x.index_select(1, T.tensor([2, 0]))),
        ([4.0, 5.0, 0.0, 1.0, 10.0, 11.0, 6.0, 7.0], F32, None),
    ),
    "index_select_transposed_view": (
        lambda T: _viewed(T, lambda T, x: x.transpose(0, 2).index_select(1, T.tensor([2]))),
        ([4.0, 10.0, 5.0, 11.0], F32, None),
    ),
    "advanced_index_view": (
        lambda T: _viewed(T, lambda T, x: x[:, [1, 0]]),
        ([2.0, 3.0, 0.0, 1.0, 8.0, 9.0, 6.0, 7.0], F32, None),
    ),
    "advanced_last_index_view": (
        lambda T: _viewed(T, lambda T, x: x[..., T.tensor([1])]),
        ([1.0, 3.0, 5.0, 7.0, 9.0, 11.0], F32, None),
    ),
    "mask_index_view": (
        lambda T: _viewed(T, lambda T, x: x[:, T.tensor([True, False, True])]),
        ([0.0, 1.0, 4.0, 5.0, 6.0, 7.0, 10.0, 11.0], F32, None),
    ),
    # -- MultiheadAttention: PyTorch's checks of the inputs' and masks' ranks, dtypes, shapes
    "attention_masks_fit": (
        lambda T: _attention(T, key_padding_mask=((2, 5), "bool"), attn_mask=((4, 4, 5), F32)),
        ((4, 2, 8), (2, 4, 5)),
    ),
    "attention_unbatched_masks_fit": (
        lambda T: _attention(
            T, False, key_padding_mask=((5,), "bool"), attn_mask=((2, 4, 5), "bool")
        ),
        ((4, 8), (4, 5)),
    ),
    "attention_padding_mask_length": (
        lambda T: _attention(T, key_padding_mask=((2, 4), "bool")),
        RAISES_ASSERTION,
    ),
    "attention_padding_mask_batch": (
        lambda T: _attention(T, key_padding_mask=((3, 5), "bool")),
        RAISES_ASSERTION,
    ),
    "attention_padding_mask_rank": (
        lambda T: _attention(T, key_padding_mask=((5,), "bool")),
        RAISES_ASSERTION,
    ),
    "attention_unbatched_padding_mask_length": (
        lambda T: _attention(T, False, key_padding_mask=((4,), "bool")),
        RAISES_ASSERTION,
    ),
    "attention_padding_mask_int": (
        lambda T: _attention(T, key_padding_mask=((2, 5), "int64")),
        RAISES_ASSERTION,
    ),
    "attention_mask_uint8": (
        lambda T: _attention(T, attn_mask=((4, 5), "uint8")),
        RAISES_ASSERTION,
    ),
    "attention_mask_vector": (
        lambda T: _attention(T, attn_mask=((5,), F32)),
        RAISES_ASSERTION,
    ),
    "attention_mask_shape": (
        lambda T: _attention(T, attn_mask=((4, 4), F32)),
        RAISES_RUNTIME,
    ),
    "attention_mask_heads": (
        lambda T: _attention(T, attn_mask=((2, 4, 5), "bool")),
        RAISES_RUNTIME,
    ),
    "attention_unbatched_mask_heads": (
        lambda T: _attention(T, False, attn_mask=((4, 4, 5), "bool")),
        RAISES_ASSERTION,
    ),
    "attention_key_rank": (
        lambda T: _attention(T, key_shape=(5, 8)),
        RAISES_ASSERTION,
    ),
    "reflection_pad_bool": (
        lambda T: T.nn.ReflectionPad1d(1)(T.ones(1, 3, dtype=T.bool)),
        NOT_IMPLEMENTED,
    ),
    "replication_pad_bool": (
        lambda T: T.nn.ReplicationPad2d(1)(T.ones(1, 2, 2, dtype=T.bool)),
        NOT_IMPLEMENTED,
    ),
    "circular_pad_bool": (
        lambda T: T.nn.CircularPad1d(1)(T.tensor([[True, False]])),
        ([[False, True, False, True]], "bool", None),
    ),
    "prelu_integer_input": (lambda T: T.nn.PReLU()(T.tensor([1, -2])), RAISES_RUNTIME),
    "prelu_integer_weight": (
        lambda T: T.nn.functional.prelu(T.tensor([1, -2]), T.tensor([1])),
        NOT_IMPLEMENTED,
    ),
    "avg_pool3d_rank": (lambda T: T.nn.AvgPool3d(2)(T.ones(2, 2, 2)), RAISES_RUNTIME),
    "avg_pool2d_rank": (lambda T: T.nn.AvgPool2d(2)(T.ones(2, 2)), ("raises", "IndexError")),
    "conv_transpose_empty_positions": (
        lambda T: T.nn.ConvTranspose2d(2, 3, 3)(T.ones(1, 2, 0, 5)),
        RAISES_RUNTIME,
    ),
    "conv_transpose1d_empty_positions": (
        lambda T: T.nn.functional.conv_transpose1d(T.ones(2, 0), T.ones(2, 3, 3)),
        RAISES_RUNTIME,
    ),
    "conv_transpose_empty_batch": (
        lambda T: T.nn.ConvTranspose2d(2, 3, 3)(T.ones(0, 2, 4, 4)).shape,
        (0, 3, 6, 6),
    ),
    "conv_transpose_output_padding_over_stride": (
        _conv_transpose_output_padding,
        (
            ([[[1.0, 2.0, 1.0, -4.0, -6.0, 0.0]]], F64, "ConvolutionBackward0"),
            ([[[-5.0, -6.0, -7.0]]], F64, None),
            ([[[14.0, 26.0]]], F64, None),
        ),
    ),
    # -- register_backward_hook (deprecated): a hook on the output's node
    "node_backward_hook_linear": (
        lambda T: _node_hook_shapes(T, lambda T: T.nn.Linear(3, 2), (4, 3)),
        ((((2,), (4, 3), (3, 2)), ((4, 2),)),),
    ),
    "node_backward_hook_conv": (
        lambda T: _node_hook_shapes(T, lambda T: T.nn.Conv2d(2, 3, 3), (1, 2, 4, 4)),
        ((((1, 2, 4, 4), (3, 2, 3, 3), (3,)), ((1, 3, 2, 2),)),),
    ),
    "node_backward_hook_sequential": (
        lambda T: _node_hook_shapes(
            T, lambda T: T.nn.Sequential(T.nn.Linear(3, 2), T.nn.Tanh()), (4, 3)
        ),
        ((((4, 2),), ((4, 2),)),),
    ),
    "node_backward_hook_guided_relu": (_guided_relu, ([0.0, 3.0, 0.0], F32, None)),
    "node_backward_hook_after_full": (
        lambda T: _both_kinds_of_backward_hook(T, True),
        RAISES_RUNTIME,
    ),
    "full_backward_hook_after_node": (
        lambda T: _both_kinds_of_backward_hook(T, False),
        RAISES_RUNTIME,
    ),
    # -- pack_padded_sequence and pad_sequence: PyTorch's nodes
    "pack_padded_node": (
        lambda T: _packed_nodes(T, False),
        (
            ([[0.0], [1.0], [2.0], [4.0]], F32, "PackPaddedSequenceBackward0"),
            ([0.0, 1.0, 2.0, 0.0, 3.0, 0.0], F32, None),
        ),
    ),
    "pack_padded_node_batch_first": (
        lambda T: _packed_nodes(T, True),
        (
            ([[0.0], [1.0], [2.0], [4.0]], F32, "PackPaddedSequenceBackward0"),
            ([0.0, 2.0, 3.0, 1.0, 0.0, 0.0], F32, None),
        ),
    ),
    "pad_sequence_node": (
        lambda T: _pad_sequence(T),
        (
            ([[1.0, 3.0], [2.0, 0.0]], F32, "CopySlices"),
            ([1.0, 3.0], F32, None),
            ([2.0], F32, None),
        ),
    ),
    "pad_sequence_left_batch_first": (
        lambda T: _pad_sequence(T, batch_first=True, padding_side="left", padding_value=-1),
        (
            ([[1.0, 2.0], [-1.0, 3.0]], F32, "CopySlices"),
            ([1.0, 2.0], F32, None),
            ([4.0], F32, None),
        ),
    ),
    "pad_sequence_first_dtype": (
        lambda T: T.nn.utils.rnn.pad_sequence([T.tensor([1, 2]), T.tensor([3.5])]),
        ([[1, 3], [2, 0]], "int64", None),
    ),
    "invert_permutation": (
        lambda T: (
            T.nn.utils.rnn.invert_permutation(T.tensor([2, 0, 3, 1])),
            T.nn.utils.rnn.invert_permutation(None),
        ),
        (([1, 3, 0, 2], "int64", None), None),
    ),
    # -- hooks for every module (torch.nn.modules.module.register_module_*_hook)
    "global_hooks": (
        _global_hooks,
        (
            ("pre", "Sequential"),
            ("pre", "Linear"),
            ("fwd", "Linear"),
            ("kwargs", "Linear", ()),
            ("pre", "ReLU"),
            ("own pre",),
            ("fwd", "ReLU"),
            ("kwargs", "ReLU", ()),
            ("fwd", "Sequential"),
            ("kwargs", "Sequential", ()),
            ("bpre", "Sequential", (((1.0,),),)),
            ("bpre", "ReLU", (((1.0,),),)),
            ("b", "ReLU", (((1.0,),),), (((1.0,),),)),
            ("own b",),
            ("bpre", "Linear", (((1.0,),),)),
            ("b", "Linear", (((1.0, 1.0),),), (((1.0,),),)),
            ("b", "Sequential", (((1.0, 1.0),),), (((1.0,),),)),
        ),
    ),
    "global_hook_results": (_global_hook_results, ((2.0,), (3.0,), (1.0,))),
    # -- SyncBatchNorm: in one process, BatchNorm's arithmetic
    "sync_batch_norm_train": (
        lambda T: _synced(T, True),
        (
            (
                [[[[-0.6667, 0.0], [0.6667, 2.0]], [[0.6667, 0.0], [-0.6667, -2.0]]]]
                + [
                    [[[-1.3333, -0.6667], [-0.6667, 0.6667]], [[1.3333, 0.6667], [0.6667, -0.6667]]]
                ],
                F32,
                "NativeBatchNormBackward0",
            ),
            ([2.0, -4.0], F32, None),
            ([2.5714, 10.2857], F32, None),  # 18/7 and 72/7: the unbiased variances
            (1, "int64", None),
            ("Sequential", "Conv2d", "Sequential", "SyncBatchNorm", "InstanceNorm2d"),
        ),
    ),
    "sync_batch_norm_eval": (
        lambda T: _synced(T, False)[0],
        (
            [[[[1.0, 2.0], [3.0, 5.0]], [[-2.0, -4.0], [-6.0, -10.0]]]]
            + [[[[0.0, 1.0], [1.0, 3.0]], [[0.0, -2.0], [-2.0, -6.0]]]],
            F32,
            "NativeBatchNormBackward0",
        ),
    ),
    "sync_batch_norm_layer": (
        _synced_layer,
        (
            "SyncBatchNorm",
            True,
            False,
            "SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
            "track_running_stats=True)",
        ),
    ),
    "sync_batch_norm_vector": (lambda T: T.nn.SyncBatchNorm(3)(T.ones(3)), RAISES_VALUE),
    "sync_batch_norm_no_channels": (
        lambda T: T.nn.SyncBatchNorm(0)(T.ones(2, 0)),
        RAISES_VALUE,
    ),
    # -- nn.grad (functional.grad): a convolution's input and weight gradients
    "nn_grad_conv2d": (
        _conv_grads,
        (
            True,
            True,
            None,
            ([[-6.0, -20.0, -12.0, -28.0], [162.0, 140.0, 172.0, 148.0]], F32, None),
        ),
    ),
    "nn_grad_conv1d_recorded": (
        _conv1d_grads_recorded,
        (
            ([[[2.0, 1.0, -3.0]]], F32, None),
            True,
            ([[[8.0, 16.0]]], F32, None),
            ([[[-1.0, -2.0]]], F32, None),
        ),
    ),
    "functional_grad_module": (lambda T: T.nn.functional.grad is T.nn.grad, True),
    # -- Module.cuda (no CUDA device here) and Module.bfloat16 (a dtype symgrad lacks): the
    # tensors' errors, nothing to do without tensors
    "module_cuda": (lambda T: T.nn.Linear(2, 2).cuda(), ("raises", "AssertionError")),
    "module_cuda_index": (lambda T: T.nn.Linear(2, 2).cuda(0), RAISES_RUNTIME),
    "module_cuda_without_tensors": (lambda T: type(T.nn.ReLU().cuda()).__name__, "ReLU"),
    "module_bfloat16_without_tensors": (
        lambda T: type(T.nn.Identity().bfloat16()).__name__,
        "Identity",
    ),
    # -- constructor arguments PyTorch takes (or refuses) as it does
    "unflatten_list_kept": (
        lambda T: (repr(T.nn.Unflatten(1, [2, 3])), T.nn.Unflatten(1, [2, 3])(T.ones(1, 6)).shape),
        ("Unflatten(dim=1, unflattened_size=[2, 3])", (1, 2, 3)),
    ),
    "unflatten_int_size": (lambda T: T.nn.Unflatten(1, 6), ("raises", "TypeError")),
    "unflatten_float_size": (lambda T: T.nn.Unflatten(1, (2.0, 3)), ("raises", "TypeError")),
    "bilinear_no_features": (lambda T: T.nn.Bilinear(0, 2, 3), RAISES_VALUE),
    "lstm_cell_no_hidden": (lambda T: T.nn.LSTMCell(3, 0)(T.ones(2, 3))[0].shape, (2, 0)),
    "gru_cell_no_hidden": (lambda T: T.nn.GRUCell(3, 0)(T.ones(3)).shape, (0,)),
    "loss_reduction_checked_when_called": (
        lambda T: T.nn.MSELoss(reduction="avg").reduction,
        "avg",
    ),
    "loss_reduction_bad_call": (
        lambda T: T.nn.MSELoss(reduction="avg")(T.ones(2), T.zeros(2)),
        RAISES_VALUE,
    ),
    "loss_reduction_elementwise_mean": (
        lambda T: (
            T.nn.MSELoss(reduction="elementwise_mean")(T.ones(2), T.zeros(2) + 3),
            T.nn.functional.l1_loss(T.ones(2), T.zeros(2), reduction="elementwise_mean"),
            T.nn.functional.cross_entropy(
                T.zeros(2, 4), T.tensor([0, 1]), reduction="elementwise_mean"
            ),
        ),
        ((4.0, F32, None), (1.0, F32, None), (1.3863, F32, None)),
    ),
    "reset_parameters_prelu_rmsnorm": (
        lambda T: _reset(T),
        (([0.1, 0.1], F32, None), ([1.0, 1.0], F32, None)),
    ),
    # -- PyTorch's warnings: dropout of a one-layer RNN, the deprecated loss arguments
    "rnn_dropout_one_layer_warns": (
        lambda T: _warned(T, lambda T: T.nn.LSTM(2, 3, dropout=0.5)),
        (("UserWarning", "dropout option adds dropout"),),
    ),
    "rnn_dropout_two_layers_quiet": (
        lambda T: _warned(T, lambda T: T.nn.GRU(2, 3, num_layers=2, dropout=0.5)),
        (),
    ),
    "loss_size_average_warns": (
        lambda T: (
            _warned(T, lambda T: T.nn.MSELoss(size_average=False)),
            T.nn.MSELoss(reduce=False).reduction,
            _warned(T, lambda T: T.nn.functional.l1_loss(T.ones(1), T.ones(1), size_average=True)),
        ),
        (
            (("UserWarning", "size_average and reduce args"),),
            "none",
            (("UserWarning", "size_average and reduce args"),),
        ),
    ),
    # -- nn.utils.skip_init and the deprecated nn.utils.stateless.functional_call
    "skip_init": (_skip_init, ((2, 5), "Parameter", True, (2, 1, 3, 3))),
    "skip_init_not_a_module": (lambda T: T.nn.utils.skip_init(int, 3), RAISES_RUNTIME),
    "skip_init_without_device": (lambda T: T.nn.utils.skip_init(T.nn.ReLU), RAISES_RUNTIME),
    "stateless_functional_call": (_stateless_call, (([[6.0]], F32, None), ("FutureWarning",))),
    # -- attention without the weights (PyTorch's scaled_dot_product_attention path): a query
    # that sees no key gets zeros, not NaN; with the weights, NaN as PyTorch's softmax
    "attention_no_visible_key": (
        lambda T: _left_padded_causal(T, False),
        (([[0.5, -0.5], [0.5, 0.5]], F32, None), ([[1.1956, 1.1956], [0.8044, 0.8044]], F32, None)),
    ),
    "attention_no_visible_key_weights": (
        lambda T: _left_padded_causal(T, True)[0],
        ([[NAN, NAN], [0.5, 0.5]], F32, None),
    ),
    # -- class-index losses read uint8 targets for an input of at most 2 dimensions
    "cross_entropy_byte_targets": (
        lambda T: _byte_targets(T, lambda T: T.nn.CrossEntropyLoss()),
        (
            (0.3245, F32, "NllLossBackward0"),
            ([0.0876, 0.0196, -0.1072, -0.1674, 0.1224, 0.045], F32, None),
        ),
    ),
    "nll_loss_byte_targets": (
        lambda T: _byte_targets(T, lambda T: T.nn.NLLLoss(reduction="sum")),
        ((-3.0, F32, "NllLossBackward0"), ([0.0, 0.0, -1.0, -1.0, 0.0, 0.0], F32, None)),
    ),
    "nll_loss_byte_spatial_targets": (
        lambda T: _byte_targets(T, lambda T: T.nn.NLLLoss(), (1, 3, 2), ((2, 0),)),
        RAISES_RUNTIME,
    ),
    "nll_loss_int32_targets": (
        lambda T: T.nn.NLLLoss()(T.zeros(2, 3), T.tensor([0, 1], dtype=T.int32)),
        RAISES_RUNTIME,
    ),
    # -- parametrize.transfer_parametrizations_and_params
    "transfer_parametrizations": (
        lambda T: _transferred(T, False),
        (
            True,
            "ParametrizedLinear",
            ([[2.0, 4.0]], F32, None),
            (True,),
            ("bias", "parametrizations.weight.original"),
        ),
    ),
    "transfer_parametrizations_two_originals": (
        lambda T: _transferred(T, True),
        (
            True,
            "ParametrizedLinear",
            ([[1.0, 2.0]], F32, None),
            (True, True),
            ("bias", "parametrizations.weight.original0", "parametrizations.weight.original1"),
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
