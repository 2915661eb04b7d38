"""``torch.utils.data._utils``: the module path older programs import the collate functions
from (``from torch.utils.data._utils.collate import default_collate``)."""

from symgrad.utils.data._utils import collate

__all__ = ["collate"]
