"""PyTorch 2.13 names programs use that symgrad lacked: ``optim.Muon``,
``nn.LinearCrossEntropyLoss``, ``signal.windows``, ``cond``/``while_loop`` and autograd's
small switches.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _torch_table import table_tests

import symgrad
from symgrad.func.rearrange import DimensionBindError

F32, F64 = "float32", "float64"


# -- optim.Muon ---------------------------------------------------------------------------
def _mlp_weights(T, dtype="float32", steps=10, **options):
    """The two weight matrices of a tanh MLP after ``steps`` Muon steps on a fixed batch."""
    rng = np.random.default_rng(0)
    first = T.nn.Linear(4, 8, bias=False)
    second = T.nn.Linear(8, 3, bias=False)
    with T.no_grad():
        first.weight.copy_(T.tensor(rng.standard_normal((8, 4))))
        second.weight.copy_(T.tensor(rng.standard_normal((3, 8))))
    first.to(getattr(T, dtype))
    second.to(getattr(T, dtype))
    x = T.tensor(rng.standard_normal((16, 4)).astype(dtype))
    y = T.tensor(rng.integers(0, 3, 16))
    opt = T.optim.Muon([first.weight, second.weight], **options)
    for _ in range(steps):
        opt.zero_grad()
        T.nn.functional.cross_entropy(second(T.tanh(first(x))), y).backward()
        opt.step()
    return first.weight.detach().numpy(), second.weight.detach().numpy()


MUON_OPTIONS = {
    "defaults": {},
    "lr": {"lr": 0.05},
    "no_nesterov": {"lr": 0.05, "nesterov": False},
    "no_decay": {"lr": 0.05, "weight_decay": 0.0},
    "match_rms_adamw": {"lr": 0.05, "adjust_lr_fn": "match_rms_adamw"},
    "no_momentum": {"lr": 0.05, "momentum": 0.0, "adjust_lr_fn": "original"},
    "own_iteration": {"lr": 0.03, "ns_steps": 3, "ns_coefficients": (2.0, -1.5, 0.5), "eps": 1e-3},
}

# the first row of the second weight matrix after ten steps (float32)
MUON_SECOND_ROW = {
    "defaults": [-0.1608, 0.5439, 0.2149, 0.3583, -0.6506, -0.127, 0.7793, 1.4946],
    "lr": [-0.2321, 0.6401, 0.2355, 0.5146, -0.4584, 0.0233, 0.5619, 1.5231],
    "no_nesterov": [-0.2409, 0.6879, 0.2312, 0.4884, -0.464, 0.0139, 0.6029, 1.5564],
    "no_decay": [-0.252, 0.699, 0.2565, 0.4988, -0.463, 0.0027, 0.6437, 1.6418],
    "match_rms_adamw": [-0.2, 0.6137, 0.2264, 0.4114, -0.5483, -0.0418, 0.646, 1.4997],
    "no_momentum": [-0.2364, 0.6561, 0.2306, 0.5129, -0.418, -0.0068, 0.6172, 1.5335],
    "own_iteration": [-0.193, 0.6343, 0.2175, 0.4171, -0.503, -0.0465, 0.6499, 1.5107],
}


@pytest.mark.parametrize("name", list(MUON_OPTIONS))
@pytest.mark.parametrize("dtype", [F32, F64])
def test_muon_trains_an_mlp_as_pytorch(name, dtype):
    first, second = _mlp_weights(symgrad, dtype, **MUON_OPTIONS[name])
    if dtype == F32:
        assert np.round(second[0], 4).tolist() == pytest.approx(MUON_SECOND_ROW[name], abs=1e-4)
    torch = pytest.importorskip("torch")
    want_first, want_second = _mlp_weights(torch, dtype, **MUON_OPTIONS[name])
    # the same roundings, op for op: the weights agree to the last bit
    np.testing.assert_array_equal(first, want_first)
    np.testing.assert_array_equal(second, want_second)


def _muon_step(T, values, grad, dtype="float32", **options):
    w = T.nn.Parameter(T.tensor(values, dtype=getattr(T, dtype)))
    w.grad = T.tensor(grad, dtype=getattr(T, dtype))
    opt = T.optim.Muon([w], **options)
    opt.step()
    return w, opt.state[w]["momentum_buffer"]


def _muon_state_round_trip(T):
    w = T.nn.Parameter(T.tensor([[1.0, 2.0], [3.0, 4.0]]))
    w.grad = T.tensor([[1.0, 0.0], [0.0, 2.0]])
    opt = T.optim.Muon([w], lr=0.1)
    opt.step()
    state = opt.state_dict()
    other = T.optim.Muon([w])
    other.load_state_dict(state)
    group = other.state_dict()["param_groups"][0]
    other.step()
    return (
        sorted(group.items()),
        sorted(state["state"][0]),
        other.state[w]["momentum_buffer"],
        w,
    )


def _muon(T, param, **options):
    return T.optim.Muon([T.nn.Parameter(param(T))], **options)


def _muon_step_error(T, **options):
    w = T.nn.Parameter(T.ones(2, 3))
    w.grad = T.ones(2, 3)
    T.optim.Muon([w], **options).step()


RAISES = ("raises", "ValueError")
MUON_CASES = {
    "tall_matrix": (
        lambda T: _muon_step(T, [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[1, 2], [3, 4], [5, 6]]),
        (
            ([[1.0005, -0.0007], [-0.0001, 0.9994], [0.9992, 0.9996]], F32, None),
            ([[0.05, 0.1], [0.15, 0.2], [0.25, 0.3]], F32, None),
        ),
    ),
    "wide_float64": (
        lambda T: _muon_step(T, [[1.0, 2.0, 3.0]], [[1.0, 1.0, -1.0]], F64, lr=0.5),
        (([[0.7527, 1.7027, 3.0473]], F64, None), ([[0.05, 0.05, -0.05]], F64, None)),
    ),
    "float16": (
        lambda T: _muon_step(
            T, [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[1, 2, 3], [3, 1, 2]], "float16", lr=0.1
        ),
        (
            ([[1.0244, 0.9346, 0.9189], [0.8955, 1.0, 0.9849]], "float16", None),
            ([[0.05, 0.1, 0.15], [0.15, 0.05, 0.1]], "float16", None),
        ),
    ),
    "zero_gradient_only_decays": (
        lambda T: _muon_step(T, [[1.0, 1.0], [1.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]], lr=1.0),
        (([[0.9, 0.9], [0.9, 0.9]], F32, None), ([[0.0, 0.0], [0.0, 0.0]], F32, None)),
    ),
    "tensor_lr": (
        lambda T: _muon_step(T, [[1.0, 1.0]], [[1.0, 1.0]], lr=T.tensor([0.5]), weight_decay=0.0),
        (([[0.7578, 0.7578]], F32, None), ([[0.05, 0.05]], F32, None)),
    ),
    "state_dict_round_trip": (
        _muon_state_round_trip,
        (
            (
                ("adjust_lr_fn", None),
                ("eps", 1e-07),
                ("lr", 0.1),
                ("momentum", 0.95),
                ("nesterov", True),
                ("ns_coefficients", (3.4445, -4.775, 2.0315)),
                ("ns_steps", 5),
                ("params", (0,)),
                ("weight_decay", 0.1),
            ),
            ("momentum_buffer",),
            ([[0.0975, 0.0], [0.0, 0.195]], F32, None),
            ([[0.7578, 1.9602], [2.9403, 3.7828]], F32, None),
        ),
    ),
    "vector_parameter": (lambda T: _muon(T, lambda T: T.ones(3)), RAISES),
    "3d_parameter": (lambda T: _muon(T, lambda T: T.ones(2, 2, 2)), RAISES),
    "negative_lr": (lambda T: _muon(T, lambda T: T.ones(2, 2), lr=-1.0), RAISES),
    "negative_momentum": (lambda T: _muon(T, lambda T: T.ones(2, 2), momentum=-0.1), RAISES),
    "negative_decay": (lambda T: _muon(T, lambda T: T.ones(2, 2), weight_decay=-0.1), RAISES),
    "unknown_adjust_lr_fn": (lambda T: _muon(T, lambda T: T.ones(2, 2), adjust_lr_fn="x"), RAISES),
    "two_element_lr": (lambda T: _muon(T, lambda T: T.ones(2, 2), lr=T.ones(2)), RAISES),
    "100_ns_steps": (lambda T: _muon_step_error(T, ns_steps=100), RAISES),
    "two_coefficients": (lambda T: _muon_step_error(T, ns_coefficients=(1.0, 2.0)), RAISES),
}


def test_muon_error_messages():
    with pytest.raises(
        ValueError,
        match=r"only supports 2D parameters whereas we found a parameter with size: \S+\(\[3\]\)",
    ):
        _muon(symgrad, lambda T: T.ones(3))
    with pytest.raises(ValueError, match="Adjust learning rate function x is not supported"):
        _muon(symgrad, lambda T: T.ones(2, 2), adjust_lr_fn="x")


test_muon, test_muon_is_pytorchs = table_tests(MUON_CASES)


# -- nn.LinearCrossEntropyLoss --------------------------------------------------------------
def _lce(T, target, out_features=(), bias=False, **options):
    """The loss of a LinearCrossEntropyLoss(3 -> 2 classes) with fixed weights, and the
    gradients of its input and linear weight (and bias)."""
    loss = T.nn.LinearCrossEntropyLoss(3, 2, out_features=out_features, bias=bias, **options)
    rows = loss.linear.weight.shape[0]
    with T.no_grad():
        loss.linear.weight.copy_(T.arange(rows * 3.0).reshape(rows, 3).sin())
        if bias:
            loss.linear.bias.copy_(T.arange(rows * 1.0).cos())
    x = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], requires_grad=True)
    out = loss(x, target(T))
    out.sum().backward()
    grads = [x.grad, loss.linear.weight.grad]
    return (out, *grads, *([loss.linear.bias.grad] if bias else []))


def _lce_module_facts(T):
    loss = T.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True, weight=T.ones(3))
    return (
        tuple(loss.state_dict()),
        tuple(loss.linear.weight.shape),
        repr(loss).splitlines()[1].strip(),
    )


LCE_CASES = {
    "indices": (
        lambda T: _lce(T, lambda T: T.tensor([1, 0])),
        (
            (1.8043, F32, "NllLossBackward0"),
            ([[-0.0626, 0.7094, 0.8292], [0.0535, -0.6063, -0.7087]], F32, None),
            ([[-0.3471, -0.4439, 1.0774], [0.3471, 0.4439, -1.0774]], F32, None),
        ),
    ),
    "sum_with_bias_and_class_weight": (
        lambda T: _lce(
            T, lambda T: T.tensor([1, 0]), bias=True, reduction="sum", weight=T.tensor([2.0, 1.0])
        ),
        (
            (4.792, F32, "NllLossBackward0"),
            ([[-0.1307, 1.4801, 1.73], [0.1877, -2.126, -2.4851]], F32, None),
            ([[-1.5323, -0.926, 2.5172], [1.5323, 0.926, -2.5172]], F32, None),
            ([-0.4042, 0.4042], F32, None),
        ),
    ),
    "k_dimensional_none": (
        lambda T: _lce(
            T, lambda T: T.tensor([[1, 0], [0, 0]]), out_features=(2,), reduction="none"
        ),
        (
            ([[0.5959, 0.6166], [0.4897, 0.9293]], F32, "ViewBackward0"),
            ([[0.2502, 0.1808, -0.0548], [0.0558, 0.0573, 0.0061]], F32, None),
            (
                [
                    [-0.3563, -0.449, 1.0915],
                    [-1.1379, 0.4602, -0.6179],
                    [0.3563, 0.449, -1.0915],
                    [1.1379, -0.4602, 0.6179],
                ],
                F32,
                None,
            ),
        ),
    ),
    "probabilities_smoothed": (
        lambda T: _lce(T, lambda T: T.tensor([[0.25, 0.75], [1.0, 0.0]]), label_smoothing=0.2),
        (
            (1.4369, F32, "DivBackward1"),
            ([[-0.0415, 0.4697, 0.549], [0.0465, -0.5264, -0.6153]], F32, None),
            ([[-0.3471, -0.2939, 0.7524], [0.3471, 0.2939, -0.7524]], F32, None),
        ),
    ),
    "ignore_index": (
        lambda T: _lce(T, lambda T: T.tensor([1, 0]), ignore_index=0),
        (
            (2.1867, F32, "NllLossBackward0"),
            ([[-0.1253, 1.4188, 1.6584], [0.0, 0.0, 0.0]], F32, None),
            ([[0.4439, -0.8877, 1.7754], [-0.4439, 0.8877, -1.7754]], F32, None),
        ),
    ),
    "options_give_the_reference_values": (
        lambda T: _lce(
            T,
            lambda T: T.tensor([1, 0]),
            options=T.nn.LinearCrossEntropyOptions(batch_chunk_size=1),
        )[0].detach(),
        (1.8043, F32, None),
    ),
    "module_facts": (
        _lce_module_facts,
        (
            ("weight", "linear.weight", "linear.bias"),
            (6, 4),
            "in_features=4, num_classes=3, out_features=(2,), bias=True, reduction=mean, "
            "ignore_index=None, label_smoothing=0.0, options=None",
        ),
    ),
    "weight_of_wrong_shape": (
        lambda T: T.nn.LinearCrossEntropyLoss(4, 3, weight=T.ones(2)),
        ("raises", "RuntimeError"),
    ),
    "label_smoothing_above_1": (
        lambda T: T.nn.LinearCrossEntropyLoss(4, 3, label_smoothing=1.5),
        ("raises", "RuntimeError"),
    ),
    "probabilities_with_ignore_index": (
        lambda T: _lce(T, lambda T: T.tensor([[0.5, 0.5], [1.0, 0.0]]), ignore_index=1),
        ("raises", "RuntimeError"),
    ),
    "three_dimensional_input": (
        lambda T: T.nn.LinearCrossEntropyLoss(3, 2)(T.ones(1, 2, 3), T.tensor([[0, 1]])),
        ("raises", "RuntimeError"),
    ),
    "options_sizes_disagree_at_the_call": (
        lambda T: T.nn.functional.linear_cross_entropy(
            T.ones(8, 4),
            T.ones(16, 4),
            T.zeros(8, dtype=T.int64),
            options=T.nn.LinearCrossEntropyOptions(
                batch_chunk_size=1, chunking_method="aspect_ratio"
            ),
        ),
        ("raises", "ValueError"),
    ),
    "options_sizes_agree_at_the_call": (
        lambda T: T.nn.functional.linear_cross_entropy(
            T.ones(8, 4),
            T.ones(16, 4),
            T.zeros(8, dtype=T.int64),
            options=T.nn.LinearCrossEntropyOptions(
                batch_chunk_size=2, chunking_method="aspect_ratio"
            ),
        ),
        (2.7726, F32, None),
    ),
    "options_not_options": (
        lambda T: T.nn.functional.linear_cross_entropy(
            T.ones(2, 4), T.ones(3, 4), T.zeros(2, dtype=T.int64), options=5
        ),
        ("raises", "AttributeError"),
    ),
    "options_unknown_policy": (
        lambda T: T.nn.LinearCrossEntropyOptions(acc_policy="fast"),
        ("raises", "ValueError"),
    ),
    "options_bad_chunking_method": (
        lambda T: T.nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:0"),
        ("raises", "ValueError"),
    ),
    "options_zero_chunk": (
        lambda T: T.nn.LinearCrossEntropyOptions(batch_chunk_size=0),
        ("raises", "ValueError"),
    ),
    "options_integer_acc_dtype": (
        lambda T: T.nn.LinearCrossEntropyOptions(acc_dtype=T.int32),
        ("raises", "ValueError"),
    ),
    "options_are_frozen": (
        lambda T: setattr(T.nn.LinearCrossEntropyOptions(), "acc_policy", "compact"),
        ("raises", "FrozenInstanceError"),
    ),
}


def test_options_ignored_where_the_chunked_kernel_cannot_run():
    options = symgrad.nn.LinearCrossEntropyOptions(
        batch_chunk_size=1, chunking_method="aspect_ratio"
    )
    with pytest.warns(UserWarning, match=r"``options`` ignored; .* label_smoothing=0.1,"):
        loss = symgrad.nn.functional.linear_cross_entropy(
            symgrad.ones(8, 4), symgrad.ones(16, 4), symgrad.zeros(8, dtype=symgrad.int64),
            options=options, label_smoothing=0.1,
        )  # fmt: skip
    assert loss.item() == pytest.approx(2.7725887)


def test_linear_cross_entropy_loss_extra_repr():
    loss = symgrad.nn.LinearCrossEntropyLoss(4, 3, options=symgrad.nn.LinearCrossEntropyOptions())
    assert loss.extra_repr() == (
        "in_features=4, num_classes=3, out_features=(), bias=False, reduction=mean, "
        "ignore_index=None, label_smoothing=0.0, options=LinearCrossEntropyOptions("
        "allow_retain_graph=False, batch_chunk_size=None, chunking_method='auto', "
        "acc_policy='auto', acc_dtype=None)"
    )


test_linear_cross_entropy, test_linear_cross_entropy_is_pytorchs = table_tests(LCE_CASES)


# -- signal.windows -------------------------------------------------------------------------
def _window(name, M, dtype=None, **options):
    """The window ``name`` of length ``M``; ``dtype`` by name."""

    def make(T):
        kind = None if dtype is None else getattr(T, dtype)
        return getattr(T.signal.windows, name)(M, dtype=kind, **options)

    return make


def _window_graph(T, name, M, **options):
    """A window made with requires_grad: its node and whether it is a leaf."""
    w = getattr(T.signal.windows, name)(M, requires_grad=True, **options)
    return w.requires_grad, w.is_leaf, None if w.grad_fn is None else type(w.grad_fn).__name__


WINDOW_CASES = {
    "bartlett": (_window("bartlett", 5), ([0.0, 0.5, 1.0, 0.5, 0.0], F32, None)),
    "bartlett_periodic": (
        _window("bartlett", 4, sym=False),
        ([0.0, 0.5, 1.0, 0.5], F32, None),
    ),
    "blackman_float64": (
        _window("blackman", 5, dtype=F64),
        ([0.0, 0.34, 1.0, 0.34, 0.0], F64, None),
    ),
    "cosine": (_window("cosine", 4), ([0.3827, 0.9239, 0.9239, 0.3827], F32, None)),
    "cosine_periodic": (
        _window("cosine", 4, sym=False),
        ([0.309, 0.809, 1.0, 0.809], F32, None),
    ),
    "exponential": (
        _window("exponential", 4, tau=2.0),
        ([0.4724, 0.7788, 0.7788, 0.4724], F32, None),
    ),
    "exponential_centred": (
        _window("exponential", 3, center=0.0, sym=False),
        ([1.0, 0.3679, 0.1353], F32, None),
    ),
    "gaussian": (_window("gaussian", 3, std=2.0), ([0.8825, 1.0, 0.8825], F32, None)),
    "gaussian_periodic": (
        _window("gaussian", 4, std=1.0, sym=False),
        ([0.1353, 0.6065, 1.0, 0.6065], F32, None),
    ),
    "general_cosine": (
        _window("general_cosine", 5, a=[0.5, 0.5]),
        ([0.0, 0.5, 1.0, 0.5, 0.0], F32, None),
    ),
    "general_hamming": (
        _window("general_hamming", 3, alpha=0.6),
        ([0.2, 1.0, 0.2], F32, None),
    ),
    "hamming": (_window("hamming", 3), ([0.08, 1.0, 0.08], F32, None)),
    "hann_periodic": (_window("hann", 4, sym=False), ([0.0, 0.5, 1.0, 0.5], F32, None)),
    "kaiser": (_window("kaiser", 3, beta=1.0), ([0.7898, 1.0, 0.7898], F32, None)),
    "kaiser_beta_0": (_window("kaiser", 3, beta=0.0), ([1.0, 1.0, 1.0], F32, None)),
    "kaiser_periodic": (
        _window("kaiser", 4, sym=False, beta=2.0),
        ([0.4387, 0.8348, 1.0, 0.8348], F32, None),
    ),
    "nuttall": (_window("nuttall", 3), ([0.0004, 1.0, 0.0004], F32, None)),
    "length_0": (_window("hann", 0), ([], F32, None)),
    "length_1": (_window("kaiser", 1, sym=False), ([1.0], F32, None)),
    "cosine_length_1": (_window("cosine", 1), ([1.0], F32, None)),
    "graph_of_hann": (lambda T: _window_graph(T, "hann", 4), (True, False, "SumBackward1")),
    "graph_of_exponential": (
        lambda T: _window_graph(T, "exponential", 4),
        (True, False, "ExpBackward0"),
    ),
    "graph_of_bartlett": (
        lambda T: _window_graph(T, "bartlett", 4),
        (True, False, "RsubBackward1"),
    ),
    "graph_of_kaiser": (lambda T: _window_graph(T, "kaiser", 4), (True, False, "DivBackward0")),
    "graph_of_cosine_1": (lambda T: _window_graph(T, "cosine", 1), (True, False, "SinBackward0")),
    "graph_of_hann_1": (lambda T: _window_graph(T, "hann", 1), (True, True, None)),
    "meta_kaiser": (
        lambda T: (lambda w: (tuple(w.shape), str(w.device)))(
            T.signal.windows.kaiser(5, device="meta")
        ),
        ((5,), "meta"),
    ),
    "meta_hann": (
        lambda T: (lambda w: (tuple(w.shape), str(w.device)))(
            T.signal.windows.hann(3, device="meta")
        ),
        ((3,), "meta"),
    ),
    "negative_length": (_window("hann", -1), ("raises", "ValueError")),
    "float16": (_window("hann", 4, dtype="float16"), ("raises", "ValueError")),
    "int64": (_window("bartlett", 4, dtype="int64"), ("raises", "ValueError")),
    "tau_0": (_window("exponential", 4, tau=0.0), ("raises", "ValueError")),
    "symmetric_with_center": (
        _window("exponential", 4, center=1.0),
        ("raises", "ValueError"),
    ),
    "std_0": (_window("gaussian", 4, std=0.0), ("raises", "ValueError")),
    "negative_beta": (_window("kaiser", 4, beta=-1.0), ("raises", "ValueError")),
    "no_coefficients": (_window("general_cosine", 4, a=[]), ("raises", "ValueError")),
    "number_as_coefficients": (_window("general_cosine", 4, a=3), ("raises", "TypeError")),
    "sym_by_position": (lambda T: T.signal.windows.hann(4, True), ("raises", "TypeError")),
}


def test_window_error_messages():
    windows = symgrad.signal.windows
    # hann is a general_cosine, and PyTorch names that
    with pytest.raises(
        ValueError, match="^general_cosine expects float32 or float64 dtypes, got: "
    ):
        windows.hann(4, dtype=symgrad.float16)
    with pytest.raises(ValueError, match="^kaiser requires non-negative window length, got M=-2"):
        windows.kaiser(-2)
    with pytest.raises(ValueError, match=r"^Tau must be positive, got: 0.0 instead\.$"):
        windows.exponential(4, tau=0.0)


def test_window_follows_the_default_dtype():
    previous = symgrad.get_default_dtype()
    symgrad.set_default_dtype(symgrad.float64)
    try:
        assert symgrad.signal.windows.nuttall(4).dtype == symgrad.float64
    finally:
        symgrad.set_default_dtype(previous)


test_windows, test_windows_are_pytorchs = table_tests(WINDOW_CASES)


# -- cond and while_loop ----------------------------------------------------------------------
def _control_flow(T, run):
    """``run(T, x, w)`` and the gradients of ``x`` and ``w`` after backward of the sum of
    its floating results. PyTorch compiles each call: its compiler's caches start afresh,
    as they would in a new program."""
    if hasattr(T, "_dynamo"):
        T._dynamo.reset()
    x = T.tensor([1.0, 2.0], requires_grad=True)
    w = T.tensor(3.0, requires_grad=True)
    out = run(T, x, w)
    results = out if isinstance(out, (tuple, list)) else [out]
    floating = [t for t in results if hasattr(t, "requires_grad") and t.requires_grad]
    if floating:
        sum(t.sum() for t in floating).backward()
    return out, x.grad, w.grad


UNCAPTURED = ("raises", "UncapturedHigherOrderOpError")
COND = "CondAutogradOpBackward"
LOOP = "WhileLoopAutogradOpBackward"
CONTROL_FLOW_CASES = {
    "cond_true": (
        lambda T: _control_flow(
            T, lambda T, x, w: T.cond(x.sum() > 0, lambda x: x * x, lambda x: x.exp(), (x,))
        ),
        (([1.0, 4.0], F32, COND), ([2.0, 4.0], F32, None), None),
    ),
    "cond_false_with_captured_tensor": (
        lambda T: _control_flow(
            T,
            lambda T, x, w: T.cond(T.tensor(False), lambda x: x * w, lambda x: x + w, (x,)),
        ),
        (([4.0, 5.0], F32, COND), ([1.0, 1.0], F32, None), (2.0, F32, None)),
    ),
    "cond_python_bool_calls_the_branch": (
        lambda T: _control_flow(
            T, lambda T, x, w: T.cond(True, lambda x: x * 2, lambda x: x, (x,))
        ),
        (([2.0, 4.0], F32, "MulBackward0"), ([2.0, 2.0], F32, None), None),
    ),
    "cond_float_predicate": (
        lambda T: _control_flow(
            T, lambda T, x, w: T.cond(T.tensor(0.0), lambda x: x * 2, lambda x: x * 3, (x,))
        ),
        (([3.0, 6.0], F32, COND), ([3.0, 3.0], F32, None), None),
    ),
    "cond_two_operands_in_a_list": (
        lambda T: _control_flow(
            T,
            lambda T, x, w: T.cond(
                T.tensor(True), lambda a, b: [a * b], lambda a, b: [a * 1], [x, w]
            ),
        ),
        ((([3.0, 6.0], F32, COND),), ([3.0, 3.0], F32, None), (3.0, F32, None)),
    ),
    "cond_result_not_from_the_operand": (
        lambda T: _control_flow(
            T, lambda T, x, w: T.cond(T.tensor(True), lambda x: T.ones(2), lambda x: x * 2, (x,))
        ),
        (([1.0, 1.0], F32, COND), ([0.0, 0.0], F32, None), None),
    ),
    "cond_int_result": (
        lambda T: _control_flow(
            T, lambda T, x, w: T.cond(T.tensor(True), lambda x: 1, lambda x: 1, (x,))
        ),
        (1, None, None),
    ),
    "cond_without_grad": (
        lambda T: _control_flow(
            T,
            lambda T, x, w: T.cond(T.tensor(True), lambda x: x * 2, lambda x: x * 1, (x.detach(),)),
        ),
        (([2.0, 4.0], F32, None), None, None),
    ),
    "cond_returns_its_operand": (
        lambda T: _control_flow(
            T, lambda T, x, w: T.cond(T.tensor(True), lambda x: x, lambda x: x * 2, (x,))
        ),
        UNCAPTURED,
    ),
    "cond_returns_a_view_of_its_operand": (
        lambda T: _control_flow(
            T, lambda T, x, w: T.cond(T.tensor(True), lambda x: x[:1], lambda x: x[:1] * 2, (x,))
        ),
        UNCAPTURED,
    ),
    "cond_returns_none": (
        lambda T: _control_flow(
            T, lambda T, x, w: T.cond(T.tensor(True), lambda x: None, lambda x: None, (x,))
        ),
        UNCAPTURED,
    ),
    "cond_two_element_predicate": (
        lambda T: T.cond(T.tensor([True, False]), lambda: T.ones(1), lambda: T.zeros(1)),
        ("raises", "RuntimeError"),
    ),
    "cond_string_predicate": (
        lambda T: T.cond("yes", lambda: T.ones(1), lambda: T.zeros(1)),
        ("raises", "RuntimeError"),
    ),
    "cond_tensor_as_operands": (
        lambda T: T.cond(T.tensor(True), lambda x: x * 2, lambda x: x * 3, T.ones(2)),
        ("raises", "RuntimeError"),
    ),
    "cond_number_operand": (
        lambda T: T.cond(T.tensor(True), lambda x, n: x * n, lambda x, n: x, (T.ones(2), 2)),
        ("raises", "RuntimeError"),
    ),
    "cond_branch_not_callable": (
        lambda T: T.cond(T.tensor(True), 1, lambda: T.ones(1)),
        ("raises", "RuntimeError"),
    ),
    "while_loop_counts": (
        lambda T: _control_flow(
            T,
            lambda T, x, w: T.while_loop(
                lambda i, y: i < 3, lambda i, y: (i + 1, y * y), (T.tensor(0), x)
            ),
        ),
        (((3, "int64", None), ([1.0, 256.0], F32, LOOP)), ([8.0, 1024.0], F32, None), None),
    ),
    "while_loop_int_counter": (
        lambda T: T.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2), (0, T.ones(2))),
        (3, ([8.0, 8.0], F32, None)),
    ),
    "while_loop_list_with_captured_tensor": (
        lambda T: _control_flow(
            T,
            lambda T, x, w: T.while_loop(
                lambda i, y: i < 2, lambda i, y: [i + 1, y * w], [T.tensor(0), x]
            ),
        ),
        (
            ((2, "int64", None), ([9.0, 18.0], F32, LOOP)),
            ([9.0, 9.0], F32, None),
            (18.0, F32, None),
        ),
    ),
    # no backward here: PyTorch 2.13 doubles the gradient of an unchanged carried value
    "while_loop_no_iteration": (
        lambda T: T.while_loop(
            lambda y: y.sum() < 0, lambda y: (y * 2,), [T.ones(2, requires_grad=True)]
        ),
        (([1.0, 1.0], F32, LOOP),),
    ),
    "while_loop_python_false": (
        lambda T: _control_flow(
            T, lambda T, x, w: T.while_loop(lambda y: False, lambda y: (y * 2,), (x,))
        ),
        ((([1.0, 2.0], F32, None),), ([1.0, 1.0], F32, None), None),
    ),
    "while_loop_body_returns_a_tensor": (
        lambda T: T.while_loop(lambda y: y.sum() < 10, lambda y: y * 2, (T.ones(2),)),
        ([8.0, 8.0], F32, None),
    ),
    "while_loop_dict": (
        lambda T: T.while_loop(
            lambda d: d["i"] < 2, lambda d: {"i": d["i"] + 1}, ({"i": T.tensor(0)},)
        )["i"],
        (2, "int64", None),
    ),
    "while_loop_shape_changes": (
        lambda T: T.while_loop(lambda y: y.sum() < 10, lambda y: (y.sum(),), (T.ones(2),)),
        UNCAPTURED,
    ),
    "while_loop_dtype_changes": (
        lambda T: T.while_loop(lambda y: y.sum() < 10, lambda y: (y.double(),), (T.ones(2),)),
        UNCAPTURED,
    ),
    "while_loop_fewer_results": (
        lambda T: T.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1,), (T.tensor(0), T.ones(2))),
        UNCAPTURED,
    ),
    "while_loop_returns_its_input": (
        lambda T: T.while_loop(
            lambda i, y: i < 3, lambda i, y: (i + 1, y), (T.tensor(0), T.ones(2))
        ),
        UNCAPTURED,
    ),
    "while_loop_vector_condition": (
        lambda T: T.while_loop(lambda y: y < 10, lambda y: (y * 2,), (T.ones(2),)),
        UNCAPTURED,
    ),
    "while_loop_integer_condition": (
        lambda T: T.while_loop(lambda i: 3 - i, lambda i: (i + 1,), (T.tensor(0),)),
        UNCAPTURED,
    ),
    "while_loop_float_carried": (
        lambda T: T.while_loop(
            lambda y, f: y.sum() < 10, lambda y, f: (y * 2, f), (T.ones(2), 1.5)
        ),
        ("raises", "AssertionError"),
    ),
    "while_loop_not_callable": (
        lambda T: T.while_loop(1, lambda y: (y,), (T.ones(2),)),
        ("raises", "RuntimeError"),
    ),
}


def test_cond_adds_no_zero_to_the_operands_gradient():
    # the derivative of cos at 0 is -0.0, as PyTorch's; a zero added for the operand would
    # make it +0.0
    x = symgrad.tensor([0.0, 1.0], requires_grad=True)
    symgrad.cond(x.sum() > 0, lambda x: x.cos(), lambda x: x.sin(), (x,)).sum().backward()
    assert math.copysign(1.0, x.grad[0].item()) == -1.0


def test_uncaptured_error_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="aliasing"):
        symgrad.cond(symgrad.tensor(True), lambda x: x, lambda x: x, (symgrad.ones(1),))


test_control_flow, test_control_flow_is_pytorchs = table_tests(CONTROL_FLOW_CASES)


# -- func.rearrange ---------------------------------------------------------------------------
def _rearranged(pattern, shape=(2, 3, 4), **lengths):
    """The rearranged ``arange`` of ``shape`` (requiring grad), its node and the node below,
    and the input's gradient for the output gradient ``0, 1, 2, ...``."""

    def run(T):
        x = T.arange(math.prod(shape) * 1.0).reshape(shape).requires_grad_()
        out = T.func.rearrange(x, pattern, **lengths)
        below = [type(n).__name__ for n, _ in out.grad_fn.next_functions if n is not None]
        out.backward(T.arange(out.numel() * 1.0).reshape(out.shape))
        return out, below, x.grad

    return run


