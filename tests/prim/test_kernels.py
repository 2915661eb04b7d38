"""Every structural op's numeric kernel agrees with its forward (the op's meaning, written in
vocabulary words) on the NumPy interpreter, including at the extremes the kernel exists for."""

import importlib

import numpy as np
import pytest

from symgrad import dtypes
from symgrad.prim.numpy_xp import NP
from symgrad.prim.structural import Structural

# the modules that declare structural primitives (a primitive imported elsewhere is named
# after the first module here that has it: its own)
MODULES = tuple(
    importlib.import_module(f"symgrad.ops.{name}")
    for name in (
        "division",
        "indexing",
        "inplace",
        "linalg",
        "norms",
        "reductions",
        "copies",
        "shape",
        "joining",
        "softmax_family",
        "losses",
        "convolution",
        "pooling",
    )
)


def _structural_prims() -> dict:
    """{"module._NAME": primitive} for every structural primitive the ops modules declare."""
    found = {}
    for module in MODULES:
        for name, value in vars(module).items():
            values = value.items() if isinstance(value, dict) else [("", value)]
            for key, v in values:
                if isinstance(v, Structural):
                    label = f"{module.__name__.rsplit('.', 1)[1]}.{name}{key and f'[{key}]'}"
                    found.setdefault(id(v), (label, v))
    return dict(found.values())


WITH_KERNEL = {k: p for k, p in _structural_prims().items() if p.kernel is not p.forward}

RNG = np.random.default_rng(3)
X = RNG.uniform(-2, 2, (3, 4))
BIG = np.array([[1000.0, -1000.0, 3.0], [-1000.0, -1000.0, -1000.0]])  # exp would overflow

# dividends and divisors of every sign, with exact and inexact quotients
NUM = np.array([[5.5, -5.5, 3.0], [-3.0, 0.25, 7.0]])
DEN = np.array([2.0, -2.0, 1.5])


def _division_samples(kind: str) -> list:
    """Samples for the remainder and fmod primitives: tensor by tensor, by a number, and a
    number by a tensor; ``quotient`` is what the public function passes."""
    from symgrad.ops.division import _RULES

    rounded = _RULES[kind][1]
    return [
        ((NUM, DEN), {"quotient": rounded(NUM, DEN)}),
        ((NUM,), {"other": -1.5, "quotient": rounded(NUM, -1.5)}),
        ((DEN,), {"number": 7.0, "quotient": rounded(7.0, DEN)}),
    ]


def _conv_samples() -> list:
    """Convolutions with stride, uneven padding, dilation and groups, with and without bias."""
    from symgrad.ops.convolution import Geometry

    x2, x1 = RNG.uniform(-2, 2, (2, 4, 5, 6)), RNG.uniform(-2, 2, (1, 2, 7))
    w2, w1 = RNG.uniform(-1, 1, (6, 2, 3, 2)), RNG.uniform(-1, 1, (3, 2, 3))
    return [
        ((x2, w2), {"geo": Geometry(x2.shape, (3, 2), (2, 1), ((1, 0), (2, 1)), (1, 2), 2)}),
        (
            (x2, w2, RNG.uniform(-1, 1, 6)),
            {"geo": Geometry(x2.shape, (3, 2), (1, 1), ((0, 0),) * 2, (1, 1), 2)},
        ),
        ((x1, w1), {"geo": Geometry(x1.shape, (3,), (3,), ((1, 1),), (2,), 1)}),
    ]


