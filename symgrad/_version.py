"""Version counters, and the inference tensors, which have none.

A tensor's counter counts the in-place changes of its values, so that a node that saved the
tensor notices them. The tensors made in inference mode (``symgrad.inference_mode``) are, as
in PyTorch, *inference tensors*: they track no version, can't be saved for backward, and can't
be changed in place outside inference mode. They all share one counter object,
:data:`NO_VERSION`: ``t._counter is NO_VERSION`` tells an inference tensor. Saving a tensor for
backward reads its version, so it is this counter that refuses to be saved: the check costs
the other tensors nothing.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = [
    "Version",
    "NO_VERSION",
    "state",
    "is_inference",
    "same_kind",
    "version_of",
    "check_writable",
    "check_may_require_grad",
    "SAVED",
]

SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `symgrad.no_grad()` instead "
    "of `symgrad.inference_mode()`."
)
_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed. You can make a "
    "clone to get a normal tensor before doing inplace update (t = t.clone()), or do the "
    "update inside `symgrad.inference_mode()`."
)


class Version:
    """A counter shared by a tensor and its detached aliases, bumped by in-place ops."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class _State(threading.local):
    inference = False  # this thread is in inference mode


state = _State()


class _NoVersion:
    """The counter every inference tensor holds instead of a version counter."""

    __slots__ = ()

    @property
    def value(self) -> int:
        # read when a tensor is saved for backward, and by in-place ops inside inference mode
        if not state.inference:
            raise RuntimeError(SAVED)
        return 0

    @value.setter
    def value(self, value: int) -> None:
        """In-place updates (allowed inside inference mode only) count nothing."""


NO_VERSION = _NoVersion()


def is_inference(t: Any) -> bool:
    """Whether the tensor ``t`` was made in inference mode (or is a view of one that was)."""
    return t._counter is NO_VERSION


def same_kind(t: Any, base: Any) -> None:
    """Make ``t``, a view or alias of ``base``, an inference tensor exactly when ``base`` is."""
    if (t._counter is NO_VERSION) is not (base._counter is NO_VERSION):
        t._counter = NO_VERSION if base._counter is NO_VERSION else Version()


def version_of(t: Any) -> int:
    """``t._version``: an inference tensor has none."""
    if t._counter is NO_VERSION:
        raise RuntimeError("Inference tensors do not track version counter.")
    return t._counter.value


def check_writable(t: Any) -> None:
    """Refuse an in-place update of an inference tensor outside inference mode."""
    if t._counter is NO_VERSION and not state.inference:
        raise RuntimeError(_INPLACE)


def check_may_require_grad(t: Any) -> None:
    """Refuse ``requires_grad=True`` on an inference tensor outside inference mode."""
    if t._counter is NO_VERSION and not state.inference:
        raise RuntimeError(
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
        )
