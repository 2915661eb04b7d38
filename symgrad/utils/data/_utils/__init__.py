"""``torch.utils.data._utils``: the module path programs import the collate functions from
(``from torch.utils.data._utils.collate import collate, default_collate_fn_map``)."""

from symgrad.utils.data._utils import collate

__all__ = ["collate"]