# primitive -> list of (inputs, params) to compare on
SAMPLES = {
    "convolution._CONVOLUTION": _conv_samples(),
    "inplace._ZERO": [((X,), {})],
    **{
        f"division._{kind.upper()}[{form}]": [sample]
        for kind in ("remainder", "fmod")
        for form, sample in zip(("tensor", "number", "number_tensor"), _division_samples(kind))
    },
    "inplace._FILL": [((X,), {"value": 0.25}), ((X,), {"value": -3.0})],
    "reductions._AMAX": [
        ((X,), {"dim": (1,), "keepdim": False}),
        ((X,), {"dim": None, "keepdim": True}),
    ],
    "reductions._AMIN": [((X,), {"dim": (0,), "keepdim": True})],
    "reductions._MEAN": [
        ((X,), {"dim": (1,), "keepdim": False}),
        ((X,), {"dim": None, "keepdim": False}),
    ],
    "reductions._MAX_ALL": [((X,), {"dim": None, "keepdim": False})],
    "reductions._MIN_ALL": [((X,), {"dim": None, "keepdim": False})],
    "shape._TO": [
        ((X,), {"dtype": dtypes.float32}),
        ((X.reshape(1, 3, 4, 1),), {"dtype": dtypes.float32, "strides": (12, 1, 3, 3)}),
    ],
    "copies._CLONE": [
        ((X,), {}),
        ((X.T,), {"order": "C"}),
        ((X.reshape(1, 3, 4, 1),), {"strides": (12, 1, 3, 3)}),
    ],
    "shape._FLIP": [((X,), {"dims": (0,)}), ((X,), {"dims": (0, 1)})],
    "indexing._GETITEM[select]": [((X,), {"key": (1,)}), ((X,), {"key": (1, 2)})],
    "indexing._GETITEM[slice]": [((X,), {"key": (slice(1, 3),)})],
    "indexing._GETITEM[unsqueeze]": [((X,), {"key": (None, Ellipsis)})],
    "indexing._GETITEM[alias]": [((X,), {"key": (Ellipsis,)})],
    "indexing._GETITEM[advanced]": [((X,), {"key": (np.array([2, 0]),)})],
    "softmax_family._LOGSUMEXP": [
        ((X,), {"dim": (1,), "keepdim": False}),
        ((BIG,), {"dim": (1,), "keepdim": True}),
    ],
    "softmax_family._SOFTMAX": [((X,), {"dim": 1}), ((BIG,), {"dim": 1})],
    "softmax_family._SAFE_SOFTMAX": [((X,), {"dim": 1}), ((BIG,), {"dim": 0})],
    "softmax_family._LOG_SOFTMAX": [((X,), {"dim": 0}), ((BIG,), {"dim": 1})],
    # the gradients under create_graph: (incoming gradient, the op's output)
    "softmax_family.SOFTMAX_BACKWARD": [
        ((X, np.full_like(X, 0.25)), {"dim": 1}),
        ((X, np.full_like(X, 1 / 3)), {"dim": (0,)}),
    ],
    "softmax_family.LOG_SOFTMAX_BACKWARD": [
        ((X, np.log(np.full_like(X, 0.25))), {"dim": 1}),
        ((X, np.full_like(X, -1.5)), {"dim": (0,)}),
    ],
    "norms._NORM2": [((X,), {"dim": (1,), "keepdim": False})],
    "norms._NORM2_AT": [
        ((X,), {"dim": (1,), "keepdim": True}),
        ((X[:, :1],), {"dim": (1,), "keepdim": False}),
    ],
    "norms._NORM_P_AT": [((X,), {"order": 3.0, "dim": (0,), "keepdim": False})],
    "joining._STACK": [((X, X * 2), {"dim": 0}), ((X, np.asfortranarray(X)), {"dim": 2})],
    "joining._CAT": [
        ((X, X * 2), {"dim": 0, "skip": (False, False)}),
        ((X.T, np.asfortranarray(X).T), {"dim": 1, "skip": (False, False)}),
    ],
    # views with PyTorch's strides of dimensions of size 1 (kept, new, or where NumPy chose 0)
    "linalg._EXPAND": [((X[:, :1],), {"shape": (3, 4)}), ((X[0],), {"shape": (1, 2, 4)})],
    "shape._UNSQUEEZE": [((X,), {"dim": 1}), ((X.T,), {"dim": 2}), ((X[:, :1],), {"dim": 0})],
    **{
        f"{where}._{name}": [((X,), {"shape": (4, 3)}), ((X[:, :1],), {"shape": (1, 3, 1)})]
        for where, name in (
            ("linalg", "UNSAFE_VIEW"),
            ("shape", "VIEW"),
            ("shape", "RESHAPE_ALIAS"),
        )
    },
    "norms._NORM_P": [
        ((X,), {"order": 3.0, "dim": None, "keepdim": False}),
        ((X,), {"order": float("inf"), "dim": (0,), "keepdim": True}),
        ((X,), {"order": 0.0, "dim": (1,), "keepdim": False}),
        ((X,), {"order": 1.0, "dim": None, "keepdim": False}),
    ],
}


