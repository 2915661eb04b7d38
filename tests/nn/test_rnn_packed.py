"""Padding and packing sequences (nn.utils.rnn) and the recurrent layers on packed input."""

import numpy as np
import pytest

import symgrad
from symgrad import nn
from symgrad.nn.utils import rnn as R


def _seqs():
    return [
        symgrad.tensor([[1.0], [2.0]], requires_grad=True),
        symgrad.tensor([[3.0], [4.0], [5.0]], requires_grad=True),
        symgrad.tensor([[6.0]], requires_grad=True),
    ]


def test_pad_sequence_values_and_sides():
    a, b, c = _seqs()
    out = R.pad_sequence([a, b, c], batch_first=True, padding_value=-1.0)
    assert out[:, :, 0].tolist() == [[1, 2, -1], [3, 4, 5], [6, -1, -1]]
    left = R.pad_sequence([a, b, c], padding_side="left")
    assert left.shape == (3, 3, 1)
    assert left[:, 0, 0].tolist() == [0, 1, 2]
    with pytest.raises(RuntimeError):
        R.pad_sequence([a], padding_side="middle")


def test_pack_and_pad_round_trip_unsorted():
    seqs = _seqs()
    packed = R.pack_sequence(seqs, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 2, 1]
    assert packed.sorted_indices.tolist() == [1, 0, 2]
    assert packed.unsorted_indices.tolist() == [1, 0, 2]
    assert packed.data[:, 0].tolist() == [3, 1, 6, 4, 2, 5]
    padded, lengths = R.pad_packed_sequence(packed, batch_first=True, total_length=4)
    assert lengths.tolist() == [2, 3, 1] and padded.shape == (3, 4, 1)
    assert padded[:, :, 0].tolist() == [[1, 2, 0, 0], [3, 4, 5, 0], [6, 0, 0, 0]]
    back = R.unpack_sequence(packed)
    assert [s[:, 0].tolist() for s in back] == [[1, 2], [3, 4, 5], [6]]
    (padded * symgrad.arange(12.0).reshape(3, 4, 1)).sum().backward()
    assert seqs[1].grad[:, 0].tolist() == [4, 5, 6]
    assert seqs[2].grad[:, 0].tolist() == [8]


