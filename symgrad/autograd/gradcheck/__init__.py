"""``torch.autograd.gradcheck``, the module: ``from torch.autograd.gradcheck import
GradcheckError, gradcheck, gradgradcheck``. As in PyTorch, the attribute
``symgrad.autograd.gradcheck`` is the function; this module is reached by importing it.

The names are re-exported from :mod:`symgrad.check`, the layer above autograd, on first use.

Examples
--------
>>> from symgrad.autograd.gradcheck import GradcheckError, gradcheck
>>> import symgrad
>>> GradcheckError is symgrad.check.GradcheckError, gradcheck is symgrad.autograd.gradcheck
(True, True)
"""

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


def __getattr__(name: str):
    if name in __all__:
        from symgrad import check

        return getattr(check, name)
    raise AttributeError(f"module 'symgrad.autograd.gradcheck' has no attribute {name!r}")
