"""``F.ctc_loss`` and ``nn.CTCLoss``: values, PyTorch's gradient convention, reductions,
``zero_infinity``, target layouts, closed forms, errors; PyTorch cross-checks when importable."""

import numpy as np
import pytest

import symgrad
import symgrad.nn as nn
import symgrad.nn.functional as F
from symgrad.autograd import gradcheck, gradgradcheck
from symgrad.symbolic import expression

LOGITS = [[[0.2, -0.1, 0.3]], [[0.5, 0.0, -0.4]], [[0.1, 0.1, 0.1]]]


def _chain(t):
    names, f = [], t.grad_fn
    while f is not None:
        names.append(type(f).__name__)
        f = next((n for n, _ in f.next_functions if n is not None), None)
    return names


def test_two_steps_one_label():
    # alignments of [1] in two steps: (1, 1), (blank, 1), (1, blank), each 1/4
    log_probs = symgrad.full((2, 1, 2), 0.5).log().requires_grad_()
    loss = F.ctc_loss(log_probs, symgrad.tensor([[1]]), [2], [1], reduction="none")
    assert np.allclose(loss.detach().numpy(), [-np.log(0.75)])
    assert _chain(loss) == ["CtcLossBackward0", "AccumulateGrad"]
    loss.sum().backward()
    # PyTorch's convention: exp(log_probs) minus each class's share of the likelihood
    assert np.allclose(log_probs.grad.numpy()[:, 0], [[1 / 6, -1 / 6]] * 2)


def test_mean_reduction_through_log_softmax():
    x = symgrad.tensor(LOGITS, requires_grad=True)
    loss = F.ctc_loss(x.log_softmax(2), symgrad.tensor([[1, 2]]), [3], [2])
    assert _chain(loss)[:3] == ["MeanBackward0", "DivBackward0", "CtcLossBackward0"]
    assert np.isclose(loss.item(), 0.9845596551895142)
    loss.backward()
    expected = [
        [0.04927608743309975, -0.2434389293193817, 0.19416284561157227],
        [0.09397589415311813, -0.06941045075654984, -0.024565447121858597],
        [0.1038934737443924, 0.1666666865348816, -0.2705601453781128],
    ]
    assert np.allclose(x.grad.numpy()[:, 0], expected, atol=1e-6)


def test_impossible_alignments_and_layouts():
    log_probs = symgrad.randn(3, 2, 4).log_softmax(2).requires_grad_()
    padded = symgrad.tensor([[1, 1, 0], [2, 3, 0]])
    loss = F.ctc_loss(log_probs, padded, [3, 3], [2, 2], reduction="none")
    flat = F.ctc_loss(log_probs, symgrad.tensor([1, 1, 2, 3]), [3, 3], [2, 2], reduction="none")
    assert np.allclose(loss.detach().numpy(), flat.detach().numpy())
    short = F.ctc_loss(log_probs, padded, [2, 3], [2, 2], reduction="none")
    assert np.isinf(short[0].item())  # a repeated label needs a blank between: 3 steps
    zeroed = F.ctc_loss(log_probs, padded, [2, 3], [2, 2], reduction="sum", zero_infinity=True)
    assert np.isclose(zeroed.item(), short[1].item())
    zeroed.backward()
    assert log_probs.grad[:, 0].abs().sum().item() == 0
    unbatched = F.ctc_loss(log_probs[:, 1], symgrad.tensor([2, 3]), (3,), (2,), reduction="none")
    assert type(unbatched.grad_fn).__name__ == "SqueezeBackward1"
    assert np.isclose(unbatched.item(), loss[1].item())


