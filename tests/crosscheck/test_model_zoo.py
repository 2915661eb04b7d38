"""Whole programs as popular model repositories and courses write them (a minGPT block, a
ResNet block, a U-Net, message passing, word2vec, RealNVP, DDPM, SimCLR, MAML, PPO, ...), and
the pieces of such programs where symgrad once differed from PyTorch: a float16 batch norm in
training normalizing by its float16 statistics, ``torch.legacy_contiguous_format`` (in copies
of ``F.gumbel_softmax``), the classes of ``torch.return_types`` built from any iterable.

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _torch_table import table_tests


def _init(T, module, seed=0, scale=0.5):
    """``module`` with its parameters drawn from NumPy, the same for symgrad and PyTorch."""
    rng = np.random.default_rng(seed)
    with T.no_grad():
        for p in module.parameters():
            p.copy_(T.tensor(rng.normal(size=tuple(p.shape)) * scale))
    return module


def _causal_attention(T, x, qkv, sdpa):
    """minGPT's causal self-attention (two heads): masked_fill(-inf) and softmax written out,
    or ``scaled_dot_product_attention(is_causal=True)``."""
    B, L, C = x.shape
    q, k, v = (t.view(B, L, 2, C // 2).transpose(1, 2) for t in qkv(x).split(C, dim=2))
    if sdpa:
        y = T.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    else:
        mask = T.tril(T.ones(L, L)).view(1, 1, L, L)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (k.size(-1) ** 0.5))
        y = att.masked_fill(mask == 0, float("-inf")).softmax(dim=-1) @ v
    return y.transpose(1, 2).contiguous().view(B, L, C)


def _gpt_steps(T, sdpa):
    """Three AdamW steps of a one-block GPT with tied embedding and head, decay and no-decay
    groups, warmup by LambdaLR and clip_grad_norm_; then greedy top-k generation."""
    nn, F = T.nn, T.nn.functional
    wte, ln, qkv = nn.Embedding(7, 4), nn.LayerNorm(4), nn.Linear(4, 12)
    mlp = nn.Sequential(nn.Linear(4, 8), nn.GELU(approximate="tanh"), nn.Linear(8, 4))
    head = nn.Linear(4, 7, bias=False)
    model = _init(T, nn.ModuleList([wte, ln, qkv, mlp, head]), seed=1)
    head.weight = wte.weight

    def forward(idx):
        x = wte(idx)
        x = x + _causal_attention(T, ln(x), qkv, sdpa)
        return head(x + mlp(ln(x)))

    params = list(model.parameters())
    groups = [
        {"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
        {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
    ]
    opt = T.optim.AdamW(groups, lr=0.05, betas=(0.9, 0.95))
    sched = T.optim.lr_scheduler.LambdaLR(opt, lambda it: min(1.0, (it + 1) / 2))
    idx = T.tensor([[1, 4, 2, 6, 3], [0, 5, 5, 2, 1]])
    losses, norms = [], []
    for _ in range(3):
        logits = forward(idx[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 7), idx[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norms.append(round(T.nn.utils.clip_grad_norm_(params, 1.0).item(), 4))
        opt.step()
        sched.step()
        losses.append(round(loss.item(), 4))
    with T.no_grad():
        out = idx[:1, :2]
        for _ in range(3):
            logits = forward(out)[:, -1, :] / 0.8
            v, _ = T.topk(logits, 3)
            logits[logits < v[:, [-1]]] = -float("inf")
            out = T.cat((out, logits.softmax(-1).argmax(-1, keepdim=True)), dim=1)
    return losses, norms, out, wte.weight.grad.sum(0)


def _message_passing(T):
    """A GNN layer: degree normalisation by scatter_add_, messages summed by index_add_ and
    averaged by scatter_reduce("mean", include_self=False) over the incoming edges."""
    x = T.tensor([[1.0, 0.5], [-1.0, 2.0], [0.0, 1.0], [3.0, -2.0]], requires_grad=True)
    src, dst = T.tensor([[0, 1, 1, 2, 3, 0], [1, 0, 2, 1, 1, 3]])
    deg = T.zeros(4).scatter_add_(0, dst, T.ones(6))
    norm = deg.pow(-0.5)
    norm[norm == float("inf")] = 0
    msg = (norm[src] * norm[dst]).view(-1, 1) * x[src]
    summed = T.zeros_like(x).index_add_(0, dst, msg)
    index = dst.unsqueeze(-1).expand(-1, 2)
    mean = T.zeros(4, 2).scatter_reduce(0, index, x[src], reduce="mean", include_self=False)
    (summed * T.tensor([1.0, 2.0]) + mean.tanh()).sum().backward()
    return deg, summed, mean, x.grad


def _half_batch_norm(T):
    """A float16 batch norm in training: PyTorch normalizes by the mean and ``1 / std`` it
    saves in float16 (the middle row's 0.7 is its channel's float16 mean, so exactly 0), and
    so does an instance norm, which runs the batch norm."""
    x = T.tensor([[0.1, 1.0], [0.7, -2.0], [1.3, 0.5]], dtype=T.float16)
    bn = T.nn.BatchNorm1d(2).half()
    return bn(x), T.nn.functional.instance_norm(x.t().unsqueeze(0)), bn.running_mean


def _half_batch_norm_grads(T):
    """The gradients of that batch norm, with weight and bias (PyTorch's float16 backward)."""
    x = T.tensor([[0.1, 1.0], [0.7, -2.0], [1.3, 0.5]], dtype=T.float16, requires_grad=True)
    bn = T.nn.BatchNorm1d(2).half()
    with T.no_grad():
        bn.weight.copy_(T.tensor([1.5, -0.5]))
        bn.bias.copy_(T.tensor([0.25, 1.0]))
    out = bn(x)
    (out * T.tensor([[1.0, 2.0], [-1.0, 0.5], [3.0, 1.0]], dtype=T.float16)).sum().backward()
    return out, x.grad, bn.weight.grad, bn.bias.grad


def _mixed_batch_norm(T):
    """float16 data through a float32 batch norm (mixed precision): PyTorch saves float32
    statistics, so neither the output nor the input's gradient is rounded by them."""
    x = T.tensor([[0.1, 1.0], [0.7, -2.0], [1.3, 0.5]], dtype=T.float16, requires_grad=True)
    bn = T.nn.BatchNorm1d(2)
    out = bn(x)
    (out * T.tensor([[1.0, 2.0], [-1.0, 0.5], [3.0, 1.0]], dtype=T.float16)).sum().backward()
    return out, x.grad, bn.weight.grad


def _gumbel_hard(T):
    """``F.gumbel_softmax(hard=True)`` as repositories copy it, with given noise: the one-hot
    sample built in ``torch.legacy_contiguous_format`` (PyTorch's other name of
    ``contiguous_format``), the straight-through gradient of the soft sample."""
    logits = T.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], dtype=T.float64, requires_grad=True)
    noise = T.tensor([[0.3, -0.2, 1.5], [2.0, 0.1, -0.5]], dtype=T.float64)
    y_soft = ((logits + noise) / 0.7).softmax(-1)
    index = y_soft.max(-1, keepdim=True)[1]
    like = T.zeros_like(logits, memory_format=T.legacy_contiguous_format)
    y_hard = like.scatter_(-1, index, 1.0)
    sample = y_hard - y_soft.detach() + y_soft
    (sample * T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=T.float64)).sum().backward()
    layout = T.ones(1, 2, 2, 3).permute(0, 3, 1, 2).clone(memory_format=T.legacy_contiguous_format)
    same = T.legacy_contiguous_format is T.contiguous_format
    return sample, logits.grad, layout.stride(), same, repr(T.legacy_contiguous_format)[-17:]


