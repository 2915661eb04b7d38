"""``torch.signal``: signal-processing helpers; so far the window functions of
:mod:`symgrad.signal.windows`.

Examples
--------
>>> import symgrad
>>> symgrad.signal.windows.hann(3)
tensor([0., 1., 0.])
"""

from symgrad.signal import windows

__all__ = ["windows"]
