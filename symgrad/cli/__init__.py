"""The ``symgrad`` command line: the chain rule for a formula, in the terminal.

``symgrad explain FORMULA --at a=2 b=3 ...`` prints the values, the output value, the numeric
gradients (from ``backward``), the closed forms (symbolic gradients) and the chain-rule
derivation; ``symgrad grad FORMULA --wrt x`` prints closed-form derivatives. The output is
called ``f`` unless the formula uses that name (``--name`` chooses another, e.g. ``e`` for
PyTorch's tutorial graph).

Formulas are read by :mod:`symgrad.cli.formula`, which never executes them. ``--at`` values are
read with ``float()`` and must be finite (``nan`` and ``inf`` are refused, so every non-finite
result can be blamed on a domain error and reported as one). Every user error is one line on
stderr starting with ``symgrad: error:`` and exit code 2; anything unexpected is one line and
exit code 1. Warnings are silenced: a non-finite result is an error, reported by name.

Examples
--------
>>> from symgrad.cli import main
>>> main(["grad", "x**2*sin(x)", "--wrt", "x"])
df/dx = x**2*cos(x) + 2*x*sin(x)
0
"""

from symgrad.cli._commands import main

__all__ = ["main"]
