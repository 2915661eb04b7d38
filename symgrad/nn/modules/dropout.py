"""``torch.nn.modules.dropout``: the dropout layers under PyTorch's module path, with their
base class, for programs that pick them by class (``isinstance(m,
nn.modules.dropout._DropoutNd)`` to keep them training for Monte Carlo dropout).

Examples
--------
>>> from symgrad import nn
>>> from symgrad.nn.modules import dropout
>>> [isinstance(m, dropout._DropoutNd) for m in (nn.Dropout(), nn.Dropout2d(), nn.ReLU())]
[True, True, False]
"""

from symgrad.nn.modules.channel_layers import FeatureAlphaDropout
from symgrad.nn.modules.extra_layers import Dropout1d, Dropout2d, Dropout3d
from symgrad.nn.modules.sparse import AlphaDropout, Dropout, _DropoutNd

__all__ = [
    "AlphaDropout",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "FeatureAlphaDropout",
    "_DropoutNd",
]
