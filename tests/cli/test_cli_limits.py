"""Closed forms too large to print are refused quickly, naming the limit and how to raise it.

``x**x**...**x`` with 150 levels and a product of 190 factors have derivatives of millions of
symbols: building and printing them took over 15 seconds. Their size is now counted from the
assignment form first, so the command stops within a second or two. Time is measured as CPU
time, which other work on a busy machine does not inflate.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import sympy as sp

from symgrad.cli._limits import DEFAULT_MAX_SIZE, tree_size

from .test_cli import ROOT, assert_one_line_error, run

TOWER = "**".join(["x"] * 150)
PRODUCT = "*".join(f"sin(x+{k})" for k in range(190))
SECONDS = 5.0


def refused_quickly(argv: list[str], capsys: pytest.CaptureFixture) -> str:
    start = time.process_time()
    err = assert_one_line_error(*run(argv, capsys))
    assert time.process_time() - start < SECONDS
    return err


@pytest.mark.parametrize("formula", [TOWER, PRODUCT], ids=["tower of 150", "product of 190"])
@pytest.mark.parametrize(
    "command", [["grad"], ["explain", "--at", "x=1.01"]], ids=["grad", "explain"]
)
def test_a_huge_closed_form_is_refused_quickly(capsys, formula, command):
    err = refused_quickly([command[0], formula, *command[1:]], capsys)
    assert "the closed form of df/dx is too large to show" in err
    assert f"the limit is {DEFAULT_MAX_SIZE:,}" in err
    assert "--max-size N" in err and "SYMGRAD_MAX_SIZE=N" in err


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex"])
def test_the_limit_holds_in_every_format(capsys, fmt):
    err = refused_quickly(["grad", PRODUCT, "--format", fmt], capsys)
    assert "too large" in err


def test_the_size_is_the_written_out_tree():
    x = sp.Symbol("x")
    closed = x**2 * sp.cos(x) + 2 * x * sp.sin(x)  # 12 symbols, numbers and operations
    assert tree_size([closed]) == [12]


def test_the_limit_is_exact(capsys):
    # d/dx x**2*sin(x) = x**2*cos(x) + 2*x*sin(x): 12 symbols and operations
    argv = ["grad", "x**2*sin(x)"]
    code, out, err = run([*argv, "--max-size", "12"], capsys)
    assert (code, out, err) == (0, "df/dx = x**2*cos(x) + 2*x*sin(x)\n", "")
    err = assert_one_line_error(*run([*argv, "--max-size", "11"], capsys))
    assert "about 12 symbols and operations; the limit is 11" in err


def test_the_limit_applies_to_the_output_too(capsys):
    # f = exp(x)*sin(x): 5; df/dx = exp(x)*sin(x) + exp(x)*cos(x): 11
    err = assert_one_line_error(
        *run(["explain", "exp(x)*sin(x)", "--at", "x=1", "--max-size", "4"], capsys)
    )
    assert "the closed form of f is too large" in err


def test_zero_means_no_limit(capsys):
    formula = "*".join(f"sin(x+{k})" for k in range(30))
    assert_one_line_error(*run(["grad", formula, "--max-size", "100"], capsys))
    code, out, err = run(["grad", formula, "--max-size", "0"], capsys)
    assert code == 0 and err == "" and out.startswith("df/dx = ")


def test_the_environment_sets_the_limit_and_the_option_wins(capsys, monkeypatch):
    monkeypatch.setenv("SYMGRAD_MAX_SIZE", "11")
    err = assert_one_line_error(*run(["grad", "x**2*sin(x)"], capsys))
    assert "the limit is 11" in err
    code, _, _ = run(["grad", "x**2*sin(x)", "--max-size", "12"], capsys)
    assert code == 0
    monkeypatch.setenv("SYMGRAD_MAX_SIZE", "0")
    code, _, _ = run(["grad", "*".join(f"sin(x+{k})" for k in range(30))], capsys)
    assert code == 0


@pytest.mark.parametrize("value", ["-1", "ten", "1.5", "", " "])
def test_a_bad_limit_is_a_one_line_error(capsys, value):
    err = assert_one_line_error(*run(["grad", "x**2", f"--max-size={value}"], capsys))
    assert "--max-size" in err and "whole number" in err


@pytest.mark.parametrize("value", ["-1", "ten", "1e6"])
def test_a_bad_environment_limit_is_a_one_line_error(capsys, monkeypatch, value):
    monkeypatch.setenv("SYMGRAD_MAX_SIZE", value)
    err = assert_one_line_error(*run(["grad", "x**2"], capsys))
    assert f"SYMGRAD_MAX_SIZE={value}: expected a whole number" in err


def test_ordinary_formulas_are_far_below_the_limit(capsys):
    formula = "*".join(f"sin(x+{k})" for k in range(60))
    code, out, err = run(["grad", formula, "--format", "latex"], capsys)
    assert code == 0 and err == ""


@pytest.mark.slow
def test_python_m_symgrad_stops_within_five_seconds():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("SYMGRAD_MAX_SIZE", None)
    resource = pytest.importorskip("resource")  # the CPU time of the child: POSIX only
    start = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(
        [sys.executable, "-m", "symgrad", "grad", TOWER],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert (end.ru_utime + end.ru_stime) - (start.ru_utime + start.ru_stime) < SECONDS
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "--max-size" in result.stderr
