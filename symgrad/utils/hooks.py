"""``symgrad.utils.hooks``: the handle every ``register_*_hook`` returns, at PyTorch's path
(``from torch.utils.hooks import RemovableHandle`` in code that annotates or keeps handles).

Examples
--------
>>> import symgrad
>>> from symgrad.utils.hooks import RemovableHandle
>>> handle = symgrad.nn.Linear(2, 2).register_forward_hook(lambda m, i, o: None)
>>> isinstance(handle, RemovableHandle)
True
"""

from symgrad.autograd.node import RemovableHandle

__all__ = ["RemovableHandle"]
