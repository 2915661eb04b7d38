"""The backward engine: an iterative walk over the graph in reverse topological order.

The nodes run newest first (``order.walk``), each after every node that feeds it; gradients
reaching a node along several paths are summed in its input buffer before it runs. A leaf's
AccumulateGrad node runs as soon as its count of incoming edges is used up, as PyTorch runs it
first. No recursion: a chain of 100,000 ops is no deeper for Python than a chain of two.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad._grad_dtype import CUSTOM
from symgrad._silent import restore, silence
from symgrad.autograd import anomaly, dual, grad_mode, transforms_running
from symgrad.autograd.accumulate import first_grad, in_grad_dtype, one_node, ones_of, store
from symgrad.autograd.buffers import add_to, not_own, sum_into
from symgrad.autograd.current_pass import CURRENT
from symgrad.autograd.edges import GradientEdge
from symgrad.autograd.hooks import (
    grad_tensor,
    run_post_accumulate_hooks,
    run_posthooks,
    run_prehooks,
    run_tensor_hooks,
)
from symgrad.autograd.node import AccumulateGrad, Node
from symgrad.autograd.order import collect, leading_to, walk
from symgrad.autograd.placed import materialized
from symgrad.autograd.roots import (
    as_list,
    given_gradients,
    node_of,
    root_gradients,
    targets_of,
    warn_cycle,
)
from symgrad.prim.batching import BatchedTensor
from symgrad.tensor import Tensor, bind_methods

__all__ = ["backward", "grad"]

_anomaly_state = anomaly._state
_transforms = transforms_running.RUNNING


class _Run:
    """One backward pass: buffers, the order of the nodes and what to do at the leaves."""

    def __init__(
        self,
        create_graph: bool,
        retain_graph: bool,
        targets: dict | None,
        accumulate: bool,
        batched: bool = False,
    ) -> None:
        self.create_graph = create_graph
        # in forward mode the gradients are tensors, so they carry tangents (not recorded);
        # inside vmap they are batched tensors, so the rules run through the batching rules
        self.tangents = not create_graph and (dual.active() or batched)
        self.retain_graph = retain_graph
        self.targets = targets  # {(node, output_nr): positions} when only some inputs matter
        self.accumulate = accumulate
        self.captured: dict[int, Any] = {}
        # the pass's nodes, leaves and (with targets) nodes leading to them: set by _execute
        self.nodes: list = []
        self.pending: dict = {}
        self.useful: set | None = None
        self.reached: set | None = None  # made when a multi-grad hook first asks
        # whether index gradients may wait in the buffers as blocks (symgrad.autograd.placed),
        # set for the walk of a plain pass, and whether one did
        self.placed_ok = False
        self.made_placed = False
        # the gradients a leaf must copy rather than keep as its .grad, by id: the caller's,
        # those made by user code (hooks, custom Functions) and those already handed out in
        # this pass (the pass's arrays: see symgrad.autograd.buffers)
        self.foreign: dict = {}

    def execute(self, roots: list[Tensor], grads: list) -> None:
        # one silenced error state for the whole pass: derivatives at domain edges (1/0 of
        # sqrt' at 0) are inf or nan silently, as in PyTorch; anomaly mode is the way to be told
        token = silence()
        outer, CURRENT.partial = CURRENT.partial, self.targets is not None
        outer_run, CURRENT.run = CURRENT.run, self
        try:
            self._execute(roots, grads)
        finally:
            CURRENT.partial, CURRENT.run = outer, outer_run
            restore(token)

    def _execute(self, roots: list[Tensor], grads: list) -> None:
        root_nodes = [node_of(t) for t in roots]
        nodes, pending = walk([n for n, _ in root_nodes])
        useful = None
        if self.targets is not None:
            deps, order = collect([n for n, _ in root_nodes])
            useful = leading_to(order, deps, {n for n, _ in self.targets})
        self.nodes, self.pending, self.useful, self.reached = nodes, pending, useful, None
        buffers: dict[Node, list] = {}
        for (node, nr), g in zip(root_nodes, grads):
            self.foreign[id(g)] = g
            add_to(buffers, node, nr, g, self.foreign)
        # a leaf's gradient is complete once every node with an edge into it has run: it is
        # accumulated then, before the walk goes on (PyTorch runs AccumulateGrad first)
        for leaf_node, count in list(pending.items()):
            if count == 0:
                self._leaf(leaf_node, buffers.pop(leaf_node, None))
        # what only some passes need (inputs=, create_graph, anomaly mode) is looked at once
        # per pass here, not once per node: this loop runs for every node of a training step
        special = (
            self.targets is not None or self.create_graph or self.tangents or _anomaly_state.enabled
        )
        release = not self.retain_graph and not special
        self.placed_ok = not (self.create_graph or self.tangents or _anomaly_state.enabled)
        for node in nodes:
            grads_in = buffers.pop(node, None)
            if grads_in is None:
                in_grads: Any = (None,) * len(node._edges)
            else:
                if self.made_placed:
                    materialized(grads_in)
                if special:
                    in_grads = self._apply_special(node, grads_in, useful)
                elif node._hooks is not None:
                    in_grads = self._apply_hooked(node, grads_in, release)
                else:
                    in_grads = node.prim.apply(node, grads_in, False)
                    if release:
                        node._release()
                if node.runs_user_code:
                    not_own(self.foreign, (id(r) for r in in_grads if r is not None))
            for (nxt, nr), g in zip(node._edges, in_grads):
                if nxt is None:
                    continue
                count = pending.get(nxt)
                if count is None:  # an inner node: its gradients are summed until it runs
                    if g is not None:
                        buf = buffers.get(nxt)
                        if buf is None and nxt.num_outputs == 1:
                            buffers[nxt] = [g]  # the first gradient of a one-output node
                        else:
                            add_to(buffers, nxt, nr, g, self.foreign)
                    continue
                pending[nxt] = count - 1
                if count > 1:
                    if g is not None:
                        add_to(buffers, nxt, nr, g, self.foreign)
                    continue
                # a leaf's last edge: its gradient is complete (nothing to sum if it is the only)
                buffered = buffers.pop(nxt, None)
                if buffered is not None and g is not None:
                    buffered[0] = sum_into(buffered[0], g, self.foreign)
                self._leaf(nxt, buffered if buffered is not None or g is None else [g])

    def _apply_hooked(self, node: Node, grads: list, release: bool) -> Any:
        """``node``'s backward with its hooks around it, in PyTorch's order."""
        hooks = node._hooks
        run_tensor_hooks(hooks, grads, self.foreign)
        if hooks.pre:
            grads = run_prehooks(hooks, grads, self.foreign)
        if _all_none(grads):  # a pre-hook took every gradient away
            result: Any = (None,) * len(node._edges)
        else:
            result = node.prim.apply(node, grads, False)
        if release:
            node._release()
        if hooks.post:
            if self.made_placed:
                result = materialized(list(result))
            result = run_posthooks(hooks, result, grads, self.foreign, node)
        return result

    def _apply_special(self, node: Node, grads: list, useful: set | None) -> Any:
        """``node``'s backward (with its hooks) in a pass with ``inputs=``, ``create_graph`` or
        anomaly mode."""
        hooks = node._hooks
        targets = self.targets
        captured = targets is not None and any(
            (node, nr) in targets for nr in range(node.num_outputs)
        )
        if useful is not None and not captured and node not in useful:
            return (None,) * len(node._edges)  # not needed for inputs=: not run
        if hooks is not None:
            run_tensor_hooks(hooks, grads, self.foreign)
        if captured:
            self._capture(node, grads)
            if node not in useful:  # type: ignore[operator]
                return (None,) * len(node._edges)
        if hooks is not None and hooks.pre:
            grads = run_prehooks(hooks, grads, self.foreign)
        if _all_none(grads):
            result: Any = (None,) * len(node._edges)
        else:
            result = self._apply_watched(node, grads)
        if not self.retain_graph:
            node._release()
        if hooks is not None and hooks.post:
            if self.made_placed:
                result = materialized(list(result))
            result = run_posthooks(hooks, result, grads, self.foreign, node)
        return result

    def _apply_watched(self, node: Node, grads: list) -> Any:
        """``node``'s backward, recorded under ``create_graph``, checked in anomaly mode."""
        try:
            if self.create_graph:
                with grad_mode.enable_grad():
                    result = node.apply(grads, True)
            elif self.tangents:
                with grad_mode.no_grad():
                    result = tuple(_unrecorded(r) for r in node.apply(grads, True))
            else:
                result = node.apply(grads, False)
            if _anomaly_state.enabled:
                anomaly.check_backward(node, result)
        except Exception:
            if _anomaly_state.enabled:  # PyTorch's warning, then the error itself
                anomaly.warn_error(node)
            raise
        return result

    def _capture(self, node: Node, grads: list) -> None:
        """Keep the gradients of the outputs that ``inputs=`` asked for."""
        for nr, g in enumerate(grads):
            if g is not None:
                for position in self.targets.get((node, nr), ()):  # type: ignore[union-attr]
                    self.captured[position] = g

    def _leaf(self, node: AccumulateGrad, grads: list | None) -> None:
        """Accumulate ``grads``, the now complete gradient of the leaf of ``node``."""
        if grads is None:
            return
        targets = self.targets
        if targets is not None and (node, 0) not in targets:
            return
        if self.made_placed:
            materialized(grads)
        if CUSTOM:  # some leaf was given a grad_dtype
            grads = in_grad_dtype(node._leaf, grads)
        hooks = node._hooks
        if hooks is not None:
            run_tensor_hooks(hooks, grads, self.foreign)
        if targets is not None:
            self._capture(node, grads)
        if not self.accumulate:
            return
        if hooks is not None and hooks.pre:
            grads = run_prehooks(hooks, grads, self.foreign)
        g = grads[0]
        leaf = node._leaf_ref()
        # no .grad for a leaf since switched off (PyTorch's AccumulateGrad); hooks still run
        if g is not None and leaf._requires_grad:
            if self.create_graph:
                leaf._grad = (
                    first_grad(g, leaf, self._own_tensor) if leaf._grad is None else leaf._grad + g
                )
            else:
                store(leaf, g._data if isinstance(g, Tensor) else g, self.foreign)
        if hooks is not None:
            run_post_accumulate_hooks(hooks, leaf)
            if hooks.post:
                run_posthooks(hooks, (), grads, self.foreign)

    def _own_tensor(self, g: Tensor) -> Tensor:
        """``g``, or a copy of it when someone else holds it (create_graph accumulation)."""
        if id(g) not in self.foreign:
            self.foreign[id(g)] = None
            return g
        with grad_mode.enable_grad():
            return g.clone() if g._requires_grad else Tensor._make(g._data.copy(order="K"))


