"""The activations of ``nn.functional``: values, gradients and second derivatives at the
kinks (PyTorch's one-sided choices), node names, in-place forms and argument errors.

The expected numbers are PyTorch's (2.13), written out so the tests run without it; with
PyTorch importable, ``test_matches_pytorch`` recomputes them there.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as SF

X = [-4.0, -3.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 3.0, 6.0]

# name: (call, node name, values, gradient of sum(w * y), gradient of sum(that gradient))
CASES = {
    "selu": (
        lambda F, x: F.selu(x),
        "EluBackward0",
        [
            -1.7258986281898945,
            -1.6705687287671118,
            -1.1113307378125625,
            -0.6917581878028713,
            0.0,
            0.2626752468388701,
            0.5253504936777402,
            1.0507009873554805,
            3.1521029620664414,
            6.304205924132883,
        ],
        [
            0.03220071265748214,
            0.09725623564473876,
            0.7904949592647729,
            1.4217882040593401,
            2.539476825668433,
            1.6344237581085252,
            1.7511683122591342,
            1.8679128664097429,
            1.984657420560352,
            2.101401974710961,
        ],
        [
            0.03220071265748214,
            0.09725623564473876,
            0.7904949592647729,
            1.4217882040593401,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
        ],
    ),
    "celu": (
        lambda F, x: F.celu(x, 0.5),
        "CeluBackward0",
        [
            -0.49983226868604874,
            -0.4987606239116668,
            -0.43233235838169365,
            -0.31606027941427883,
            0.0,
            0.25,
            0.5,
            1.0,
            3.0,
            6.0,
        ],
        [
            0.00033546262790251185,
            0.002754169085184843,
            0.16540979062252664,
            0.4905059215619231,
            1.4444444444444444,
            1.5555555555555556,
            1.6666666666666667,
            1.7777777777777777,
            1.8888888888888888,
            2.0,
        ],
        [
            0.0006709252558050237,
            0.005508338170369686,
            0.3308195812450533,
            0.9810118431238462,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
        ],
    ),
    "mish": (
        lambda F, x: F.mish(x),
        "MishBackward0",
        [
            -0.07259174079202535,
            -0.1456474612756246,
            -0.30340146137410895,
            -0.22074377465173,
            0.0,
            0.1695724096638176,
            0.37524521130489513,
            0.8650983882673103,
            2.9865350049679575,
            5.999926634065252,
        ],
        [
            -0.053773209793480325,
            -0.10377012725813427,
            0.07237603496126056,
            0.3860142372180163,
            0.8666666666666666,
            1.1731574831209222,
            1.4773739589295456,
            1.8649532801774082,
            1.9287574984222822,
            2.0002682810124206,
        ],
        [
            -0.03462003174925449,
            -0.04436523693569917,
            0.42741804559745494,
            0.7519612308176886,
            0.9244444444444444,
            0.905981067996348,
            0.7800889630748108,
            0.32833024795258364,
            -0.057170049207617306,
            -0.000485715252240106,
        ],
    ),
    "hardtanh": (
        lambda F, x: F.hardtanh(x, -0.5, 1.0),
        "HardtanhBackward0",
        [-0.5, -0.5, -0.5, -0.5, 0.0, 0.25, 0.5, 1.0, 1.0, 1.0],
        [
            0.0,
            0.0,
            0.0,
            0.0,
            1.4444444444444444,
            1.5555555555555556,
            1.6666666666666667,
            0.0,
            0.0,
            0.0,
        ],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    ),
    "relu6": (
        lambda F, x: F.relu6(x),
        "HardtanhBackward0",
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 1.0, 3.0, 6.0],
        [
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            1.5555555555555556,
            1.6666666666666667,
            1.7777777777777777,
            1.8888888888888888,
            0.0,
        ],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    ),
    "hardswish": (
        lambda F, x: F.hardswish(x),
        "HardswishBackward0",
        [
            -0.0,
            -0.0,
            -0.3333333333333333,
            -0.20833333333333334,
            0.0,
            0.13541666666666666,
            0.2916666666666667,
            0.6666666666666666,
            3.0,
            6.0,
        ],
        [
            0.0,
            0.0,
            0.20370370370370375,
            0.4444444444444445,
            0.7222222222222222,
            0.9074074074074074,
            1.1111111111111112,
            1.4814814814814812,
            1.8888888888888888,
            2.0,
        ],
        [
            0.0,
            0.0,
            0.40740740740740744,
            0.4444444444444444,
            0.48148148148148145,
            0.5185185185185185,
            0.5555555555555556,
            0.5925925925925926,
            0.0,
            0.0,
        ],
    ),
    "logsigmoid": (
        lambda F, x: F.logsigmoid(x),
        "LogSigmoidBackward0",
        [
            -4.0181499279178094,
            -3.048587351573742,
            -1.3132616875182228,
            -0.9740769841801067,
            -0.6931471805599453,
            -0.5759394198788436,
            -0.4740769841801067,
            -0.31326168751822286,
            -0.04858735157374206,
            -0.0024756851377304495,
        ],
        [
            0.9820137900379085,
            1.0584156964693703,
            0.8935160405477839,
            0.8299457749358059,
            0.7222222222222222,
            0.6810587763998696,
            0.6292344479969091,
            0.4781180824355468,
            0.08958220489095949,
            0.0049452463132695496,
        ],
        [
            -0.017662706213291118,
            -0.05019628858990237,
            -0.24030347396181118,
            -0.3133382829354593,
            -0.3611111111111111,
            -0.38287523981404187,
            -0.3916728536693242,
            -0.3495323257626344,
            -0.08533369060283377,
            -0.004933018582719862,
        ],
    ),
    "softsign": (
        lambda F, x: F.softsign(x),
        "DivBackward0",
        [
            -0.8,
            -0.75,
            -0.5,
            -0.3333333333333333,
            0.0,
            0.2,
            0.3333333333333333,
            0.5,
            0.75,
            0.8571428571428571,
        ],
        [
            0.04000000000000001,
            0.06944444444444445,
            0.3055555555555556,
            0.5925925925925926,
            1.4444444444444444,
            0.9955555555555555,
            0.7407407407407408,
            0.4444444444444444,
            0.11805555555555558,
            0.040816326530612235,
        ],
        [
            0.016,
            0.034722222222222224,
            0.3055555555555556,
            0.7901234567901234,
            -0.0,
            -1.5928888888888888,
            -0.9876543209876545,
            -0.4444444444444444,
            -0.05902777777777779,
            -0.011661807580174925,
        ],
    ),
    "tanhshrink": (
        lambda F, x: F.tanhshrink(x),
        "SubBackward0",
        [
            -3.000670700260933,
            -2.0049452463132695,
            -0.23840584404423515,
            -0.03788284273999026,
            0.0,
            0.005081337596290869,
            0.03788284273999026,
            0.23840584404423515,
            2.0049452463132695,
            5.000012288349204,
        ],
        [
            0.9986590493169741,
            1.1001488475939554,
            0.7089202491384126,
            0.28473635604543013,
            0.0,
            0.09331023519007875,
            0.35592044505678766,
            1.0311567260195091,
            1.870253040909724,
            1.9999508469051894,
        ],
        [
            -0.0026801026141058254,
            -0.021816104847824872,
            -0.7818555658823857,
            -0.9691493085114495,
            0.0,
            0.7162623359399916,
            1.211436635639312,
            1.1372444594652882,
            0.03708737824130229,
            9.830498160042487e-05,
        ],
    ),
    "softshrink": (
        lambda F, x: F.softshrink(x, 0.5),
        "SoftshrinkBackward0",
        [-3.5, -2.5, -0.5, 0.0, 0.0, 0.0, 0.0, 0.5, 2.5, 5.5],
        [
            1.0,
            1.1111111111111112,
            1.2222222222222223,
            0.0,
            0.0,
            0.0,
            0.0,
            1.7777777777777777,
            1.8888888888888888,
            2.0,
        ],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    ),
    "hardshrink": (
        lambda F, x: F.hardshrink(x, 0.5),
        "HardshrinkBackward0",
        [-4.0, -3.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 3.0, 6.0],
        [
            1.0,
            1.1111111111111112,
            1.2222222222222223,
            0.0,
            0.0,
            0.0,
            0.0,
            1.7777777777777777,
            1.8888888888888888,
            2.0,
        ],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    ),
    "glu": (
        lambda F, x: F.glu(x),
        "GluBackward0",
        [-2.2487060035431923, -1.867377993605564, -0.7310585786300049, -0.4762870634112167, 0.0],
        [
            0.5621765008857981,
            0.7780741640023182,
            1.0965878679450074,
            1.6670047219392583,
            1.9950547536867307,
            -0.9845363309503934,
            -0.8812639207559794,
            -0.2949178998622228,
            -0.039529577264548,
            0.0,
        ],
        [
            0.24613408273759835,
            0.2937546402519931,
            0.2949178998622228,
            0.079059154529096,
            0.004933018582719862,
            0.36856413084447337,
            0.5095926209481959,
            0.4312045213716454,
            0.11483928235742144,
            0.004933018582719862,
        ],
    ),
    "softmin": (
        lambda F, x: F.softmin(x, dim=0),
        "SoftmaxBackward0",
        [
            0.6670010604482669,
            0.24537597737846786,
            0.03320802739797562,
            0.020141686765449356,
            0.012216550561573215,
            0.00951425914378463,
            0.007409712471523744,
            0.004494217793634224,
            0.0006082262380285123,
            3.028180129585423e-05,
        ],
        [
            0.040739738201045775,
            -0.01227668536362486,
            -0.0053512495128902405,
            -0.005483662093501262,
            -0.00468340369405395,
            -0.004704578369233685,
            -0.004487230703704848,
            -0.00322100053162691,
            -0.0005034957123672871,
            -2.843222004298473e-05,
        ],
        [-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0],
    ),
}


def _run(T, call):
    x = T.tensor(X, dtype=T.float64, requires_grad=True)
    y = call(T.nn.functional, x)
    w = T.linspace(1, 2, y.numel(), dtype=T.float64)
    (g,) = T.autograd.grad((y * w).sum(), x, create_graph=True)
    (gg,) = T.autograd.grad(g.sum(), x)
    return y, g, gg


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_gradients_and_node_names(name):
    call, node, values, grads, second = CASES[name]
    y, g, gg = _run(symgrad, call)
    assert y.grad_fn.name() == node
    np.testing.assert_allclose(y.detach().numpy(), values, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(g.detach().numpy(), grads, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gg.numpy(), second, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    call = CASES[name][0]
    ours, theirs = _run(symgrad, call), _run(torch, call)
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-13, atol=1e-15)


def test_hardswish_and_hardsigmoid_at_their_kinks():
    x = symgrad.tensor([-3.0, 3.0, float("nan")], dtype=symgrad.float64, requires_grad=True)
    SF.hardswish(x).sum().backward()
    # PyTorch: 0 from -3 down, 1 from 3 up, nan at nan
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, np.nan])
    x.grad = None
    SF.hardsigmoid(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


def test_hardsigmoid_slope_is_one_sixth():
    # PyTorch's backward multiplies by float32's 1/6 (0.1666666716337204) in float64 too;
    # symgrad's derivative is the formula's, 1/6: a documented difference of 3e-8 relative
    x = symgrad.tensor([0.5], dtype=symgrad.float64, requires_grad=True)
    SF.hardsigmoid(x).sum().backward()
    assert x.grad.item() == 1 / 6


def test_hardsigmoid_slope_differs_from_pytorch_by_float32_rounding():
    torch = pytest.importorskip("torch")
    t = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    torch.nn.functional.hardsigmoid(t).sum().backward()
    assert t.grad.item() == float(np.float32(1 / 6))


def test_shrinks_give_no_gradient_at_nan_and_keep_positive_zeros():
    x = symgrad.tensor([-0.5, -0.0, float("nan")], dtype=symgrad.float64, requires_grad=True)
    for f in (SF.softshrink, SF.hardshrink):
        y = f(x)
        assert not np.signbit(y.detach().numpy()[:2]).any()
        (g,) = symgrad.autograd.grad(y.sum(), x)
        np.testing.assert_array_equal(g.numpy(), [0.0, 0.0, 0.0])


def test_logsigmoid_is_stable():
    x = symgrad.tensor([-1000.0, 1000.0], dtype=symgrad.float64, requires_grad=True)
    y = SF.logsigmoid(x)
    np.testing.assert_array_equal(y.detach().numpy(), [-1000.0, 0.0])
    assert not np.signbit(y.detach().numpy()[1])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0])


def test_mish_gradient_is_finite_far_out():
    x = symgrad.tensor([-1000.0, 1000.0], dtype=symgrad.float64, requires_grad=True)
    (g,) = symgrad.autograd.grad(SF.mish(x).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, 1.0])


@pytest.mark.parametrize(
    "name, kwargs", [("selu", {}), ("celu", {}), ("mish", {}), ("hardtanh", {}), ("relu6", {})]
)
def test_inplace_forms_overwrite_the_input(name, kwargs):
    x = symgrad.tensor([-2.0, 0.5, 7.0])
    expected = getattr(SF, name)(x, **kwargs)
    y = getattr(SF, name)(x, inplace=True, **kwargs)
    assert y is x
    np.testing.assert_array_equal(x.numpy(), expected.numpy())


def test_inplace_on_a_leaf_that_requires_grad_raises():
    x = symgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        SF.selu(x, inplace=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x: F.selu(x),
        lambda F, x: F.mish(x),
        lambda F, x: F.logsigmoid(x),
        lambda F, x: F.hardswish(x),
        lambda F, x: F.softshrink(x),
        lambda F, x: F.glu(x),
    ],
)
def test_integer_inputs_raise_not_implemented(call):
    with pytest.raises(NotImplementedError, match="Long"):
        call(SF, symgrad.tensor([1, 2]))


def test_hardtanh_keeps_integers():
    y = SF.hardtanh(symgrad.tensor([-3, 0, 3]))
    assert y.dtype is symgrad.int64
    assert y.tolist() == [-1, 0, 1]


def test_argument_errors():
    x = symgrad.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        SF.hardtanh(x, 1.0, -1.0)
    with pytest.raises(RuntimeError, match="alpha cannot be 0"):
        SF.celu(x, 0.0)
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        SF.softshrink(x, -1.0)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        SF.glu(symgrad.ones(3))
    with pytest.raises(RuntimeError, match="scalars"):
        SF.glu(symgrad.tensor(1.0))
    with pytest.raises(IndexError, match="Dimension out of range"):
        SF.glu(symgrad.ones(2, 4), dim=2)


def test_glu_along_dim0_and_its_node():
    x = symgrad.tensor([[1.0, 2.0], [0.0, 0.0]], requires_grad=True)
    y = SF.glu(x, dim=0)
    assert y.grad_fn.name() == "GluBackward0"
    np.testing.assert_allclose(y.detach().numpy(), [[0.5, 1.0]])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.5, 0.5], [0.25, 0.5]])


def test_softmin_warns_without_dim():
    with pytest.warns(UserWarning, match="Implicit dimension"):
        SF.softmin(symgrad.ones(2, 3))


def test_celu_gradient_with_an_alpha_float32_cannot_hold():
    # symgrad's derivative is exp(x / alpha); PyTorch's uses 1 / float32(alpha) (documented)
    x = symgrad.tensor([-1.0], dtype=symgrad.float64, requires_grad=True)
    SF.celu(x, 0.7).sum().backward()
    assert x.grad.item() == pytest.approx(np.exp(-1 / 0.7), rel=1e-15)


def test_gelu_rejects_an_unknown_approximation_as_pytorch():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        SF.gelu(symgrad.ones(2), approximate="bad")
