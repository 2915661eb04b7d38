"""Small whole programs as PyTorch users write them, and the pieces of them where symgrad once
differed from PyTorch: formatting tensors in f-strings, ...

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests


def _init(T, module, seed=0, scale=0.5):
    """``module`` with its parameters drawn from NumPy, the same for symgrad and PyTorch."""
    rng = np.random.default_rng(seed)
    with T.no_grad():
        for p in module.parameters():
            p.copy_(T.tensor(rng.normal(size=tuple(p.shape)) * scale))
    return module


def _format(value, spec):
    try:
        return format(value, spec)
    except TypeError as error:
        return ("raises", type(error).__name__, str(error))


def _formats(T):
    """A 0-d tensor formats as its number; anything else only without a spec."""
    loss = T.tensor(0.25, requires_grad=True) * 2
    param = T.nn.Parameter(T.tensor(1.5))
    return (
        _format(loss, ".3f"),
        _format(T.tensor(7), "5"),
        _format(T.tensor([1.5]), ""),
        _format(T.tensor([1.5]), ".2f"),
        _format(T.tensor([1.5, 2.0]), ">20"),
        _format(param, "").replace("symgrad", "torch"),
        _format(param, ".2f"),
    )


CASES = {
    "format": (
        _formats,
        (
            "0.500",
            "    7",
            "tensor([1.5000])",
            ("raises", "TypeError", "unsupported format string passed to Tensor.__format__"),
            ("raises", "TypeError", "unsupported format string passed to Tensor.__format__"),
            "Parameter containing:\ntensor(1.5000, requires_grad=True)",
            ("raises", "TypeError", "unsupported format string passed to Parameter.__format__"),
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
