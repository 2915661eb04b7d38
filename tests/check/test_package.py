"""``symgrad.check`` is the home of the checks; the older public names are the same objects,
and the layer below it (autograd) does not import it."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

import symgrad
import symgrad.check as check


@pytest.mark.parametrize("name", ["gradcheck", "gradgradcheck", "GradcheckError", "check_function"])
def test_autograd_names_are_the_checks(name):
    assert getattr(symgrad.autograd, name) is getattr(check, name)


@pytest.mark.parametrize("name", ["verify", "GradientReport"])
def test_top_level_names_are_the_checks(name):
    assert getattr(symgrad, name) is getattr(check, name)


def test_gradcheck_error_is_shown_and_pickled_under_its_public_home():
    error = check.GradcheckError("Jacobian mismatch")
    assert type(error).__module__ == "symgrad.check"
    assert str(pickle.loads(pickle.dumps(error))) == "Jacobian mismatch"


def test_autograd_modules_do_not_import_the_checks():
    autograd = Path(symgrad.__file__).parent / "autograd"
    for path in sorted(autograd.glob("*.py")):
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            assert not any(n.startswith("symgrad.check") for n in names), path.name


def _gradcheck_module_names(T) -> list:
    """What ``from torch.autograd.gradcheck import ...`` and ``torch.autograd.gradcheck`` give."""
    import importlib

    module = importlib.import_module(f"{T.__name__}.autograd.gradcheck")
    return [
        module.GradcheckError is T.autograd.gradcheck.__globals__["GradcheckError"],
        module.gradcheck is T.autograd.gradcheck,
        module.gradgradcheck is T.autograd.gradgradcheck,
        callable(T.autograd.gradcheck),
        type(module).__name__,
    ]


def test_the_gradcheck_module_is_importable_and_the_attribute_stays_the_function():
    # importing the module (from symgrad.autograd.gradcheck import GradcheckError) raised
    # ModuleNotFoundError
    from symgrad.autograd.gradcheck import GradcheckError, gradcheck

    assert GradcheckError is check.GradcheckError and gradcheck is check.gradcheck
    assert symgrad.autograd.gradcheck is check.gradcheck
    assert _gradcheck_module_names(symgrad) == [True, True, True, True, "module"]


@pytest.mark.torch
def test_the_gradcheck_module_is_importable_as_in_pytorch():
    torch = pytest.importorskip("torch")
    assert _gradcheck_module_names(torch) == [True, True, True, True, "module"]
