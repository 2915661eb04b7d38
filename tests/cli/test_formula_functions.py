"""The functions a formula may call agree with the op registry.

Every parameter-free element-wise primitive of one or two inputs that symgrad offers by its own
name is callable in a formula, with the meaning of that function; names that are not ops are
refused with the "unknown function" error, whatever the package happens to hold.
"""

from __future__ import annotations

import pytest

import symgrad
from symgrad import ops
from symgrad.cli._functions import EXTRAS, OPERATOR_OPS
from symgrad.cli.formula import FUNCTIONS, FormulaError, parse
from symgrad.ops import REGISTRY

# the functions formulas could call before the list was derived from the registry
BEFORE = {
    **dict.fromkeys(
        "exp log log1p expm1 sqrt rsqrt abs sin cos tan tanh sigmoid relu softplus erf gelu "
        "square reciprocal sign".split(),
        1,
    ),
    "pow": 2,
    "maximum": 2,
    "minimum": 2,
}
CALLABLE = [
    name
    for name, prim in REGISTRY.items()
    if len(prim.inputs) in (1, 2)
    and not prim.params
    and name in ops.__all__
    and name not in OPERATOR_OPS
]
NOT_CALLABLE = [
    name
    for name, prim in REGISTRY.items()
    if name not in EXTRAS and (prim.params or len(prim.inputs) > 2 or name not in ops.__all__)
]
NOT_OPS = [
    "tensor",
    "Tensor",
    "getattr",
    "eval",
    "exec",
    "open",
    "print",
    "type",
    "zeros",
    "float64",
    "no_grad",
    "nn",
    "ops",
    "symbolic",
    "REGISTRY",
    "grad",
    "backward",
    "sum",
    "mean",
    "matmul",
    "log_softmax",  # not element-wise
    "fix",  # trunc under another name: formulas use the registry's name
]


def _unknown(name: str) -> str:
    return f'unknown function "{name}" at column 1 (known: {", ".join(sorted(FUNCTIONS))})'


def _call(name: str, arity: int) -> str:
    return f"{name}({', '.join('ab'[:arity])})"


def test_the_functions_allowed_before_are_allowed_with_the_same_arity():
    assert {name: FUNCTIONS.get(name) for name in BEFORE} == BEFORE


@pytest.mark.parametrize("name", CALLABLE)
def test_registry_ops_offered_by_name_are_formula_functions(name):
    arity = len(REGISTRY[name].inputs)
    assert FUNCTIONS[name] == arity
    assert parse(_call(name, arity)).names == ("a", "b")[:arity]


def test_every_formula_function_is_a_registry_op_or_declared():
    for name in FUNCTIONS:
        assert name in CALLABLE or name in EXTRAS, name
        assert callable(getattr(symgrad, name))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("at", [(0.7, 1.3), (1.6, -0.4)])
def test_a_formula_function_means_the_symgrad_function(name, at):
    arity = FUNCTIONS[name]
    values = dict(zip("ab", at[:arity]))
    out, leaves = parse(_call(name, arity)).evaluate(values, check=False)
    out.backward()
    xs = [symgrad.tensor(v, dtype=symgrad.float64, requires_grad=True) for v in values.values()]
    expected = getattr(symgrad, name)(*xs)
    expected.backward()
    assert out.grad_fn.name() == expected.grad_fn.name()
    assert out.item() == pytest.approx(expected.item(), nan_ok=True)
    for leaf, x in zip(leaves.values(), xs):
        assert leaf.grad.item() == pytest.approx(x.grad.item(), nan_ok=True)


@pytest.mark.parametrize(
    "formula, node, value",
    [
        ("pow(x, 3)", "PowBackward0", 1.5**3),
        ("pow(x, x)", "PowBackward1", 1.5**1.5),
        ("pow(2, x)", "PowBackward2", 2**1.5),
    ],
)
def test_pow_is_the_power_operator(formula, node, value):
    out, _ = parse(formula).evaluate({"x": 1.5})
    assert out.grad_fn.name() == node
    assert out.item() == pytest.approx(value)


@pytest.mark.parametrize("name", NOT_CALLABLE + sorted(OPERATOR_OPS) + NOT_OPS)
def test_other_names_are_unknown_functions(name):
    for arity in (1, 2, 3):
        with pytest.raises(FormulaError) as e:
            parse(f"{name}({', '.join('xyz'[:arity])})")
        assert str(e.value) == _unknown(name)


def test_an_attribute_added_to_the_package_is_not_callable(monkeypatch):
    monkeypatch.setattr(symgrad, "shout", symgrad.exp, raising=False)
    monkeypatch.setattr(ops, "shout", symgrad.exp, raising=False)
    with pytest.raises(FormulaError) as e:
        parse("shout(x)")
    assert str(e.value) == _unknown("shout")


IN_PLACE = sorted(
    {n for n in dir(symgrad) if n.endswith("_") and not n.startswith("_")}
    | {n for n in dir(symgrad.Tensor) if n.endswith("_") and not n.startswith("_")}
)


def test_in_place_names_are_not_formula_functions():
    # a formula computes a new value: writing into a tensor (relu_, exp_, clamp_) has no place
    assert "relu_" in IN_PLACE and "exp_" in IN_PLACE
    assert not [name for name in FUNCTIONS if name.endswith("_")]
    for name in IN_PLACE:
        with pytest.raises(FormulaError) as error:
            parse(_call(name, 1))
        assert str(error.value) == _unknown(name)


def test_an_in_place_registry_op_would_not_be_offered(monkeypatch):
    from symgrad.cli import _functions

    monkeypatch.setitem(REGISTRY, "relu_", REGISTRY["relu"])
    monkeypatch.setattr(ops, "__all__", [*ops.__all__, "relu_"])
    assert "relu" in _functions._from_registry()
    assert "relu_" not in _functions._from_registry()
