"""functorch's top-level transforms: :mod:`symgrad.func`'s, each first warning (FutureWarning,
PyTorch's words) that it moved to ``torch.func``."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from symgrad import func as _func
from symgrad._functorch import make_functional as _nn_impl

__all__ = [
    "combine_state_for_ensemble",
    "functionalize",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "make_functional",
    "make_functional_with_buffers",
    "vjp",
    "vmap",
]


def _warn_deprecated(api: str, new_api: str | None = None) -> None:
    new_api = new_api or f"torch.func.{api}"
    warnings.warn(
        "We've integrated functorch into PyTorch. As the final step of the integration, "
        f"`functorch.{api}` is deprecated as of PyTorch 2.0 and will be deleted in a future "
        f"version of PyTorch >= 2.3. Please use `{new_api}` instead; see the PyTorch 2.0 "
        "release notes and/or the `torch.func` migration guide for more details "
        "https://pytorch.org/docs/main/func.migrating.html",
        FutureWarning,
        stacklevel=3,
    )


def _moved(api: str, target: Callable, new_api: str | None = None) -> Callable:
    """``target`` under functorch's name ``api``: the same signature and documentation, first
    warning that it moved to ``new_api``."""

    @functools.wraps(target)
    def moved(*args: Any, **kwargs: Any) -> Any:
        _warn_deprecated(api, new_api)
        return target(*args, **kwargs)

    moved.__doc__ = f"``functorch.{api}``: {new_api or f'torch.func.{api}'} (warns).\n\n" + (
        target.__doc__ or ""
    )
    return moved


vmap = _moved("vmap", _func.vmap, "torch.vmap")
grad = _moved("grad", _func.grad)
grad_and_value = _moved("grad_and_value", _func.grad_and_value)
vjp = _moved("vjp", _func.vjp)
jvp = _moved("jvp", _func.jvp)


def jacrev(
    func: Callable,
    argnums: Any = 0,
    *,
    has_aux: bool = False,
    chunk_size: Any = None,
    _preallocate_and_copy: bool = False,
) -> Callable:
    """``functorch.jacrev``: :func:`symgrad.func.jacrev` (warns); ``_preallocate_and_copy``,
    a memory option of functorch's, is accepted and changes nothing.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ft.jacrev(lambda x: 3 * x, _preallocate_and_copy=True)(symgrad.tensor([1.0, 2.0]))
    tensor([[3., 0.],
            [0., 3.]])
    """
    _warn_deprecated("jacrev")
    return _func.jacrev(func, argnums, has_aux=has_aux, chunk_size=chunk_size)


jacfwd = _moved("jacfwd", _func.jacfwd)
hessian = _moved("hessian", _func.hessian)
functionalize = _moved("functionalize", _func.functionalize)
make_functional = _moved("make_functional", _nn_impl.make_functional, "torch.func.functional_call")
make_functional_with_buffers = _moved(
    "make_functional_with_buffers",
    _nn_impl.make_functional_with_buffers,
    "torch.func.functional_call",
)
combine_state_for_ensemble = _moved(
    "combine_state_for_ensemble",
    _nn_impl.combine_state_for_ensemble,
    "torch.func.stack_module_state",
)
