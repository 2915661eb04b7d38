"""Gradient checks: ``gradcheck`` and ``gradgradcheck`` (PyTorch's), and ``verify`` (the
engine, finite differences and the closed form side by side), over one finite-difference
module.

``gradcheck``, ``gradgradcheck``, ``GradcheckError`` and ``check_function`` are also
``symgrad.autograd``'s; ``verify`` and ``GradientReport`` are also ``symgrad``'s.
"""

from symgrad.check.gradcheck import GradcheckError, gradcheck, gradgradcheck
from symgrad.check.verify import (
    Comparison,
    GradientReport,
    InputReport,
    check_function,
    verify,
)

__all__ = [
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "verify",
    "check_function",
    "GradientReport",
    "InputReport",
    "Comparison",
]
