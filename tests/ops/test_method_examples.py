"""Every public Tensor method and property with an ``Examples`` section runs it as a doctest;
the ones made from templates (in-place forms, conversions, aliases) get theirs from
:mod:`symgrad.ops.method_examples`."""

from __future__ import annotations

import doctest
import inspect

import pytest

import symgrad


def _members() -> dict:
    found = {}
    for name in sorted(dir(symgrad.Tensor)):
        if name.startswith("_"):
            continue
        static = inspect.getattr_static(symgrad.Tensor, name)
        target = static if isinstance(static, property) else getattr(symgrad.Tensor, name)
        if callable(target) or isinstance(static, property):
            found[name] = target.__doc__ or ""
    return found


MEMBERS = _members()
WITH_EXAMPLES = sorted(name for name, doc in MEMBERS.items() if ">>>" in doc)
# methods still without an example
WITHOUT = sorted(name for name, doc in MEMBERS.items() if ">>>" not in doc)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_examples_run(name):
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    test = doctest.DocTestParser().get_doctest(MEMBERS[name], {}, f"Tensor.{name}", None, 0)
    runner = doctest.DocTestRunner(optionflags=flags)
    runner.run(test)
    assert runner.failures == 0, f"Tensor.{name}'s example fails"


def test_nearly_every_method_has_an_example():
    assert WITHOUT == []


@pytest.mark.parametrize(
    "name", ["abs_", "sigmoid_", "clamp_", "bitwise_and_", "logical_or_", "int", "divide", "T"]
)
def test_template_methods_have_examples(name):
    assert ">>>" in MEMBERS[name]
