"""Misuses an autograd user can hit: symgrad raises PyTorch 2.13's exception type (or warns
with its category, or returns what PyTorch returns where it accepts the program), with a
message that says what was wrong.

The programs and their expected outcomes live in the ``misuse`` package (next to this
directory's parent), written once for both libraries; the expected outcomes are plain literals,
so the first test runs without PyTorch and the second checks them against PyTorch.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from misuse import CASES, Case, outcome

import symgrad

IDS = [c.name for c in CASES]


def _check(case: Case, got: Any) -> None:
    if case.raises:
        assert isinstance(got, BaseException), f"returned {got!r}, expected {case.expected}"
        if type(got) is not case.expected:
            raise AssertionError(f"expected {case.expected.__name__}") from got
    elif isinstance(got, BaseException):
        raise AssertionError(f"expected {case.expected!r}") from got
    else:
        assert got == case.expected


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=c.name, marks=pytest.mark.xfail(strict=True, reason=c.xfail))
        if c.xfail
        else pytest.param(c, id=c.name)
        for c in CASES
    ],
)
def test_symgrad_does_what_pytorch_does(case: Case) -> None:
    got = outcome(symgrad, case)
    _check(case, got)
    for words in case.says:
        assert words in str(got), f"{words!r} not in the message: {got}"


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_expected_outcomes_are_pytorchs(case: Case) -> None:
    torch = pytest.importorskip("torch")
    if case.fresh:
        expected = case.expected.__name__ if case.raises else repr(case.expected)
        assert _in_a_new_process(case) == expected
    else:
        _check(case, outcome(torch, case))


def _in_a_new_process(case: Case) -> str:
    """The outcome of ``case`` with PyTorch in a new interpreter (for warnings PyTorch gives
    once per process), as :func:`misuse.registry.summary` writes it."""
    program = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parents[1])!r}); import torch; "
        "from misuse import CASES, outcome, summary; "
        f"print(summary(outcome(torch, next(c for c in CASES if c.name == {case.name!r}))))"
    )
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_every_case_has_its_own_name() -> None:
    assert len(set(IDS)) == len(IDS)


def test_a_misuse_leaves_no_grad_mode_changed() -> None:
    for case in CASES:
        outcome(symgrad, case)
        assert symgrad.is_grad_enabled(), case.name
