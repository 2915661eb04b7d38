"""``F.affine_grid`` and ``F.grid_sample``: values, node names, gradients for the input and
the grid, closed forms, errors; PyTorch cross-checks when it is importable."""

import warnings

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.autograd import gradcheck, gradgradcheck
from symgrad.symbolic import gradient

IMAGE = [[[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]]]  # (1, 1, 2, 3)


def _sample(points, **options):
    image = symgrad.tensor(IMAGE, requires_grad=True)
    grid = symgrad.tensor([[points]], requires_grad=True)
    return image, grid, F.grid_sample(image, grid, **options)


def test_affine_grid_values_and_gradient():
    theta = symgrad.tensor([[[1.0, 0.0, 0.0], [0.0, 2.0, 0.5]]], requires_grad=True)
    grid = F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
    assert grid.tolist() == [[[[-0.5, -0.5], [0.5, -0.5]], [[-0.5, 1.5], [0.5, 1.5]]]]
    assert type(grid.grad_fn).__name__ == "AffineGridGeneratorBackward0"
    grid.sum().backward()
    assert theta.grad.tolist() == [[[0.0, 0.0, 4.0], [0.0, 0.0, 4.0]]]
    assert F.affine_grid(theta, (1, 1, 1, 3), align_corners=True)[0, 0, :, 0].tolist() == [
        -1.0,
        0.0,
        1.0,
    ]


def test_bilinear_values_and_gradients():
    image, grid, out = _sample([[0.0, 0.0], [1.0, -1.0], [-2.0, 0.0]], align_corners=True)
    assert out.tolist() == [[[[2.5, 2.0, 0.0]]]]  # the centre, a corner, outside: zero
    assert type(out.grad_fn).__name__ == "GridSampler2DBackward0"
    out.sum().backward()
    assert image.grad.tolist() == [[[[0.0, 0.5, 1.0], [0.0, 0.5, 0.0]]]]
    # x: 1 per pixel, 1 pixel per unit; y: 3 per row, half a row per unit; at the corner the
    # right neighbours are outside (zeros); outside, the leftmost pixels are a step away
    assert grid.grad.tolist() == [[[[1.0, 1.5], [-2.0, 1.5], [1.5, 0.0]]]]


def test_padding_modes_and_nearest():
    points = [[-1.5, 0.0], [1.2, 1.4]]
    _, _, border = _sample(points, padding_mode="border", align_corners=True)
    assert np.allclose(border.detach().numpy(), [[[[1.5, 5.0]]]])
    _, _, reflected = _sample(points, padding_mode="reflection", align_corners=True)
    assert np.allclose(reflected.detach().numpy(), [[[[2.0, 4.2]]]])
    image, grid, nearest = _sample([[0.1, -0.4], [0.9, 0.6]], mode="nearest", align_corners=False)
    assert nearest.tolist() == [[[[1.0, 5.0]]]]
    nearest.sum().backward()
    assert grid.grad.abs().sum().item() == 0 and image.grad.sum().item() == 2


def test_gradcheck_and_closed_form():
    x = symgrad.randn(1, 2, 3, 4, dtype=symgrad.float64, requires_grad=True)
    g = (symgrad.rand(1, 2, 3, 2, dtype=symgrad.float64) * 2.4 - 1.2).requires_grad_()
    for pad in ("zeros", "border", "reflection"):
        for align in (False, True):

            def sample(x, g, pad=pad, align=align):
                return F.grid_sample(x, g, padding_mode=pad, align_corners=align)

            assert gradcheck(sample, (x, g)) and gradgradcheck(sample, (x, g))
    x3 = symgrad.randn(1, 1, 2, 3, 2, dtype=symgrad.float64, requires_grad=True)
    g3 = (symgrad.rand(1, 2, 1, 2, 3, dtype=symgrad.float64) * 2 - 1).requires_grad_()
    assert gradcheck(lambda x, g: F.grid_sample(x, g, align_corners=False), (x3, g3))
    image = symgrad.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    grid = symgrad.tensor([[[[0.25, -0.5]]]], requires_grad=True, name="g")
    y = F.grid_sample(image, grid, align_corners=True).sum()
    assert str(gradient(y, grid)) == "[[[[1/2, 1]]]]"


