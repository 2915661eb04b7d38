"""Misuses an autograd user can hit, each a tiny program ``fn(T)`` run unchanged by symgrad and
PyTorch (``T`` is the module), for ``tests/autograd/test_misuse.py``.

Each program is registered with what PyTorch 2.13 does with it, as a plain literal so the tests
run without PyTorch: an exception type (a warning category counts, as warnings are raised as
errors while a program runs), or the value the program returns when PyTorch accepts it. The
messages may say more than PyTorch's; ``says`` lists words symgrad's message must contain.
Nothing here imports PyTorch.
"""

from misuse.registry import CASES, Case, outcome, summary

# importing a module registers its programs, in this order
from misuse import backward, creation, function, ops, tensor_flags, tensor_use  # noqa: F401, E402

__all__ = ["CASES", "Case", "outcome", "summary"]