def test_gradcheck_and_closed_form():
    x = symgrad.randn(5, 2, 4, dtype=symgrad.float64, requires_grad=True)
    targets = symgrad.tensor([[1, 2], [3, 3]])

    def loss(x):
        return F.ctc_loss(x.log_softmax(2), targets, [5, 4], [2, 2], reduction="none")

    assert gradcheck(loss, (x,)) and gradgradcheck(loss, (x,))
    log_probs = symgrad.tensor([[[0.0, 0.0]], [[0.0, 0.0]]], requires_grad=True, name="l")
    y = F.ctc_loss(log_probs, symgrad.tensor([[1]]), [2], [1], reduction="sum")
    assert str(expression(y)) == (
        "-log((exp(l[0, 0, 0]) + exp(l[0, 0, 1]))*exp(l[1, 0, 1]) + "
        "exp(l[0, 0, 1])*exp(l[1, 0, 0]))"
    )


def test_errors_and_module():
    log_probs = symgrad.randn(4, 2, 3).log_softmax(2)
    targets = symgrad.tensor([[1, 2], [2, 1]])
    with pytest.raises(RuntimeError, match="input_lengths must be of size batch_size"):
        F.ctc_loss(log_probs, targets, [4], [2, 2])
    with pytest.raises(RuntimeError, match="at most 4"):
        F.ctc_loss(log_probs, targets, [5, 4], [2, 2])
    with pytest.raises(RuntimeError, match="size at least 3 at dimension 1"):
        F.ctc_loss(log_probs, targets, [4, 4], [3, 2])
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(log_probs, targets, [4, 4], [2, 2], blank=3)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.ctc_loss(log_probs, targets, [4, 4], [2, 2], reduction="max")
    loss = nn.CTCLoss(blank=2, zero_infinity=True)
    assert repr(loss) == "CTCLoss()" and loss.blank == 2 and loss.reduction == "mean"
    assert loss(log_probs, symgrad.tensor([[1, 0], [0, 1]]), [4, 4], [2, 1]).ndim == 0


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("blank", [0, 2])
@pytest.mark.parametrize("flat", [False, True])
def test_against_torch(reduction, zero_infinity, blank, flat):
    torch = pytest.importorskip("torch")
    rs = np.random.RandomState(0)
    logits = rs.randn(7, 3, 5)
    padded = np.array([[1, 3, 3], [3, 1, 0], [4, 4, 4]])
    padded = np.where(padded == blank, 1 + (blank == 1), padded)
    lengths, steps = [3, 2, 3], [7, 5, 4]  # the last one is impossible
    targets = np.concatenate([row[:n] for row, n in zip(padded, lengths)]) if flat else padded
    results = []
    for lib in (symgrad, torch):
        x = lib.tensor(logits, requires_grad=True)
        log_probs = x.log_softmax(2)
        log_probs.retain_grad()
        y = lib.nn.functional.ctc_loss(
            log_probs,
            lib.tensor(targets),
            lib.tensor(steps),
            lib.tensor(lengths),
            blank=blank,
            reduction=reduction,
            zero_infinity=zero_infinity,
        )
        y.sum().backward()
        found = [y, log_probs.grad, x.grad]
        results.append([t.detach().numpy() for t in found] + [_chain(y)])
    for ours, theirs in zip(*results):
        assert (
            ours == theirs if isinstance(ours, list) else np.allclose(ours, theirs, equal_nan=True)
        )


