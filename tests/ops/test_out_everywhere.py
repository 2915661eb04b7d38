"""``out=`` on every PyTorch function that takes it: the result written into the given tensors
(resized from empty), the dtype rules (cast to out's dtype where PyTorch casts, refused where
it asks for the result's own dtype), the tensors returned.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data (recorded from PyTorch 2.13), checked for symgrad always and
for PyTorch when it is installed.
"""

from __future__ import annotations

import pytest
from _torch_table import table_tests

A = [[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]]
B = [[1.5, 0.5, -2.0], [3.0, 1.25, 0.75]]
P = [[0.25, 0.5, 0.75], [0.125, 0.875, 0.625]]  # in (0, 1)
IA = [[3, 4, 6], [8, 9, 2]]
IB = [[2, 6, 4], [12, 3, 5]]
V = [1.0, 2.0, 3.0]
M = [[2.0, 1.0], [1.0, 3.0]]


def arguments(T, kind):
    """The positional arguments of kind ``kind``, made with ``T`` (symgrad or torch)."""
    t = T.tensor
    return {
        "a": lambda: [t(A)],
        "p": lambda: [t(P)],
        "b": lambda: [t(B) + 3],  # > 1
        "ab": lambda: [t(A), t(B)],
        "ii": lambda: [t(IA), t(IB)],
        "i": lambda: [t(IA)],
        "bool": lambda: [t(A) > 0],
        "vv": lambda: [t(V), t(V)],
        "vv3": lambda: [t(V), t([3.0, -1.0, 2.0])],
        "mv": lambda: [t(M), t(V[:2])],
        "aab": lambda: [t(A), t(A), t(B)],
        "amask": lambda: [t(A), t(A) > 0],
        "aidx": lambda: [t(A), t([[0], [2]])],
        "m": lambda: [t(M)],
        "mm": lambda: [t(M), t([[1.0], [2.0]])],
        "list": lambda: [[t(A), t(B)]],
        "n_a": lambda: [1, t(A)],
        "take": lambda: [t(A), t([0, 4])],
        "sorted": lambda: [t(V), t([1.5, 3.5, 0.5])],
        "sorted_rev": lambda: [t([1.5, 3.5, 0.5]), t(V)],
        "mm_tril": lambda: [t([[1.0], [2.0]]), t([[2.0, 0.0], [1.0, 3.0]])],
        "pp": lambda: [t(P), t(P[::-1])],
        "index_add": lambda: [t(A), 0, t([1, 0]), t(B)],
        "none": lambda: [],
        "tril": lambda: [t([[4.0, 0.0], [2.0, 3.0]])],
    }[kind]()


# name: (kind of arguments, further arguments, keyword arguments)
SPECS = {
    **{
        name: ("a", (), {})
        for name in (
            "sin cos tan sinh cosh asinh atan exp2 expm1 ceil floor round trunc frac fix sign "
            "sgn signbit reciprocal rsqrt erf erfc lgamma sinc deg2rad rad2deg negative "
            "isposinf isneginf nan_to_num square abs absolute neg exp sqrt sigmoid tanh atan "
            "arctan angle conj_physical msort fliplr clone"
        ).split()
    },
    **{name: ("p", (), {}) for name in "asin acos atanh logit erfinv digamma i0 arcsin".split()},
    **{name: ("b", (), {}) for name in "acosh log10 log1p log2 log".split()},
    **{
        name: ("ab", (), {})
        for name in (
            "atan2 arctan2 hypot maximum minimum fmax fmin fmod remainder copysign logaddexp "
            "logaddexp2 xlogy float_power nextafter heaviside multiply subtract divide "
            "floor_divide true_divide greater less not_equal greater_equal less_equal kron "
            "igamma igammac"
        ).split()
    },
    "ldexp": ("ab", (), {}),
    "logical_xor": ("ab", (), {}),
    "gcd": ("ii", (), {}),
    "lcm": ("ii", (), {}),
    "amax": ("a", (1,), {}),
    "amin": ("a", (1,), {}),
    "logsumexp": ("a", (1,), {}),
    "std": ("a", (1,), {}),
    "var": ("a", (1,), {}),
    "nanmean": ("a", (1,), {}),
    "nansum": ("a", (1,), {}),
    "all": ("a", (1,), {}),
    "any": ("a", (1,), {}),
    "argmax": ("a", (1,), {}),
    "argmin": ("a", (1,), {}),
    "norm": ("a", (2, 1), {}),
    "median": ("a", (1,), {}),
    "nanmedian": ("a", (1,), {}),
    "logcumsumexp": ("a", (1,), {}),
    "cummax": ("a", (1,), {}),
    "cummin": ("a", (1,), {}),
    "sort": ("a", (1,), {}),
    "topk": ("a", (2,), {}),
    "max_dim": ("a", (1,), {}),
    "min_dim": ("a", (1,), {}),
    "max": ("a", (), {}),
    "min": ("a", (), {}),
    "kthvalue": ("a", (2,), {}),
    "mode": ("a", (1,), {}),
    "aminmax": ("a", (), {}),
    "frexp": ("a", (), {}),
    "tril": ("a", (), {}),
    "triu": ("a", (), {}),
    "diag": ("a", (), {}),
    "clip": ("a", (0.0, 1.0), {}),
    "clamp_min": ("a", (0.0,), {}),
    "clamp_max": ("a", (0.0,), {}),
    "outer": ("vv", (), {}),
    "ger": ("vv", (), {}),
    "dot": ("vv", (), {}),
    "vdot": ("vv", (), {}),
    "inner": ("vv", (), {}),
    "cross": ("vv3", (), {"dim": 0}),
    "mv": ("mv", (), {}),
    "lerp": ("ab", (0.25,), {}),
    "addcmul": ("aab", (), {}),
    "addcdiv": ("aab", (), {}),
    "nonzero": ("a", (), {}),
    "masked_select": ("amask", (), {}),
    "take_along_dim": ("aidx", (1,), {}),
    "take": ("take", (), {}),
    "searchsorted": ("sorted", (), {}),
    "bucketize": ("sorted_rev", (), {}),
    "quantile": ("a", (0.5,), {}),
    "nanquantile": ("a", (0.5,), {}),
    "cholesky": ("m", (), {}),
    "cholesky_inverse": ("tril", (), {}),
    "cholesky_solve": ("mm_tril", (), {}),
    "inverse": ("m", (), {}),
    "matrix_power": ("m", (2,), {}),
    "triangular_solve": ("mm_tril", (), {}),
    "hstack": ("list", (), {}),
    "vstack": ("list", (), {}),
    "dstack": ("list", (), {}),
    "column_stack": ("list", (), {}),
    "row_stack": ("list", (), {}),
    "concat": ("list", (), {}),
    "concatenate": ("list", (), {}),
    "polygamma": ("n_a", (), {}),
    "mvlgamma": ("b", (2,), {}),
    "renorm": ("a", (2, 0, 1.0), {}),
    "histc": ("a", (), {"bins": 4}),
    "narrow_copy": ("a", (1, 0, 2), {}),
    "diff": ("a", (), {}),
    "index_add": ("index_add", (), {}),
    "svd": ("m", (), {}),
    "geqrf": ("m", (), {}),
    "zeros": ("none", (2, 3), {}),
    "ones": ("none", (2,), {}),
    "empty_zero": ("none", (0,), {}),
    "full": ("none", ((2,), 1.5), {}),
    "eye": ("none", (2,), {}),
    "arange": ("none", (0, 3), {}),
    "range": ("none", (0, 2), {}),
    "linspace": ("none", (0, 1, 3), {}),
    "logspace": ("none", (0, 1, 3), {}),
}

# the functions of torch.special that take out= (arguments in (0, 1) suit every one)
SPECIAL = (
    "airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 digamma entr erf erfc erfcx erfinv exp2 "
    "expit expm1 gammaln i0 i0e i1 i1e log1p log_ndtr logit modified_bessel_i0 "
    "modified_bessel_i1 modified_bessel_k0 modified_bessel_k1 ndtr ndtri psi round "
    "scaled_modified_bessel_k0 scaled_modified_bessel_k1 sinc spherical_bessel_j0"
).split()
SPECIAL2 = "xlogy xlog1py zeta gammainc gammaincc".split()  # (the two-argument ones)

_FUNCTION = {"max_dim": "max", "min_dim": "min", "empty_zero": "empty"}
_WIDER = {"float32": "float64", "float64": "float32", "int64": "float32", "bool": "int64"}
_OTHER_KIND = {"float32": "int64", "float64": "int64", "int64": "bool", "bool": "float32"}


def _function(T, name):
    f = T.special if name.startswith("special.") else T
    return getattr(f, _FUNCTION.get(name, name).rsplit(".", 1)[-1])


def _outs(T, ref, variant):
    """Empty out tensors for the result ``ref``: of its dtypes ("same"), the first of a wider
    or narrower one ("wider"), the last of another kind ("other")."""
    refs = list(ref) if isinstance(ref, tuple) else [ref]
    names = [str(r.dtype).rsplit(".", 1)[-1] for r in refs]
    if variant == "wider":
        names[0] = _WIDER.get(names[0], "float64")
    elif variant == "other":
        names[-1] = _OTHER_KIND.get(names[-1], "float64")
    outs = tuple(T.empty(0, dtype=getattr(T, n)) for n in names)
    return outs if isinstance(ref, tuple) else outs[0]


def _call(name, kind, extra, kwargs, variant):
    def case(T):
        f = _function(T, name)
        args = arguments(T, kind) + list(extra)
        outs = _outs(T, f(*args, **kwargs), variant)
        result = f(*args, **kwargs, out=outs)
        returned = (
            all(r is o for r, o in zip(result, outs)) if isinstance(outs, tuple) else result is outs
        )
        return returned, outs

    return case


