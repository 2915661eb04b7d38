"""``torch.utils.data._utils.collate``: :func:`default_collate` and :func:`default_convert`
of :mod:`symgrad.utils.data`, under the path PyTorch defines them in."""

from symgrad.utils.data.dataloader import default_collate, default_convert

__all__ = ["default_collate", "default_convert"]