def _rearrange_error(pattern, **lengths):
    return lambda T: T.func.rearrange(T.zeros(2, 3, 4), pattern, **lengths)


REARRANGE_CASES = {
    "permute": (
        _rearranged("a b c -> c a b", (1, 2, 3)),
        (
            ([[[0.0, 3.0]], [[1.0, 4.0]], [[2.0, 5.0]]], F32, "ReshapeAliasBackward0"),
            ("AsStridedBackward0",),
            ([[[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]], F32, None),
        ),
    ),
    "flatten_groups": (
        _rearranged("a b c -> a (b c)", (2, 1, 2)),
        (
            ([[0.0, 1.0], [2.0, 3.0]], F32, "ViewBackward0"),
            ("AsStridedBackward0",),
            ([[[0.0, 1.0]], [[2.0, 3.0]]], F32, None),
        ),
    ),
    "join_needs_a_copy": (
        _rearranged("a b c -> (c a) b", (2, 1, 2)),
        (
            ([[0.0], [2.0], [1.0], [3.0]], F32, "UnsafeViewBackward0"),
            ("CloneBackward0",),
            ([[[0.0, 2.0]], [[1.0, 3.0]]], F32, None),
        ),
    ),
    "split_with_a_length": (
        _rearranged("a (b1 b2) -> b2 a b1", (1, 4), b1=2),
        (
            ([[[0.0, 2.0]], [[1.0, 3.0]]], F32, "ReshapeAliasBackward0"),
            ("AsStridedBackward0",),
            ([[0.0, 2.0, 1.0, 3.0]], F32, None),
        ),
    ),
    "space_to_depth": (
        lambda T: tuple(
            T.func.rearrange(
                T.zeros(2, 4, 6, 3), "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=3
            ).shape
        ),
        (2, 2, 2, 18),
    ),
    "ellipsis": (
        _rearranged("a ... -> ... a", (2, 1, 2)),
        (
            ([[[0.0, 2.0], [1.0, 3.0]]], F32, "ReshapeAliasBackward0"),
            ("AsStridedBackward0",),
            ([[[0.0, 2.0]], [[1.0, 3.0]]], F32, None),
        ),
    ),
    "ellipsis_in_a_group": (
        lambda T: tuple(T.func.rearrange(T.zeros(2, 3, 4), "a ... -> (... a)").shape),
        (24,),
    ),
    "unit_axes_added": (
        lambda T: tuple(T.func.rearrange(T.zeros(2, 3), "a b -> 1 a () b 1").shape),
        (1, 2, 1, 3, 1),
    ),
    "unit_axis_dropped": (
        _rearranged("a 1 c -> c a", (2, 1, 2)),
        (
            ([[0.0, 2.0], [1.0, 3.0]], F32, "SumBackward1"),
            ("ReshapeAliasBackward0",),
            ([[[0.0, 2.0]], [[1.0, 3.0]]], F32, None),
        ),
    ),
    "stacks_a_list": (
        lambda T: T.func.rearrange([T.ones(2), T.zeros(2)], "n d -> d n"),
        ([[1.0, 0.0], [1.0, 0.0]], F32, None),
    ),
    "transposed_input": (
        lambda T: T.func.rearrange(T.arange(6.0).reshape(2, 3).t(), "b a -> a b"),
        ([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], F32, None),
    ),
    "identity_is_the_input": (
        lambda T: (lambda x: T.func.rearrange(x, "... -> ...") is x)(T.ones(2)),
        True,
    ),
    "no_arrow": (_rearrange_error("a b c"), ("raises", "ValueError")),
    "two_arrows": (_rearrange_error("a b c -> a b c -> a"), ("raises", "ValueError")),
    "wrong_rank": (_rearrange_error("a b -> b a"), ("raises", "ValueError")),
    "name_on_one_side": (_rearrange_error("a b c -> a b"), ("raises", "ValueError")),
    "unused_length": (_rearrange_error("a b c -> a b c", d=2), ("raises", "ValueError")),
    "duplicate_name": (_rearrange_error("a a c -> a c"), ("raises", "ValueError")),
    "unbalanced": (_rearrange_error("a b c -> a (b c"), ("raises", "ValueError")),
    "nested_groups": (_rearrange_error("((a b)) c -> a b c"), ("raises", "ValueError")),
    "numbered_axis": (_rearrange_error("a b c -> a b 2 c"), ("raises", "ValueError")),
    "bad_character": (_rearrange_error("a b c -> a b+c"), ("raises", "ValueError")),
    "underscore_name": (_rearrange_error("a b _c -> a b _c"), ("raises", "ValueError")),
    "ellipsis_only_on_the_right": (
        _rearrange_error("a b c -> ... a b c"),
        ("raises", "ValueError"),
    ),
    "ellipsis_grouped_on_the_left": (_rearrange_error("(a ...) -> a"), ("raises", "ValueError")),
    "two_unknown_sizes": (
        _rearrange_error("a (b1 b2) c -> a b1 b2 c"),
        ("raises", "DimensionBindError"),
    ),
    "size_does_not_divide": (
        _rearrange_error("a (b1 b2) c -> a b1 b2 c", b1=2),
        ("raises", "DimensionBindError"),
    ),
    "sizes_do_not_match": (
        _rearrange_error("a b c -> a b c", a=3),
        ("raises", "DimensionBindError"),
    ),
}


def test_rearrange_messages():
    with pytest.raises(ValueError, match="^Pattern must contain a single '->' separator$"):
        symgrad.func.rearrange(symgrad.zeros(2), "a")
    with pytest.raises(TypeError, match="rearrange axis lengths must be integers"):
        symgrad.func.rearrange(symgrad.zeros(2), "a -> a", a=2.0)
    with pytest.raises(DimensionBindError, match="d1 and d2"):
        symgrad.func.rearrange(symgrad.zeros(2, 3, 4), "a (b1 b2) c -> a b1 b2 c")


test_rearrange, test_rearrange_is_pytorchs = table_tests(REARRANGE_CASES)


# -- autograd.graph edges, multi-grad hooks, versions; autograd's switches --------------------
def _edge_grads(T, *picks, **options):
    """``autograd.grad`` of ``sum(sin(2x))`` by gradient edges of ``x`` and of ``y = 2x``."""
    graph = T.autograd.graph
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.sin().sum()
    chosen = {"x": x, "y": y, "edge_x": graph.get_gradient_edge(x)}
    chosen["edge_y"] = graph.get_gradient_edge(y)
    chosen["unused"] = graph.get_gradient_edge(T.ones(1, requires_grad=True))
    return T.autograd.grad(z, [chosen[p] for p in picks], **options)


def _edge_facts(T):
    graph = T.autograd.graph
    x = T.tensor([1.0], requires_grad=True)
    y = x.exp()
    edge, leaf_edge = graph.get_gradient_edge(y), graph.get_gradient_edge(x)
    return (
        edge.node is y.grad_fn,
        edge.output_nr,
        type(leaf_edge.node).__name__,
        isinstance(edge, tuple),
    )


def _multi_hook(T, mode="all"):
    """What a multi-grad hook over ``a`` and ``b`` sees over three backward passes."""
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = T.tensor(3.0, requires_grad=True)
    seen = []
    handle = T.autograd.graph.register_multi_grad_hook((a, b), seen.append, mode=mode)
    (a * b).sum().backward()
    (a * 2).sum().backward()
    handle.remove()
    (a * b).sum().backward()
    return seen


def _multi_hook_partial(T):
    """Hooks on two non-leaves, through backward and through grad() of one of them."""
    x = T.ones(2, requires_grad=True)
    y, z = x * 2, x * 3
    seen = []
    T.autograd.graph.register_multi_grad_hook([y, z], seen.append)
    (y * z).sum().backward(retain_graph=True)
    T.autograd.grad((y * z).sum(), [y])
    return seen


def _multi_hook_on_leaves_in_grad(T):
    a = T.ones(2, requires_grad=True)
    T.autograd.graph.register_multi_grad_hook([a], print)
    return T.autograd.grad((a * 2).sum(), [a])


def _bumped(T):
    x = T.ones(2, requires_grad=True)
    y = x * 1
    z = y * y  # saves y
    T.autograd.graph.increment_version([y])
    z.sum().backward()


def _hook_keeps_its_gradient(T):
    a = T.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    a.register_hook(seen.append)
    (a * 3).sum().backward()
    (a * 2).sum().backward()
    return seen, a.grad


def _multithreading(T):
    autograd = T.autograd
    before = autograd.is_multithreading_enabled()
    with autograd.set_multithreading_enabled(False):
        inside = autograd.is_multithreading_enabled()
    after = autograd.is_multithreading_enabled()
    autograd.set_multithreading_enabled(False)
    called = autograd.is_multithreading_enabled()
    autograd.set_multithreading_enabled(True)
    return before, inside, after, called, autograd.is_view_replay_enabled()


GRAPH_CASES = {
    "grad_by_edges": (
        lambda T: _edge_grads(T, "edge_y", "edge_x"),
        (([-0.4161, -0.6536], F32, None), ([-0.8323, -1.3073], F32, None)),
    ),
    "edges_and_tensors": (
        lambda T: _edge_grads(T, "y", "edge_x"),
        (([-0.4161, -0.6536], F32, None), ([-0.8323, -1.3073], F32, None)),
    ),
    "one_edge_alone": (lambda T: _edge_grads(T, "edge_y"), (([-0.4161, -0.6536], F32, None),)),
    "unused_edge_allowed": (lambda T: _edge_grads(T, "unused", allow_unused=True), (None,)),
    "unused_edge": (lambda T: _edge_grads(T, "unused"), ("raises", "RuntimeError")),
    "edge_facts": (_edge_facts, (True, 0, "AccumulateGrad", True)),
    "edge_of_a_constant": (
        lambda T: T.autograd.graph.get_gradient_edge(T.ones(1)),
        ("raises", "RuntimeError"),
    ),
    "multi_grad_hook_all": (
        _multi_hook,
        (
            (([3.0, 3.0], F32, None), (3.0, F32, None)),
            (([2.0, 2.0], F32, None), None),
        ),
    ),
    "multi_grad_hook_any": (
        lambda T: _multi_hook(T, "any"),
        (([3.0, 3.0], F32, None), ([2.0, 2.0], F32, None)),
    ),
    "multi_grad_hook_partial_pass": (
        _multi_hook_partial,
        (
            (([3.0, 3.0], F32, None), ([2.0, 2.0], F32, None)),
            (([3.0, 3.0], F32, None), None),
        ),
    ),
    "multi_grad_hook_leaves_in_grad": (
        _multi_hook_on_leaves_in_grad,
        ("raises", "RuntimeError"),
    ),
    "multi_grad_hook_bad_mode": (
        lambda T: T.autograd.graph.register_multi_grad_hook([T.ones(1)], print, mode="some"),
        ("raises", "ValueError"),
    ),
    "multi_grad_hook_all_needs_grad": (
        lambda T: T.autograd.graph.register_multi_grad_hook([T.ones(1)], print),
        ("raises", "AssertionError"),
    ),
    "increment_version_breaks_saved": (_bumped, ("raises", "RuntimeError")),
    "increment_version_counts": (
        lambda T: (lambda t: (T.autograd.graph.increment_version(t), t._version)[1])(T.ones(1)),
        1,
    ),
    "hook_keeps_its_gradient": (
        _hook_keeps_its_gradient,
        ((([3.0, 3.0], F32, None), ([2.0, 2.0], F32, None)), ([5.0, 5.0], F32, None)),
    ),
    "multithreading_switch": (_multithreading, (True, False, True, False, False)),
    "anomaly_mode_module": (
        lambda T: T.autograd.anomaly_mode.detect_anomaly is T.autograd.detect_anomaly,
        True,
    ),
}


def test_gradient_edge_in_backward_inputs_changes_no_grad():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sin().sum().backward(inputs=[symgrad.autograd.graph.get_gradient_edge(y)])
    assert x.grad is None
    assert y.grad.tolist() == pytest.approx([-0.4161468, -0.6536436])  # retain_grad's


test_graph_names, test_graph_names_are_pytorchs = table_tests(GRAPH_CASES)


# -- Tensor.grad_dtype ------------------------------------------------------------------------
def _grad_dtype_run(T, dtype_name, make_loss=lambda x: (x * 2).sum(), passes=1):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    x.grad_dtype = None if dtype_name is None else getattr(T, dtype_name)
    seen = []
    x.register_hook(lambda g: seen.append(str(g.dtype).rsplit(".", 1)[-1]))
    for _ in range(passes):
        make_loss(x).backward()
    return x.grad, seen, str(x.grad_dtype).rsplit(".", 1)[-1]


def _assign_grad(T, grad_dtype, value_dtype):
    w = T.tensor([1.0, 2.0], requires_grad=True)
    w.grad_dtype = getattr(T, grad_dtype)
    w.grad = T.ones(2, dtype=getattr(T, value_dtype))
    return w.grad


GRAD_DTYPE_CASES = {
    "default_is_the_dtype": (
        lambda T: str(T.ones(2, requires_grad=True).grad_dtype).rsplit(".", 1)[-1],
        F32,
    ),
    "float64_gradients": (
        lambda T: _grad_dtype_run(T, F64, passes=2),
        (([4.0, 4.0], F64, None), ("float64", "float64"), F64),
    ),
    "none_keeps_the_incoming_dtype": (
        lambda T: _grad_dtype_run(T, None),
        (([2.0, 2.0], F32, None), ("float32",), "None"),
    ),
    "grad_returns_it": (
        lambda T: (lambda v: (setattr(v, "grad_dtype", T.float64), T.autograd.grad(v * 2, v))[1])(
            T.tensor(1.0, requires_grad=True)
        ),
        ((2.0, F64, None),),
    ),
    "assign_grad_of_the_grad_dtype": (
        lambda T: _assign_grad(T, "float16", "float16"),
        ([1.0, 1.0], "float16", None),
    ),
    "assign_grad_of_the_tensor_dtype": (
        lambda T: _assign_grad(T, "float16", F32),
        ("raises", "RuntimeError"),
    ),
    "non_leaf_get": (
        lambda T: (T.ones(1, requires_grad=True) * 2).grad_dtype,
        ("raises", "RuntimeError"),
    ),
    "non_leaf_set": (
        lambda T: setattr(T.ones(1, requires_grad=True) * 2, "grad_dtype", T.float64),
        ("raises", "RuntimeError"),
    ),
    "not_a_dtype": (
        lambda T: setattr(T.ones(1, requires_grad=True), "grad_dtype", "float"),
        ("raises", "RuntimeError"),
    ),
}


def test_grad_dtype_change_with_a_gradient_refused():
    w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    w.grad_dtype = symgrad.float16
    w.grad = symgrad.ones(2, dtype=symgrad.float16)
    with pytest.raises(RuntimeError, match="already a gradient"):
        w.grad_dtype = symgrad.float64
    w.grad = None
    w.grad_dtype = symgrad.float64
    assert w.grad_dtype == symgrad.float64


test_grad_dtype, test_grad_dtype_is_pytorchs = table_tests(GRAD_DTYPE_CASES)


# -- nn.factory_kwargs and nn.Container -------------------------------------------------------
def _factory(kwargs):
    return lambda T: sorted(
        (k, str(v).rsplit(".", 1)[-1]) for k, v in T.nn.factory_kwargs(kwargs(T)).items()
    )


def _container(T):
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        box = T.nn.Container(act=T.nn.ReLU(), fc=T.nn.Linear(1, 1))
    return [name for name, _ in box.named_parameters()], type(box.act).__name__


NN_HELPER_CASES = {
    "none": (_factory(lambda T: None), ()),
    "dtype": (_factory(lambda T: {"dtype": T.float64}), (("dtype", F64),)),
    "merged": (
        _factory(lambda T: {"device": "cpu", "factory_kwargs": {"dtype": T.float16}}),
        (("device", "cpu"), ("dtype", "float16")),
    ),
    "twice": (
        _factory(lambda T: {"dtype": T.float16, "factory_kwargs": {"dtype": T.float64}}),
        ("raises", "TypeError"),
    ),
    "unexpected": (_factory(lambda T: {"bias": True}), ("raises", "TypeError")),
    "container": (_container, (("fc.weight", "fc.bias"), "ReLU")),
}

test_nn_helpers, test_nn_helpers_are_pytorchs = table_tests(NN_HELPER_CASES)
