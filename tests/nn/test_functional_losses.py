"""The losses of ``nn.functional`` beyond classification: values, gradients for every input,
node names, reductions and argument errors.

The expected numbers are PyTorch's (2.13), written out so the tests run without it; with
PyTorch importable, ``test_matches_pytorch`` recomputes them there.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy import nan

import symgrad
import symgrad.nn.functional as SF

A = [[0.5, -1.0, 2.0], [1.5, 0.2, -0.5]]
C = [[1.0, 0.0, -1.0], [0.25, 0.5, 1.5]]
P = [[0.2, 0.3, 0.5], [0.0, 0.6, 0.4]]

# name: (call, node name, values, gradients of a, c, p for sum(v * loss))
CASES = {
    "kl_div_batchmean": (
        lambda T, F, a, c, p: F.kl_div(a, p, reduction="batchmean"),
        "DivBackward0",
        -1.211332340536915,
        [
            [[0.1, 0.15, 0.25], [0.0, 0.3, 0.2]],
            None,
            [
                [0.5547189562170501, -0.39801359783703194, 0.8465735902799727],
                [nan, -0.14458718811700463, -0.2918546340629225],
            ],
        ],
    ),
    "kl_div_none": (
        lambda T, F, a, c, p: F.kl_div(a, p, reduction="none"),
        "SubBackward0",
        [
            [-0.4218875824868201, -0.061191841297780825, -1.3465735902799727],
            [0.0, -0.42649537425959444, -0.166516292749662],
        ],
        [
            [[0.2, 0.18, 0.09999999999999998], [-0.0, -0.36, -0.4]],
            None,
            [
                [1.1094379124341003, -0.47761631740443833, 0.338629436111989],
                [nan, 0.17350462574040554, 0.583709268125845],
            ],
        ],
    ),
    "kl_div_log_target_sum": (
        lambda T, F, a, c, p: F.kl_div(a, c, reduction="sum", log_target=True),
        "SumBackward0",
        9.108465341741686,
        [
            [
                [2.718281828459045, 1.0, 0.36787944117144233],
                [1.2840254166877414, 1.6487212707001282, 4.4816890703380645],
            ],
            [
                [-4.077422742688568, -2.0, 0.7357588823428847],
                [0.32100635417193546, -2.1433376519101666, -13.445067211014194],
            ],
            None,
        ],
    ),
    "smooth_l1_loss_beta": (
        lambda T, F, a, c, p: F.smooth_l1_loss(a, c, beta=0.75, reduction="none"),
        "SmoothL1LossBackward0",
        [[0.16666666666666666, 0.625, 2.625], [0.875, 0.06, 1.625]],
        [
            [[0.6666666666666666, 0.6, -0.19999999999999996], [0.19999999999999996, -0.24, -1.0]],
            [[-0.6666666666666666, -0.6, 0.19999999999999996], [-0.19999999999999996, 0.24, 1.0]],
            None,
        ],
    ),
    "smooth_l1_loss_mean": (
        lambda T, F, a, c, p: F.smooth_l1_loss(a, c),
        "SmoothL1LossBackward0",
        0.9033333333333333,
        [
            [
                [0.08333333333333333, 0.16666666666666666, -0.16666666666666666],
                [-0.16666666666666666, 0.049999999999999996, 0.16666666666666666],
            ],
            [
                [-0.08333333333333333, -0.16666666666666666, 0.16666666666666666],
                [0.16666666666666666, -0.049999999999999996, -0.16666666666666666],
            ],
            None,
        ],
    ),
    "smooth_l1_loss_beta0": (
        lambda T, F, a, c, p: F.smooth_l1_loss(a, c, beta=0.0, reduction="sum"),
        "SumBackward0",
        8.05,
        [[[1.0, 1.0, -1.0], [-1.0, 1.0, 1.0]], [[-1.0, -1.0, 1.0], [1.0, -1.0, -1.0]], None],
    ),
    "huber_loss_delta": (
        lambda T, F, a, c, p: F.huber_loss(a, c, delta=0.75, reduction="none"),
        "HuberLossBackward0",
        [[0.125, 0.46875, 1.96875], [0.65625, 0.045, 1.21875]],
        [
            [[0.5, 0.44999999999999996, -0.14999999999999997], [0.14999999999999997, -0.18, -0.75]],
            [[-0.5, -0.44999999999999996, 0.14999999999999997], [-0.14999999999999997, 0.18, 0.75]],
            None,
        ],
    ),
    "huber_loss_weight": (
        lambda T, F, a, c, p: F.huber_loss(a, c, weight=p),
        "MeanBackward0",
        0.342,
        [
            [
                [0.016666666666666666, 0.049999999999999996, -0.08333333333333333],
                [-0.0, 0.029999999999999995, 0.06666666666666667],
            ],
            [
                [-0.016666666666666666, -0.049999999999999996, 0.08333333333333333],
                [0.0, -0.029999999999999995, -0.06666666666666667],
            ],
            [
                [-0.020833333333333332, -0.08333333333333333, -0.41666666666666663],
                [-0.125, -0.0075, -0.25],
            ],
        ],
    ),
    "poisson_nll_loss": (
        lambda T, F, a, c, p: F.poisson_nll_loss(a, p * 3),
        "MeanBackward0",
        2.259213216502181,
        [
            [
                [-0.17478687845002136, 0.08868675980475958, -0.9815093498217751],
                [-0.7469481783896774, 0.09643287363997163, 0.09891155671456112],
            ],
            None,
            [[0.25, -0.5, 1.0], [0.75, 0.1, -0.25]],
        ],
    ),
    "poisson_nll_loss_full_none": (
        lambda T, F, a, c, p: F.poisson_nll_loss(a, p * 5, full=True, reduction="none"),
        "AddBackward0",
        [
            [1.1487212707001282, 2.0977481905924438, 3.5568668277577884],
            [4.4816890703380645, 2.385484301703227, 2.2583371443171694],
        ],
        [
            [
                [-0.6487212707001282, 0.6792723352971345, -0.9778112197861298],
                [0.8963378140676127, -1.067158345103898, -1.3934693402873666],
            ],
            None,
            [
                [2.5, -5.216395324324492, 0.8837092681258446],
                [nan, 3.195836866004329, 7.215735902799727],
            ],
        ],
    ),
    "poisson_nll_loss_rates": (
        lambda T, F, a, c, p: F.poisson_nll_loss(a.exp(), p, log_input=False, reduction="sum"),
        "SumBackward0",
        14.995279277461236,
        [
            [
                [-1.4487212719131894, -0.06787944932628762, -6.889056099607327],
                [-4.4816890703380645, -0.6214027630725544, -0.20653066630751843],
            ],
            None,
            [
                [0.5000000060653066, -0.9999999728171821, 2.000000001353353],
                [1.5000000022313016, 0.20000000818730745, -0.49999998351278735],
            ],
        ],
    ),
    "gaussian_nll_loss": (
        lambda T, F, a, c, p: F.gaussian_nll_loss(a, c, p + 0.1),
        "MeanBackward0",
        3.008617365370496,
        [
            [
                [0.27777777777777773, 0.41666666666666663, -0.8333333333333334],
                [-2.083333333333333, 0.07142857142857142, 0.6666666666666666],
            ],
            [
                [-0.27777777777777773, -0.41666666666666663, 0.8333333333333334],
                [2.083333333333333, -0.07142857142857142, -0.6666666666666666],
            ],
            [
                [-0.04629629629629631, 0.31249999999999994, 1.9444444444444442],
                [12.187499999999998, -0.10374149659863946, 1.1666666666666665],
            ],
        ],
    ),
    "gaussian_nll_loss_clamped_var": (
        lambda T, F, a, c, p: F.gaussian_nll_loss(a, c, p, full=True, reduction="none", eps=0.05),
        "AddBackward0",
        [
            [0.7392195769876225, 1.9836187977083712, 9.5723649429247],
            [15.046072396427677, 0.7385257213216774, 5.460793167267596],
        ],
        [
            [[2.5, 2.0, -1.1999999999999997], [4.999999999999999, -0.3, -5.0]],
            [[-2.5, -2.0, 1.1999999999999997], [-4.999999999999999, 0.3, 5.0]],
            [[0.625, 2.3333333333333335, 3.3999999999999995], [-60.499999999999986, 0.425, -11.25]],
        ],
    ),
    "gaussian_nll_loss_homoscedastic": (
        lambda T, F, a, c, p: F.gaussian_nll_loss(a, c, p[:, 0] + 1, reduction="sum"),
        "SumBackward0",
        7.370565668524265,
        [
            [[0.4166666666666667, 0.8333333333333334, -2.5], [-1.25, 0.3, 2.0]],
            [[-0.4166666666666667, -0.8333333333333334, 2.5], [1.25, -0.3, -2.0]],
            [[2.3090277777777777, 0.0, 0.0], [1.32625, 0.0, 0.0]],
        ],
    ),
    "margin_ranking_loss": (
        lambda T, F, a, c, p: F.margin_ranking_loss(
            a, c, T.tensor([[1.0, -1.0, 1.0], [-1.0, 1.0, 1.0]], dtype=T.float64), margin=0.5
        ),
        "MeanBackward0",
        1.0083333333333333,
        [
            [
                [0.16666666666666666, 0.0, -0.0],
                [-0.16666666666666666, 0.16666666666666666, 0.16666666666666666],
            ],
            [
                [-0.16666666666666666, -0.0, 0.0],
                [0.16666666666666666, -0.16666666666666666, -0.16666666666666666],
            ],
            None,
        ],
    ),
    "hinge_embedding_loss": (
        lambda T, F, a, c, p: F.hinge_embedding_loss(
            a, T.tensor([[1.0, -1.0, -1.0], [-1.0, 1.0, -1.0]], dtype=T.float64), reduction="none"
        ),
        "AddBackward0",
        [[0.5, 2.0, 0.0], [0.0, 0.2, 1.5]],
        [[[-1.0, 0.6, 0.0], [0.0, 0.6, -1.0]], None, None],
    ),
    "triplet_margin_loss": (
        lambda T, F, a, c, p: F.triplet_margin_loss(a, c, p, margin=2.0, reduction="none"),
        "ClampMinBackward0",
        [3.194076348181199, 2.583062288004604],
        [
            [
                [0.3056145506967732, -0.3352283816023506, -0.18983911904070516],
                [-0.3101546598611016, 0.09672807601682723, -0.33967016650130744],
            ],
            [
                [-0.1561734266864133, -0.31234716572030463, 0.9370427465508263],
                [-0.5257631643593906, 0.12618263788961195, 0.8412199693885181],
            ],
            [
                [-0.1494411240103599, 0.6475755473226552, -0.7472036275101211],
                [0.8359178242204922, -0.22291071390643918, -0.5015498028872106],
            ],
        ],
    ),
    "triplet_margin_loss_swap": (
        lambda T, F, a, c, p: F.triplet_margin_loss(a, c, p, margin=1.5, p=1.0, swap=True),
        "MeanBackward0",
        3.499999,
        [
            [[0.5, 0.5, -0.5], [-0.5, 0.5, 0.5]],
            [[0.0, -1.0, 0.0], [1.0, -1.0, 0.0]],
            [[-0.5, 0.5, 0.5], [-0.5, 0.5, -0.5]],
        ],
    ),
}


def _run(T, call):
    leaves = [T.tensor(v, dtype=T.float64, requires_grad=True) for v in (A, C, P)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = call(T, T.nn.functional, *leaves)
    v = T.linspace(-1, 1, out.numel(), dtype=T.float64).reshape(out.shape)
    (out * v).sum().backward()
    return out, [leaf.grad for leaf in leaves]


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_gradients_and_node_names(name):
    call, node, values, grads = CASES[name]
    out, ours = _run(symgrad, call)
    assert out.grad_fn.name() == node
    np.testing.assert_allclose(out.detach().numpy(), values, rtol=1e-12, atol=1e-14)
    for g, expected in zip(ours, grads):
        if expected is None:
            assert g is None
        else:
            np.testing.assert_allclose(g.numpy(), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    call = CASES[name][0]
    (out, ours), (t_out, theirs) = _run(symgrad, call), _run(torch, call)
    assert out.grad_fn.name() == t_out.grad_fn.name()
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    for g, t in zip(ours, theirs):
        assert (g is None) == (t is None)
        if g is not None:
            np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-12, atol=1e-14)


def test_kl_div_mean_warns_and_batchmean_divides_by_the_batch():
    x = symgrad.tensor([[-1.0, -2.0]])
    t = symgrad.tensor([[0.5, 0.5]])
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        mean = SF.kl_div(x, t)
    batchmean = SF.kl_div(x, t, reduction="batchmean")
    assert batchmean.item() == pytest.approx(2 * mean.item())


def test_kl_div_target_zero_gives_zero():
    x = symgrad.tensor([-1.0, -2.0], requires_grad=True)
    loss = SF.kl_div(x, symgrad.tensor([0.0, 1.0]), reduction="none")
    assert loss.tolist() == [0.0, 2.0]


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda F, x: F.kl_div(x, x, reduction="bad"), ValueError, "not a valid value"),
        (lambda F, x: F.smooth_l1_loss(x, x, beta=-1.0), RuntimeError, "negative values for beta"),
        (lambda F, x: F.huber_loss(x, x, delta=0.0), RuntimeError, "non-positive values"),
        (lambda F, x: F.huber_loss(x, x, weight=symgrad.ones(2)), ValueError, "same size"),
        (lambda F, x: F.poisson_nll_loss(x, x, reduction="bad"), ValueError, "not a valid"),
        (lambda F, x: F.gaussian_nll_loss(x, x, -x.abs()), ValueError, "negative entry"),
        (lambda F, x: F.gaussian_nll_loss(x, x, symgrad.ones(3)), ValueError, "incorrect size"),
        (lambda F, x: F.gaussian_nll_loss(x, x, x.abs(), reduction="x"), ValueError, "not valid"),
        (lambda F, x: F.margin_ranking_loss(x, x, x[0]), RuntimeError, "same dimension"),
        (lambda F, x: F.triplet_margin_loss(x, x, x, margin=0.0), ValueError, "greater than 0"),
        (lambda F, x: F.triplet_margin_loss(x, x, x[0]), RuntimeError, "same number of dim"),
        (lambda F, x: F.smooth_l1_loss(x, symgrad.ones(4)), RuntimeError, "must match"),
    ],
)
def test_argument_errors(call, error, match):
    x = symgrad.tensor([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=match):
            call(SF, x)


def test_size_mismatch_warns_as_pytorch():
    with pytest.warns(UserWarning, match="different to the input size"):
        SF.smooth_l1_loss(symgrad.ones(3), symgrad.ones(2, 3))


def test_gaussian_nll_loss_takes_a_float_variance():
    loss = SF.gaussian_nll_loss(symgrad.tensor([1.0, 3.0]), symgrad.tensor([1.0, 1.0]), 1.0)
    assert loss.item() == pytest.approx(1.0)


def test_smooth_l1_second_derivative_is_one_over_beta_inside():
    x = symgrad.tensor([0.2, 2.0], dtype=symgrad.float64, requires_grad=True)
    y = SF.smooth_l1_loss(x, symgrad.zeros(2, dtype=symgrad.float64), beta=0.5, reduction="sum")
    (g,) = symgrad.autograd.grad(y, x, create_graph=True)
    (gg,) = symgrad.autograd.grad(g.sum(), x)
    assert g.tolist() == [0.4, 1.0] and gg.tolist() == [2.0, 0.0]


@pytest.mark.parametrize(
    "reduction, names",
    [
        ("mean", ["DivBackward1", "NegBackward0", "SumBackward0"]),
        ("sum", ["NegBackward0", "SumBackward0"]),
        ("none", ["NegBackward0", "SumBackward1"]),
    ],
)
def test_cross_entropy_with_probabilities_records_pytorchs_graph(reduction, names):
    x = symgrad.tensor([[0.5, -1.0, 2.0], [0.0, 1.0, -0.5]], requires_grad=True)
    p = symgrad.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    loss = SF.cross_entropy(x, p, reduction=reduction)
    node, seen = loss.grad_fn, []
    for _ in names:
        seen.append(node.name())
        node = node.next_functions[0][0]
    assert seen == names
    # the value: the mean over the 2 rows of -sum(p * log_softmax(x))
    logp = x.detach().log_softmax(1)
    expected = -(p * logp).sum(1)
    total = {"mean": expected.mean(), "sum": expected.sum(), "none": expected}[reduction]
    assert symgrad.allclose(loss.detach(), total)


# (call of T and its functional module, the loss's dtype name and values, or the exception)
_INTEGER_CASES = {
    # PyTorch's margin is a C++ double: integer inputs give a loss of the default float dtype
    "margin_ranking_integers": (
        lambda T, F: F.margin_ranking_loss(
            T.tensor([1, 2, 5]), T.tensor([2, 1, 1]), T.tensor([1, -1, 1]), reduction="none"
        ),
        ("float32", [1.0, 1.0, 0.0]),
    ),
    "margin_ranking_integers_mean": (
        lambda T, F: F.margin_ranking_loss(
            T.tensor([1, 2, 5]), T.tensor([2, 1, 1]), T.tensor([1, -1, 1]), margin=1
        ),
        ("float32", 4 / 3),
    ),
    "margin_ranking_string_margin": (
        lambda T, F: F.margin_ranking_loss(T.ones(2), T.ones(2), T.ones(2), margin="1"),
        TypeError,
    ),
}


def _integer_case(T, name):
    call, expected = _INTEGER_CASES[name]
    if isinstance(expected, type):
        with pytest.raises(expected):
            call(T, T.nn.functional)
        return None
    out = call(T, T.nn.functional)
    return str(out.dtype).split(".")[-1], out.tolist()


@pytest.mark.parametrize("name", sorted(_INTEGER_CASES))
def test_integer_inputs(name):
    expected = _INTEGER_CASES[name][1]
    found = _integer_case(symgrad, name)
    if found is not None:
        assert found[0] == expected[0]
        np.testing.assert_allclose(found[1], expected[1], rtol=1e-6)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(_INTEGER_CASES))
def test_integer_inputs_match_pytorch(name):
    torch = pytest.importorskip("torch")
    found = _integer_case(torch, name)
    if found is not None:
        assert found == _integer_case(symgrad, name)


def _logits_gradient_nodes(T, reduction, weighted):
    """The first nodes of binary_cross_entropy_with_logits' gradient under create_graph."""
    x = T.tensor([[0.3, -0.2, 1.0]], dtype=T.float64, requires_grad=True)
    y = T.tensor([[0.2, 0.5, 0.9]], dtype=T.float64, requires_grad=True)
    w = T.tensor([1.0, 2.0, 0.5], dtype=T.float64) if weighted else None
    loss = T.nn.functional.binary_cross_entropy_with_logits(x, y, w, reduction=reduction)
    found = []
    for g in T.autograd.grad(loss.sum(), (x, y), create_graph=True):
        names, node = [], g.grad_fn
        while node is not None and len(names) < 3:
            names.append(type(node).__name__)
            node = next((n for n, _ in node.next_functions if n is not None), None)
        found.append("/".join(names))
    return found


