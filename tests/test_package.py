"""The package's face: public submodules are attributes after a plain ``import symgrad``,
loaded on first use, and importing symgrad does not load SymPy (the numeric path never needs
it until a primitive is first differentiated or shown)."""

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return result.stdout.strip()


def test_import_does_not_load_sympy_or_the_optional_layers():
    out = _run(
        "import sys, symgrad; "
        "print(sorted(m for m in ('sympy', 'symgrad.viz', 'symgrad.symbolic', 'symgrad.check',"
        " 'symgrad.cli') if m in sys.modules))"
    )
    assert out == "[]"


@pytest.mark.parametrize(
    "expression",
    [
        "symgrad.viz.draw",
        "symgrad.symbolic.gradient",
        "symgrad.check.gradcheck",
        "symgrad.cli.main",
        "symgrad.verify",
        "symgrad.GradientReport",
        "symgrad.elementwise",
        "symgrad.autograd.gradcheck",
    ],
)
def test_public_names_are_reachable_after_a_plain_import(expression):
    assert _run(f"import symgrad; print(callable({expression}))") == "True"


def test_an_unknown_attribute_is_an_attribute_error():
    import symgrad

    with pytest.raises(AttributeError, match="has no attribute 'not_a_thing'"):
        symgrad.not_a_thing  # noqa: B018


def test_a_numeric_forward_without_gradients_needs_no_sympy():
    out = _run(
        "import sys, symgrad; x = symgrad.ones(3); y = (x.exp() * 2).sum(); "
        "print('sympy' in sys.modules, float(y))"
    )
    assert out.split()[0] == "False"
