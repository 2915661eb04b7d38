"""Helpers that layer code and checkpoint loaders import from ``torch.nn.modules.utils``: the
tuple-making ``_single``/``_pair``/``_triple``/``_quadruple`` and
:func:`consume_prefix_in_state_dict_if_present`."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A function making an ``n``-tuple of one value; an iterable is returned as a tuple."""

    def parse(x: Any) -> tuple:
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(itertools.repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """Each element of ``t``, last first, repeated ``n`` times (F.pad's order of sides)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def consume_prefix_in_state_dict_if_present(state_dict: dict, prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` that start with it, in place (and from
    its ``_metadata``): a checkpoint saved from a ``DataParallel`` wrapper (keys
    ``module.<name>``) then loads into the bare model.

    Examples
    --------
    >>> from collections import OrderedDict
    >>> sd = OrderedDict([("module.weight", 1), ("module.bias", 2)])
    >>> consume_prefix_in_state_dict_if_present(sd, "module.")
    >>> list(sd)
    ['weight', 'bias']
    """
    for key in [k for k in state_dict if k.startswith(prefix)]:
        state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    # a module's own entry: "module." names the wrapped model, whose entry is ""
    own = prefix.replace(".", "")
    for key in [k for k in metadata if k and (k == own or k.startswith(prefix))]:
        metadata[key[len(prefix) :]] = metadata.pop(key)