def _return_type_from_iterable(T):
    """A result of ``topk`` rebuilt field by field from a generator, as code mapping over
    tuples does (``type(out)(f(v) for v in out)``); PyTorch's classes take any iterable of
    their length."""
    out = T.tensor([3.0, 1.0, 2.0]).topk(2)
    doubled = type(out)(v * 2 for v in out)
    wrong = []
    for fields in ([1.0], [1.0, 2.0, 3.0]):
        try:
            type(out)(iter(fields))
        except TypeError as error:
            wrong.append(type(error).__name__)
    return type(doubled).__name__, doubled.values, doubled.indices, wrong


def _one_per_channel(T):
    """A batch of one through batch norm in training (a last incomplete batch): PyTorch's
    ValueError shows the input's size as a Size, group norm's as a list."""
    messages = []
    for make, x in (
        (lambda: T.nn.BatchNorm1d(3), T.ones(1, 3)),
        (lambda: T.nn.BatchNorm2d(3), T.ones(1, 3, 1, 1)),
        (lambda: T.nn.GroupNorm(3, 3), T.ones(1, 3)),
    ):
        try:
            make()(x)
        except ValueError as error:
            messages.append(str(error).replace(T.__name__, "torch").rsplit("size ", 1)[-1])
    return messages


def _frozen_batch_norms(T):
    """Fine-tuning with frozen batch norms, as detection and segmentation repositories write it:
    ``isinstance(m, nn.modules.batchnorm._BatchNorm)`` picks the batch norms (not the instance
    norms, which derive from ``_NormBase`` only), put in evaluation; MC dropout picks the
    dropouts by ``nn.modules.dropout._DropoutNd``."""
    from importlib import import_module

    nn = T.nn
    batchnorm = import_module(T.__name__ + ".nn.modules.batchnorm")
    dropout = import_module(T.__name__ + ".nn.modules.dropout")
    model = nn.Sequential(
        nn.Conv2d(1, 2, 1),
        nn.BatchNorm2d(2),
        nn.InstanceNorm2d(2, track_running_stats=True),
        nn.SyncBatchNorm(2),
        nn.LazyBatchNorm2d(),
        nn.LazyInstanceNorm2d(),
        nn.Dropout(0.5),
        nn.Dropout2d(0.1),
        nn.AlphaDropout(0.2),
    )
    for m in model.modules():
        if isinstance(m, batchnorm._BatchNorm):
            m.eval()
    picked = [type(m).__name__ for m in model if isinstance(m, batchnorm._BatchNorm)]
    norms = [type(m).__name__ for m in model if isinstance(m, batchnorm._NormBase)]
    dropouts = [type(m).__name__ for m in model if isinstance(m, dropout._DropoutNd)]
    same = [issubclass(nn.LazyBatchNorm1d, batchnorm._LazyNormBase)]
    same += [getattr(nn, n) is getattr(batchnorm, n) for n in ("BatchNorm1d", "SyncBatchNorm")]
    same += [getattr(nn, n) is getattr(dropout, n) for n in ("Dropout", "Dropout3d")]
    x = T.arange(8.0).reshape(1, 2, 2, 2)
    out = model[1:3](x)
    return picked, norms, dropouts, [m.training for m in model], same, out, model[2].running_mean


