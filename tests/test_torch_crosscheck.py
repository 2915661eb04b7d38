"""symgrad against PyTorch: the same programs, the same inputs, the same numbers.

Every program of the ``crosscheck`` package (next to this file) runs once with
``T = symgrad`` and once with ``T = torch``. The checks: forward values, shapes and dtypes;
``.grad`` of every input after ``backward``; the inputs themselves afterwards (training loops
update them in place);
``grad_fn`` class names; ``repr``; second derivatives; float32. Further tests cover dtype
promotion, hooks, custom Functions, and random compositions drawn by hypothesis.

The whole module is skipped when PyTorch is not importable.
"""

from __future__ import annotations

import re
import warnings
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from crosscheck import DTYPE_CASES, PROGRAMS, SCENARIOS, Arg, Program
from hypothesis import given
from hypothesis import strategies as st

import symgrad

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.torch,
    # NumPy's warnings on inf/nan results (test_special_values_compute_silently covers them)
    pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning"),
    # PyTorch's own warning for var/std without degrees of freedom, asked for on purpose
    pytest.mark.filterwarnings("ignore:.*degrees of freedom:UserWarning"),
]

# Tolerances per dtype: the two libraries use different (equally valid) kernels, so results
# agree to a few ulps, amplified by the condition number of the program.
TOLERANCES = {"float64": dict(rtol=1e-9, atol=1e-11), "float32": dict(rtol=2e-5, atol=2e-6)}


# -- running a program in one library -----------------------------------------------------------


def make_inputs(T: Any, program: Program, dtype: str) -> list:
    """The program's inputs as ``T`` tensors, floats in ``dtype``."""
    tensors = []
    for arg, value in zip(program.inputs, program.values()):
        if arg.kind == "float":
            t = T.tensor(value, dtype=getattr(T, dtype), requires_grad=arg.requires_grad)
        else:
            t = T.tensor(value)
        tensors.append(t)
    return tensors


def tensors_of(out: Any) -> list:
    """The tensors of a program's result: one tensor, or a (named) tuple or list of them."""
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in tensors_of(item)]
    return [out]


def seeded_like(T: Any, t: Any, salt: str) -> Any:
    """A fixed random tensor shaped and typed like ``t`` (the ``v`` of a ``vᵀ·J``)."""
    rng = np.random.default_rng(zlib.crc32(salt.encode()))
    return T.tensor(rng.standard_normal(tuple(t.shape)), dtype=t.dtype)


def backward(T: Any, outputs: list, salt: str) -> None:
    """Backpropagate from every output that requires grad, with fixed ``gradient`` tensors
    for non-scalar or multiple outputs."""
    roots = [t for t in outputs if t.requires_grad]
    if len(roots) == 1 and roots[0].ndim == 0:
        roots[0].backward()
    elif len(roots) == 1:
        roots[0].backward(seeded_like(T, roots[0], salt))
    elif roots:
        T.autograd.backward(roots, [seeded_like(T, r, f"{salt}{i}") for i, r in enumerate(roots)])


class Run:
    """One library's run of one program: its inputs (after the run) and its outputs."""

    def __init__(self, T: Any, program: Program, dtype: str, do_backward: bool = True) -> None:
        self.inputs = make_inputs(T, program, dtype)
        self.outputs = tensors_of(program.fn(T, *self.inputs))
        if do_backward:
            backward(T, self.outputs, program.name)


def run_both(program: Program, dtype: str = "float64", do_backward: bool = True) -> tuple:
    """``(symgrad run, torch run)`` of ``program``."""
    return (Run(symgrad, program, dtype, do_backward), Run(torch, program, dtype, do_backward))


# -- comparing ----------------------------------------------------------------------------------


def dtype_name(t: Any) -> str:
    """``float64`` for a tensor or dtype of either library (``symgrad.float64``,
    ``torch.float64``)."""
    return str(getattr(t, "dtype", t)).split(".")[-1]


def assert_same(ours: Any, theirs: Any, what: str, rtol: float, atol: float) -> None:
    """Same None-ness, shape, dtype and values (within tolerance; NaNs must match)."""
    if ours is None or theirs is None:
        assert ours is None and theirs is None, f"{what}: symgrad {ours!r}, torch {theirs!r}"
        return
    assert tuple(ours.shape) == tuple(theirs.shape), (
        f"{what}: shape {tuple(ours.shape)} != torch's {tuple(theirs.shape)}"
    )
    assert dtype_name(ours) == dtype_name(theirs), (
        f"{what}: dtype {ours.dtype} != torch's {theirs.dtype}"
    )
    np.testing.assert_allclose(
        ours.detach().numpy(),
        theirs.detach().numpy(),
        rtol=rtol,
        atol=atol,
        equal_nan=True,
        err_msg=what,
    )


