"""Lazy modules: layers whose input size is read from their first input. ``LazyLinear`` and
the lazy batch and instance norms are here, the lazy convolutions in ``lazy_conv``.

A lazy module holds :class:`~symgrad.nn.UninitializedParameter`\\ s (and
:class:`~symgrad.nn.UninitializedBuffer`\\ s) until its first call: a forward pre-hook calls
``initialize_parameters(input)``, which gives them their shapes and initial values, and the
module then becomes an instance of ``cls_to_become`` (``LazyLinear`` turns into ``Linear``),
as in PyTorch. Loading a state dict of initialized tensors into a lazy module gives it their
shapes first.
"""

from __future__ import annotations

from typing import Any

from symgrad import creation
from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.instancenorm import (
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    _InstanceNorm,
)
from symgrad.nn.modules.linear import Linear
from symgrad.nn.modules.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    _BatchNorm,
    _NormBase,
)
from symgrad.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from symgrad.tensor import Tensor

__all__ = [
    "LazyLinear",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


def _infer_parameters(module: Any, args: tuple, kwargs: dict) -> None:
    """The forward pre-hook of a lazy module: initialize it from the call's arguments, then
    drop the hook and become ``cls_to_become``."""
    module.initialize_parameters(*args, **kwargs)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyModuleMixin:
    """What the lazy modules share: a forward pre-hook that initializes the module from its
    first input (``initialize_parameters``) and turns it into ``cls_to_become``;
    ``has_uninitialized_params()``; a state-dict load that materializes the uninitialized
    tensors to the loaded shapes.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> layer = nn.LazyLinear(2)
    >>> isinstance(layer, nn.modules.lazy.LazyModuleMixin), layer.has_uninitialized_params()
    (True, True)
    >>> layer(symgrad.ones(4, 3)).shape
    symgrad.Size([4, 2])
    >>> layer
    Linear(in_features=3, out_features=2, bias=True)
    """

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self) -> bool:
        """Whether one of this module's own parameters or buffers has no shape yet."""
        return any(is_lazy(t) for t in (*self._parameters.values(), *self._buffers.values()))

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Give the uninitialized tensors their shapes from the arguments of ``forward``."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {type(self).__name__}"
        )

    def _upgrade_state(self, state: dict, prefix: str, version: int | None) -> None:
        # a loaded tensor that has a shape gives it to the uninitialized one it replaces
        for name, t in (*self._parameters.items(), *self._buffers.items()):
            value = state.get(prefix + name)
            if t is not None and is_lazy(t) and isinstance(value, Tensor) and not is_lazy(value):
                with no_grad():
                    t.materialize(value.shape)
        upgrade = getattr(super(), "_upgrade_state", None)
        if upgrade is not None:
            upgrade(state, prefix, version)


class LazyLinear(LazyModuleMixin, Linear):
    """:class:`Linear` whose ``in_features`` is the last size of its first input; until then
    ``in_features`` is 0 and ``weight`` and ``bias`` are uninitialized.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> fc = nn.LazyLinear(2)
    >>> fc
    LazyLinear(in_features=0, out_features=2, bias=True)
    >>> fc.weight
    <UninitializedParameter>
    >>> fc(symgrad.ones(5, 3)).shape, fc.weight.shape, type(fc).__name__
    (symgrad.Size([5, 2]), symgrad.Size([2, 3]), 'Linear')
    """

    cls_to_become = Linear

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """Linear's initialization, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """``in_features`` from ``input``'s last size; weight and bias materialized and
        initialized."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(
        self,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, device=device)

    def reset_parameters(self) -> None:
        """The norm's initialization, once the shapes are known."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """``num_features`` from ``input.shape[1]`` (also for an unbatched input, as in
        PyTorch); weight, bias and running statistics materialized and initialized."""
        if not self.has_uninitialized_params():
            return
        self.num_features = n = input.shape[1]
        with no_grad():
            for t in (self.weight, self.bias, self.running_mean, self.running_var):
                if t is not None:
                    t.materialize((n,))
            self.reset_parameters()


def _lazy_norm(name: str, target: type, dims: str) -> type:
    doc = f"""{target.__name__} whose ``num_features`` is the size of dimension 1 of its first
    input ({dims}); weight, bias and running statistics are uninitialized until then.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.{name}().has_uninitialized_params()
    True
    """
    body = {
        "__doc__": doc,
        "__module__": __name__,
        "cls_to_become": target,
        "_check_input_dim": target._check_input_dim,
    }
    base = _BatchNorm
    if hasattr(target, "_spatial"):  # the instance norms
        body.update(_spatial=target._spatial)
        base = _InstanceNorm
    return type(name, (_LazyNormBase, base), body)


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d, "(N, C) or (N, C, L)")
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d, "(N, C, H, W)")
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", BatchNorm3d, "(N, C, D, H, W)")
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d, "(N, C, L)")
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d, "(N, C, H, W)")
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d, "(N, C, D, H, W)")
