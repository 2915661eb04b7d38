"""The standard normal distribution's functions of ``torch.special`` (and its ``round``):
``log_ndtr`` finite far into the lower tail (it underflowed to ``-inf`` below -38), ``ndtri``
accurate for the smallest probabilities (it gave ``-inf`` below about 1e-17) and near one
half, each one node as PyTorch records it (``SpecialLogNdtrBackward0``,
``SpecialNdtriBackward0``, ``SpecialEntrBackward0``), ``ndtr`` composed as PyTorch composes
it, and ``lgamma`` of subnormal numbers.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values to 10 significant digits here); the table holds the expected data, checked for
symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

from _torch_table import plain, table_tests


def _digits(n):
    """A float to ``n`` significant digits (nan as "nan", -0.0 as 0.0)."""
    return lambda v: "nan" if v != v else float(f"{v:.{n}g}") + 0.0


def _plain(fn, digits=10):
    """``fn``'s result as plain data, floats to ``digits`` significant digits (float32's
    results to 4: PyTorch computes them in float32, symgrad in float64 then rounds, and the
    gradients' formulas amplify the last bit of the results in the tails)."""
    return lambda T: plain(fn(T), _digits(digits))


def _graph(node):
    """The node names of a graph, depth first."""
    if node is None:
        return []
    return [type(node).__name__, *[n for nxt, _ in node.next_functions for n in _graph(nxt)]]


def _values(name, values, dtype="float64"):
    def case(T):
        x = T.tensor(values, dtype=getattr(T, dtype), requires_grad=True)
        y = getattr(T.special, name)(x)
        y.sum().backward()
        return y, x.grad, _graph(y.grad_fn)

    return _plain(case, 10 if dtype == "float64" else 4)


