"""The pruning methods of :mod:`symgrad.nn.utils.prune`: how each chooses its mask, and how
a method prunes a module's parameter (``BasePruningMethod.apply``) and is removed."""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from typing import Any

from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "pruning_hooks",
]


def pruning_hooks(module: Module) -> list:
    """The pruning methods among ``module``'s forward pre-hooks, as ``(key, method)``."""
    hooks = module._forward_pre_hooks.items()
    return [(key, hook) for key, hook in hooks if isinstance(hook, BasePruningMethod)]


class BasePruningMethod(ABC):
    """A way of choosing what to prune: subclasses set ``PRUNING_TYPE`` (``"unstructured"``,
    ``"structured"`` with a ``dim``, or ``"global"``) and define ``compute_mask``. An
    instance is also the forward pre-hook that recomputes the pruned tensor."""

    _tensor_name: str | None = None
    PRUNING_TYPE: str = "unstructured"

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask for ``t`` (the importance scores), starting from ``default_mask``."""

    def apply_mask(self, module: Module) -> Tensor:
        """``<name>_mask * <name>_orig`` of ``module`` (recorded: gradients reach
        ``<name>_orig`` only where the mask is 1)."""
        if self._tensor_name is None:
            raise AttributeError(f"Module {module} has to be pruned")
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(
        cls, module: Module, name: str, *args: Any, importance_scores: Any = None, **kwargs: Any
    ) -> BasePruningMethod:
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, the mask chosen from
        ``importance_scores`` (default: the parameter itself); returns the method (a
        :class:`PruningContainer` when the parameter was pruned before)."""
        method = _combined_method(cls, module, name, args, kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise ValueError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}: {list(importance_scores.shape)} against {list(orig.shape)}"
                )
        else:
            importance_scores = orig
        first = not isinstance(method, PruningContainer)
        if first:
            from symgrad import ones_like

            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # put the parameter back as it was
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(
        self, t: Tensor, default_mask: Tensor | None = None, importance_scores: Any = None
    ) -> Tensor:
        """``t`` with this method's mask applied (no module involved)."""
        from symgrad import ones_like

        scores = t if importance_scores is None else importance_scores
        if scores.shape != t.shape:
            raise ValueError("importance_scores should have the same shape as tensor t")
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``module.<name>`` becomes the parameter again (the
        ``_orig`` tensor object, holding the pruned values); ``_orig`` and ``_mask`` go."""
        if self._tensor_name is None:
            raise ValueError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _combined_method(cls: type, module: Module, name: str, args: tuple, kwargs: dict):
    """The new method, or the earlier method(s) on ``name`` with it added (their pre-hook
    replaced by the combined one)."""
    old = [(key, hook) for key, hook in pruning_hooks(module) if hook._tensor_name == name]
    if len(old) > 1:
        raise RuntimeError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
            f"{module}. Use a PruningContainer."
        )
    for key, _ in old:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old:
        container = old[0][1]
        if not isinstance(container, PruningContainer):
            container = PruningContainer(container)
        container.add_pruning_method(method)
        method = container
    return method


class PruningContainer(BasePruningMethod):
    """Several pruning methods applied one after the other to one tensor: each new one
    prunes among the entries (or channels) the earlier ones kept."""

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        """Add ``method`` (acting on the same tensor name) at the end."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask, computed on what the earlier ones kept (the entries where
        ``default_mask`` is 1, or for a structured method the channels not all pruned)."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            where: Any = mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    'Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                    "`dim` defined."
                )
            n = t.dim()
            dim = method.dim + n if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n}")
            kept = mask.sum(dim=[d for d in range(n) if d != dim]) != 0
            where = tuple(kept if d == dim else slice(None) for d in range(n))
        elif kind == "global":
            where = (slice(None),) * t.dim()
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[where], default_mask=mask[where])
        mask[where] = partial.to(dtype=mask.dtype)
        return mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (the reparametrization alone)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name)


def _check_amount(amount: Any) -> None:
    if not isinstance(amount, numbers.Real) or isinstance(amount, bool):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _how_many(amount: Any, size: int) -> int:
    """How many of ``size`` entries (or channels) ``amount`` prunes: a count, or a fraction
    rounded to the nearest."""
    count = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if count > size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to prune={size}"
        )
    return int(count)


def _check_structured(t: Tensor, dim: int) -> None:
    if t.dim() <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {t.shape} with {t.dim()} dims"
        )
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _zeroed(default_mask: Tensor, flat_indices: Tensor) -> Tensor:
    mask = default_mask.clone()
    mask.view(-1)[flat_indices] = 0
    return mask


class _Unstructured(BasePruningMethod):
    """Prune the ``amount`` entries (a count, or a fraction) of lowest score."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: Any) -> None:
        _check_amount(amount)
        self.amount = amount

    def scores(self, t: Tensor) -> Tensor:  # the entries' scores: the lowest are pruned
        raise NotImplementedError

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        from symgrad import topk

        k = _how_many(self.amount, t.numel())
        if k == 0:
            return default_mask.clone()
        return _zeroed(default_mask, topk(self.scores(t).view(-1), k=k, largest=False).indices)


class RandomUnstructured(_Unstructured):
    """Prune ``amount`` entries (a count, or a fraction) chosen at random."""

    def scores(self, t: Tensor) -> Tensor:
        from symgrad import rand_like

        return -rand_like(t)  # the largest draws, as PyTorch picks them

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prune the ``amount`` entries (a count, or a fraction) of smallest absolute value."""

    def scores(self, t: Tensor) -> Tensor:
        return t.abs()

    @classmethod
    def apply(  # type: ignore[override]
        cls, module: Module, name: str, amount: Any, importance_scores: Any = None
    ) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(t: Tensor, dim: int, keep: Any, default_mask: Tensor) -> Tensor:
    """Ones in the channels ``keep`` (indices or a boolean vector) along ``dim``, zeros
    elsewhere, times ``default_mask``."""
    from symgrad import zeros_like

    mask = zeros_like(t)
    mask[tuple(keep if d == dim % t.dim() else slice(None) for d in range(t.dim()))] = 1
    return mask * default_mask.to(dtype=mask.dtype)


class RandomStructured(BasePruningMethod):
    """Prune ``amount`` whole channels (slices along ``dim``) chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        from symgrad import kthvalue, rand

        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        k = _how_many(self.amount, size)
        if k == 0:
            return default_mask
        scores = rand(size)
        return _channel_mask(t, self.dim, scores > kthvalue(scores, k=k).values, default_mask)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, dim: int = -1) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prune the ``amount`` channels (slices along ``dim``) of smallest ``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, n: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        from symgrad import norm, topk

        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        k = _how_many(self.amount, size)
        if k == 0:
            return default_mask
        dim = self.dim % t.dim()
        norms = norm(t, p=self.n, dim=[d for d in range(t.dim()) if d != dim])
        keep = topk(norms, k=size - k, largest=True).indices
        return _channel_mask(t, dim, keep, default_mask)

    @classmethod
    def apply(  # type: ignore[override]
        cls,
        module: Module,
        name: str,
        amount: Any,
        n: Any,
        dim: int,
        importance_scores: Any = None,
    ) -> BasePruningMethod:
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prune where the given ``mask`` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:  # (PyTorch's assert: its type)
            raise AssertionError(
                f"the mask has shape {list(self.mask.shape)}, the tensor to prune "
                f"{list(default_mask.shape)}: give a mask of the tensor's shape"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, mask=mask)
