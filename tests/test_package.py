"""The package's face: public submodules are attributes after a plain ``import symgrad``,
loaded on first use, and importing symgrad does not load SymPy (the numeric path never needs
it until a primitive is first differentiated or shown)."""

import functools
import os
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


PUBLIC_NAMES = [
    "symgrad.viz.draw",
    "symgrad.symbolic.gradient",
    "symgrad.check.gradcheck",
    "symgrad.cli.main",
    "symgrad.verify",
    "symgrad.GradientReport",
    "symgrad.elementwise",
    "symgrad.autograd.gradcheck",
]

# One interpreter imports symgrad once, then each name is looked up in a forked copy of it: the
# same state as a fresh ``import symgrad`` (no name sees what an earlier one loaded), without
# paying the interpreter's start and the import once per name
_EACH_IN_A_FORK = """
import functools, os, sys, symgrad
for expression in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        found = functools.reduce(getattr, expression.split(".")[1:], symgrad)
        print(expression, callable(found), flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
"""


@functools.cache
def _reachable() -> dict[str, str]:
    """``{name: "True"}`` for each public name that is callable after a plain import."""
    if not hasattr(os, "fork"):  # no fork here: one interpreter per name
        return {e: _run(f"import symgrad; print(callable({e}))") for e in PUBLIC_NAMES}
    result = subprocess.run(
        [sys.executable, "-c", _EACH_IN_A_FORK, *PUBLIC_NAMES],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return dict(line.split(" ", 1) for line in result.stdout.splitlines())


@pytest.mark.parametrize("expression", PUBLIC_NAMES)
def test_public_names_are_reachable_after_a_plain_import(expression):
    assert _reachable().get(expression) == "True"


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