# PyTorch's gradient is partial * g, times the weight, over the count for 'mean'
_LOGITS_GRADIENT_NODES = {
    ("mean", False): [
        "DivBackward1/MulBackward0/SubBackward0",
        "DivBackward1/MulBackward0/NegBackward0",
    ],
    ("mean", True): [
        "DivBackward1/MulBackward0/MulBackward0",
        "DivBackward1/MulBackward0/MulBackward0",
    ],
    ("sum", True): [
        "MulBackward0/MulBackward0/SubBackward0",
        "MulBackward0/MulBackward0/NegBackward0",
    ],
    ("none", False): [
        "MulBackward0/SubBackward0/SigmoidBackward0",
        "MulBackward0/NegBackward0/AccumulateGrad",
    ],
}


@pytest.mark.parametrize("reduction, weighted", sorted(_LOGITS_GRADIENT_NODES))
def test_logits_loss_gradient_records_pytorchs_graph(reduction, weighted):
    found = _logits_gradient_nodes(symgrad, reduction, weighted)
    assert found == _LOGITS_GRADIENT_NODES[reduction, weighted]


@pytest.mark.torch
@pytest.mark.parametrize("reduction, weighted", sorted(_LOGITS_GRADIENT_NODES))
def test_logits_loss_gradient_graph_matches_pytorch(reduction, weighted):
    torch = pytest.importorskip("torch")
    found = _logits_gradient_nodes(torch, reduction, weighted)
    assert found == _LOGITS_GRADIENT_NODES[reduction, weighted]


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: SF.cross_entropy(
                symgrad.zeros(2, 3), symgrad.tensor([0, 1]), label_smoothing=1.5
            ),
            RuntimeError,
            "label_smoothing must be between 0.0 and 1.0. Got: 1.5",
        ),
        (
            lambda: SF.cross_entropy(symgrad.zeros(2, 3), symgrad.zeros(2, 3), ignore_index=0),
            RuntimeError,
            "ignore_index is not supported for floating point target",
        ),
        (
            lambda: SF.cross_entropy(symgrad.zeros(2, 3), symgrad.tensor([0, 1]), reduction="avg"),
            ValueError,
            "avg is not a valid value for reduction",
        ),
        (
            lambda: SF.mse_loss(symgrad.zeros(2), symgrad.zeros(2), reduction="avg"),
            ValueError,
            "avg is not a valid value for reduction",
        ),
    ],
)
def test_error_messages_are_pytorchs_word_for_word(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_probability_targets_of_integers_name_pytorchs_scalar_type_first():
    with pytest.raises(RuntimeError) as info:
        SF.cross_entropy(symgrad.zeros(2, 3), symgrad.zeros(2, 3, dtype=symgrad.long))
    expected = "Expected floating point type for target with class probabilities, got Long"
    assert str(info.value).split("\n")[0] == expected