def assert_runs_agree(ours: Run, theirs: Run, dtype: str) -> None:
    """Outputs, inputs after the run, and the ``.grad`` of every input agree."""
    tol = TOLERANCES[dtype]
    assert len(ours.outputs) == len(theirs.outputs)
    for i, (a, b) in enumerate(zip(ours.outputs, theirs.outputs)):
        assert_same(a, b, f"output {i}", **tol)
        assert a.requires_grad == b.requires_grad, f"output {i}: requires_grad"
    for i, (a, b) in enumerate(zip(ours.inputs, theirs.inputs)):
        assert_same(a, b, f"input {i} after the run", **tol)
        if b.requires_grad:
            assert_same(a.grad, b.grad, f"grad of input {i}", **tol)


def node_name(t: Any) -> str | None:
    """The class name of ``t.grad_fn`` (None for leaves)."""
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def names(run: Run) -> list:
    """The ``grad_fn`` class names of a run's outputs."""
    return [node_name(t) for t in run.outputs]


def torch_repr(text: str) -> str:
    """symgrad's repr written the way PyTorch writes it."""
    return text.replace("symgrad.", "torch.")


def comparable_repr(text: str) -> str:
    """A repr with the ``grad_fn`` name left out (``test_grad_fn_names`` checks names) and
    each suffix on the line of the data.

    Both libraries wrap a suffix onto a new line when it would pass 80 characters; the
    suffixes have different lengths (``symgrad.float64``, node names), so they wrap at
    different places without either being wrong.
    """
    text = re.sub(r"grad_fn=<\w+>", "grad_fn=<...>", text)
    return re.sub(r",\s*\n\s*(dtype|grad_fn|requires_grad)=", r", \1=", text)


# -- parametrization ------------------------------------------------------------------------------

PROGRAMS_BY_NAME = {p.name: p for p in PROGRAMS}


def params(check: str, keep: Callable[[Program], bool] = lambda p: True) -> list:
    """The programs for one check, with that check's known discrepancies as strict xfails."""
    chosen = []
    for p in PROGRAMS:
        if not keep(p):
            continue
        marks = [pytest.mark.xfail(reason=p.xfail[check], strict=True)] if check in p.xfail else []
        chosen.append(pytest.param(p, id=p.name, marks=marks))
    return chosen


def test_catalog_is_large_and_names_are_unique():
    names_ = [p.name for p in PROGRAMS]
    assert len(names_) == len(set(names_))
    assert len(PROGRAMS) >= 60


@pytest.mark.parametrize("program", params("values"))
def test_values_and_gradients_float64(program: Program):
    ours, theirs = run_both(program)
    assert_runs_agree(ours, theirs, "float64")


@pytest.mark.parametrize("program", params("float32", lambda p: p.float32))
def test_values_and_gradients_float32(program: Program):
    ours, theirs = run_both(program, "float32")
    assert_runs_agree(ours, theirs, "float32")


@pytest.mark.parametrize("program", params("names", lambda p: not p.composite))
def test_grad_fn_names(program: Program):
    ours, theirs = run_both(program, do_backward=False)
    assert names(ours) == names(theirs)


def test_grad_fn_names_of_composites():
    """Composite programs may name their output node differently: listed, not failed."""
    differences = []
    for p in PROGRAMS:
        if p.composite:
            ours, theirs = run_both(p, do_backward=False)
            if names(ours) != names(theirs):
                differences.append(f"{p.name}: symgrad {names(ours)}, torch {names(theirs)}")
    if differences:
        pytest.xfail(
            "grad_fn names of composites differ (informational): " + "; ".join(differences)
        )


@pytest.mark.parametrize("program", params("repr"))
def test_repr(program: Program):
    ours, theirs = run_both(program, do_backward=False)
    for a, b in zip(ours.outputs, theirs.outputs):
        assert comparable_repr(torch_repr(repr(a))) == comparable_repr(repr(b))


# -- second derivatives ---------------------------------------------------------------------------


def second_derivatives(T: Any, program: Program) -> tuple:
    """First gradients (with ``create_graph=True``) and the gradient of their weighted sum.

    Where the first gradients do not depend on the inputs at all (a piecewise-linear program),
    PyTorch's do not require grad; the second derivatives are then zero, reported as None.
    """
    inputs = make_inputs(T, program, "float64")
    wrt = [t for t in inputs if t.requires_grad]
    out = tensors_of(program.fn(T, *inputs))[0]
    scalar = out if out.ndim == 0 else (out * seeded_like(T, out, program.name)).sum()
    first = T.autograd.grad(scalar, wrt, create_graph=True, allow_unused=True)
    mixed = sum(
        (g * seeded_like(T, g, f"{program.name}{i}")).sum()
        for i, g in enumerate(first)
        if g is not None
    )
    if not getattr(mixed, "requires_grad", False):
        return first, [None] * len(wrt)
    return first, T.autograd.grad(mixed, wrt, allow_unused=True)