_LOG_PROBS = np.log(np.full((6, 2, 4), 0.25))
_PADDED = [[1, 2, 2], [3, 1, 0]]
# (call of T, the exception's type, words of its message): the lengths are two integer
# tensors or two sequences of ints, and PyTorch checks their values
_ARGUMENT_ERRORS = {
    "float_tensor": (
        lambda T, x: T.nn.functional.ctc_loss(
            x, T.tensor(_PADDED), T.tensor([6.0, 5.0]), T.tensor([3, 2])
        ),
        RuntimeError,
        "input_lengths must be integral",
    ),
    "bool_tensor": (
        lambda T, x: T.nn.functional.ctc_loss(
            x, T.tensor(_PADDED), T.tensor([6, 5]), T.tensor([True, True])
        ),
        RuntimeError,
        "target_lengths must be integral",
    ),
    "floats": (
        lambda T, x: T.nn.functional.ctc_loss(x, T.tensor(_PADDED), [6.0, 5.0], [3, 2]),
        TypeError,
        "invalid combination of arguments",
    ),
    "tensor_and_tuple": (
        lambda T, x: T.nn.functional.ctc_loss(x, T.tensor(_PADDED), T.tensor([6, 5]), (3, 2)),
        TypeError,
        "invalid combination of arguments",
    ),
    "numpy": (
        lambda T, x: T.nn.functional.ctc_loss(
            x, T.tensor(_PADDED), np.array([6, 5]), np.array([3, 2])
        ),
        TypeError,
        "invalid combination of arguments",
    ),
    "negative_input_length": (
        lambda T, x: T.nn.functional.ctc_loss(x, T.tensor(_PADDED), [6, -1], [3, 2]),
        RuntimeError,
        "input_lengths to have value at least 0, but got value -1",
    ),
    "negative_target_length": (
        lambda T, x: T.nn.functional.ctc_loss(x, T.tensor([1, 2, 2, 3]), [6, 5], [5, -1]),
        RuntimeError,
        "target_lengths to have value at least 0, but got value -1",
    ),
    "targets_of_three_dims": (
        lambda T, x: T.nn.functional.ctc_loss(x, T.tensor([_PADDED]), [6, 5], [3, 2]),
        RuntimeError,
        "Expected 1 to 2 dimensions, but got 3-dimensional tensor",
    ),
    "padded_rows_not_batch": (
        lambda T, x: T.nn.functional.ctc_loss(x, T.tensor([[1, 2]] * 3), [6, 5], [2, 2]),
        RuntimeError,
        "Expected tensor to have size 2 at dimension 0, but got size 3",
    ),
    "unbatched_flat_target_too_long": (
        lambda T, x: T.nn.functional.ctc_loss(x[:, 0], T.tensor([1, 2, 3]), (6,), (2,)),
        RuntimeError,
        "Expected tensor to have size 2 at dimension 0, but got size 3",
    ),
    "empty": (
        lambda T, x: T.nn.functional.ctc_loss(x[:0], T.tensor(_PADDED), [0, 0], [3, 2]),
        RuntimeError,
        "log_probs tensor must not be empty",
    ),
}


@pytest.mark.parametrize("case", _ARGUMENT_ERRORS)
def test_length_and_target_errors(case):
    call, kind, words = _ARGUMENT_ERRORS[case]
    with pytest.raises(kind, match=words):
        call(symgrad, symgrad.tensor(_LOG_PROBS))


@pytest.mark.torch
@pytest.mark.parametrize("case", _ARGUMENT_ERRORS)
def test_length_and_target_errors_against_torch(case):
    torch = pytest.importorskip("torch")
    call, kind, words = _ARGUMENT_ERRORS[case]
    with pytest.raises(kind, match=words):
        call(torch, torch.tensor(_LOG_PROBS))


def _blank_in_target(T, x):
    """The loss of a target holding the blank's class (0) as its second label."""
    return T.nn.functional.ctc_loss(
        x.log_softmax(2), T.tensor([[1, 0]]), T.tensor([4]), T.tensor([2]), reduction="sum"
    )


_FOUR_STEPS = LOGITS + [[[-0.3, 0.4, 0.2]]]


def test_blank_in_target_is_a_label_that_may_be_skipped_to():
    # PyTorch's recursion skips to any state whose class differs from the one two states
    # back, the blank's class in a target too
    x = symgrad.tensor(_FOUR_STEPS, dtype=symgrad.float64, requires_grad=True)
    assert np.isclose(_blank_in_target(symgrad, x).item(), 2.1148877185346224, rtol=1e-12)
    assert gradcheck(lambda x: _blank_in_target(symgrad, x), (x,))


@pytest.mark.torch
def test_blank_in_target_against_torch():
    torch = pytest.importorskip("torch")
    ours = _blank_in_target(symgrad, symgrad.tensor(_FOUR_STEPS, dtype=symgrad.float64))
    theirs = _blank_in_target(torch, torch.tensor(_FOUR_STEPS, dtype=torch.float64))
    assert np.isclose(ours.item(), theirs.item(), rtol=1e-12)