def _half_average_pool(T):
    """float16 average pooling (a model run in half precision): PyTorch sums each window in
    float32 and divides once (the weights 1/9 rounded to float16 gave other values); the
    gradient's shares, rounded to float16, are added window after window in float16."""
    rows = [[0.1, 0.2, 0.7, 1.3, -0.4], [2.1, -1.3, 0.6, 0.45, 0.33], [0.9, 1.7, -2.2, 0.01, 0.5]]
    x = T.tensor([[rows]], dtype=T.float16, requires_grad=True)
    out = T.nn.functional.avg_pool2d(x, 3, stride=1, padding=1)
    g = [[0.3, -1.1, 0.77, 2.3, 0.1], [1.9, 0.2, -0.6, 0.05, 1.4], [0.8, -0.3, 1.1, 0.9, -2.0]]
    out.backward(T.tensor([[g]], dtype=T.float16))
    exact = [round(v, 6) for v in out.flatten().tolist()[:2]]
    return exact, out, x.grad, T.nn.functional.adaptive_avg_pool2d(x.detach(), 1)


def _half_softmax_over_rows(T):
    """float16 softmax along another dim than the last (attention weights over keys laid out
    in dim 0): PyTorch's kernel rounds each exponential to float16 before dividing it by
    their float32 sum (0.124146, not 0.124084; 0.011253, not 0.011261)."""
    rows = [[0.1, 2.0, -1.3], [1.7, 0.4, 0.9], [-0.6, 1.1, 2.2], [0.3, -2.0, 0.8]]
    x = T.tensor(rows, dtype=T.float16, requires_grad=True)
    out = x.softmax(0)
    g = [[1.0, -0.5, 0.25], [2.0, 0.1, -1.0], [0.3, 0.7, 1.5], [-1.2, 0.4, 0.6]]
    out.backward(T.tensor(g, dtype=T.float16))
    return [round(v, 6) for v in out.flatten().tolist()], x.grad