def as_array(g: Any, shape: tuple) -> np.ndarray:
    """A gradient as a NumPy array; None (an unused input) as zeros. Whether None comes back
    where PyTorch gives None is checked by ``test_unused_inputs_of_double_backward``."""
    # force: PyTorch returns some zero gradients as a ZeroTensor, which needs it
    return np.zeros(shape) if g is None else g.detach().numpy(force=True)


def assert_second_derivatives_agree(ours: tuple, theirs: tuple, program: Program) -> None:
    """First and second derivatives agree, None counting as zeros."""
    shapes = [
        np.shape(value) for arg, value in zip(program.inputs, program.values()) if arg.requires_grad
    ]
    for order, (a_list, b_list) in enumerate(zip(ours, theirs), start=1):
        for i, (a, b, shape) in enumerate(zip(a_list, b_list, shapes)):
            np.testing.assert_allclose(
                as_array(a, shape),
                as_array(b, shape),
                err_msg=f"order {order}, input {i}",
                **TOLERANCES["float64"],
            )


@pytest.mark.parametrize("program", params("second_order", lambda p: p.second_order))
def test_second_derivatives(program: Program):
    ours, theirs = second_derivatives(symgrad, program), second_derivatives(torch, program)
    assert_second_derivatives_agree(ours, theirs, program)


def test_unused_inputs_of_double_backward():
    """An input the first gradient does not depend on gets None, as in PyTorch."""

    def unused(T: Any) -> list:
        x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        w = T.tensor([3.0, 4.0], dtype=T.float64, requires_grad=True)
        c = T.tensor([5.0, 6.0], dtype=T.float64)
        (gx,) = T.autograd.grad(((x * w) * c).sum(), x, create_graph=True)
        return [g is None for g in T.autograd.grad(gx.sum(), [x, w], allow_unused=True)]

    assert unused(symgrad) == unused(torch)


@pytest.mark.parametrize(
    "name",
    [
        "sqrt_at_zero",
        "log_and_reciprocal_at_zero",
        "pow_scalar_exponents_at_zero",
        "where_nan_in_unselected_branch",
    ],
)
def test_special_values_compute_silently(name: str):
    with warnings.catch_warnings():
        # here, not as a mark: the module's marks ignoring these warnings would win
        warnings.simplefilter("error", RuntimeWarning)
        Run(torch, PROGRAMS_BY_NAME[name], "float64")
        Run(symgrad, PROGRAMS_BY_NAME[name], "float64")


# -- dtypes and printing --------------------------------------------------------------------------


@pytest.mark.parametrize("case", list(DTYPE_CASES))
def test_dtype_promotion_and_repr(case: str):
    ours, theirs = DTYPE_CASES[case](symgrad), DTYPE_CASES[case](torch)
    assert dtype_name(ours) == dtype_name(theirs)
    assert torch_repr(repr(ours)) == repr(theirs)


# -- scenarios ------------------------------------------------------------------------------------