def test_pack_padded_sequence_errors_and_tensor_lengths():
    x = symgrad.zeros(3, 2, 1)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        R.pack_padded_sequence(x, [1, 3])
    with pytest.raises(RuntimeError, match="greater than 0"):
        R.pack_padded_sequence(x, [3, 0])
    packed = R.pack_padded_sequence(x, symgrad.tensor([1, 3]), enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [2, 1, 1]
    with pytest.raises(ValueError, match="total_length"):
        R.pad_packed_sequence(packed, total_length=2)
    assert packed.to(symgrad.float64).data.dtype == symgrad.float64
    assert packed.is_cuda is False


def test_unpad_sequence():
    padded = symgrad.tensor([[1.0, 3.0], [2.0, 0.0]])
    assert [s.tolist() for s in R.unpad_sequence(padded, [2, 1])] == [[1, 2], [3]]


def _unpad_time_major(T):
    """unpad_sequence of a time-major batch: PyTorch transposes the caller's tensor in place
    (and so refuses a leaf that requires grad); a batch of other length than the lengths
    raises zip's ValueError."""
    padded = T.tensor([[1.0, 3.0], [2.0, 0.0]])
    found = [[s.tolist() for s in T.nn.utils.rnn.unpad_sequence(padded, T.tensor([2, 1]))]]
    found.append(tuple(padded.shape))
    for call in (
        lambda: T.nn.utils.rnn.unpad_sequence(T.ones(2, 2, requires_grad=True), T.tensor([2, 1])),
        lambda: T.nn.utils.rnn.unpad_sequence(T.ones(3, 2), T.tensor([2, 1]), batch_first=True),
    ):
        with pytest.raises((RuntimeError, ValueError)) as error:
            call()
        found.append(error.type.__name__)
    return found


UNPADDED = [[[1.0, 2.0], [3.0]], (2, 2), "RuntimeError", "ValueError"]


def test_unpad_sequence_transposes_the_time_major_batch_in_place():
    assert _unpad_time_major(symgrad) == UNPADDED


@pytest.mark.torch
def test_unpad_sequence_in_place_is_torchs():
    assert _unpad_time_major(pytest.importorskip("torch")) == UNPADDED


def _packed_from_parts(T):
    data, sizes = T.tensor([1.0, 2.0, 3.0]), T.tensor([2, 1])
    made = T.nn.utils.rnn.PackedSequence(data, sizes, T.tensor([1, 0]))
    pair = T.nn.utils.rnn.PackedSequence((data, sizes))
    return made.unsorted_indices.tolist(), pair.batch_sizes.tolist(), pair.unsorted_indices


@pytest.mark.parametrize("library", ["symgrad", pytest.param("torch", marks=pytest.mark.torch)])
def test_packed_sequence_inverts_the_sorted_indices_it_is_given(library):
    T = symgrad if library == "symgrad" else pytest.importorskip("torch")
    assert _packed_from_parts(T) == ([1, 0], [2, 1], None)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_packed_final_state_is_last_valid_step(cls):
    symgrad.manual_seed(0)
    layer = getattr(nn, cls)(1, 2)
    seqs = _seqs()
    out, state = layer(R.pack_sequence(seqs, enforce_sorted=False))
    h_n = state[0] if cls == "LSTM" else state
    assert isinstance(out, R.PackedSequence)
    for i, s in enumerate(seqs):
        alone, _ = layer(s.unsqueeze(1))
        np.testing.assert_allclose(
            h_n[0, i].detach().numpy(), alone[-1, 0].detach().numpy(), rtol=1e-5
        )
    padded, _ = R.pad_packed_sequence(out)
    assert padded[2:, 0].abs().sum().item() == 0.0


def _copy_weights(tm, sm):
    for p, q in zip(tm.parameters(), sm.parameters()):
        q.data = symgrad.tensor(p.detach().numpy().copy())


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize(
    "kw", [{}, {"num_layers": 2, "bidirectional": True}, {"batch_first": True}]
)
def test_packed_layers_match_torch(cls, kw):
    torch = pytest.importorskip("torch")
    tr = pytest.importorskip("torch.nn.utils.rnn")
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls)(3, 4, **kw).double()
    sm = getattr(nn, cls)(3, 4, **kw)
    _copy_weights(tm, sm)
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((n, 3)) for n in (2, 4, 3)]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    ss = [symgrad.tensor(a, requires_grad=True) for a in arrays]
    directions = 2 if kw.get("bidirectional") else 1
    h0 = rng.standard_normal((kw.get("num_layers", 1) * directions, 3, 4))
    th0, sh0 = torch.tensor(h0), symgrad.tensor(h0)
    if cls == "LSTM":
        th0, sh0 = (th0, th0 * 2), (sh0, sh0 * 2)
    to, th = tm(tr.pack_sequence(ts, enforce_sorted=False), th0)
    so, sh = sm(R.pack_sequence(ss, enforce_sorted=False), sh0)
    np.testing.assert_allclose(so.data.detach().numpy(), to.data.detach().numpy(), atol=1e-12)
    th = th if isinstance(th, tuple) else (th,)
    sh = sh if isinstance(sh, tuple) else (sh,)
    for a, b in zip(sh, th):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-12)
    tpad, _ = tr.pad_packed_sequence(to, batch_first=True)
    spad, _ = R.pad_packed_sequence(so, batch_first=True)
    ((tpad**2).sum() + sum((h**3).sum() for h in th)).backward()
    ((spad**2).sum() + sum((h**3).sum() for h in sh)).backward()
    for a, b in zip(ss, ts):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-10)
    for p, q in zip(tm.parameters(), sm.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), atol=1e-10)


