"""functorch's top-level transforms: :mod:`symgrad.func`'s, each first warning (FutureWarning,
PyTorch's words) that it moved to ``torch.func``."""

from __future__ import annotations

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


def vmap(
    func: Callable,
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: Any = None,
) -> Callable:
    """``functorch.vmap``: :func:`symgrad.func.vmap`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ft.vmap(lambda x: x.sum())(symgrad.ones(2, 3))
    tensor([3., 3.])
    """
    _warn_deprecated("vmap", "torch.vmap")
    return _func.vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


def grad(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """``functorch.grad``: :func:`symgrad.func.grad`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ft.grad(lambda x: (x ** 2).sum())(symgrad.tensor([1.0, 2.0]))
    tensor([2., 4.])
    """
    _warn_deprecated("grad")
    return _func.grad(func, argnums, has_aux)


def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """``functorch.grad_and_value``: :func:`symgrad.func.grad_and_value`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ft.grad_and_value(lambda x: x ** 2)(symgrad.tensor(3.0))
    (tensor(6.), tensor(9.))
    """
    _warn_deprecated("grad_and_value")
    return _func.grad_and_value(func, argnums, has_aux)


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """``functorch.vjp``: :func:`symgrad.func.vjp`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     _, vjp_fn = ft.vjp(lambda x: x ** 2, symgrad.tensor([1.0, 2.0]))
    >>> vjp_fn(symgrad.ones(2))
    (tensor([2., 4.]),)
    """
    _warn_deprecated("vjp")
    return _func.vjp(func, *primals, has_aux=has_aux)


def jvp(
    func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False
) -> Any:
    """``functorch.jvp``: :func:`symgrad.func.jvp`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ft.jvp(lambda x: x ** 2, (symgrad.tensor(3.0),), (symgrad.tensor(1.0),))
    (tensor(9.), tensor(6.))
    """
    _warn_deprecated("jvp")
    return _func.jvp(func, primals, tangents, strict=strict, has_aux=has_aux)


def jacrev(
    func: Callable,
    argnums: Any = 0,
    *,
    has_aux: bool = False,
    chunk_size: Any = None,
    _preallocate_and_copy: bool = False,
) -> Callable:
    """``functorch.jacrev``: :func:`symgrad.func.jacrev`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ft.jacrev(lambda x: 3 * x)(symgrad.tensor([1.0, 2.0]))
    tensor([[3., 0.],
            [0., 3.]])
    """
    _warn_deprecated("jacrev")
    return _func.jacrev(func, argnums, has_aux=has_aux, chunk_size=chunk_size)


def jacfwd(
    func: Callable, argnums: Any = 0, has_aux: bool = False, *, randomness: str = "error"
) -> Callable:
    """``functorch.jacfwd``: :func:`symgrad.func.jacfwd`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ft.jacfwd(lambda x: x.sum())(symgrad.tensor([1.0, 2.0]))
    tensor([1., 1.])
    """
    _warn_deprecated("jacfwd")
    return _func.jacfwd(func, argnums, has_aux, randomness=randomness)


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    """``functorch.hessian``: :func:`symgrad.func.hessian`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ft.hessian(lambda x: (x ** 3).sum())(symgrad.tensor([1.0]))
    tensor([[6.]])
    """
    _warn_deprecated("hessian")
    return _func.hessian(func, argnums=argnums)


def functionalize(func: Callable, *, remove: str = "mutations") -> Callable:
    """``functorch.functionalize``: :func:`symgrad.func.functionalize`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ft.functionalize(lambda x: x + 1)(symgrad.ones(2))
    tensor([2., 2.])
    """
    _warn_deprecated("functionalize")
    return _func.functionalize(func, remove=remove)


def make_functional(model: Any, disable_autograd_tracking: bool = False) -> Any:
    """``functorch.make_functional``: see
    :func:`symgrad._functorch.make_functional.make_functional`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     fmodel, params = ft.make_functional(symgrad.nn.Linear(2, 3))
    >>> [tuple(p.shape) for p in params]
    [(3, 2), (3,)]
    """
    _warn_deprecated("make_functional", "torch.func.functional_call")
    return _nn_impl.make_functional(model, disable_autograd_tracking)


def make_functional_with_buffers(model: Any, disable_autograd_tracking: bool = False) -> Any:
    """``functorch.make_functional_with_buffers``: see
    :func:`symgrad._functorch.make_functional.make_functional_with_buffers`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     fmodel, params, buffers = ft.make_functional_with_buffers(symgrad.nn.Linear(2, 3))
    >>> len(params), len(buffers)
    (2, 0)
    """
    _warn_deprecated("make_functional_with_buffers", "torch.func.functional_call")
    return _nn_impl.make_functional_with_buffers(model, disable_autograd_tracking)


def combine_state_for_ensemble(models: Any) -> Any:
    """``functorch.combine_state_for_ensemble``: see
    :func:`symgrad._functorch.make_functional.combine_state_for_ensemble`.

    Examples
    --------
    >>> import warnings, symgrad
    >>> from symgrad._functorch import deprecated as ft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     _, params, _ = ft.combine_state_for_ensemble([symgrad.nn.Linear(2, 3)] * 5)
    >>> params[0].shape
    symgrad.Size([5, 3, 2])
    """
    _warn_deprecated("combine_state_for_ensemble", "torch.func.stack_module_state")
    return _nn_impl.combine_state_for_ensemble(models)
