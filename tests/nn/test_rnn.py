"""Recurrent layers and cells against PyTorch: outputs, final states and gradients (of the
input and of every parameter) from the same weights, for every option; parameter names,
shapes, reprs and errors. The stored values were printed by PyTorch 2.13."""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import nn

HAS_TORCH = importlib.util.find_spec("torch") is not None
X = [[[0.5, -1.0]], [[1.5, 0.25]], [[-0.5, 2.0]]]  # (L=3, N=1, input_size=2)

# output[:, 0] and d(output.sum())/dx[:, 0], each parameter filled with 0.5 sin(k + i)
EXPECTED = {
    "RNN": (
        [
            [0.1040947808, -0.1499378842],
            [0.5413193335, 0.4266986308],
            [0.9455946202, -0.4756238214],
        ],
        [[0.4975418011, 0.6475984196], [0.2808826891, 0.3705279409], [0.3517989819, 0.0991332541]],
    ),
    "LSTM": (
        [[0.0696349551, 0.1698066346], [0.2918478277, 0.1685153444], [0.28091668, 0.0330046619]],
        [[0.223727765, 0.0711531931], [-0.0502143402, -0.1105234159], [0.1463825363, 0.012973081]],
    ),
    "GRU": (
        [[0.0473897385, 0.5335711779], [0.5597557499, 0.1903349729], [0.369502158, -0.0643350701]],
        [
            [0.2975074716, -0.1179235028],
            [0.0940049009, -0.1998573945],
            [0.2677441685, 0.0511793078],
        ],
    ),
}


def fill(module, T):
    with T.no_grad():
        for i, (_, p) in enumerate(module.named_parameters()):
            values = np.sin(np.arange(p.numel()) + i).reshape(tuple(p.shape)) * 0.5
            p.copy_(T.tensor(values))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_values_and_input_gradients_are_pytorchs(name):
    layer = getattr(nn, name)(2, 2).double()
    fill(layer, symgrad)
    x = symgrad.tensor(X, dtype=symgrad.float64, requires_grad=True)
    out, _ = layer(x)
    out.sum().backward()
    values, grads = EXPECTED[name]
    np.testing.assert_allclose(out.detach().numpy()[:, 0], values, atol=1e-9)
    np.testing.assert_allclose(x.grad.numpy()[:, 0], grads, atol=1e-9)
    assert out.grad_fn.name() == "StackBackward0"


CASES = [
    ("RNN", dict(input_size=3, hidden_size=4)),
    ("RNN", dict(input_size=3, hidden_size=4, num_layers=2, nonlinearity="relu", batch_first=True)),
    ("LSTM", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True)),
    ("LSTM", dict(input_size=3, hidden_size=4, proj_size=2, batch_first=True)),
    ("GRU", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True, batch_first=True)),
    ("GRU", dict(input_size=3, hidden_size=5, bias=False)),
]