def test_pad_utilities_match_torch():
    torch = pytest.importorskip("torch")
    tr = pytest.importorskip("torch.nn.utils.rnn")
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((n, 2)) for n in (3, 1, 2)]
    for side in ("left", "right"):
        t = tr.pad_sequence([torch.tensor(a) for a in arrays], True, 7.0, side)
        s = R.pad_sequence([symgrad.tensor(a) for a in arrays], True, 7.0, side)
        np.testing.assert_array_equal(s.numpy(), t.numpy())
    tp = tr.pack_sequence([torch.tensor(a) for a in arrays], enforce_sorted=False)
    sp = R.pack_sequence([symgrad.tensor(a) for a in arrays], enforce_sorted=False)
    np.testing.assert_array_equal(sp.data.numpy(), tp.data.numpy())
    assert sp.sorted_indices.tolist() == tp.sorted_indices.tolist()


def _packed_graph(T):
    """The node names (with their counts) behind a packed GRU's output data and h_n, given an
    initial state: the input's product once for all steps, each step on its running rows,
    the state split by one unbind."""
    T.manual_seed(0)
    gru = T.nn.GRU(2, 3, bidirectional=True).double()
    x = T.tensor(np.arange(12.0).reshape(3, 2, 2) / 10, requires_grad=True)
    h0 = T.zeros(2, 2, 3, dtype=T.float64, requires_grad=True)
    out, h_n = gru(T.nn.utils.rnn.pack_padded_sequence(x, [3, 1]), h0)
    counts: dict = {}
    seen, todo = set(), [out.data.grad_fn, h_n.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        counts[type(node).__name__] = counts.get(type(node).__name__, 0) + 1
        todo += [fn for fn, _ in node.next_functions]
    return dict(sorted(counts.items()))


PACKED_GRAPH = {
    "AccumulateGrad": 10,
    "AddBackward0": 24,
    "AddmmBackward0": 8,
    "CatBackward0": 5,
    "MulBackward0": 12,
    "PackPaddedSequenceBackward0": 1,
    "SigmoidBackward0": 12,
    "SliceBackward0": 10,
    "StackBackward0": 1,
    "SubBackward0": 6,
    "TBackward0": 8,
    "TanhBackward0": 6,
    "UnbindBackward0": 1,
    "UnsafeSplitBackward0": 12,
}


def test_packed_layers_record_aten_s_graph():
    assert _packed_graph(symgrad) == PACKED_GRAPH


@pytest.mark.torch
def test_packed_graph_is_torchs():
    assert _packed_graph(pytest.importorskip("torch")) == PACKED_GRAPH


def _padded_chain(T):
    """The first nodes behind pad_packed_sequence of data packed from lengths [3, 1, 1], each
    node's first edge followed: one copy per run of steps of equal batch size (the last run
    first), each of a view of a slice of the data."""
    data = T.arange(10.0, requires_grad=True).view(5, 2)
    packed = T.nn.utils.rnn.PackedSequence(data * 1.0, T.tensor([3, 1, 1]))
    node, names = T.nn.utils.rnn.pad_packed_sequence(packed)[0].grad_fn, []
    while node is not None and len(names) < 6:
        names.append(type(node).__name__)
        edges = [fn for fn, _ in node.next_functions if fn is not None]
        node = edges[0]
    return names


PADDED_CHAIN = [
    "CopySlices", "CopySlices", "ViewBackward0", "SliceBackward0", "MulBackward0", "ViewBackward0",
]  # fmt: skip


def test_pad_packed_sequence_copies_runs_of_steps():
    assert _padded_chain(symgrad) == PADDED_CHAIN


@pytest.mark.torch
def test_pad_packed_sequence_graph_is_torchs():
    assert _padded_chain(pytest.importorskip("torch")) == PADDED_CHAIN
