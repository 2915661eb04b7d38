"""``nn.utils.parametrize``: a parameter computed from ``parametrizations.<name>.original``.

Each scenario takes the library as ``T`` and returns plain values: the test checks them
against the values written here, and, when PyTorch imports, PyTorch's against the same."""

from __future__ import annotations

import copy
import pickle

import pytest

import symgrad

LIBRARIES = ["symgrad", pytest.param("torch", marks=pytest.mark.torch)]


def library(name: str):
    return symgrad if name == "symgrad" else pytest.importorskip("torch")


def failure(fn) -> tuple:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return type(exc).__name__, str(exc)[:50]
    return ("no error", "")


def classes(T):
    """Parametrizations of the library's nn.Module."""
    nn = T.nn

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu(1)

    class Scaled(nn.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor

        def forward(self, X):
            return X * self.factor

        def right_inverse(self, A):
            return A / self.factor

    class Counting(nn.Module):
        calls = 0

        def forward(self, X):
            Counting.calls += 1
            return X + 0

    class Split(nn.Module):
        def forward(self, a, b):
            return a + b

        def right_inverse(self, A):
            return A / 2, A / 2

    class Flatten(nn.Module):
        def forward(self, X):
            return X.reshape(-1)

    return Symmetric, Skew, Scaled, Counting, Split, Flatten


def layer(T, values=((1.0, 2.0), (3.0, 4.0))):
    lin = T.nn.Linear(2, 2).double()
    with T.no_grad():
        lin.weight.copy_(T.tensor(values, dtype=T.float64))
        lin.bias.zero_()
    return lin


def symmetric_weight(T):
    Symmetric, *_ = classes(T)
    lin = layer(T)
    weight = lin.weight
    T.nn.utils.parametrize.register_parametrization(lin, "weight", Symmetric())
    out = lin(T.tensor([[1.0, 1.0]], dtype=T.float64))
    out.sum().backward()
    original = lin.parametrizations.weight.original
    return [
        type(lin).__name__,
        lin.weight.tolist(),
        original is weight,
        original.grad.tolist(),
        [n for n, _ in lin.named_parameters()],
        list(lin.state_dict()),
        repr(lin).replace("float64", "").splitlines()[1:],
    ]


def assignment_goes_through_right_inverse(T):
    _, Skew, Scaled, *_ = classes(T)
    lin = layer(T)
    parametrize = T.nn.utils.parametrize
    parametrize.register_parametrization(lin, "weight", Skew())
    after_skew = lin.parametrizations.weight.original.tolist()
    parametrize.register_parametrization(lin, "weight", Scaled(2.0))
    lin.weight = T.tensor([[0.0, 3.0], [-3.0, 0.0]], dtype=T.float64)
    return after_skew, lin.weight.tolist(), lin.parametrizations.weight.original.tolist()


def chained_forward(T):
    Symmetric, _, Scaled, *_ = classes(T)
    lin = layer(T)
    parametrize = T.nn.utils.parametrize
    parametrize.register_parametrization(lin, "weight", Symmetric())
    parametrize.register_parametrization(lin, "weight", Scaled(10.0))
    chain = lin.parametrizations.weight
    return lin.weight.tolist(), len(chain), [type(m).__name__ for m in chain]


def cached_computes_once(T):
    *_, Counting, _, _ = classes(T)
    lin = layer(T)
    T.nn.utils.parametrize.register_parametrization(lin, "weight", Counting())
    Counting.calls = 0
    reads = [lin.weight, lin.weight]
    plain = Counting.calls
    with T.nn.utils.parametrize.cached():
        same = lin.weight is lin.weight
        reads.append(lin.weight)
    return plain, Counting.calls - plain, same


def remove_leaving_parametrized(T):
    Symmetric, *_ = classes(T)
    out = []
    for leave in (True, False):
        lin = layer(T)
        weight = lin.weight
        parametrize = T.nn.utils.parametrize
        parametrize.register_parametrization(lin, "weight", Symmetric())
        parametrize.remove_parametrizations(lin, "weight", leave_parametrized=leave)
        out.append(
            [
                type(lin).__name__,
                lin.weight is weight,
                lin.weight.tolist(),
                hasattr(lin, "parametrizations"),
                [n for n, _ in lin.named_parameters()],
            ]
        )
    return out


def buffers_and_several_originals(T):
    *_, Split, _ = classes(T)
    bn = T.nn.BatchNorm1d(2)
    parametrize = T.nn.utils.parametrize
    parametrize.register_parametrization(bn, "running_mean", classes(T)[2](3.0))
    lin = layer(T)
    parametrize.register_parametrization(lin, "weight", Split())
    chain = lin.parametrizations.weight
    return [
        [n for n, _ in bn.named_buffers()],
        bn.running_mean.tolist(),
        chain.original0.tolist(),
        lin.weight.tolist(),
        failure(lambda: parametrize.remove_parametrizations(lin, "weight", False))[0],
    ]


def is_parametrized_and_type_before(T):
    Symmetric, *_ = classes(T)
    lin = layer(T)
    parametrize = T.nn.utils.parametrize
    before = parametrize.is_parametrized(lin)
    parametrize.register_parametrization(lin, "weight", Symmetric())
    return [
        before,
        parametrize.is_parametrized(lin),
        parametrize.is_parametrized(lin, "weight"),
        parametrize.is_parametrized(lin, "bias"),
        parametrize.type_before_parametrizations(lin).__name__,
    ]


def refused(T):
    Symmetric, *_, Flatten = classes(T)
    parametrize = T.nn.utils.parametrize
    lin = layer(T)
    no_such = failure(lambda: parametrize.register_parametrization(lin, "nothing", Symmetric()))
    shape = failure(lambda: parametrize.register_parametrization(layer(T), "weight", Flatten()))
    unsafe = layer(T)
    parametrize.register_parametrization(unsafe, "weight", Flatten(), unsafe=True)
    parametrize.register_parametrization(lin, "weight", Symmetric())
    no_inverse = failure(lambda: setattr(lin, "weight", T.zeros(2, 2, dtype=T.float64)))
    not_parametrized = failure(lambda: parametrize.remove_parametrizations(lin, "bias"))
    return [
        no_such,
        shape[0],
        list(unsafe.weight.shape),
        no_inverse,
        not_parametrized[0],
    ]


EXPECTED = {
    symmetric_weight: [
        "ParametrizedLinear",
        [[1.0, 2.0], [2.0, 4.0]],
        True,
        [[1.0, 2.0], [0.0, 1.0]],
        ["bias", "parametrizations.weight.original"],
        ["bias", "parametrizations.weight.original"],
        [
            "  in_features=2, out_features=2, bias=True",
            "  (parametrizations): ModuleDict(",
            "    (weight): ParametrizationList(",
            "      (0): Symmetric()",
            "    )",
            "  )",
            ")",
        ],
    ],
    assignment_goes_through_right_inverse: (
        [[0.0, 2.0], [0.0, 0.0]],
        [[0.0, 3.0], [-3.0, 0.0]],
        [[0.0, 1.5], [0.0, 0.0]],
    ),
    chained_forward: ([[10.0, 20.0], [20.0, 40.0]], 2, ["Symmetric", "Scaled"]),
    cached_computes_once: (2, 1, True),
    remove_leaving_parametrized: [
        ["Linear", True, [[1.0, 2.0], [2.0, 4.0]], False, ["bias", "weight"]],
        ["Linear", True, [[1.0, 2.0], [3.0, 4.0]], False, ["bias", "weight"]],
    ],
    buffers_and_several_originals: [
        ["running_var", "num_batches_tracked", "parametrizations.running_mean.original"],
        [0.0, 0.0],
        [[0.5, 1.0], [1.5, 2.0]],
        [[1.0, 2.0], [3.0, 4.0]],
        "ValueError",
    ],
    is_parametrized_and_type_before: [False, True, True, False, "Linear"],
    refused: [
        ("ValueError", "Module 'Linear(in_features=2, out_features=2, bias"),
        "ValueError",
        [4],
        ("RuntimeError", "parametrization Symmetric does not implement right"),
        "ValueError",
    ],
}


@pytest.mark.parametrize("name", LIBRARIES)
@pytest.mark.parametrize("scenario", list(EXPECTED), ids=lambda f: f.__name__)
def test_scenario(scenario, name):
    assert scenario(library(name)) == EXPECTED[scenario]


def test_parametrized_modules_deepcopy_but_do_not_pickle():
    Symmetric, *_ = classes(symgrad)
    lin = layer(symgrad)
    symgrad.nn.utils.parametrize.register_parametrization(lin, "weight", Symmetric())
    twin = copy.deepcopy(lin)
    assert type(twin) is type(lin)
    assert twin.parametrizations.weight.original is not lin.parametrizations.weight.original
    assert twin.weight.tolist() == lin.weight.tolist()
    with pytest.raises(RuntimeError, match="state_dict"):
        pickle.dumps(lin)


def test_each_parametrized_module_has_a_class_of_its_own():
    Symmetric, *_ = classes(symgrad)
    a, b = layer(symgrad), layer(symgrad)
    symgrad.nn.utils.parametrize.register_parametrization(a, "weight", Symmetric())
    assert type(b).__name__ == "Linear" and not hasattr(type(b), "weight")
    assert isinstance(a, symgrad.nn.Linear)