def _outputs(result) -> list:
    out, state = result
    return [out, *(state if isinstance(state, tuple) else (state,))]


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("name, kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_layers_match_torch_with_gradients(name, kw):
    import torch

    torch.manual_seed(0)
    ref = getattr(torch.nn, name)(**kw).double()
    ours = getattr(nn, name)(**kw).double()
    ours.load_state_dict(
        {k: symgrad.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()}
    )
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert repr(ours) == repr(ref)
    x = np.random.default_rng(1).standard_normal((5, 2, 3))
    runs = []
    for T, module in ((torch, ref), (symgrad, ours)):
        xt = T.tensor(x, requires_grad=True)
        outs = _outputs(module(xt))
        sum(o.sum() * (i + 1) for i, o in enumerate(outs)).backward()
        grads = [xt.grad] + [p.grad for p in module.parameters()]
        runs.append(([o.detach().numpy() for o in outs], [g.numpy() for g in grads]))
        unbatched = _outputs(module(T.tensor(x[:, 0] if not kw.get("batch_first") else x[0])))
        runs[-1][0].extend(o.detach().numpy() for o in unbatched)
    for theirs, mine in zip(runs[0][0] + runs[0][1], runs[1][0] + runs[1][1]):
        np.testing.assert_allclose(mine, theirs, atol=1e-10)


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize(
    "name, node",
    [("RNNCell", "TanhBackward0"), ("LSTMCell", "MulBackward0"), ("GRUCell", "AddBackward0")],
)
def test_cells_match_torch(name, node):
    import torch

    ref = getattr(torch.nn, name)(3, 4).double()
    ours = getattr(nn, name)(3, 4).double()
    ours.load_state_dict(
        {k: symgrad.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()}
    )
    x = np.random.default_rng(2).standard_normal((2, 3))
    outs = []
    for T, cell in ((torch, ref), (symgrad, ours)):
        first = cell(T.tensor(x))
        second = cell(
            T.tensor(x[0]), tuple(s[0] for s in first) if isinstance(first, tuple) else first[0]
        )
        outs.append([o.detach().numpy() for o in (first if isinstance(first, tuple) else (first,))])
        outs[-1] += [
            o.detach().numpy() for o in (second if isinstance(second, tuple) else (second,))
        ]
        if T is symgrad:
            assert (first[0] if isinstance(first, tuple) else first).grad_fn.name() == node
    for theirs, mine in zip(*outs):
        np.testing.assert_allclose(mine, theirs, atol=1e-12)
    assert repr(ours) == repr(ref)


def test_parameters_shapes_and_initialisation():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    shapes = {n: tuple(p.shape) for n, p in lstm.named_parameters()}
    assert shapes["weight_ih_l0"] == (16, 3) and shapes["weight_hh_l0"] == (16, 2)
    assert shapes["weight_ih_l1_reverse"] == (16, 4) and shapes["weight_hr_l1_reverse"] == (2, 4)
    assert len(shapes) == 20
    bound = 1 / np.sqrt(4)
    assert all(np.abs(p.detach().numpy()).max() <= bound for p in lstm.parameters())
    cell = nn.GRUCell(3, 4, bias=False)
    assert cell.bias_ih is None and [n for n, _ in cell.named_parameters()] == [
        "weight_ih",
        "weight_hh",
    ]
    assert repr(cell) == "GRUCell(3, 4, bias=False)"


def test_states_shapes_and_given_initial_state():
    gru = nn.GRU(3, 4, num_layers=2, batch_first=True)
    x = symgrad.randn(2, 5, 3)
    out, h = gru(x)
    assert out.shape == (2, 5, 4) and h.shape == (2, 2, 4)
    out2, _ = gru(x, h)
    assert out2.shape == (2, 5, 4) and not np.allclose(out2.detach().numpy(), out.detach().numpy())
    lstm = nn.LSTM(3, 4)
    _, (h_n, c_n) = lstm(symgrad.randn(5, 3))
    assert h_n.shape == c_n.shape == (1, 4)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: nn.RNN(3, 4)(symgrad.randn(5, 2, 2)),
            RuntimeError,
            "input.size\\(-1\\) must be equal to input_size. Expected 3, got 2",
        ),
        (
            lambda: nn.RNN(3, 4)(symgrad.randn(3)),
            ValueError,
            "Expected input to be 2D or 3D, got 1D instead",
        ),
        (
            lambda: nn.GRU(3, 4)(symgrad.randn(5, 2, 3), symgrad.zeros(1, 3, 4)),
            RuntimeError,
            "Expected hidden size \\(1, 2, 4\\)",
        ),
        (
            lambda: nn.RNN(3, 4, nonlinearity="sigmoid"),
            ValueError,
            "Unknown nonlinearity 'sigmoid'",
        ),
        (lambda: nn.LSTM(3, 4, dropout=1.5), ValueError, "dropout should be a number in range"),
        (
            lambda: nn.LSTM(3, 4, proj_size=4),
            ValueError,
            "proj_size has to be smaller than hidden_size",
        ),
        (lambda: nn.GRU(3, 4, proj_size=2), ValueError, "only supported for LSTM"),
        (lambda: nn.RNN(3, 0), ValueError, "hidden_size must be greater than zero"),
        (lambda: nn.GRU(3, 2.0), TypeError, "hidden_size should be of type int, got: float"),
        (
            lambda: nn.RNNCell(3, 4, nonlinearity="x")(symgrad.ones(3)),
            RuntimeError,
            "Unknown nonlinearity: x",
        ),
        (
            lambda: nn.RNNCell(3, 4)(symgrad.ones(2, 2, 3)),
            ValueError,
            "Expected input to be 1D or 2D, got 3D",
        ),
        (
            lambda: nn.LSTMCell(3, 4)(symgrad.randn(2, 5)),
            RuntimeError,
            "inconsistent input_size: got 5 expected 3",
        ),
    ],
)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


