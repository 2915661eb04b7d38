"""``torch.torch_version``: :class:`TorchVersion`, the class of ``symgrad.__version__``,
under PyTorch's module path (``from torch.torch_version import TorchVersion``).

Examples
--------
>>> import symgrad
>>> from symgrad.torch_version import TorchVersion
>>> isinstance(symgrad.__version__, TorchVersion), str(TorchVersion)
(True, "<class 'symgrad.torch_version.TorchVersion'>")
"""

from symgrad.version import TorchVersion

__all__ = ["TorchVersion"]
