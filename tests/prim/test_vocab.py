"""Every interpreter speaks the whole rule vocabulary, and the rules use nothing else."""

import ast
import pathlib

import numpy as np
import pytest

import symgrad
from symgrad.prim.numpy_xp import NP
from symgrad.prim.sympy_xp import SX
from symgrad.prim.vocab import INTERPRETERS, VOCABULARY, missing_words

INTERPRETER_CASES = {"numpy": NP, "tensor": INTERPRETERS.tensor, "sympy": SX}


@pytest.mark.parametrize("name", sorted(INTERPRETER_CASES))
def test_interpreter_covers_the_vocabulary(name):
    assert missing_words(INTERPRETER_CASES[name]) == []


def test_missing_words_names_what_is_missing():
    class Partial:
        sum = staticmethod(np.sum)

    missing = missing_words(Partial)
    assert "sum" not in missing and "matmul" in missing
    assert len(missing) == len(VOCABULARY) - 1


def test_the_engine_uses_the_installed_interpreters():
    assert INTERPRETERS.numpy is NP
    assert INTERPRETERS.tensor is symgrad.ops.TX


def _xp_words(path: pathlib.Path) -> set:
    """The attributes read from a name ``xp`` in a source file (the words its rules use)."""
    words = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "xp"
        ):
            words.add(node.attr)
    return words


def test_rules_use_only_vocabulary_words():
    package = pathlib.Path(symgrad.__file__).parent
    used = set()
    for path in sorted((package / "ops").glob("*.py")) + sorted((package / "nn").glob("*.py")):
        used |= _xp_words(path)
    assert used, "no rule was found: the scan is broken"
    assert sorted(used - set(VOCABULARY)) == []


def test_tensor_words_record_a_graph():
    x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=symgrad.float64, requires_grad=True)
    tx = INTERPRETERS.tensor
    y = tx.sum(tx.matmul(x, tx.transpose(x, 0, 1)), (0, 1), False)
    assert y.grad_fn is not None
    y.backward()
    # sum(x x^T) = sum over k of (column sum k)^2, so each element gets twice its column sum
    expected = 2 * np.ones((2, 2)) @ np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(x.grad.numpy(), expected)