LOW = [-1e5, -40.0, -38.5, -20.0, -1.5, -1.0, -0.5, 0.0, 2.0, 10.0, 30.0]
PROBABILITIES = [5e-324, 1e-300, 1e-20, 1e-5, 0.25, 0.4999, 0.5, 0.75, 0.98, 1 - 1e-10, 1 - 1e-16]
INF, NAN = float("inf"), float("nan")
CASES = {
    "log_ndtr": (
        _values("log_ndtr", LOW),
        (
            (
                (
                    -5000000012.0,
                    -804.608442,
                    -745.6952703,
                    -203.9171554,
                    -2.705944401,
                    -1.841021645,
                    -1.175911762,
                    -0.6931471806,
                    -0.02301290933,
                    -7.619853024e-24,
                    -4.906713927e-198,
                ),
                "float64",
                "SpecialLogNdtrBackward0",
            ),
            (
                (
                    100000.074,
                    40.02496885,
                    38.5259391,
                    20.04975307,
                    1.938677167,
                    1.525135276,
                    1.14107777,
                    0.7978845608,
                    0.05524786268,
                    7.694598627e-23,
                    1.473646135e-196,
                ),
                "float64",
                None,
            ),
            ("SpecialLogNdtrBackward0", "AccumulateGrad"),
        ),
    ),
    "log_ndtr_float32": (
        _values("log_ndtr", [-30.0, -5.0, -1.0, 0.0, 2.0, 10.0], "float32"),
        (
            (
                (-454.3, -15.06, -1.841, -0.6931, -0.02301, -7.62e-24),
                "float32",
                "SpecialLogNdtrBackward0",
            ),
            ((30.03, 5.187, 1.525, 0.7979, 0.05525, 7.695e-23), "float32", None),
            ("SpecialLogNdtrBackward0", "AccumulateGrad"),
        ),
    ),
    "log_ndtr_edges": (
        _plain(lambda T: T.special.log_ndtr(T.tensor([-INF, INF, NAN]))),
        ((-INF, 0.0, "nan"), "float32", None),
    ),
    "ndtri": (
        _values("ndtri", PROBABILITIES),
        (
            (
                (
                    -38.46740562,
                    -37.0470963,
                    -9.26234009,
                    -4.264890794,
                    -0.6744897502,
                    -0.0002506628301,
                    0.0,
                    0.6744897502,
                    2.053748911,
                    6.36134089,
                    8.209536152,
                ),
                "float64",
                "SpecialNdtriBackward0",
            ),
            (
                (
                    INF,
                    2.697304465e298,
                    1.067472533e19,
                    22327.74323,
                    3.146865081,
                    2.506628353,
                    2.506628275,
                    3.146865081,
                    20.65341802,
                    1535723574.0,
                    1081559575000000.0,
                ),
                "float64",
                None,
            ),
            ("SpecialNdtriBackward0", "AccumulateGrad"),
        ),
    ),
    "ndtri_float32": (
        _values("ndtri", [1e-30, 1e-5, 0.3, 0.5, 0.9], "float32"),
        (
            ((-11.46, -4.265, -0.5244, 0.0, 1.282), "float32", "SpecialNdtriBackward0"),
            ((8.658e28, 22330.0, 2.876, 2.507, 5.698), "float32", None),
            ("SpecialNdtriBackward0", "AccumulateGrad"),
        ),
    ),
    "ndtri_edges": (
        _plain(lambda T: T.special.ndtri(T.tensor([0.0, 1.0, -0.5, 1.5, NAN]))),
        ((-INF, INF, "nan", "nan", "nan"), "float32", None),
    ),
    "entr": (
        _values("entr", [0.0, 0.25, 1.0, 3.0]),
        (
            ((0.0, 0.3465735903, 0.0, -3.295836866), "float64", "SpecialEntrBackward0"),
            ((INF, 0.3862943611, -1.0, -2.098612289), "float64", None),
            ("SpecialEntrBackward0", "AccumulateGrad"),
        ),
    ),
    "entr_negative": (
        _plain(lambda T: T.special.entr(T.tensor([-1.0, INF, NAN]))),
        ((-INF, -INF, "nan"), "float32", None),
    ),
    "ndtr": (
        _values("ndtr", [-5.0, 0.0, 1.0, 5.0]),
        (
            ((2.866515719e-07, 0.5, 0.8413447461, 0.9999997133), "float64", "MulBackward1"),
            ((1.486719515e-06, 0.3989422804, 0.2419707245, 1.486719515e-06), "float64", None),
            ("MulBackward1", "AddBackward1", "ErfBackward0", "MulBackward1", "AccumulateGrad"),
        ),
    ),
    "ndtr_int": (
        _plain(lambda T: T.special.ndtr(T.tensor([0, 1, -2])), 4),
        ((0.5, 0.8413, 0.02275), "float32", None),
    ),
    "log_ndtr_int": (
        _plain(lambda T: T.special.log_ndtr(T.tensor([0, -40])), 4),
        ((-0.6931, -804.6), "float32", None),
    ),
    "lgamma_subnormal": (
        _plain(lambda T: T.lgamma(T.tensor([1e-320, -1e-320, 1e-310, 1e-300], dtype=T.float64))),
        ((736.8272409, 736.8272409, 713.8013788, 690.7755279), "float64", None),
    ),
}
# torch.special.round is the overload with decimals, even for 0
CASES["special_round"] = (
    lambda T: T.special.round(T.tensor([1.26, 2.5, -0.5], requires_grad=True)),
    ([1.0, 2.0, 0.0], "float32", "RoundBackward1"),
)
CASES["special_round_decimals"] = (
    lambda T: T.special.round(T.tensor([1.26, 2.5]), decimals=1),
    ([1.3, 2.5], "float32", None),
)
CASES["special_round_int"] = (
    lambda T: T.special.round(T.tensor([1, 2])),
    ("raises", "NotImplementedError"),
)
test_symgrad, test_table_is_pytorchs = table_tests(CASES)