def _half_bilinear(T):
    """A float16 U-Net's bilinear upsampling: PyTorch's kernel computes in float32 (weights
    included) and rounds once (0.0467, not 0.0465; 1.0127, not 1.0117)."""
    x = T.tensor([[[[0.1, 1.3, -0.7], [2.2, 0.45, 0.9]]]], dtype=T.float16, requires_grad=True)
    out = T.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
    out2 = T.nn.functional.interpolate(x, size=(3, 5), mode="bilinear", align_corners=True)
    (out.sum() + (out2 * out2).sum()).backward()
    return out, out2, x.grad


H = "float16"
F32 = "float32"
BN = "NativeBatchNormBackward0"
GPT = (
    (2.6595, 2.3856, 2.0146),
    (1.6849, 1.3602, 1.0738),
    ([[1, 4, 3, 6, 6]], "int64", None),
    ([0.0753, -0.0933, 0.2329, -0.3953], F32, None),
)
CASES = {
    "gpt_attention_written_out": (lambda T: _gpt_steps(T, sdpa=False), GPT),
    "gpt_scaled_dot_product_attention": (lambda T: _gpt_steps(T, sdpa=True), GPT),
    "message_passing": (
        _message_passing,
        (
            ([1.0, 3.0, 1.0, 1.0], F32, None),
            (
                [[-0.5774, 1.1547], [2.3094, -0.2887], [-0.5774, 1.1547], [1.0, 0.5]],
                F32,
                "IndexAddBackward0",
            ),
            (
                [[-1.0, 2.0], [1.3333, -0.1667], [-1.0, 2.0], [1.0, 0.5]],
                F32,
                "ScatterReduceBackward0",
            ),
            ([[2.0783, 4.2654], [1.9946, 2.4507], [0.6583, 1.4789], [0.6583, 1.4789]], F32, None),
        ),
    ),
    "half_batch_norm": (
        _half_batch_norm,
        (
            ([[-1.2246, 0.8892], [0.0, -1.3975], [1.2236, 0.5083]], H, BN),
            ([[[-1.2246, 0.0, 1.2236], [0.8892, -1.3975, 0.5083]]], H, None),
            ([0.07, -0.0167], H, None),
        ),
    ),
    "half_batch_norm_grads": (
        _half_batch_norm_grads,
        (
            ([[-1.5879, 0.5552], [0.25, 1.6982], [2.0859, 0.7461]], H, BN),
            ([[3.0586, -0.1382], [-6.125, -0.0278], [3.0684, 0.166]], H, None),
            ([2.4473, 1.5879], H, None),
            ([3.0, 3.5], H, None),
        ),
    ),
    "mixed_batch_norm": (
        _mixed_batch_norm,
        (
            ([[-1.2246, 0.8892], [0.0004, -1.3975], [1.2246, 0.5078]], H, BN),
            ([[2.041, 0.2766], [-4.082, 0.0553], [2.043, -0.3318]], H, None),
            ([2.4482, 1.5875], "float32", None),
        ),
    ),
    "gumbel_hard_legacy_contiguous_format": (
        _gumbel_hard,
        (
            ([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]], "float64", "AddBackward0"),
            ([[-0.3219, -0.1511, 0.473], [-0.655, -0.002, 0.657]], "float64", None),
            (12, 4, 2, 1),
            True,
            "contiguous_format",
        ),
    ),
    "return_type_from_iterable": (
        _return_type_from_iterable,
        ("topk", ([6.0, 4.0], "float32", None), ([0, 4], "int64", None), ("TypeError",) * 2),
    ),
    "one_value_per_channel": (
        _one_per_channel,
        ("torch.Size([1, 3])", "torch.Size([1, 3, 1, 1])", "[1, 3]"),
    ),
    "frozen_batch_norms": (
        _frozen_batch_norms,
        (
            ("BatchNorm2d", "SyncBatchNorm", "LazyBatchNorm2d"),
            (
                "BatchNorm2d",
                "InstanceNorm2d",
                "SyncBatchNorm",
                "LazyBatchNorm2d",
                "LazyInstanceNorm2d",
            ),
            ("Dropout", "Dropout2d", "AlphaDropout"),
            (True, False, True, False, False, True, True, True, True),
            (True, True, True, True, True),
            ([[[[-1.3416, -0.4472], [0.4472, 1.3416]]] * 2], F32, "ViewBackward0"),
            ([0.15, 0.55], F32, None),
        ),
    ),
    "half_average_pool": (
        _half_average_pool,
        (
            (0.122192, 0.266602),
            (
                [
                    [
                        [
                            [0.1222, 0.2666, 0.2167, 0.3311, 0.1866],
                            [0.4111, 0.3113, 0.1624, 0.1434, 0.2433],
                            [0.3777, 0.2001, -0.0821, -0.0343, 0.1433],
                        ]
                    ]
                ],
                H,
                "AvgPool2DBackward0",
            ),
            (
                [
                    [
                        [
                            [0.1445, 0.1635, 0.1802, 0.4473, 0.4277],
                            [0.2001, 0.3413, 0.3691, 0.4473, 0.3057],
                            [0.2891, 0.3445, 0.1499, 0.0947, 0.0391],
                        ]
                    ]
                ],
                H,
                None,
            ),
            ([[[[0.3328]]]], H, None),
        ),
    ),
    "half_softmax_over_rows": (
        _half_softmax_over_rows,
        (
            (0.130371, 0.614746, 0.019501, 0.645508, 0.124146, 0.176025)
            + (0.064697, 0.249878, 0.645508, 0.15918, 0.011253, 0.15918),
            (
                [
                    [-0.0326, -0.2363, -0.0125],
                    [0.4844, 0.0267, -0.3333],
                    [-0.0614, 0.2039, 0.3921],
                    [-0.3899, 0.0058, -0.0466],
                ],
                H,
                None,
            ),
        ),
    ),
    "half_bilinear": (
        _half_bilinear,
        (
            (
                [
                    [
                        [
                            [0.1, 0.3999, 1.0, 0.7998, -0.2002, -0.7002],
                            [0.625, 0.7402, 0.9717, 0.7402, 0.0467, -0.3003],
                            [1.6748, 1.4219, 0.9155, 0.6216, 0.5405, 0.5],
                            [2.1992, 1.7617, 0.8872, 0.5625, 0.7876, 0.8999],
                        ]
                    ]
                ],
                H,
                "UpsampleBilinear2DBackward0",
            ),
            (
                [
                    [
                        [
                            [0.1, 0.6997, 1.2998, 0.2998, -0.7002],
                            [1.1494, 1.0127, 0.875, 0.4873, 0.0999],
                            [2.1992, 1.3242, 0.45, 0.6748, 0.8999],
                        ]
                    ]
                ],
                H,
                "UpsampleBilinear2DBackward0",
            ),
            ([[[[6.5547, 9.2188, 3.2422], [11.375, 8.5234, 6.8203]]]], H, None),
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


def _caught(fn) -> list:
    """The warnings ``fn()`` gives: their category, the start of their message, and whether
    they point at this file (the caller's line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message)[:26], w.filename == __file__) for w in caught]


def test_transpose_property_warns_once(monkeypatch):
    """``x.T`` of anything but a matrix (a vector, a batch of attention scores, a 0-d tensor)
    is deprecated in PyTorch: a UserWarning at the caller, once per process for 0-d tensors
    and once for the others (PyTorch's TORCH_WARN_ONCE, so there is no second PyTorch run to
    compare with); none for matrices."""
    import symgrad
    from symgrad.ops import transposed_properties

    monkeypatch.setattr(transposed_properties, "_T_WARNED", set())
    assert _caught(lambda: symgrad.ones(2, 3).T) == []
    scores = symgrad.arange(8.0, requires_grad=True).reshape(2, 2, 2)
    batch = _caught(lambda: scores.T)
    assert batch == [("UserWarning", "The use of `x.T` on tensor", True)]
    assert _caught(lambda: (scores.T, symgrad.ones(3).T)) == []
    assert scores.T.shape == (2, 2, 2) and type(scores.T.grad_fn).__name__ == "PermuteBackward0"
    assert scores.T[1, 0, 0].item() == 1.0
    zero_d = _caught(lambda: symgrad.tensor(2.0).T)
    assert zero_d == [("UserWarning", "Tensor.T is deprecated on ", True)]
    monkeypatch.setattr(transposed_properties, "_T_WARNED", set())
    assert _caught(lambda: symgrad.ones(3).T) == batch


def test_read_only_array_warns_once(monkeypatch):
    """``from_numpy``/``as_tensor``/``asarray`` of a read-only array (such as
    ``np.broadcast_to``'s) share its memory with a UserWarning, once per process as PyTorch's;
    a copy (``tensor``) and writable arrays don't warn."""
    import symgrad
    from symgrad import creation

    monkeypatch.setitem(creation._WARNED, "read_only", False)
    read_only = np.arange(3.0)
    read_only.flags.writeable = False
    assert _caught(lambda: symgrad.from_numpy(np.arange(3.0))) == []
    assert _caught(lambda: symgrad.tensor(read_only)) == []
    shared = []
    first = _caught(lambda: shared.append(symgrad.from_numpy(read_only)))
    assert first == [("UserWarning", "The given NumPy array is n", True)]
    assert _caught(lambda: symgrad.as_tensor(read_only)) == []
    assert _caught(lambda: symgrad.asarray(read_only)) == []
    assert shared[0].tolist() == [0.0, 1.0, 2.0]


@pytest.mark.torch
def test_pytorch_warns_as_these_tests_say():
    """PyTorch's own warnings: none for a matrix's ``T`` or a copy of a read-only array."""
    torch = pytest.importorskip("torch")
    read_only = np.arange(3.0)
    read_only.flags.writeable = False
    assert _caught(lambda: torch.ones(2, 3).T) == []
    assert _caught(lambda: torch.tensor(read_only)) == []
    for make in (lambda: torch.ones(3).T, lambda: torch.tensor(2.0).T):
        assert all(c[0] == "UserWarning" for c in _caught(make))
    assert all(c[0] == "UserWarning" for c in _caught(lambda: torch.from_numpy(read_only)))
