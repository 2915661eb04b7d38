"""The implementations timed against hand-written NumPy: symgrad and its importable peers.

An implementation turns a case and its NumPy inputs into a ``Prepared`` step: a function that
runs one forward+backward step, and one that returns the gradients of a step as NumPy arrays
(for the correctness check). Peers that are not importable are reported and skipped.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from _cases import Case

__all__ = ["Prepared", "Implementation", "implementations", "NAMES"]


@dataclass
class Prepared:
    """One implementation's step for one case."""

    step: Callable[[], object]
    gradients: Callable[[], dict]


@dataclass
class Implementation:
    """A named way to run the cases; ``prepare`` is None when it is not importable."""

    name: str
    version: str
    prepare: Callable[[Case, dict, dict], Prepared | None] | None
    missing: str = ""  # why it is skipped


def _numpy_prepare(case: Case, params: dict, consts: dict) -> Prepared:
    def gradients() -> dict:
        grads = case.numpy_step(params, consts)
        return {k: np.asarray(grads[k]) for k in params}

    return Prepared(lambda: case.numpy_step(params, consts), gradients)


def _torchlike_prepare(module_name: str) -> Callable[[Case, dict, dict], Prepared]:
    """symgrad and PyTorch run the very same program (``import symgrad as torch``)."""
    T = importlib.import_module(module_name)
    F = importlib.import_module(f"{module_name}.nn.functional")

    def prepare(case: Case, params: dict, consts: dict) -> Prepared:
        p = {k: T.from_numpy(v.copy()).requires_grad_(True) for k, v in params.items()}
        c = {k: T.from_numpy(v.copy()) for k, v in consts.items()}
        leaves = list(p.values())

        def step() -> None:
            # a training step starts from fresh gradients, as after optimizer.zero_grad()
            for t in leaves:
                t.grad = None
            case.torchlike_step(T, F, p, c)

        def gradients() -> dict:
            step()
            return {k: t.grad.numpy() for k, t in p.items()}

        return Prepared(step, gradients)

    return prepare


def _compiled_prepare(
    case: Case, params: dict, consts: dict, backend: str = "inductor"
) -> Prepared | None:
    """symgrad.compile of the case's loss: traced once, then its generated program (with
    ``backend="numexpr"``, element-wise chains fused into numexpr loops)."""
    if case.torchlike_loss is None:
        return None
    import symgrad as T
    import symgrad.nn.functional as F

    p = {k: T.from_numpy(v.copy()).requires_grad_(True) for k, v in params.items()}
    c = {k: T.from_numpy(v.copy()) for k, v in consts.items()}
    upstream = None if case.upstream is None else c[case.upstream]
    loss = T.compile(lambda p, c: case.torchlike_loss(T, F, p, c), fullgraph=True, backend=backend)
    leaves = list(p.values())

    def step() -> None:
        for t in leaves:
            t.grad = None
        loss(p, c).backward(upstream)

    def gradients() -> dict:
        step()
        return {k: t.grad.numpy() for k, t in p.items()}

    return Prepared(step, gradients)


def _hips_prepare(case: Case, params: dict, consts: dict) -> Prepared | None:
    if case.functional_loss is None:
        return None
    import autograd
    import autograd.numpy as anp

    grad = autograd.grad(lambda p: case.functional_loss(anp, p, consts))

    def gradients() -> dict:
        return {k: np.asarray(v) for k, v in grad(params).items()}

    return Prepared(lambda: grad(params), gradients)


def _jax_prepare(case: Case, params: dict, consts: dict) -> Prepared | None:
    if case.functional_loss is None:
        return None
    import jax
    import jax.numpy as jnp

    # compiled, as JAX is used in practice; the first (warm-up) call compiles
    grad = jax.jit(jax.grad(lambda p, c: case.functional_loss(jnp, p, c)))
    p = {k: jnp.asarray(v) for k, v in params.items()}
    c = {k: jnp.asarray(v) for k, v in consts.items()}

    def step() -> object:
        return jax.block_until_ready(grad(p, c))  # JAX dispatches asynchronously

    def gradients() -> dict:
        return {k: np.asarray(v) for k, v in step().items()}

    return Prepared(step, gradients)


def _import(module_name: str) -> tuple[str, str]:
    """(version, "") when ``module_name`` imports, else ("", the reason)."""
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # any failure means: not usable here
        return "", f"{type(error).__name__}: {error}"
    if module_name == "jax":
        # float64 cases need 64-bit mode, which must be set before any array exists
        module.config.update("jax_enable_x64", True)
    version = getattr(module, "__version__", None)
    if version is None:  # HIPS autograd has no __version__; its distribution knows
        try:
            version = importlib.metadata.version(module_name)
        except importlib.metadata.PackageNotFoundError:
            version = "?"
    return str(version), ""


def _peer(name: str, make: Callable[[], Callable]) -> Implementation:
    if name == "compiled-numexpr":  # needs numexpr beside symgrad
        version, missing = _import("numexpr")
        if not missing:
            version, missing = _import("symgrad")
    else:
        version, missing = _import("symgrad" if name == "compiled" else name)
    return Implementation(name, version, None if missing else make(), missing)


_PEERS = {
    "symgrad": lambda: _torchlike_prepare("symgrad"),
    "compiled": lambda: _compiled_prepare,
    "compiled-numexpr": lambda: functools.partial(_compiled_prepare, backend="numexpr"),
    "torch": lambda: _torchlike_prepare("torch"),
    "autograd": lambda: _hips_prepare,
    "jax": lambda: _jax_prepare,
}
NAMES = ("numpy", *_PEERS)


def implementations(names: Iterable[str] = NAMES) -> list[Implementation]:
    """NumPy (the reference, always) first, then those of symgrad and the peers named in
    ``names`` (possibly skipped); a peer not named is not even imported."""
    peers = [_peer(name, make) for name, make in _PEERS.items() if name in names]
    return [Implementation("numpy", np.__version__, _numpy_prepare), *peers]