# a cell's state that would broadcast against the input is still an error
CELL_STATE_ERRORS = [
    (
        "RNNCell",
        (3, 4),
        (1, 6),
        RuntimeError,
        "Input batch size 3 doesn't match hidden0 batch size 1",
    ),
    (
        "GRUCell",
        (3, 4),
        (6,),
        RuntimeError,
        "Input batch size 3 doesn't match hidden0 batch size 6",
    ),
    (
        "LSTMCell",
        (4,),
        (1, 6),
        RuntimeError,
        "hidden0 has inconsistent hidden_size: got 1, expected 6",
    ),
    (
        "GRUCell",
        (4,),
        (3, 6),
        RuntimeError,
        "hidden0 has inconsistent hidden_size: got 3, expected 6",
    ),
    (
        "RNNCell",
        (3, 4),
        (3, 5),
        RuntimeError,
        "hidden0 has inconsistent hidden_size: got 5, expected 6",
    ),
    ("GRUCell", (3, 4), (3, 6, 1), ValueError, "GRUCell: Expected hidden to be 1D or 2D, got 3D"),
    (
        "LSTMCell",
        (3, 4),
        (3, 6, 1),
        ValueError,
        r"LSTMCell: Expected hx\[0\] to be 1D or 2D, got 3D",
    ),
]


def _cell_with_state(T, name, x_shape, h_shape):
    cell = getattr(T.nn, name)(4, 6)
    h = T.zeros(h_shape)
    return cell(T.zeros(x_shape), (h, T.zeros(h_shape)) if name == "LSTMCell" else h)


@pytest.mark.parametrize(("name", "x_shape", "h_shape", "error", "message"), CELL_STATE_ERRORS)
def test_cell_states_that_do_not_fit_raise_pytorchs_errors(name, x_shape, h_shape, error, message):
    with pytest.raises(error, match=message):
        _cell_with_state(symgrad, name, x_shape, h_shape)


@pytest.mark.torch
@pytest.mark.parametrize(("name", "x_shape", "h_shape", "error", "message"), CELL_STATE_ERRORS)
def test_cell_state_errors_are_torchs(name, x_shape, h_shape, error, message):
    torch = pytest.importorskip("torch")
    with pytest.raises(error, match=message):
        _cell_with_state(torch, name, x_shape, h_shape)


def test_lstm_cell_checks_the_cell_state_too():
    cell = nn.LSTMCell(4, 6)
    with pytest.raises(RuntimeError, match="doesn't match hidden1 batch size 2"):
        cell(symgrad.zeros(3, 4), (symgrad.zeros(3, 6), symgrad.zeros(2, 6)))


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_unbatched_results_are_squeezed_from_a_batch_of_one(name):
    # PyTorch runs an unbatched sequence as a batch of one and squeezes dim 1 off every result
    module = getattr(nn, name)(2, 3, num_layers=2)
    x = symgrad.tensor(X)[:, 0]
    out, h_n = module(x)
    states = h_n if name == "LSTM" else (h_n,)
    assert [t.grad_fn.name() for t in (out, *states)] == ["SqueezeBackward1"] * (1 + len(states))
    assert tuple(out.shape) == (3, 3) and all(tuple(s.shape) == (2, 3) for s in states)
    batched_out, batched_h = module(x.unsqueeze(1))
    np.testing.assert_allclose(out.detach().numpy(), batched_out[:, 0].detach().numpy())
    given = tuple(s + 1 for s in states) if name == "LSTM" else states[0] + 1
    again, _ = module(x, given)
    assert again.grad_fn.name() == "SqueezeBackward1" and tuple(again.shape) == (3, 3)
    if HAS_TORCH:
        import torch

        ref = getattr(torch.nn, name)(2, 3, num_layers=2)(torch.tensor(X)[:, 0])
        assert out.grad_fn.name() == ref[0].grad_fn.name()


