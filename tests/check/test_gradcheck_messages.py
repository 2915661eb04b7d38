"""gradcheck's and gradgradcheck's failure messages read as PyTorch's, with PyTorch's random
vectors and grad_outputs, so a failing check shows PyTorch's numbers; symgrad's worst element
follows them."""

from __future__ import annotations

import warnings

import pytest

import symgrad

from .functions import cube, detached_cube

POINT = [0.4, 1.1, -0.6]


def _message(T, check, make, **kwargs) -> str:
    x = T.tensor(POINT, dtype=T.float64, requires_grad=True)
    T.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError) as info:  # GradcheckError
            getattr(T.autograd, check)(make(T).apply, x, **kwargs)
    return str(info.value)


def _fast_mode_numbers(T) -> list:
    """numerical vᵀ J u, analytical vᵀ J u and the slow mode's largest difference, for a cube
    whose backward is 1% off."""
    lines = _message(T, "gradcheck", lambda T: cube(T, 0.01), fast_mode=True).splitlines()
    numbers = [lines[1].removeprefix("numerical:"), lines[2].removeprefix("analytical:")]
    last = next(line for line in lines if line.startswith("The max per-element difference"))
    return [float(v) for v in numbers + [last.split(": ")[1].rstrip(".")]]


# PyTorch's u and v come from a new generator with its default seed
FAST_MODE_NUMBERS = [2.8000386232088412, 2.8280390094383185, 0.036300000300849344]


def test_fast_mode_uses_pytorchs_random_vectors():
    # they came from NumPy's generator: another vᵀ J u, so verdicts near the tolerance differed
    assert _fast_mode_numbers(symgrad) == pytest.approx(FAST_MODE_NUMBERS, rel=1e-12)


@pytest.mark.torch
def test_fast_mode_uses_pytorchs_random_vectors_as_pytorch():
    torch = pytest.importorskip("torch")
    assert _fast_mode_numbers(torch) == pytest.approx(FAST_MODE_NUMBERS, rel=1e-12)


def _layout(T, check, make, **kwargs) -> list:
    """The first words of each line of the message, up to symgrad's own notes."""
    lines = _message(T, check, make, **kwargs).splitlines()
    return [line[:24] for line in lines if not line.startswith(("The worst", "(gradgradcheck"))]


FULL_LAYOUT = [
    "Jacobian mismatch for ou",
    "numerical:tensor([[0.480",
    "        [0.0000, 3.6300,",
    "        [0.0000, 0.0000,",
    "analytical:tensor([[0.48",
    "        [0.0000, 3.6663,",
    "        [0.0000, 0.0000,",
]

FAST_LAYOUT = [
    "Jacobian mismatch for ou",
    "numerical:2.800038623208",
    "analytical:2.82803900943",
    "",
    "The above quantities rel",
    "in fast mode. See: https",
    "about fast mode. Below, ",
    "",
    "Numerical:",
    " tensor([[0.4800, 0.0000",
    "        [0.0000, 3.6300,",
    "        [0.0000, 0.0000,",
    "Analytical:",
    "tensor([[0.4848, 0.0000,",
    "        [0.0000, 3.6663,",
    "        [0.0000, 0.0000,",
    "",
    "The max per-element diff",
]

# grad_outputs drawn from the global generator (seeded 0), as PyTorch's make_tensor draws them
SECOND_ORDER_LAYOUT = [
    "Jacobian mismatch for ou",
    "numerical:tensor([[2.256",
    "        [0.0000, 2.7432,",
    "        [0.0000, 0.0000,",
    "analytical:tensor([[0., ",
    "        [0., 0., 0.],",
    "        [0., 0., 0.]], d",
]

LAYOUTS = {
    "full": (("gradcheck", lambda T: cube(T, 0.01)), {}, FULL_LAYOUT),
    "fast": (("gradcheck", lambda T: cube(T, 0.01)), {"fast_mode": True}, FAST_LAYOUT),
    "second_order": (("gradgradcheck", detached_cube), {}, SECOND_ORDER_LAYOUT),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_messages_are_laid_out_as_pytorchs(name):
    # the worst element came between the first line and the Jacobians; gradgradcheck's began
    # "gradgradcheck (second derivatives): "; fast mode had its own layout
    (check, make), kwargs, layout = LAYOUTS[name]
    assert _layout(symgrad, check, make, **kwargs) == layout
    assert "\nThe worst element: d(output 0)[1] / d(input 0)[1]" in _message(
        symgrad, check, make, **kwargs
    )


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_messages_are_laid_out_as_pytorchs_as_pytorch(name):
    torch = pytest.importorskip("torch")
    (check, make), kwargs, layout = LAYOUTS[name]
    assert _layout(torch, check, make, **kwargs) == layout