def test_errors_and_warning():
    x, g = symgrad.ones(1, 1, 2, 2), symgrad.zeros(1, 1, 1, 2)
    with pytest.raises(ValueError, match="expected mode to be"):
        F.grid_sample(x, g, mode="area", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be"):
        F.grid_sample(x, g, padding_mode="circular", align_corners=False)
    with pytest.raises(RuntimeError, match="size 2 in last dimension"):
        F.grid_sample(x, symgrad.zeros(1, 1, 1, 3), align_corners=False)
    with pytest.raises(RuntimeError, match="same batch size"):
        F.grid_sample(x, symgrad.zeros(2, 1, 1, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D"):
        F.grid_sample(
            symgrad.ones(1, 1, 2, 2, 2),
            symgrad.zeros(1, 1, 1, 1, 3),
            mode="bicubic",
            align_corners=False,
        )
    with pytest.raises(ValueError, match="Nx2x3"):
        F.affine_grid(symgrad.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=False)
    with pytest.raises(NotImplementedError, match="4D and 5D sizes"):
        F.affine_grid(symgrad.zeros(1, 2, 3), (1, 2, 2), align_corners=False)
    with pytest.raises(ValueError, match="floating point"):
        F.affine_grid(
            symgrad.zeros(1, 2, 3, dtype=symgrad.int64), (1, 1, 2, 2), align_corners=False
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.grid_sample(x, g)
    assert "align_corners=False since 1.3.0" in str(caught[0].message)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_against_torch(dims, mode, padding_mode, align_corners):
    torch = pytest.importorskip("torch")
    rs = np.random.RandomState(dims)
    theta = rs.randn(2, dims, dims + 1)
    size = (2, 3, 4, 5) if dims == 2 else (2, 2, 3, 4, 2)
    image = rs.randn(*size[:2], *(4, 5, 3)[:dims])
    results = []
    for lib in (symgrad, torch):
        t = lib.tensor(theta, requires_grad=True)
        x = lib.tensor(image, requires_grad=True)
        grid = lib.nn.functional.affine_grid(t, size, align_corners=align_corners) * 1.3
        grid.retain_grad()
        y = lib.nn.functional.grid_sample(
            x, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners
        )
        (y * y).sum().backward()
        found = [y, x.grad, grid.grad, t.grad]
        results.append([v.detach().numpy() for v in found] + [type(y.grad_fn).__name__])
    for ours, theirs in zip(*results):
        assert ours == theirs if isinstance(ours, str) else np.allclose(ours, theirs)


@pytest.mark.parametrize(
    "padding_mode, values, grid_grad, image_grad",
    [
        # at a pixel centre the cubic weights are 0, 1, 0, 0 and their slopes -3/4, 0, 3/4,
        # 0; half-way between rows -3/32, 19/32, 19/32, -3/32, rows -1 and 2 read as padded
        ("zeros", [1.0, 2.96875], [[1.5, 1.5], [1.78125, 1.96875]], [1.59375, 0.59375]),
        ("border", [1.0, 2.5], [[1.5, 1.125], [1.5, 1.6875]], [1.5, 0.5]),
        ("reflection", [1.0, 2.5], [[1.5, 0.0], [1.5, 2.25]], [1.5, 0.5]),
    ],
)
def test_bicubic_by_hand(padding_mode, values, grid_grad, image_grad):
    image, grid, y = _sample(
        [[0.0, -1.0], [0.0, 0.0]], mode="bicubic", padding_mode=padding_mode, align_corners=True
    )
    assert y.tolist() == [[[values]]]
    assert type(y.grad_fn).__name__ == "GridSampler2DBackward0"
    y.sum().backward()
    assert grid.grad.tolist() == [[grid_grad]]
    assert image.grad.tolist() == [[[[0.0, image_grad[0], 0.0], [0.0, image_grad[1], 0.0]]]]


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_bicubic_against_torch(padding_mode, align_corners):
    torch = pytest.importorskip("torch")
    from .torch_pairs import compare

    rng = np.random.default_rng(3)
    image = rng.standard_normal((2, 2, 3, 4))
    points = rng.uniform(-1.4, 1.4, (2, 3, 2, 2))  # some outside, to reach the padding
    points[0, 0] = [[-1.0, 1.0], [1.0, -1.0]]

    def call(T, x, g):
        return T.nn.functional.grid_sample(
            x, g, mode="bicubic", padding_mode=padding_mode, align_corners=align_corners
        )

    compare(call, [image, points], rtol=1e-12, atol=1e-12)
    x32, g32 = image.astype(np.float32), points.astype(np.float32)
    np.testing.assert_allclose(
        call(symgrad, symgrad.tensor(x32), symgrad.tensor(g32)).numpy(),
        call(torch, torch.tensor(x32), torch.tensor(g32)).numpy(),
        rtol=2e-6,
        atol=2e-6,
    )


def test_bicubic_gradcheck():
    rng = np.random.default_rng(4)
    x = symgrad.tensor(rng.standard_normal((1, 1, 2, 3)), requires_grad=True)
    g = symgrad.tensor(rng.uniform(-1.2, 1.2, (1, 1, 2, 2)), requires_grad=True)

    def fn(x, g):
        return F.grid_sample(x, g, "bicubic", "reflection", align_corners=False)

    assert gradcheck(fn, (x, g))
    assert gradgradcheck(fn, (x, g))


def test_affine_grid_points_round_like_aten():
    # ATen builds the base grid with its own linspace (the upper half counted down from 1) in
    # theta's dtype, scaled by (n - 1) / n: at pixel centres grid_sample's gradient then takes
    # the same side of every kink as PyTorch's
    identity = [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]
    for dtype, expected in [
        (symgrad.float64, [-5 / 6, -0.5, -0.16666666666666663, 0.16666666666666663, 0.5, 5 / 6]),
        (
            symgrad.float32,
            [-0.8333333134651184, -0.5, -0.1666666567325592, 0.1666666567325592]
            + [0.5, 0.8333333134651184],
        ),
    ]:
        theta = symgrad.tensor(identity, dtype=dtype)
        xs = F.affine_grid(theta, (1, 1, 1, 6), align_corners=False)[0, 0, :, 0].tolist()
        assert xs == expected
    torch = pytest.importorskip("torch")
    for dtype in ("float64", "float32"):
        for size, align in [((2, 1, 5, 6), False), ((1, 1, 7, 10), True), ((1, 1, 3, 4, 5), False)]:
            d = len(size) - 2
            shift = np.concatenate([np.eye(d), np.full((d, 1), 0.25)], axis=1)
            theta = np.broadcast_to(shift, (size[0], d, d + 1))
            ours = F.affine_grid(symgrad.tensor(theta, dtype=getattr(symgrad, dtype)), size, align)
            theirs = torch.nn.functional.affine_grid(
                torch.tensor(theta, dtype=getattr(torch, dtype)), size, align
            )
            assert np.array_equal(ours.numpy(), theirs.numpy())
    image = np.random.default_rng(0).standard_normal((1, 2, 5, 6))
    for mode in ("bilinear", "bicubic"):
        grads = []
        for lib in (symgrad, torch):
            theta = lib.tensor([identity], dtype=lib.float64, requires_grad=True)
            grid = lib.nn.functional.affine_grid(theta[0], (1, 2, 5, 6), align_corners=False)
            out = lib.nn.functional.grid_sample(lib.tensor(image), grid, mode, align_corners=False)
            (out * out).sum().backward()
            grads.append(theta.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_a_point_off_the_grid_sends_the_image_no_gradient(mode):
    # a NaN or infinite grid point reads no pixel: its output is NaN, but the image's
    # gradient gets nothing from it (PyTorch's backward skips the corners out of bounds)
    image, grid, out = _sample(
        [[float("nan"), 0.0], [float("inf"), 0.5], [0.0, 0.0]], mode=mode, align_corners=True
    )
    assert np.isnan(out.detach().numpy()[0, 0, 0, :2]).all()
    out.backward(symgrad.tensor([[[[1.0, 1.0, 2.0]]]]))
    share = 1.0 if mode == "bilinear" else 1.1875  # bicubic: 2 * 0.59375, rows -1 and 2 off
    expected = [[[[0.0, share, 0.0], [0.0, share, 0.0]]]]
    assert np.allclose(image.grad.numpy(), expected)
    torch = pytest.importorskip("torch")
    theirs = torch.tensor(IMAGE, requires_grad=True)
    points = torch.tensor([[[[float("nan"), 0.0], [float("inf"), 0.5], [0.0, 0.0]]]])
    y = torch.nn.functional.grid_sample(theirs, points, mode=mode, align_corners=True)
    y.backward(torch.tensor([[[[1.0, 1.0, 2.0]]]]))
    assert np.allclose(theirs.grad.numpy(), expected)