# a loss fused with its reduction: every reduction, a weight, a target broadcast to the input
P = RNG.uniform(0.05, 0.95, (3, 4))
T = RNG.uniform(0, 1, (3, 4))
W = RNG.uniform(0.5, 2, (3, 4))


_ROWS_KEY = (np.arange(3), np.array([1, 3, 0]))


def _loss_samples(x: np.ndarray, params: tuple = ()) -> list:
    extra = {"params": params} if params else {}
    return [
        ((x, T), {"reduction": r, "weight": None, "shape": x.shape, **extra})
        for r in ("mean", "sum", "none")
    ] + [
        ((x, T), {"reduction": "mean", "weight": W, "shape": x.shape, **extra}),
        ((x, T[:1]), {"reduction": "sum", "weight": None, "shape": x.shape, **extra}),
    ]


SAMPLES.update(
    {
        "losses.BCE_LOSS": _loss_samples(P),
        "losses.BCE_WITH_LOGITS_PLAIN_LOSS": _loss_samples(X),
        "losses.MSE_LOSS": _loss_samples(X),
        "losses.SMOOTH_L1_LOSS": _loss_samples(X, (0.5,)),
        "losses.HUBER_LOSS": _loss_samples(X, (1.5,)),
        "losses.SOFT_MARGIN_LOSS": _loss_samples(X),
        "losses.BCE_WITH_LOGITS_LOSS": [
            ((X, T, W), {"reduction": r, "weight": None, "shape": X.shape})
            for r in ("mean", "none")
        ],
        # rows picking one class each, every reduction; per-element weights
        "losses.NLL_LOSS": [
            ((X,), {"key": _ROWS_KEY, "weight": None, "denom": 3.0, "reduction": r})
            for r in ("mean", "sum", "none")
        ]
        + [
            ((X,), {"key": _ROWS_KEY, "weight": W[:, 0], "denom": 2.5, "reduction": "mean"}),
        ],
    }
)


def test_every_kernel_has_samples():
    assert len(WITH_KERNEL) >= 12, "the scan found too few kernels: it is broken"
    missing = sorted(set(WITH_KERNEL) - set(SAMPLES))
    assert missing == [], f"add samples for these kernels: {missing}"


def _cases():
    for label, prim in WITH_KERNEL.items():
        for k, (inputs, params) in enumerate(SAMPLES.get(label, [])):
            yield pytest.param(prim, inputs, params, id=f"{label}-{k}")


@pytest.mark.parametrize("prim,inputs,params", list(_cases()))
def test_kernel_agrees_with_forward(prim, inputs, params):
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        meaning = np.asarray(prim.forward(NP, *inputs, **params), dtype=np.float64)
    kernel = np.asarray(prim.kernel(NP, *inputs, **params), dtype=np.float64)
    assert kernel.shape == meaning.shape
    finite = np.isfinite(meaning)
    # where the formula itself overflows, the kernel must still be finite (that is its job)
    assert np.isfinite(kernel[~finite]).all()
    np.testing.assert_allclose(kernel[finite], meaning[finite], rtol=1e-6, atol=1e-12)


def test_the_kernels_are_used_for_the_extremes():
    """Without its kernel, softmax of large logits would be nan: the kernel is what runs."""
    prim = WITH_KERNEL["softmax_family._SOFTMAX"]
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(prim.forward(NP, BIG, dim=1)).any()
    assert np.isfinite(prim.numeric_forward(NP, BIG, dim=1)).all()
