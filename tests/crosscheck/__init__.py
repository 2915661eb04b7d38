"""Programs run unchanged by symgrad and PyTorch, for ``test_torch_crosscheck.py``.

Each program is written once as ``fn(T, *inputs)``, where ``T`` is the module (``symgrad`` or
``torch``) and the inputs are tensors that module made from the same NumPy values. Nothing here
imports PyTorch, so the package loads (and its doctests run) without it.
"""

# importing a module registers its programs, in this order
from crosscheck import (
    elementwise,
    functional,
    functional_more,
    reductions,
    rounding,
    scenarios,
    shapes,
)  # noqa: F401,E501
from crosscheck.scenarios import DTYPE_CASES, SCENARIOS
from crosscheck.spec import PROGRAMS, Arg, Program

__all__ = ["Arg", "DTYPE_CASES", "PROGRAMS", "Program", "SCENARIOS"]