def assert_same_structure(ours: Any, theirs: Any, path: str = "result") -> None:
    """Tensors compared as tensors, sequences item by item, strings after renaming the
    module, everything else by equality."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, symgrad.Tensor), f"{path}: {ours!r} is not a tensor"
        tolerance = TOLERANCES.get(dtype_name(theirs), TOLERANCES["float64"])
        assert_same(ours, theirs, path, **tolerance)
        assert ours.requires_grad == theirs.requires_grad, f"{path}: requires_grad"
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same_structure(a, b, f"{path}[{i}]")
    elif isinstance(theirs, torch.dtype):
        assert dtype_name(ours) == dtype_name(theirs), path
    elif isinstance(theirs, str):
        assert torch_repr(ours) == theirs, path
    else:
        assert ours == theirs, f"{path}: symgrad {ours!r}, torch {theirs!r}"


_SCENARIO_XFAIL: dict = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            name,
            marks=[pytest.mark.xfail(reason=_SCENARIO_XFAIL[name], strict=True)]
            if name in _SCENARIO_XFAIL
            else [],
        )
        for name in SCENARIOS
    ],
)
def test_scenario(name: str):
    ours = SCENARIOS[name](symgrad)
    theirs = SCENARIOS[name](torch)
    assert_same_structure(ours, theirs)


# -- random compositions ---------------------------------------------------------------------------

# Each op keeps its arguments in its domain (log of |x| + 0.5, exp of a clamped x), so any
# composition of them stays finite on any input.
SMOOTH_UNARY: dict[str, Callable] = {
    "neg": lambda T, x: -x,
    "exp": lambda T, x: x.clamp(-3, 3).exp(),
    "log": lambda T, x: (x * x + 0.5).log(),
    "log1p": lambda T, x: T.log1p(x.abs()),
    "expm1": lambda T, x: T.expm1(T.tanh(x)),
    "sqrt": lambda T, x: (x * x + 0.25).sqrt(),
    "rsqrt": lambda T, x: T.rsqrt(x.square() + 0.5),
    "sin": lambda T, x: T.sin(x),
    "cos": lambda T, x: x.cos(),
    "tan": lambda T, x: T.tan(T.tanh(x)),
    "tanh": lambda T, x: x.tanh(),
    "sigmoid": lambda T, x: T.sigmoid(x),
    "softplus": lambda T, x: T.nn.functional.softplus(x),
    "gelu": lambda T, x: T.nn.functional.gelu(x),
    "gelu_tanh": lambda T, x: T.nn.functional.gelu(x, approximate="tanh"),
    "erf": lambda T, x: T.erf(x),
    "reciprocal": lambda T, x: (x * x + 1).reciprocal(),
    "square": lambda T, x: T.square(x.tanh() * 2),
    "pow": lambda T, x: (x.abs() + 0.5) ** 1.5,
    "scalar_affine": lambda T, x: 0.5 - 2 * x / 3,
}
KINKED_UNARY: dict[str, Callable] = {
    "abs": lambda T, x: x.abs(),
    "sign": lambda T, x: x.sign() * x,
    "relu": lambda T, x: T.relu(x),
    "leaky_relu": lambda T, x: T.nn.functional.leaky_relu(x, 0.1),
    "elu": lambda T, x: T.nn.functional.elu(x),
    "clamp": lambda T, x: x.clamp(-1, 1),
}
SMOOTH_BINARY: dict[str, Callable] = {
    "add": lambda T, x, y: x + y,
    "sub": lambda T, x, y: T.sub(x, y),
    "mul": lambda T, x, y: x * y,
    "div": lambda T, x, y: x / (y * y + 1),
    "pow": lambda T, x, y: (x * x + 0.5) ** T.tanh(y),
}
KINKED_BINARY: dict[str, Callable] = {
    "maximum": lambda T, x, y: T.maximum(x, y),
    "minimum": lambda T, x, y: T.minimum(x, y),
    "where": lambda T, x, y: T.where(x > y, x, y * 2),
}


@st.composite
def broadcastable_shapes(draw: Any) -> list:
    """Two or three shapes that broadcast together (dims dropped or set to 1)."""
    full = draw(st.lists(st.integers(1, 3), max_size=3))
    shapes = []
    for _ in range(draw(st.integers(2, 3))):
        rank = draw(st.integers(0, len(full)))
        dims = full[len(full) - rank :]
        shapes.append(tuple(n if draw(st.booleans()) else 1 for n in dims))
    return shapes


@st.composite
def compositions(draw: Any, smooth_only: bool) -> Program:
    """A random program: each step applies an op to earlier values of the pool."""
    unary = dict(SMOOTH_UNARY, **({} if smooth_only else KINKED_UNARY))
    binary = dict(SMOOTH_BINARY, **({} if smooth_only else KINKED_BINARY))
    shapes = draw(broadcastable_shapes())
    steps = draw(
        st.lists(
            st.one_of(
                st.tuples(st.sampled_from(sorted(unary)), st.integers(0, 99)),
                st.tuples(st.sampled_from(sorted(binary)), st.integers(0, 99), st.integers(0, 99)),
            ),
            min_size=1,
            max_size=6,
        )
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    inputs = tuple(Arg(values=rng.uniform(-2, 2, s).tolist()) for s in shapes)

    def fn(T: Any, *xs: Any) -> Any:
        pool = list(xs)
        for op, *picks in steps:
            args = [pool[i % len(pool)] for i in picks]
            pool.append((unary if len(args) == 1 else binary)[op](T, *args))
        return pool[-1]

    return Program(f"composition {steps} on {shapes}", fn, inputs)


@given(compositions(smooth_only=False))
def test_random_composition_gradients(program: Program):
    ours, theirs = run_both(program)
    assert_runs_agree(ours, theirs, "float64")


@given(compositions(smooth_only=True))
def test_random_composition_second_derivatives(program: Program):
    ours, theirs = second_derivatives(symgrad, program), second_derivatives(torch, program)
    assert_second_derivatives_agree(ours, theirs, program)