def _unrecorded(g: Any) -> Any:
    """A gradient of a pass without ``create_graph``, cut from any graph user code recorded
    (keeping its tangent in forward mode)."""
    if isinstance(g, Tensor) and g._requires_grad:
        plain = Tensor._make(g._data)
        plain._fw = g._fw
        return plain
    return g


def _all_none(grads: list) -> bool:
    for g in grads:
        if g is not None:
            return False
    return True


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Accumulate into the leaves' ``.grad`` the gradient of ``tensors`` (PyTorch's
    ``torch.autograd.backward``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> symgrad.autograd.backward((x ** 2).sum())
    >>> x.grad
    tensor([2., 4.])
    """
    if _transforms[0]:  # (backward() inside a transform: PyTorch's error)
        transforms_running.check_backward()
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warn_cycle()
    if (
        type(tensors) is Tensor
        and grad_tensors is None
        and tensors._requires_grad
        and tensors._data.size == 1
    ):  # loss.backward(): the common case needs none of root_gradients's checks
        if not create_graph and inputs is None and one_node(tensors, retain_graph):
            return
        roots = [tensors]
        data = tensors._data  # (a meta array for a meta loss)
        start = [ones_of(data).copy() if type(data) is np.ndarray else np.ones_like(data)]
        if create_graph or dual.active():
            start[0] = Tensor._make(start[0])
    else:
        roots = as_list(tensors)
        grads = given_gradients(tensors, grad_tensors)
        start = root_gradients(roots, grads, create_graph or dual.active())
    targets = None
    if inputs is not None:
        inputs = as_list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        targets = targets_of(inputs)
    run = _Run(create_graph, retain_graph, targets, accumulate=True)
    run.execute(roots, start)
    if inputs is not None:
        first = {id(t): i for i, t in reversed(list(enumerate(inputs)))}
        for i, t in enumerate(inputs):
            if first[id(t)] != i or isinstance(t, GradientEdge):  # (an edge has no .grad)
                continue
            # non-leaf inputs get .grad too, unless their retain_grad hook already gave it
            if t.grad_fn is not None and i in run.captured and not t._retains_grad:
                g = run.captured[i]
                g = grad_tensor(g, copy=True)
                t._grad = g if t._grad is None else t._grad + g


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor(3.0, requires_grad=True)
    >>> (dx,) = symgrad.autograd.grad(x ** 3, x, create_graph=True)
    >>> dx
    tensor(27., grad_fn=<MulBackward0>)
    >>> symgrad.autograd.grad(dx, x)
    (tensor(18.),)
    """
    roots = as_list(outputs)
    input_list: Sequence[Tensor] = as_list(inputs)
    if not input_list:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = given_gradients(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False. Unused inputs get zeros with materialize_grads=True, so "
            "leave allow_unused out"
        )
    batched = any(type(g) is BatchedTensor for g in grads)
    start = root_gradients(roots, grads, create_graph or dual.active() or batched)
    targets = targets_of(input_list)
    run = _Run(create_graph, retain_graph, targets, accumulate=False, batched=batched)
    run.execute(roots, start)
    result = []
    for i, t in enumerate(input_list):
        g = run.captured.get(i)
        if g is None and isinstance(t, GradientEdge):
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)  # (an edge has no shape to make zeros of)
            continue
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior.\n(the input "
                    f"has shape {list(t.shape)})"
                )
            zeros = Tensor._make(np.zeros(t.shape, t._data.dtype))
            result.append(zeros if materialize_grads else None)
            continue
        result.append(grad_tensor(g, copy=True))
    return tuple(result)


def _backward_method(
    self: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Accumulate the gradient of this tensor into the ``.grad`` of the leaves.

    ``gradient`` is the ``v`` of the vector-Jacobian product ``vᵀ·J``; it may be left out
    for a one-element tensor.
    """
    backward(self, gradient, retain_graph, create_graph, inputs)


_backward_method.__name__ = "backward"
bind_methods({"backward": _backward_method})