_ALL = {
    **SPECS,
    **{f"special.{n}": ("p", (), {}) for n in SPECIAL},
    **{f"special.{n}": ("pp", (), {}) for n in SPECIAL2},
}
_CALLS = {
    f"{name}-{variant}": _call(name, *spec, variant)
    for name, spec in _ALL.items()
    for variant in ("same", "wider", "other")
}

# recorded from PyTorch 2.13: (the out tensors returned, their contents), or the error's type
EXPECTED = {
    "sin-same": (True, ([[0.4794, -0.9975, 0.9093], [0.8415, 0.2474, -0.6816]], "float32", None)),
    "sin-wider": (True, ([[0.4794, -0.9975, 0.9093], [0.8415, 0.2474, -0.6816]], "float64", None)),
    "sin-other": ("raises", "RuntimeError"),
    "cos-same": (True, ([[0.8776, 0.0707, -0.4161], [0.5403, 0.9689, 0.7317]], "float32", None)),
    "cos-wider": (True, ([[0.8776, 0.0707, -0.4161], [0.5403, 0.9689, 0.7317]], "float64", None)),
    "cos-other": ("raises", "RuntimeError"),
    "tan-same": (True, ([[0.5463, -14.1014, -2.185], [1.5574, 0.2553, -0.9316]], "float32", None)),
    "tan-wider": (True, ([[0.5463, -14.1014, -2.185], [1.5574, 0.2553, -0.9316]], "float64", None)),
    "tan-other": ("raises", "RuntimeError"),
    "sinh-same": (True, ([[0.5211, -2.1293, 3.6269], [1.1752, 0.2526, -0.8223]], "float32", None)),
    "sinh-wider": (True, ([[0.5211, -2.1293, 3.6269], [1.1752, 0.2526, -0.8223]], "float64", None)),
    "sinh-other": ("raises", "RuntimeError"),
    "cosh-same": (True, ([[1.1276, 2.3524, 3.7622], [1.5431, 1.0314, 1.2947]], "float32", None)),
    "cosh-wider": (True, ([[1.1276, 2.3524, 3.7622], [1.5431, 1.0314, 1.2947]], "float64", None)),
    "cosh-other": ("raises", "RuntimeError"),
    "asinh-same": (True, ([[0.4812, -1.1948, 1.4436], [0.8814, 0.2475, -0.6931]], "float32", None)),
    "asinh-wider": (
        True,
        ([[0.4812, -1.1948, 1.4436], [0.8814, 0.2475, -0.6931]], "float64", None),
    ),
    "asinh-other": ("raises", "RuntimeError"),
    "atan-same": (True, ([[0.4636, -0.9828, 1.1071], [0.7854, 0.245, -0.6435]], "float32", None)),
    "atan-wider": (True, ([[0.4636, -0.9828, 1.1071], [0.7854, 0.245, -0.6435]], "float64", None)),
    "atan-other": ("raises", "RuntimeError"),
    "exp2-same": (True, ([[1.4142, 0.3536, 4.0], [2.0, 1.1892, 0.5946]], "float32", None)),
    "exp2-wider": (True, ([[1.4142, 0.3536, 4.0], [2.0, 1.1892, 0.5946]], "float64", None)),
    "exp2-other": ("raises", "RuntimeError"),
    "expm1-same": (True, ([[0.6487, -0.7769, 6.3891], [1.7183, 0.284, -0.5276]], "float32", None)),
    "expm1-wider": (True, ([[0.6487, -0.7769, 6.3891], [1.7183, 0.284, -0.5276]], "float64", None)),
    "expm1-other": ("raises", "RuntimeError"),
    "ceil-same": (True, ([[1.0, -1.0, 2.0], [1.0, 1.0, 0.0]], "float32", None)),
    "ceil-wider": ("raises", "RuntimeError"),
    "ceil-other": ("raises", "RuntimeError"),
    "floor-same": (True, ([[0.0, -2.0, 2.0], [1.0, 0.0, -1.0]], "float32", None)),
    "floor-wider": ("raises", "RuntimeError"),
    "floor-other": ("raises", "RuntimeError"),
    "round-same": (True, ([[0.0, -2.0, 2.0], [1.0, 0.0, -1.0]], "float32", None)),
    "round-wider": ("raises", "RuntimeError"),
    "round-other": ("raises", "RuntimeError"),
    "trunc-same": (True, ([[0.0, -1.0, 2.0], [1.0, 0.0, 0.0]], "float32", None)),
    "trunc-wider": ("raises", "RuntimeError"),
    "trunc-other": ("raises", "RuntimeError"),
    "frac-same": (True, ([[0.5, -0.5, 0.0], [0.0, 0.25, -0.75]], "float32", None)),
    "frac-wider": ("raises", "RuntimeError"),
    "frac-other": ("raises", "RuntimeError"),
    "fix-same": (True, ([[0.0, -1.0, 2.0], [1.0, 0.0, 0.0]], "float32", None)),
    "fix-wider": ("raises", "RuntimeError"),
    "fix-other": ("raises", "RuntimeError"),
    "sign-same": (True, ([[1.0, -1.0, 1.0], [1.0, 1.0, -1.0]], "float32", None)),
    "sign-wider": ("raises", "RuntimeError"),
    "sign-other": ("raises", "RuntimeError"),
    "sgn-same": (True, ([[1.0, -1.0, 1.0], [1.0, 1.0, -1.0]], "float32", None)),
    "sgn-wider": ("raises", "RuntimeError"),
    "sgn-other": ("raises", "RuntimeError"),
    "signbit-same": (True, ([[False, True, False], [False, False, True]], "bool", None)),
    "signbit-wider": ("raises", "RuntimeError"),
    "signbit-other": ("raises", "RuntimeError"),
    "reciprocal-same": (True, ([[2.0, -0.6667, 0.5], [1.0, 4.0, -1.3333]], "float32", None)),
    "reciprocal-wider": (True, ([[2.0, -0.6667, 0.5], [1.0, 4.0, -1.3333]], "float64", None)),
    "reciprocal-other": ("raises", "RuntimeError"),
    "rsqrt-same": (True, ([[1.4142, "nan", 0.7071], [1.0, 2.0, "nan"]], "float32", None)),
    "rsqrt-wider": (True, ([[1.4142, "nan", 0.7071], [1.0, 2.0, "nan"]], "float64", None)),
    "rsqrt-other": ("raises", "RuntimeError"),
    "erf-same": (True, ([[0.5205, -0.9661, 0.9953], [0.8427, 0.2763, -0.7112]], "float32", None)),
    "erf-wider": (True, ([[0.5205, -0.9661, 0.9953], [0.8427, 0.2763, -0.7112]], "float64", None)),
    "erf-other": ("raises", "RuntimeError"),
    "erfc-same": (True, ([[0.4795, 1.9661, 0.0047], [0.1573, 0.7237, 1.7112]], "float32", None)),
    "erfc-wider": (True, ([[0.4795, 1.9661, 0.0047], [0.1573, 0.7237, 1.7112]], "float64", None)),
    "erfc-other": ("raises", "RuntimeError"),
    "lgamma-same": (True, ([[0.5724, 0.86, 0.0], [0.0, 1.288, 1.5757]], "float32", None)),
    "lgamma-wider": (True, ([[0.5724, 0.86, 0.0], [0.0, 1.288, 1.5757]], "float64", None)),
    "lgamma-other": ("raises", "RuntimeError"),
    "sinc-same": (True, ([[0.6366, -0.2122, 0.0], [0.0, 0.9003, 0.3001]], "float32", None)),
    "sinc-wider": (True, ([[0.6366, -0.2122, 0.0], [0.0, 0.9003, 0.3001]], "float64", None)),
    "sinc-other": ("raises", "RuntimeError"),
    "deg2rad-same": (
        True,
        ([[0.0087, -0.0262, 0.0349], [0.0175, 0.0044, -0.0131]], "float32", None),
    ),
    "deg2rad-wider": (
        True,
        ([[0.0087, -0.0262, 0.0349], [0.0175, 0.0044, -0.0131]], "float64", None),
    ),
    "deg2rad-other": ("raises", "RuntimeError"),
    "rad2deg-same": (
        True,
        ([[28.6479, -85.9437, 114.5916], [57.2958, 14.3239, -42.9718]], "float32", None),
    ),
    "rad2deg-wider": (
        True,
        ([[28.6479, -85.9437, 114.5916], [57.2958, 14.3239, -42.9718]], "float64", None),
    ),
    "rad2deg-other": ("raises", "RuntimeError"),
    "negative-same": (True, ([[-0.5, 1.5, -2.0], [-1.0, -0.25, 0.75]], "float32", None)),
    "negative-wider": ("raises", "RuntimeError"),
    "negative-other": ("raises", "RuntimeError"),
    "isposinf-same": (True, ([[False, False, False], [False, False, False]], "bool", None)),
    "isposinf-wider": ("raises", "RuntimeError"),
    "isposinf-other": ("raises", "RuntimeError"),
    "isneginf-same": (True, ([[False, False, False], [False, False, False]], "bool", None)),
    "isneginf-wider": ("raises", "RuntimeError"),
    "isneginf-other": ("raises", "RuntimeError"),
    "nan_to_num-same": (True, ([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]], "float32", None)),
    "nan_to_num-wider": ("raises", "RuntimeError"),
    "nan_to_num-other": ("raises", "RuntimeError"),
    "square-same": (True, ([[0.25, 2.25, 4.0], [1.0, 0.0625, 0.5625]], "float32", None)),
    "square-wider": (True, ([[0.25, 2.25, 4.0], [1.0, 0.0625, 0.5625]], "float64", None)),
    "square-other": ("raises", "RuntimeError"),
    "abs-same": (True, ([[0.5, 1.5, 2.0], [1.0, 0.25, 0.75]], "float32", None)),
    "abs-wider": ("raises", "RuntimeError"),
    "abs-other": ("raises", "RuntimeError"),
    "absolute-same": (True, ([[0.5, 1.5, 2.0], [1.0, 0.25, 0.75]], "float32", None)),
    "absolute-wider": ("raises", "RuntimeError"),
    "absolute-other": ("raises", "RuntimeError"),
    "neg-same": (True, ([[-0.5, 1.5, -2.0], [-1.0, -0.25, 0.75]], "float32", None)),
    "neg-wider": ("raises", "RuntimeError"),
    "neg-other": ("raises", "RuntimeError"),
    "exp-same": (True, ([[1.6487, 0.2231, 7.3891], [2.7183, 1.284, 0.4724]], "float32", None)),
    "exp-wider": (True, ([[1.6487, 0.2231, 7.3891], [2.7183, 1.284, 0.4724]], "float64", None)),
    "exp-other": ("raises", "RuntimeError"),
    "sqrt-same": (True, ([[0.7071, "nan", 1.4142], [1.0, 0.5, "nan"]], "float32", None)),
    "sqrt-wider": (True, ([[0.7071, "nan", 1.4142], [1.0, 0.5, "nan"]], "float64", None)),
    "sqrt-other": ("raises", "RuntimeError"),
    "sigmoid-same": (True, ([[0.6225, 0.1824, 0.8808], [0.7311, 0.5622, 0.3208]], "float32", None)),
    "sigmoid-wider": (
        True,
        ([[0.6225, 0.1824, 0.8808], [0.7311, 0.5622, 0.3208]], "float64", None),
    ),
    "sigmoid-other": ("raises", "RuntimeError"),
    "tanh-same": (True, ([[0.4621, -0.9051, 0.964], [0.7616, 0.2449, -0.6351]], "float32", None)),
    "tanh-wider": (True, ([[0.4621, -0.9051, 0.964], [0.7616, 0.2449, -0.6351]], "float64", None)),
    "tanh-other": ("raises", "RuntimeError"),
    "arctan-same": (True, ([[0.4636, -0.9828, 1.1071], [0.7854, 0.245, -0.6435]], "float32", None)),
    "arctan-wider": (
        True,
        ([[0.4636, -0.9828, 1.1071], [0.7854, 0.245, -0.6435]], "float64", None),
    ),
    "arctan-other": ("raises", "RuntimeError"),
    "angle-same": (True, ([[0.0, 3.1416, 0.0], [0.0, 0.0, 3.1416]], "float32", None)),
    "angle-wider": (True, ([[0.0, 3.1416, 0.0], [0.0, 0.0, 3.1416]], "float64", None)),
    "angle-other": ("raises", "RuntimeError"),
    "conj_physical-same": (True, ([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]], "float32", None)),
    "conj_physical-wider": ("raises", "RuntimeError"),
    "conj_physical-other": ("raises", "RuntimeError"),
    "msort-same": (True, ([[0.5, -1.5, -0.75], [1.0, 0.25, 2.0]], "float32", None)),
    "msort-wider": ("raises", "RuntimeError"),
    "msort-other": ("raises", "RuntimeError"),
    "fliplr-same": ("raises", "TypeError"),
    "fliplr-wider": ("raises", "TypeError"),
    "fliplr-other": ("raises", "TypeError"),
    "clone-same": ("raises", "TypeError"),
    "clone-wider": ("raises", "TypeError"),
    "clone-other": ("raises", "TypeError"),
    "asin-same": (True, ([[0.2527, 0.5236, 0.8481], [0.1253, 1.0654, 0.6751]], "float32", None)),
    "asin-wider": (True, ([[0.2527, 0.5236, 0.8481], [0.1253, 1.0654, 0.6751]], "float64", None)),
    "asin-other": ("raises", "RuntimeError"),
    "acos-same": (True, ([[1.3181, 1.0472, 0.7227], [1.4455, 0.5054, 0.8957]], "float32", None)),
    "acos-wider": (True, ([[1.3181, 1.0472, 0.7227], [1.4455, 0.5054, 0.8957]], "float64", None)),
    "acos-other": ("raises", "RuntimeError"),
    "atanh-same": (True, ([[0.2554, 0.5493, 0.973], [0.1257, 1.354, 0.7332]], "float32", None)),
    "atanh-wider": (True, ([[0.2554, 0.5493, 0.973], [0.1257, 1.354, 0.7332]], "float64", None)),
    "atanh-other": ("raises", "RuntimeError"),
    "logit-same": (True, ([[-1.0986, 0.0, 1.0986], [-1.9459, 1.9459, 0.5108]], "float32", None)),
    "logit-wider": (True, ([[-1.0986, 0.0, 1.0986], [-1.9459, 1.9459, 0.5108]], "float64", None)),
    "logit-other": ("raises", "RuntimeError"),
    "erfinv-same": (True, ([[0.2253, 0.4769, 0.8134], [0.1112, 1.0848, 0.6273]], "float32", None)),
    "erfinv-wider": (True, ([[0.2253, 0.4769, 0.8134], [0.1112, 1.0848, 0.6273]], "float64", None)),
    "erfinv-other": ("raises", "RuntimeError"),
    "digamma-same": (
        True,
        ([[-4.2275, -1.9635, -1.0859], [-8.3885, -0.804, -1.4527]], "float32", None),
    ),
    "digamma-wider": (
        True,
        ([[-4.2275, -1.9635, -1.0859], [-8.3885, -0.804, -1.4527]], "float64", None),
    ),
    "digamma-other": ("raises", "RuntimeError"),
    "i0-same": (True, ([[1.0157, 1.0635, 1.1456], [1.0039, 1.2008, 1.1001]], "float32", None)),
    "i0-wider": (True, ([[1.0157, 1.0635, 1.1456], [1.0039, 1.2008, 1.1001]], "float64", None)),
    "i0-other": ("raises", "RuntimeError"),
    "arcsin-same": (True, ([[0.2527, 0.5236, 0.8481], [0.1253, 1.0654, 0.6751]], "float32", None)),
    "arcsin-wider": (True, ([[0.2527, 0.5236, 0.8481], [0.1253, 1.0654, 0.6751]], "float64", None)),
    "arcsin-other": ("raises", "RuntimeError"),
    "acosh-same": (True, ([[2.1846, 1.9248, 0.0], [2.4779, 2.1259, 1.9966]], "float32", None)),
    "acosh-wider": (True, ([[2.1846, 1.9248, 0.0], [2.4779, 2.1259, 1.9966]], "float64", None)),
    "acosh-other": ("raises", "RuntimeError"),
    "log10-same": (True, ([[0.6532, 0.5441, 0.0], [0.7782, 0.6284, 0.574]], "float32", None)),
    "log10-wider": (True, ([[0.6532, 0.5441, 0.0], [0.7782, 0.6284, 0.574]], "float64", None)),
    "log10-other": ("raises", "RuntimeError"),
    "log1p-same": (True, ([[1.7047, 1.5041, 0.6931], [1.9459, 1.6582, 1.5581]], "float32", None)),
    "log1p-wider": (True, ([[1.7047, 1.5041, 0.6931], [1.9459, 1.6582, 1.5581]], "float64", None)),
    "log1p-other": ("raises", "RuntimeError"),
    "log2-same": (True, ([[2.1699, 1.8074, 0.0], [2.585, 2.0875, 1.9069]], "float32", None)),
    "log2-wider": (True, ([[2.1699, 1.8074, 0.0], [2.585, 2.0875, 1.9069]], "float64", None)),
    "log2-other": ("raises", "RuntimeError"),
    "log-same": (True, ([[1.5041, 1.2528, 0.0], [1.7918, 1.4469, 1.3218]], "float32", None)),
    "log-wider": (True, ([[1.5041, 1.2528, 0.0], [1.7918, 1.4469, 1.3218]], "float64", None)),
    "log-other": ("raises", "RuntimeError"),
    "atan2-same": (True, ([[0.3218, -1.249, 2.3562], [0.3218, 0.1974, -0.7854]], "float32", None)),
    "atan2-wider": (True, ([[0.3218, -1.249, 2.3562], [0.3218, 0.1974, -0.7854]], "float64", None)),
    "atan2-other": ("raises", "RuntimeError"),
    "arctan2-same": (
        True,
        ([[0.3218, -1.249, 2.3562], [0.3218, 0.1974, -0.7854]], "float32", None),
    ),
    "arctan2-wider": (
        True,
        ([[0.3218, -1.249, 2.3562], [0.3218, 0.1974, -0.7854]], "float64", None),
    ),
    "arctan2-other": ("raises", "RuntimeError"),
    "hypot-same": (True, ([[1.5811, 1.5811, 2.8284], [3.1623, 1.2748, 1.0607]], "float32", None)),
    "hypot-wider": (True, ([[1.5811, 1.5811, 2.8284], [3.1623, 1.2748, 1.0607]], "float64", None)),
    "hypot-other": ("raises", "RuntimeError"),
    "maximum-same": (True, ([[1.5, 0.5, 2.0], [3.0, 1.25, 0.75]], "float32", None)),
    "maximum-wider": (True, ([[1.5, 0.5, 2.0], [3.0, 1.25, 0.75]], "float64", None)),
    "maximum-other": ("raises", "RuntimeError"),
    "minimum-same": (True, ([[0.5, -1.5, -2.0], [1.0, 0.25, -0.75]], "float32", None)),
    "minimum-wider": (True, ([[0.5, -1.5, -2.0], [1.0, 0.25, -0.75]], "float64", None)),
    "minimum-other": ("raises", "RuntimeError"),
    "fmax-same": (True, ([[1.5, 0.5, 2.0], [3.0, 1.25, 0.75]], "float32", None)),
    "fmax-wider": (True, ([[1.5, 0.5, 2.0], [3.0, 1.25, 0.75]], "float64", None)),
    "fmax-other": ("raises", "RuntimeError"),
    "fmin-same": (True, ([[0.5, -1.5, -2.0], [1.0, 0.25, -0.75]], "float32", None)),
    "fmin-wider": (True, ([[0.5, -1.5, -2.0], [1.0, 0.25, -0.75]], "float64", None)),
    "fmin-other": ("raises", "RuntimeError"),
    "fmod-same": (True, ([[0.5, 0.0, 0.0], [1.0, 0.25, 0.0]], "float32", None)),
    "fmod-wider": (True, ([[0.5, 0.0, 0.0], [1.0, 0.25, 0.0]], "float64", None)),
    "fmod-other": ("raises", "RuntimeError"),
    "remainder-same": (True, ([[0.5, 0.0, 0.0], [1.0, 0.25, 0.0]], "float32", None)),
    "remainder-wider": (True, ([[0.5, 0.0, 0.0], [1.0, 0.25, 0.0]], "float64", None)),
    "remainder-other": ("raises", "RuntimeError"),
    "copysign-same": (True, ([[0.5, 1.5, -2.0], [1.0, 0.25, 0.75]], "float32", None)),
    "copysign-wider": (True, ([[0.5, 1.5, -2.0], [1.0, 0.25, 0.75]], "float64", None)),
    "copysign-other": ("raises", "RuntimeError"),
    "logaddexp-same": (
        True,
        ([[1.8133, 0.6269, 2.0181], [3.1269, 1.5633, 0.9514]], "float32", None),
    ),
    "logaddexp-wider": (
        True,
        ([[1.8133, 0.6269, 2.0181], [3.1269, 1.5633, 0.9514]], "float64", None),
    ),
    "logaddexp-other": ("raises", "RuntimeError"),
    "logaddexp2-same": (
        True,
        ([[2.085, 0.8219, 2.0875], [3.3219, 1.835, 1.1868]], "float32", None),
    ),
    "logaddexp2-wider": (
        True,
        ([[2.085, 0.8219, 2.0875], [3.3219, 1.835, 1.1868]], "float64", None),
    ),
    "logaddexp2-other": ("raises", "RuntimeError"),
    "xlogy-same": (True, ([[0.2027, 1.0397, "nan"], [1.0986, 0.0558, 0.2158]], "float32", None)),
    "xlogy-wider": (True, ([[0.2027, 1.0397, "nan"], [1.0986, 0.0558, 0.2158]], "float64", None)),
    "xlogy-other": ("raises", "RuntimeError"),
    "float_power-same": (True, ([[0.3536, "nan", 0.25], [1.0, 0.1768, "nan"]], "float64", None)),
    "float_power-wider": ("raises", "RuntimeError"),
    "float_power-other": ("raises", "RuntimeError"),
    "nextafter-same": (True, ([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]], "float32", None)),
    "nextafter-wider": (True, ([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]], "float64", None)),
    "nextafter-other": ("raises", "RuntimeError"),
    "heaviside-same": (True, ([[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]], "float32", None)),
    "heaviside-wider": ("raises", "RuntimeError"),
    "heaviside-other": ("raises", "RuntimeError"),
    "multiply-same": (True, ([[0.75, -0.75, -4.0], [3.0, 0.3125, -0.5625]], "float32", None)),
    "multiply-wider": (True, ([[0.75, -0.75, -4.0], [3.0, 0.3125, -0.5625]], "float64", None)),
    "multiply-other": ("raises", "RuntimeError"),
    "subtract-same": (True, ([[-1.0, -2.0, 4.0], [-2.0, -1.0, -1.5]], "float32", None)),
    "subtract-wider": (True, ([[-1.0, -2.0, 4.0], [-2.0, -1.0, -1.5]], "float64", None)),
    "subtract-other": ("raises", "RuntimeError"),
    "divide-same": (True, ([[0.3333, -3.0, -1.0], [0.3333, 0.2, -1.0]], "float32", None)),
    "divide-wider": (True, ([[0.3333, -3.0, -1.0], [0.3333, 0.2, -1.0]], "float64", None)),
    "divide-other": ("raises", "RuntimeError"),
    "floor_divide-same": (True, ([[0.0, -3.0, -1.0], [0.0, 0.0, -1.0]], "float32", None)),
    "floor_divide-wider": (True, ([[0.0, -3.0, -1.0], [0.0, 0.0, -1.0]], "float64", None)),
    "floor_divide-other": ("raises", "RuntimeError"),
    "true_divide-same": (True, ([[0.3333, -3.0, -1.0], [0.3333, 0.2, -1.0]], "float32", None)),
    "true_divide-wider": (True, ([[0.3333, -3.0, -1.0], [0.3333, 0.2, -1.0]], "float64", None)),
    "true_divide-other": ("raises", "RuntimeError"),
    "greater-same": (True, ([[False, False, True], [False, False, False]], "bool", None)),
    "greater-wider": (True, ([[0, 0, 1], [0, 0, 0]], "int64", None)),
    "greater-other": (True, ([[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]], "float32", None)),
    "less-same": (True, ([[True, True, False], [True, True, True]], "bool", None)),
    "less-wider": (True, ([[1, 1, 0], [1, 1, 1]], "int64", None)),
    "less-other": (True, ([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]], "float32", None)),
    "not_equal-same": (True, ([[True, True, True], [True, True, True]], "bool", None)),
    "not_equal-wider": (True, ([[1, 1, 1], [1, 1, 1]], "int64", None)),
    "not_equal-other": (True, ([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], "float32", None)),
    "greater_equal-same": (True, ([[False, False, True], [False, False, False]], "bool", None)),
    "greater_equal-wider": (True, ([[0, 0, 1], [0, 0, 0]], "int64", None)),
    "greater_equal-other": (True, ([[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]], "float32", None)),
    "less_equal-same": (True, ([[True, True, False], [True, True, True]], "bool", None)),
    "less_equal-wider": (True, ([[1, 1, 0], [1, 1, 1]], "int64", None)),
    "less_equal-other": (True, ([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]], "float32", None)),
    "kron-same": (
        True,
        (
            [
                [0.75, 0.25, -1.0, -2.25, -0.75, 3.0, 3.0, 1.0, -4.0],
                [1.5, 0.625, 0.375, -4.5, -1.875, -1.125, 6.0, 2.5, 1.5],
                [1.5, 0.5, -2.0, 0.375, 0.125, -0.5, -1.125, -0.375, 1.5],
                [3.0, 1.25, 0.75, 0.75, 0.3125, 0.1875, -2.25, -0.9375, -0.5625],
            ],
            "float32",
            None,
        ),
    ),
    "kron-wider": (
        True,
        (
            [
                [0.75, 0.25, -1.0, -2.25, -0.75, 3.0, 3.0, 1.0, -4.0],
                [1.5, 0.625, 0.375, -4.5, -1.875, -1.125, 6.0, 2.5, 1.5],
                [1.5, 0.5, -2.0, 0.375, 0.125, -0.5, -1.125, -0.375, 1.5],
                [3.0, 1.25, 0.75, 0.75, 0.3125, 0.1875, -2.25, -0.9375, -0.5625],
            ],
            "float64",
            None,
        ),
    ),
    "kron-other": ("raises", "RuntimeError"),
    "igamma-same": (True, ([[0.9167, "nan", "nan"], [0.9502, 0.9528, "nan"]], "float32", None)),
    "igamma-wider": (True, ([[0.9167, "nan", "nan"], [0.9502, 0.9528, "nan"]], "float64", None)),
    "igamma-other": ("raises", "RuntimeError"),
    "igammac-same": (True, ([[0.0833, "nan", "nan"], [0.0498, 0.0472, "nan"]], "float32", None)),
    "igammac-wider": (True, ([[0.0833, "nan", "nan"], [0.0498, 0.0472, "nan"]], "float64", None)),
    "igammac-other": ("raises", "RuntimeError"),
    "ldexp-same": (True, ([[1.4142, -2.1213, 0.5], [8.0, 0.5946, -1.2613]], "float32", None)),
    "ldexp-wider": (True, ([[1.4142, -2.1213, 0.5], [8.0, 0.5946, -1.2613]], "float64", None)),
    "ldexp-other": ("raises", "RuntimeError"),
    "logical_xor-same": (True, ([[False, False, False], [False, False, False]], "bool", None)),
    "logical_xor-wider": (True, ([[0, 0, 0], [0, 0, 0]], "int64", None)),
    "logical_xor-other": (True, ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float32", None)),
    "gcd-same": (True, ([[1, 2, 2], [4, 3, 1]], "int64", None)),
    "gcd-wider": (True, ([[1.0, 2.0, 2.0], [4.0, 3.0, 1.0]], "float32", None)),
    "gcd-other": ("raises", "RuntimeError"),
    "lcm-same": (True, ([[6, 12, 12], [24, 9, 10]], "int64", None)),
    "lcm-wider": (True, ([[6.0, 12.0, 12.0], [24.0, 9.0, 10.0]], "float32", None)),
    "lcm-other": ("raises", "RuntimeError"),
    "amax-same": (True, ([2.0, 1.0], "float32", None)),
    "amax-wider": ("raises", "RuntimeError"),
    "amax-other": ("raises", "RuntimeError"),
    "amin-same": (True, ([-1.5, -0.75], "float32", None)),
    "amin-wider": ("raises", "RuntimeError"),
    "amin-other": ("raises", "RuntimeError"),
    "logsumexp-same": (True, ([2.2258, 1.4984], "float32", None)),
    "logsumexp-wider": (True, ([2.2258, 1.4984], "float64", None)),
    "logsumexp-other": ("raises", "RuntimeError"),
    "std-same": (True, ([1.7559, 0.878], "float32", None)),
    "std-wider": (True, ([1.7559, 0.878], "float64", None)),
    "std-other": ("raises", "RuntimeError"),
    "var-same": (True, ([3.0833, 0.7708], "float32", None)),
    "var-wider": (True, ([3.0833, 0.7708], "float64", None)),
    "var-other": ("raises", "RuntimeError"),
    "nanmean-same": (True, ([0.3333, 0.1667], "float32", None)),
    "nanmean-wider": (True, ([0.3333, 0.1667], "float64", None)),
    "nanmean-other": ("raises", "NotImplementedError"),
    "nansum-same": (True, ([1.0, 0.5], "float32", None)),
    "nansum-wider": (True, ([1.0, 0.5], "float64", None)),
    "nansum-other": ("raises", "NotImplementedError"),
    "all-same": (True, ([True, True], "bool", None)),
    "all-wider": ("raises", "RuntimeError"),
    "all-other": ("raises", "RuntimeError"),
    "any-same": (True, ([True, True], "bool", None)),
    "any-wider": ("raises", "RuntimeError"),
    "any-other": ("raises", "RuntimeError"),
    "argmax-same": (True, ([2, 0], "int64", None)),
    "argmax-wider": ("raises", "RuntimeError"),
    "argmax-other": ("raises", "RuntimeError"),
    "argmin-same": (True, ([1, 2], "int64", None)),
    "argmin-wider": ("raises", "RuntimeError"),
    "argmin-other": ("raises", "RuntimeError"),
    "norm-same": (True, ([2.5495, 1.2748], "float32", None)),
    "norm-wider": ("raises", "RuntimeError"),
    "norm-other": ("raises", "RuntimeError"),
    "median-same": (True, (([0.5, 0.25], "float32", None), ([0, 1], "int64", None))),
    "median-wider": ("raises", "RuntimeError"),
    "median-other": ("raises", "RuntimeError"),
    "nanmedian-same": (True, (([0.5, 0.25], "float32", None), ([0, 1], "int64", None))),
    "nanmedian-wider": ("raises", "RuntimeError"),
    "nanmedian-other": ("raises", "RuntimeError"),
    "logcumsumexp-same": (True, ([[0.5, 0.6269, 2.2258], [1.0, 1.3869, 1.4984]], "float32", None)),
    "logcumsumexp-wider": ("raises", "RuntimeError"),
    "logcumsumexp-other": ("raises", "RuntimeError"),
    "cummax-same": (
        True,
        (
            ([[0.5, 0.5, 2.0], [1.0, 1.0, 1.0]], "float32", None),
            ([[0, 0, 2], [0, 0, 0]], "int64", None),
        ),
    ),
    "cummax-wider": ("raises", "RuntimeError"),
    "cummax-other": ("raises", "RuntimeError"),
    "cummin-same": (
        True,
        (
            ([[0.5, -1.5, -1.5], [1.0, 0.25, -0.75]], "float32", None),
            ([[0, 1, 1], [0, 1, 2]], "int64", None),
        ),
    ),
    "cummin-wider": ("raises", "RuntimeError"),
    "cummin-other": ("raises", "RuntimeError"),
    "sort-same": (
        True,
        (
            ([[-1.5, 0.5, 2.0], [-0.75, 0.25, 1.0]], "float32", None),
            ([[1, 0, 2], [2, 1, 0]], "int64", None),
        ),
    ),
    "sort-wider": ("raises", "RuntimeError"),
    "sort-other": ("raises", "RuntimeError"),
    "topk-same": (
        True,
        (([[2.0, 0.5], [1.0, 0.25]], "float32", None), ([[2, 0], [0, 1]], "int64", None)),
    ),
    "topk-wider": ("raises", "RuntimeError"),
    "topk-other": ("raises", "RuntimeError"),
    "max_dim-same": (True, (([2.0, 1.0], "float32", None), ([2, 0], "int64", None))),
    "max_dim-wider": ("raises", "RuntimeError"),
    "max_dim-other": ("raises", "RuntimeError"),
    "min_dim-same": (True, (([-1.5, -0.75], "float32", None), ([1, 2], "int64", None))),
    "min_dim-wider": ("raises", "RuntimeError"),
    "min_dim-other": ("raises", "RuntimeError"),
    "max-same": (True, (2.0, "float32", None)),
    "max-wider": (True, (2.0, "float64", None)),
    "max-other": ("raises", "RuntimeError"),
    "min-same": (True, (-1.5, "float32", None)),
    "min-wider": (True, (-1.5, "float64", None)),
    "min-other": ("raises", "RuntimeError"),
    "kthvalue-same": (True, (([0.5, 0.25], "float32", None), ([0, 1], "int64", None))),
    "kthvalue-wider": ("raises", "RuntimeError"),
    "kthvalue-other": ("raises", "RuntimeError"),
    "mode-same": (True, (([-1.5, -0.75], "float32", None), ([1, 2], "int64", None))),
    "mode-wider": ("raises", "RuntimeError"),
    "mode-other": ("raises", "RuntimeError"),
    "aminmax-same": (True, ((-1.5, "float32", None), (2.0, "float32", None))),
    "aminmax-wider": ("raises", "RuntimeError"),
    "aminmax-other": ("raises", "RuntimeError"),
    "frexp-same": (
        True,
        (
            ([[0.5, -0.75, 0.5], [0.5, 0.5, -0.75]], "float32", None),
            ([[0, 1, 2], [1, -1, 0]], "int32", None),
        ),
    ),
    "frexp-wider": ("raises", "RuntimeError"),
    "frexp-other": ("raises", "RuntimeError"),
    "tril-same": (True, ([[0.5, 0.0, 0.0], [1.0, 0.25, 0.0]], "float32", None)),
    "tril-wider": ("raises", "RuntimeError"),
    "tril-other": ("raises", "RuntimeError"),
    "triu-same": (True, ([[0.5, -1.5, 2.0], [0.0, 0.25, -0.75]], "float32", None)),
    "triu-wider": ("raises", "RuntimeError"),
    "triu-other": ("raises", "RuntimeError"),
    "diag-same": (True, ([0.5, 0.25], "float32", None)),
    "diag-wider": ("raises", "RuntimeError"),
    "diag-other": ("raises", "RuntimeError"),
    "clip-same": (True, ([[0.5, 0.0, 1.0], [1.0, 0.25, 0.0]], "float32", None)),
    "clip-wider": ("raises", "RuntimeError"),
    "clip-other": ("raises", "RuntimeError"),
    "clamp_min-same": (True, ([[0.5, 0.0, 2.0], [1.0, 0.25, 0.0]], "float32", None)),
    "clamp_min-wider": ("raises", "RuntimeError"),
    "clamp_min-other": ("raises", "RuntimeError"),
    "clamp_max-same": (True, ([[0.0, -1.5, 0.0], [0.0, 0.0, -0.75]], "float32", None)),
    "clamp_max-wider": ("raises", "RuntimeError"),
    "clamp_max-other": ("raises", "RuntimeError"),
    "outer-same": (True, ([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]], "float32", None)),
    "outer-wider": (True, ([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]], "float64", None)),
    "outer-other": ("raises", "RuntimeError"),
    "ger-same": (True, ([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]], "float32", None)),
    "ger-wider": (True, ([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]], "float64", None)),
    "ger-other": ("raises", "RuntimeError"),
    "dot-same": (True, (14.0, "float32", None)),
    "dot-wider": ("raises", "RuntimeError"),
    "dot-other": ("raises", "RuntimeError"),
    "vdot-same": (True, (14.0, "float32", None)),
    "vdot-wider": ("raises", "RuntimeError"),
    "vdot-other": ("raises", "RuntimeError"),
    "inner-same": (True, (14.0, "float32", None)),
    "inner-wider": ("raises", "RuntimeError"),
    "inner-other": ("raises", "RuntimeError"),
    "cross-same": (True, ([7.0, 7.0, -7.0], "float32", None)),
    "cross-wider": ("raises", "RuntimeError"),
    "cross-other": ("raises", "RuntimeError"),
    "mv-same": (True, ([4.0, 7.0], "float32", None)),
    "mv-wider": ("raises", "RuntimeError"),
    "mv-other": ("raises", "RuntimeError"),
    "lerp-same": (True, ([[0.75, -1.0, 1.0], [1.5, 0.5, -0.375]], "float32", None)),
    "lerp-wider": (True, ([[0.75, -1.0, 1.0], [1.5, 0.5, -0.375]], "float64", None)),
    "lerp-other": ("raises", "RuntimeError"),
    "addcmul-same": (True, ([[1.25, -2.25, -2.0], [4.0, 0.5625, -1.3125]], "float32", None)),
    "addcmul-wider": (True, ([[1.25, -2.25, -2.0], [4.0, 0.5625, -1.3125]], "float64", None)),
    "addcmul-other": ("raises", "RuntimeError"),
    "addcdiv-same": (True, ([[0.8333, -4.5, 1.0], [1.3333, 0.45, -1.75]], "float32", None)),
    "addcdiv-wider": (True, ([[0.8333, -4.5, 1.0], [1.3333, 0.45, -1.75]], "float64", None)),
    "addcdiv-other": ("raises", "RuntimeError"),
    "nonzero-same": (True, ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]], "int64", None)),
    "nonzero-wider": ("raises", "RuntimeError"),
    "nonzero-other": ("raises", "RuntimeError"),
    "masked_select-same": (True, ([0.5, 2.0, 1.0, 0.25], "float32", None)),
    "masked_select-wider": ("raises", "RuntimeError"),
    "masked_select-other": ("raises", "RuntimeError"),
    "take_along_dim-same": (True, ([[0.5], [-0.75]], "float32", None)),
    "take_along_dim-wider": ("raises", "RuntimeError"),
    "take_along_dim-other": ("raises", "RuntimeError"),
    "take-same": (True, ([0.5, 0.25], "float32", None)),
    "take-wider": ("raises", "RuntimeError"),
    "take-other": ("raises", "RuntimeError"),
    "searchsorted-same": (True, ([1, 3, 0], "int64", None)),
    "searchsorted-wider": ("raises", "RuntimeError"),
    "searchsorted-other": ("raises", "RuntimeError"),
    "bucketize-same": (True, ([1, 3, 0], "int64", None)),
    "bucketize-wider": ("raises", "RuntimeError"),
    "bucketize-other": ("raises", "RuntimeError"),
    "quantile-same": (True, (0.375, "float32", None)),
    "quantile-wider": ("raises", "RuntimeError"),
    "quantile-other": ("raises", "RuntimeError"),
    "nanquantile-same": (True, (0.375, "float32", None)),
    "nanquantile-wider": ("raises", "RuntimeError"),
    "nanquantile-other": ("raises", "RuntimeError"),
    "cholesky-same": (True, ([[1.4142, 0.0], [0.7071, 1.5811]], "float32", None)),
    "cholesky-wider": (True, ([[1.4142, 0.0], [0.7071, 1.5811]], "float64", None)),
    "cholesky-other": ("raises", "RuntimeError"),
    "cholesky_inverse-same": (True, ([[0.0903, -0.0556], [-0.0556, 0.1111]], "float32", None)),
    "cholesky_inverse-wider": (True, ([[0.0903, -0.0556], [-0.0556, 0.1111]], "float64", None)),
    "cholesky_inverse-other": ("raises", "RuntimeError"),
    "cholesky_solve-same": (True, ([[0.1667], [0.1667]], "float32", None)),
    "cholesky_solve-wider": (True, ([[0.1667], [0.1667]], "float64", None)),
    "cholesky_solve-other": ("raises", "RuntimeError"),
    "inverse-same": (True, ([[0.6, -0.2], [-0.2, 0.4]], "float32", None)),
    "inverse-wider": ("raises", "RuntimeError"),
    "inverse-other": ("raises", "RuntimeError"),
    "matrix_power-same": (True, ([[5.0, 5.0], [5.0, 10.0]], "float32", None)),
    "matrix_power-wider": ("raises", "RuntimeError"),
    "matrix_power-other": ("raises", "RuntimeError"),
    "triangular_solve-same": (
        True,
        (([[0.5], [0.6667]], "float32", None), ([[2.0, 0.0], [1.0, 3.0]], "float32", None)),
    ),
    "triangular_solve-wider": ("raises", "RuntimeError"),
    "triangular_solve-other": ("raises", "RuntimeError"),
    "hstack-same": (
        True,
        ([[0.5, -1.5, 2.0, 1.5, 0.5, -2.0], [1.0, 0.25, -0.75, 3.0, 1.25, 0.75]], "float32", None),
    ),
    "hstack-wider": (
        True,
        ([[0.5, -1.5, 2.0, 1.5, 0.5, -2.0], [1.0, 0.25, -0.75, 3.0, 1.25, 0.75]], "float64", None),
    ),
    "hstack-other": ("raises", "TypeError"),
    "vstack-same": (
        True,
        (
            [[0.5, -1.5, 2.0], [1.0, 0.25, -0.75], [1.5, 0.5, -2.0], [3.0, 1.25, 0.75]],
            "float32",
            None,
        ),
    ),
    "vstack-wider": (
        True,
        (
            [[0.5, -1.5, 2.0], [1.0, 0.25, -0.75], [1.5, 0.5, -2.0], [3.0, 1.25, 0.75]],
            "float64",
            None,
        ),
    ),
    "vstack-other": ("raises", "TypeError"),
    "dstack-same": (
        True,
        (
            [[[0.5, 1.5], [-1.5, 0.5], [2.0, -2.0]], [[1.0, 3.0], [0.25, 1.25], [-0.75, 0.75]]],
            "float32",
            None,
        ),
    ),
    "dstack-wider": (
        True,
        (
            [[[0.5, 1.5], [-1.5, 0.5], [2.0, -2.0]], [[1.0, 3.0], [0.25, 1.25], [-0.75, 0.75]]],
            "float64",
            None,
        ),
    ),
    "dstack-other": ("raises", "TypeError"),
    "column_stack-same": (
        True,
        ([[0.5, -1.5, 2.0, 1.5, 0.5, -2.0], [1.0, 0.25, -0.75, 3.0, 1.25, 0.75]], "float32", None),
    ),
    "column_stack-wider": (
        True,
        ([[0.5, -1.5, 2.0, 1.5, 0.5, -2.0], [1.0, 0.25, -0.75, 3.0, 1.25, 0.75]], "float64", None),
    ),
    "column_stack-other": ("raises", "TypeError"),
    "row_stack-same": (
        True,
        (
            [[0.5, -1.5, 2.0], [1.0, 0.25, -0.75], [1.5, 0.5, -2.0], [3.0, 1.25, 0.75]],
            "float32",
            None,
        ),
    ),
    "row_stack-wider": (
        True,
        (
            [[0.5, -1.5, 2.0], [1.0, 0.25, -0.75], [1.5, 0.5, -2.0], [3.0, 1.25, 0.75]],
            "float64",
            None,
        ),
    ),
    "row_stack-other": ("raises", "TypeError"),
    "concat-same": (
        True,
        (
            [[0.5, -1.5, 2.0], [1.0, 0.25, -0.75], [1.5, 0.5, -2.0], [3.0, 1.25, 0.75]],
            "float32",
            None,
        ),
    ),
    "concat-wider": (
        True,
        (
            [[0.5, -1.5, 2.0], [1.0, 0.25, -0.75], [1.5, 0.5, -2.0], [3.0, 1.25, 0.75]],
            "float64",
            None,
        ),
    ),
    "concat-other": ("raises", "TypeError"),
    "concatenate-same": (
        True,
        (
            [[0.5, -1.5, 2.0], [1.0, 0.25, -0.75], [1.5, 0.5, -2.0], [3.0, 1.25, 0.75]],
            "float32",
            None,
        ),
    ),
    "concatenate-wider": (
        True,
        (
            [[0.5, -1.5, 2.0], [1.0, 0.25, -0.75], [1.5, 0.5, -2.0], [3.0, 1.25, 0.75]],
            "float64",
            None,
        ),
    ),
    "concatenate-other": ("raises", "TypeError"),
    "polygamma-same": (
        True,
        ([[4.9348, 9.3792, 0.6449], [1.6449, 17.1973, 18.9751]], "float32", None),
    ),
    "polygamma-wider": (
        True,
        ([[4.9348, 9.3792, 0.6449], [1.6449, 17.1973, 18.9751]], "float64", None),
    ),
    "polygamma-other": ("raises", "RuntimeError"),
    "mvlgamma-same": (True, ([[4.8179, 2.4665, 1.1447], [9.3177, 4.1736, 2.995]], "float32", None)),
    "mvlgamma-wider": (
        True,
        ([[4.8179, 2.4665, 1.1447], [9.3177, 4.1736, 2.995]], "float64", None),
    ),
    "mvlgamma-other": ("raises", "RuntimeError"),
    "renorm-same": (
        True,
        ([[0.1961, -0.5883, 0.7845], [0.7845, 0.1961, -0.5883]], "float32", None),
    ),
    "renorm-wider": ("raises", "RuntimeError"),
    "renorm-other": ("raises", "RuntimeError"),
    "histc-same": (True, ([2.0, 0.0, 3.0, 1.0], "float32", None)),
    "histc-wider": ("raises", "RuntimeError"),
    "histc-other": ("raises", "RuntimeError"),
    "narrow_copy-same": (True, ([[0.5, -1.5], [1.0, 0.25]], "float32", None)),
    "narrow_copy-wider": ("raises", "RuntimeError"),
    "narrow_copy-other": ("raises", "RuntimeError"),
    "diff-same": (True, ([[-2.0, 3.5], [-0.75, -1.0]], "float32", None)),
    "diff-wider": (True, ([[-2.0, 3.5], [-0.75, -1.0]], "float64", None)),
    "diff-other": ("raises", "RuntimeError"),
    "index_add-same": (True, ([[3.5, -0.25, 2.75], [2.5, 0.75, -2.75]], "float32", None)),
    "index_add-wider": ("raises", "RuntimeError"),
    "index_add-other": ("raises", "RuntimeError"),
    "svd-same": (
        True,
        (
            ([[-0.5257, -0.8507], [-0.8507, 0.5257]], "float32", None),
            ([3.618, 1.382], "float32", None),
            ([[-0.5257, -0.8507], [-0.8507, 0.5257]], "float32", None),
        ),
    ),
    "svd-wider": ("raises", "RuntimeError"),
    "svd-other": ("raises", "RuntimeError"),
    "geqrf-same": (
        True,
        (
            ([[-2.2361, -2.2361], [0.2361, 2.2361]], "float32", None),
            ([1.8944, 0.0], "float32", None),
        ),
    ),
    "geqrf-wider": (
        True,
        (
            ([[-2.2361, -2.2361], [0.2361, 2.2361]], "float64", None),
            ([1.8944, 0.0], "float32", None),
        ),
    ),
    "geqrf-other": ("raises", "RuntimeError"),
    "zeros-same": (True, ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float32", None)),
    "zeros-wider": (True, ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float64", None)),
    "zeros-other": (True, ([[0, 0, 0], [0, 0, 0]], "int64", None)),
    "ones-same": (True, ([1.0, 1.0], "float32", None)),
    "ones-wider": (True, ([1.0, 1.0], "float64", None)),
    "ones-other": (True, ([1, 1], "int64", None)),
    "empty_zero-same": (True, ([], "float32", None)),
    "empty_zero-wider": (True, ([], "float64", None)),
    "empty_zero-other": (True, ([], "int64", None)),
    "full-same": (True, ([1.5, 1.5], "float32", None)),
    "full-wider": (True, ([1.5, 1.5], "float64", None)),
    "full-other": (True, ([1, 1], "int64", None)),
    "eye-same": (True, ([[1.0, 0.0], [0.0, 1.0]], "float32", None)),
    "eye-wider": (True, ([[1.0, 0.0], [0.0, 1.0]], "float64", None)),
    "eye-other": (True, ([[1, 0], [0, 1]], "int64", None)),
    "arange-same": (True, ([0, 1, 2], "int64", None)),
    "arange-wider": (True, ([0.0, 1.0, 2.0], "float32", None)),
    "arange-other": ("raises", "NotImplementedError"),
    "range-same": (True, ([0.0, 1.0, 2.0], "float32", None)),
    "range-wider": (True, ([0.0, 1.0, 2.0], "float64", None)),
    "range-other": (True, ([0, 1, 2], "int64", None)),
    "linspace-same": (True, ([0.0, 0.5, 1.0], "float32", None)),
    "linspace-wider": (True, ([0.0, 0.5, 1.0], "float64", None)),
    "linspace-other": (True, ([0, 0, 1], "int64", None)),
    "logspace-same": (True, ([1.0, 3.1623, 10.0], "float32", None)),
    "logspace-wider": (True, ([1.0, 3.1623, 10.0], "float64", None)),
    "logspace-other": (True, ([1, 3, 10], "int64", None)),
    "special.airy_ai-same": (
        True,
        ([[0.2912, 0.2317, 0.1793], [0.3228, 0.1562, 0.2045]], "float32", None),
    ),
    "special.airy_ai-wider": (
        True,
        ([[0.2912, 0.2317, 0.1793], [0.3228, 0.1562, 0.2045]], "float64", None),
    ),
    "special.airy_ai-other": ("raises", "RuntimeError"),
    "special.bessel_j0-same": (
        True,
        ([[0.9844, 0.9385, 0.8642], [0.9961, 0.8176, 0.9047]], "float32", None),
    ),
    "special.bessel_j0-wider": (
        True,
        ([[0.9844, 0.9385, 0.8642], [0.9961, 0.8176, 0.9047]], "float64", None),
    ),
    "special.bessel_j0-other": ("raises", "RuntimeError"),
    "special.bessel_j1-same": (
        True,
        ([[0.124, 0.2423, 0.3492], [0.0624, 0.3969, 0.2975]], "float32", None),
    ),
    "special.bessel_j1-wider": (
        True,
        ([[0.124, 0.2423, 0.3492], [0.0624, 0.3969, 0.2975]], "float64", None),
    ),
    "special.bessel_j1-other": ("raises", "RuntimeError"),
    "special.bessel_y0-same": (
        True,
        ([[-0.9316, -0.4445, -0.1372], [-1.3897, -0.0165, -0.2775]], "float32", None),
    ),
    "special.bessel_y0-wider": (
        True,
        ([[-0.9316, -0.4445, -0.1372], [-1.3897, -0.0165, -0.2775]], "float64", None),
    ),
    "special.bessel_y0-other": ("raises", "RuntimeError"),
    "special.bessel_y1-same": (
        True,
        ([[-2.7041, -1.4715, -1.0376], [-5.1999, -0.8979, -1.2172]], "float32", None),
    ),
    "special.bessel_y1-wider": (
        True,
        ([[-2.7041, -1.4715, -1.0376], [-5.1999, -0.8979, -1.2172]], "float64", None),
    ),
    "special.bessel_y1-other": ("raises", "RuntimeError"),
    "special.digamma-same": (
        True,
        ([[-4.2275, -1.9635, -1.0859], [-8.3885, -0.804, -1.4527]], "float32", None),
    ),
    "special.digamma-wider": (
        True,
        ([[-4.2275, -1.9635, -1.0859], [-8.3885, -0.804, -1.4527]], "float64", None),
    ),
    "special.digamma-other": ("raises", "RuntimeError"),
    "special.entr-same": (
        True,
        ([[0.3466, 0.3466, 0.2158], [0.2599, 0.1168, 0.2938]], "float32", None),
    ),
    "special.entr-wider": (
        True,
        ([[0.3466, 0.3466, 0.2158], [0.2599, 0.1168, 0.2938]], "float64", None),
    ),
    "special.entr-other": ("raises", "RuntimeError"),
    "special.erf-same": (
        True,
        ([[0.2763, 0.5205, 0.7112], [0.1403, 0.7841, 0.6232]], "float32", None),
    ),
    "special.erf-wider": (
        True,
        ([[0.2763, 0.5205, 0.7112], [0.1403, 0.7841, 0.6232]], "float64", None),
    ),
    "special.erf-other": ("raises", "RuntimeError"),
    "special.erfc-same": (
        True,
        ([[0.7237, 0.4795, 0.2888], [0.8597, 0.2159, 0.3768]], "float32", None),
    ),
    "special.erfc-wider": (
        True,
        ([[0.7237, 0.4795, 0.2888], [0.8597, 0.2159, 0.3768]], "float64", None),
    ),
    "special.erfc-other": ("raises", "RuntimeError"),
    "special.erfcx-same": (
        True,
        ([[0.7703, 0.6157, 0.5069], [0.8732, 0.4643, 0.5568]], "float32", None),
    ),
    "special.erfcx-wider": (
        True,
        ([[0.7703, 0.6157, 0.5069], [0.8732, 0.4643, 0.5568]], "float64", None),
    ),
    "special.erfcx-other": ("raises", "RuntimeError"),
    "special.erfinv-same": (
        True,
        ([[0.2253, 0.4769, 0.8134], [0.1112, 1.0848, 0.6273]], "float32", None),
    ),
    "special.erfinv-wider": (
        True,
        ([[0.2253, 0.4769, 0.8134], [0.1112, 1.0848, 0.6273]], "float64", None),
    ),
    "special.erfinv-other": ("raises", "RuntimeError"),
    "special.exp2-same": (
        True,
        ([[1.1892, 1.4142, 1.6818], [1.0905, 1.834, 1.5422]], "float32", None),
    ),
    "special.exp2-wider": (
        True,
        ([[1.1892, 1.4142, 1.6818], [1.0905, 1.834, 1.5422]], "float64", None),
    ),
    "special.exp2-other": ("raises", "RuntimeError"),
    "special.expit-same": (
        True,
        ([[0.5622, 0.6225, 0.6792], [0.5312, 0.7058, 0.6514]], "float32", None),
    ),
    "special.expit-wider": (
        True,
        ([[0.5622, 0.6225, 0.6792], [0.5312, 0.7058, 0.6514]], "float64", None),
    ),
    "special.expit-other": ("raises", "RuntimeError"),
    "special.expm1-same": (
        True,
        ([[0.284, 0.6487, 1.117], [0.1331, 1.3989, 0.8682]], "float32", None),
    ),
    "special.expm1-wider": (
        True,
        ([[0.284, 0.6487, 1.117], [0.1331, 1.3989, 0.8682]], "float64", None),
    ),
    "special.expm1-other": ("raises", "RuntimeError"),
    "special.gammaln-same": (
        True,
        ([[1.288, 0.5724, 0.2033], [2.0194, 0.0859, 0.3608]], "float32", None),
    ),
    "special.gammaln-wider": (
        True,
        ([[1.288, 0.5724, 0.2033], [2.0194, 0.0859, 0.3608]], "float64", None),
    ),
    "special.gammaln-other": ("raises", "RuntimeError"),
    "special.i0-same": (
        True,
        ([[1.0157, 1.0635, 1.1456], [1.0039, 1.2008, 1.1001]], "float32", None),
    ),
    "special.i0-wider": (
        True,
        ([[1.0157, 1.0635, 1.1456], [1.0039, 1.2008, 1.1001]], "float64", None),
    ),
    "special.i0-other": ("raises", "RuntimeError"),
    "special.i0e-same": (
        True,
        ([[0.791, 0.645, 0.5412], [0.8859, 0.5006, 0.5888]], "float32", None),
    ),
    "special.i0e-wider": (
        True,
        ([[0.791, 0.645, 0.5412], [0.8859, 0.5006, 0.5888]], "float64", None),
    ),
    "special.i0e-other": ("raises", "RuntimeError"),
    "special.i1-same": (True, ([[0.126, 0.2579, 0.402], [0.0626, 0.4807, 0.328]], "float32", None)),
    "special.i1-wider": (
        True,
        ([[0.126, 0.2579, 0.402], [0.0626, 0.4807, 0.328]], "float64", None),
    ),
    "special.i1-other": ("raises", "RuntimeError"),
    "special.i1e-same": (
        True,
        ([[0.0981, 0.1564, 0.1899], [0.0553, 0.2004, 0.1756]], "float32", None),
    ),
    "special.i1e-wider": (
        True,
        ([[0.0981, 0.1564, 0.1899], [0.0553, 0.2004, 0.1756]], "float64", None),
    ),
    "special.i1e-other": ("raises", "RuntimeError"),
    "special.log1p-same": (
        True,
        ([[0.2231, 0.4055, 0.5596], [0.1178, 0.6286, 0.4855]], "float32", None),
    ),
    "special.log1p-wider": (
        True,
        ([[0.2231, 0.4055, 0.5596], [0.1178, 0.6286, 0.4855]], "float64", None),
    ),
    "special.log1p-other": ("raises", "RuntimeError"),
    "special.log_ndtr-same": (
        True,
        ([[-0.513, -0.3689, -0.257], [-0.5983, -0.2117, -0.3092]], "float32", None),
    ),
    "special.log_ndtr-wider": (
        True,
        ([[-0.513, -0.3689, -0.257], [-0.5983, -0.2117, -0.3092]], "float64", None),
    ),
    "special.log_ndtr-other": ("raises", "RuntimeError"),
    "special.logit-same": (
        True,
        ([[-1.0986, 0.0, 1.0986], [-1.9459, 1.9459, 0.5108]], "float32", None),
    ),
    "special.logit-wider": (
        True,
        ([[-1.0986, 0.0, 1.0986], [-1.9459, 1.9459, 0.5108]], "float64", None),
    ),
    "special.logit-other": ("raises", "RuntimeError"),
    "special.modified_bessel_i0-same": (
        True,
        ([[1.0157, 1.0635, 1.1456], [1.0039, 1.2008, 1.1001]], "float32", None),
    ),
    "special.modified_bessel_i0-wider": (
        True,
        ([[1.0157, 1.0635, 1.1456], [1.0039, 1.2008, 1.1001]], "float64", None),
    ),
    "special.modified_bessel_i0-other": ("raises", "RuntimeError"),
    "special.modified_bessel_i1-same": (
        True,
        ([[0.126, 0.2579, 0.402], [0.0626, 0.4807, 0.328]], "float32", None),
    ),
    "special.modified_bessel_i1-wider": (
        True,
        ([[0.126, 0.2579, 0.402], [0.0626, 0.4807, 0.328]], "float64", None),
    ),
    "special.modified_bessel_i1-other": ("raises", "RuntimeError"),
    "special.modified_bessel_k0-same": (
        True,
        ([[1.5415, 0.9244, 0.6106], [2.2079, 0.5051, 0.7458]], "float32", None),
    ),
    "special.modified_bessel_k0-wider": (
        True,
        ([[1.5415, 0.9244, 0.6106], [2.2079, 0.5051, 0.7458]], "float64", None),
    ),
    "special.modified_bessel_k0-other": ("raises", "RuntimeError"),
    "special.modified_bessel_k1-same": (
        True,
        ([[3.747, 1.6564, 0.9496], [7.8311, 0.7496, 1.2321]], "float32", None),
    ),
    "special.modified_bessel_k1-wider": (
        True,
        ([[3.747, 1.6564, 0.9496], [7.8311, 0.7496, 1.2321]], "float64", None),
    ),
    "special.modified_bessel_k1-other": ("raises", "RuntimeError"),
    "special.ndtr-same": (
        True,
        ([[0.5987, 0.6915, 0.7734], [0.5497, 0.8092, 0.734]], "float32", None),
    ),
    "special.ndtr-wider": (
        True,
        ([[0.5987, 0.6915, 0.7734], [0.5497, 0.8092, 0.734]], "float64", None),
    ),
    "special.ndtr-other": ("raises", "RuntimeError"),
    "special.ndtri-same": (
        True,
        ([[-0.6745, 0.0, 0.6745], [-1.1503, 1.1503, 0.3186]], "float32", None),
    ),
    "special.ndtri-wider": (
        True,
        ([[-0.6745, 0.0, 0.6745], [-1.1503, 1.1503, 0.3186]], "float64", None),
    ),
    "special.ndtri-other": ("raises", "RuntimeError"),
    "special.psi-same": (
        True,
        ([[-4.2275, -1.9635, -1.0859], [-8.3885, -0.804, -1.4527]], "float32", None),
    ),
    "special.psi-wider": (
        True,
        ([[-4.2275, -1.9635, -1.0859], [-8.3885, -0.804, -1.4527]], "float64", None),
    ),
    "special.psi-other": ("raises", "RuntimeError"),
    "special.round-same": (True, ([[0.0, 0.0, 1.0], [0.0, 1.0, 1.0]], "float32", None)),
    "special.round-wider": ("raises", "RuntimeError"),
    "special.round-other": ("raises", "RuntimeError"),
    "special.scaled_modified_bessel_k0-same": (
        True,
        ([[1.9793, 1.5241, 1.2926], [2.5018, 1.2116, 1.3934]], "float32", None),
    ),
    "special.scaled_modified_bessel_k0-wider": (
        True,
        ([[1.9793, 1.5241, 1.2926], [2.5018, 1.2116, 1.3934]], "float64", None),
    ),
    "special.scaled_modified_bessel_k0-other": ("raises", "RuntimeError"),
    "special.scaled_modified_bessel_k1-same": (
        True,
        ([[4.8113, 2.731, 2.0103], [8.8738, 1.7981, 2.3018]], "float32", None),
    ),
    "special.scaled_modified_bessel_k1-wider": (
        True,
        ([[4.8113, 2.731, 2.0103], [8.8738, 1.7981, 2.3018]], "float64", None),
    ),
    "special.scaled_modified_bessel_k1-other": ("raises", "RuntimeError"),
    "special.sinc-same": (
        True,
        ([[0.9003, 0.6366, 0.3001], [0.9745, 0.1392, 0.4705]], "float32", None),
    ),
    "special.sinc-wider": (
        True,
        ([[0.9003, 0.6366, 0.3001], [0.9745, 0.1392, 0.4705]], "float64", None),
    ),
    "special.sinc-other": ("raises", "RuntimeError"),
    "special.spherical_bessel_j0-same": (
        True,
        ([[0.9896, 0.9589, 0.9089], [0.9974, 0.8772, 0.9362]], "float32", None),
    ),
    "special.spherical_bessel_j0-wider": (
        True,
        ([[0.9896, 0.9589, 0.9089], [0.9974, 0.8772, 0.9362]], "float64", None),
    ),
    "special.spherical_bessel_j0-other": ("raises", "RuntimeError"),
    "special.xlogy-same": (
        True,
        ([[-0.5199, -0.0668, -0.3525], [-0.1733, -0.6065, -0.1798]], "float32", None),
    ),
    "special.xlogy-wider": (
        True,
        ([[-0.5199, -0.0668, -0.3525], [-0.1733, -0.6065, -0.1798]], "float64", None),
    ),
    "special.xlogy-other": ("raises", "RuntimeError"),
    "special.xlog1py-same": (
        True,
        ([[0.0294, 0.3143, 0.3641], [0.0279, 0.3548, 0.3498]], "float32", None),
    ),
    "special.xlog1py-wider": (
        True,
        ([[0.0294, 0.3143, 0.3641], [0.0279, 0.3548, 0.3498]], "float64", None),
    ),
    "special.xlog1py-other": ("raises", "RuntimeError"),
    "special.zeta-same": (True, ([["nan", "nan", "nan"], ["nan", "nan", "nan"]], "float32", None)),
    "special.zeta-wider": (True, ([["nan", "nan", "nan"], ["nan", "nan", "nan"]], "float64", None)),
    "special.zeta-other": ("raises", "RuntimeError"),
    "special.gammainc-same": (
        True,
        ([[0.6402, 0.8141, 0.5952], [0.8697, 0.4578, 0.7156]], "float32", None),
    ),
    "special.gammainc-wider": (
        True,
        ([[0.6402, 0.8141, 0.5952], [0.8697, 0.4578, 0.7156]], "float64", None),
    ),
    "special.gammainc-other": ("raises", "RuntimeError"),
    "special.gammaincc-same": (
        True,
        ([[0.3598, 0.1859, 0.4048], [0.1303, 0.5422, 0.2844]], "float32", None),
    ),
    "special.gammaincc-wider": (
        True,
        ([[0.3598, 0.1859, 0.4048], [0.1303, 0.5422, 0.2844]], "float64", None),
    ),
    "special.gammaincc-other": ("raises", "RuntimeError"),
}

CASES = {name: (fn, EXPECTED[name]) for name, fn in _CALLS.items()}
test_symgrad, test_table_is_pytorchs = table_tests(CASES)


def test_every_case_has_an_expectation():
    assert set(EXPECTED) == set(_CALLS)


def _named_out_results(T):
    x = T.tensor([[3.0, 1.0, 2.0]])
    sort = T.sort(x, 1, out=(T.empty(0), T.empty(0, dtype=T.long)))
    most = T.max(x, 1, out=(T.empty(0), T.empty(0, dtype=T.long)))
    both = T.aminmax(x, out=(T.empty(0), T.empty(0)))
    return [type(r).__name__ for r in (sort, most, both)], [
        repr(r).split("(")[0] for r in (sort, most, both)
    ]


def test_named_results_are_pytorchs_out_types():
    import symgrad

    names, printed = _named_out_results(symgrad)
    assert names == ["sort_out", "max_out", "aminmax_out"]
    assert printed == [f"symgrad.return_types.{n}" for n in names]


@pytest.mark.torch
def test_pytorchs_named_results_are_out_types():
    torch = pytest.importorskip("torch")
    names, printed = _named_out_results(torch)
    assert names == ["sort_out", "max_out", "aminmax_out"]
    assert printed == [f"torch.return_types.{n}" for n in names]


def test_the_resize_warning_points_at_the_caller():
    import symgrad

    x = symgrad.ones(2, 2)
    with pytest.warns(UserWarning, match="was resized") as caught:
        symgrad.atan2(x, x, out=symgrad.empty(3))
        symgrad.max(x, axis=1, out=(symgrad.empty(0), symgrad.empty(3, dtype=symgrad.long)))
    assert [w.filename for w in caught] == [__file__, __file__]