def _node_chain(t, depth):
    names, f = [], t.grad_fn
    while f is not None and len(names) < depth:
        names.append(type(f).__name__)
        inner = [g for g, _ in f.next_functions if g is not None]
        inner = [g for g in inner if type(g).__name__ != "AccumulateGrad"]
        f = inner[0] if inner else None
    return names


# (layer, options, dtype, the output's outermost nodes, h_n's) as PyTorch 2.13 records them on
# the CPU: its float32 LSTM runs oneDNN, one MkldnnRnnLayerBackward0 per layer and direction;
# GRU and RNN transpose a batch_first output in place (TransposeBackward1)
NODE_NAMES = [
    (
        "LSTM",
        {},
        "float32",
        ["MkldnnRnnLayerBackward0"],
        ["StackBackward0", "MkldnnRnnLayerBackward0"],
    ),
    (
        "LSTM",
        {"batch_first": True},
        "float32",
        ["TransposeBackward0", "MkldnnRnnLayerBackward0"],
        None,
    ),
    (
        "LSTM",
        {"bidirectional": True, "num_layers": 2},
        "float32",
        ["CatBackward0", "MkldnnRnnLayerBackward0"],
        None,
    ),
    ("LSTM", {}, "float64", ["StackBackward0", "MulBackward0"], None),
    ("LSTM", {"proj_size": 2}, "float32", ["StackBackward0", "MmBackward0"], None),
    ("GRU", {"batch_first": True}, "float32", ["TransposeBackward1", "StackBackward0"], None),
    ("RNN", {"batch_first": True}, "float64", ["TransposeBackward1", "StackBackward0"], None),
]


@pytest.mark.parametrize("layer, options, dtype, output, h_n", NODE_NAMES)
def test_outermost_node_names_are_pytorchs(layer, options, dtype, output, h_n):
    symgrad.manual_seed(0)
    m = getattr(nn, layer)(3, 4, **options).to(getattr(symgrad, dtype))
    out, h = m(symgrad.randn(5, 2, 3, dtype=getattr(symgrad, dtype)))
    assert _node_chain(out, len(output)) == output
    if h_n is not None:
        for state in h if isinstance(h, tuple) else (h,):
            assert _node_chain(state, 2) == h_n


@pytest.mark.parametrize("layer, options, dtype, output, h_n", NODE_NAMES)
def test_outermost_node_names_agree_with_torch(layer, options, dtype, output, h_n):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    m = getattr(torch.nn, layer)(3, 4, **options).to(getattr(torch, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (no oneDNN for projections)
        out, h = m(torch.randn(5, 2, 3, dtype=getattr(torch, dtype)))
    assert _node_chain(out, len(output)) == output
    if h_n is not None:
        for state in h if isinstance(h, tuple) else (h,):
            assert _node_chain(state, 2) == h_n


def _fused_lstm_edges(T):
    T.manual_seed(0)
    out, (h, c) = T.nn.LSTM(2, 3, bidirectional=True)(T.ones(4, 1, 2))
    nodes = [fn for fn, _ in h.grad_fn.next_functions]
    same = [a is b for a, b in zip(nodes, (fn for fn, _ in c.grad_fn.next_functions))]
    return (
        [(type(fn).__name__, k) for fn, k in h.grad_fn.next_functions],
        [k for _, k in c.grad_fn.next_functions],
        same,
    )


FUSED_EDGES = ([("MkldnnRnnLayerBackward0", 1)] * 2, [2, 2], [True, True])


def test_float32_lstm_states_are_outputs_of_one_fused_node():
    # one node per layer and direction: the output its output 0, h its 1, c its 2
    assert _fused_lstm_edges(symgrad) == FUSED_EDGES


@pytest.mark.torch
def test_float32_lstm_fused_edges_are_torchs():
    assert _fused_lstm_edges(pytest.importorskip("torch")) == FUSED_EDGES
