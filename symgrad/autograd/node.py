"""Graph nodes: what the engine walks backwards.

A node is made by an op when it records: it holds the edges to the nodes of its inputs
(``next_functions``), what the op saved for backward, and its primitive, which turns the
gradient of the output into gradients of the inputs. One class serves every op; its subclasses
only carry PyTorch's names (``MulBackward0``), so ``grad_fn`` prints the same as in PyTorch.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

from symgrad._unrecorded import SEQUENCE
from symgrad.autograd import anomaly, grad_mode
from symgrad.autograd.edges import NO_EDGE, as_public, public_positions
from symgrad.autograd.modified import modified_error
from symgrad.autograd.saved import FREED as _FREED
from symgrad.autograd.saved_names import (
    add_saved_properties,
    saved_fields,
    static_names,
    used_inputs,
)
from symgrad.autograd.saved_table import HOLDS_INDICES
from symgrad.tensor import Tensor

__all__ = ["Node", "AccumulateGrad", "NodeHooks", "RemovableHandle", "node_class"]

_sequence = SEQUENCE  # (shared with the stamps of unrecorded in-place changes)
_anomaly_state = anomaly._state


class Node:
    """One recorded op call: the ``grad_fn`` of its outputs.

    A node holds the primitive ``prim`` that made it and the call's ``params``, the edges to
    the nodes of its inputs (``next_functions``), what it saved for backward and the (shape,
    dtype) of each input (``_meta``). Everything the op knows (its backward rule, its formula,
    its text) is asked of ``prim``, with the node as context; the engine only walks nodes.
    Each op's nodes are of a class named as PyTorch names them (``MulBackward0``), made by
    :func:`node_class`, so that ``grad_fn`` prints the same as in PyTorch.
    """

    __slots__ = (
        "prim",
        "params",
        "_edges",
        "_saved",
        "_versions",
        "_out",
        "_out_version",
        "_hooks",
        "_seq",
        "_consts",
        "_meta",
        "_metadata",
        "_held",
        "_out_fw",
        "_packed",
        "_watched",
        "__weakref__",
    )
    num_outputs = 1
    runs_user_code = False  # True where backward is user code (custom Functions)
    has_forward = True  # False for a leaf's node: no forward call to trace back to

    def __init__(
        self,
        prim: Any,
        params: Any,
        edges: tuple,
        saved: tuple = (),
        out: Any = None,
        versions: Any = None,
        meta: Any = (),
        consts: Any = (),
        held: Any = None,
    ) -> None:
        self.prim = prim
        self.params = params
        self._edges = edges  # one (node, output_nr) per input of the primitive, in its order
        self._saved = saved
        if versions is None:
            versions = tuple(getattr(t, "_counter", None) and t._counter.value for t in saved)
        self._versions = versions
        self._out = out
        self._out_version = None
        self._hooks: NodeHooks | None = None
        self._seq = next(_sequence)
        self._consts = consts  # the inputs that need no gradient (the symbolic replay reads them)
        self._meta = meta  # (shape, dtype) of each tensor input, None for a number
        self._metadata: dict | None = None
        self._held = held  # the leaves its edges lead to (see AccumulateGrad)
        self._out_fw = None  # the saved output's (dual level, tangent) in forward mode
        self._packed = None  # what saved-tensor hooks packed (symgrad.autograd.saved)
        self._watched: Any = None  # (tensor, version) of index tensors the rule reads
        if _anomaly_state.enabled and self.has_forward:
            anomaly.record(self)

    @property
    def next_functions(self) -> tuple:
        """The edges to the nodes of the inputs, as PyTorch has them: ``(node, output_nr)``
        for each tensor argument PyTorch differentiates, in its order, ``(None, 0)`` for one
        needing no gradient or an optional tensor left out (a convolution's bias); none for
        an argument it never differentiates (``where``'s condition, a number). The primitive
        says where these differ from its own inputs (:attr:`Primitive.edges`).

        Examples
        --------
        >>> import symgrad
        >>> x = symgrad.tensor([1.0, -2.0], requires_grad=True)
        >>> symgrad.where(x > 0, x, 0.0).grad_fn.next_functions
        ((<AccumulateGrad object at 0x...>, 0), (None, 0))
        """
        positions = public_positions(self)
        if positions is None:
            return self._edges
        edges = self._edges
        # (an edge itself stands for an edge of a node this one shows as its own part)
        return tuple(NO_EDGE if i is None else edges[i] if type(i) is int else i for i in positions)

    @property
    def metadata(self) -> dict:
        """A dict for the user's annotations (PyTorch's ``grad_fn.metadata``)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def name(self) -> str:
        """The node's name, e.g. ``'MulBackward0'``; PyTorch's nodes written in C++ carry
        their namespace (``'torch::autograd::AccumulateGrad'``), and so do these."""
        name = type(self).__name__
        if name == "CppFunction":  # a C++ node with no class of its own: its primitive names it
            return _NAMESPACE + self.prim.cpp_name
        return _NAMESPACE + name if name in _NAMESPACED else name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # saved values ---------------------------------------------------------------------------
    def _unpack(self) -> tuple:
        """The saved inputs, after checking they were neither freed nor changed in place."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(_FREED)
        for t, version in zip(saved, self._versions):  # (this runs once per node of a pass)
            if version is not None and t._counter.value != version:
                self._check_inputs()  # one changed: an error where the backward reads it
                break
        found = self._out_version
        if found is not None and (type(found[0]) is tuple or found[0].value != found[1]):
            self._check_outputs()
        if self._watched is not None:
            for t, version in self._watched:
                if t._counter.value != version:
                    self._raise_modified(t, version, t._counter.value)
        if self._packed is not None:
            return self._packed.saved(self)
        return saved

    def _check_inputs(self) -> None:
        """Raise if a saved input the backward reads changed in place."""
        for i, (t, version) in enumerate(zip(self._saved, self._versions)):
            if version is not None and t._counter.value != version and self._reads(i):
                self._raise_modified(t, version, t._counter.value)

    def _check_outputs(self) -> None:
        """Raise if a saved output changed in place: ``_out_version`` is its (counter,
        version), or one such pair per output of a node with several."""
        found = self._out_version
        pairs = found if type(found[0]) is tuple else (found,)
        for i, (counter, version) in enumerate(pairs):
            if counter.value != version:
                self._raise_modified(None, version, counter.value, i)

    def _output(self) -> Any:
        """The saved output's array (a tuple of arrays for several outputs), unpacked."""
        return self._out if self._packed is None else self._packed.output(self)

    def _reads(self, i: int) -> bool:
        """Whether the backward reads saved input ``i``: PyTorch saves a factor only for the
        other's gradient, so changing ``y`` after ``y * 2`` breaks nothing."""
        used = used_inputs(self)
        return used is None or used[i]

    def _raise_modified(self, tensor: Any, expected: int, found: int, output: int = 0) -> None:
        """PyTorch's error for a saved tensor changed in place: ``tensor`` a saved input, or
        None for the node's own output number ``output``; a second line names this node."""
        raise modified_error(self, tensor, expected, found, output)

    def _release(self) -> None:
        """Free what was saved for backward; a node that saved no tensor stays runnable, as in
        PyTorch (``(x + x).sum()`` can be backpropagated twice)."""
        if (
            self._out is not None
            or self._packed is not None
            or self._watched is not None
            or self._versions.count(None) != len(self._versions)
            or type(self).__name__ in HOLDS_INDICES
        ):
            self._saved = None
            self._out = None
            self._packed = None
            self._watched = None

    @property
    def saved_tensors_freed(self) -> bool:
        """True once a backward without ``retain_graph`` has freed what this node saved."""
        return self._saved is None

    def __dir__(self) -> list:
        # the saved values this node has (the classes carry every name they may have)
        fields = saved_fields(self)
        # (``_saved`` itself is internal: PyTorch lists only the ``_saved_<name>`` fields)
        names = [
            n
            for n in super().__dir__()
            if n != "_saved" and not n.startswith(("_saved_", "_raw_saved_"))
        ]
        names += [f"_saved_{n}" for n in fields]
        names += [
            f"_raw_saved_{n}" for n, (kind, _) in fields.items() if kind in ("input", "output")
        ]
        return sorted(names)

    # hooks ------------------------------------------------------------------------------------
    def register_prehook(self, hook: Any) -> RemovableHandle:
        """Call ``hook(grad_outputs)`` before this node's backward runs.

        ``grad_outputs`` is a tuple with the gradient of each output of the node (None for an
        output that got none); the hook may return a tuple of the same length to use instead.
        It runs after the hooks of the output tensors (:meth:`Tensor.register_hook`).

        Examples
        --------
        >>> import symgrad
        >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 3
        >>> h = y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
        >>> y.sum().backward()
        >>> x.grad
        tensor([30., 30.])
        """
        return _added(self.hook_lists().pre, hook)

    def register_hook(self, hook: Any) -> RemovableHandle:
        """Call ``hook(grad_inputs, grad_outputs)`` after this node's backward has run.

        ``grad_inputs`` is a tuple with the gradient for each input of the node, one per entry
        of :attr:`next_functions` (None for an input that needs none), ``grad_outputs`` the
        gradients the node received. The hook may return a tuple like ``grad_inputs`` to pass
        on instead (a None gradient can't be replaced by a tensor). On a leaf's
        ``AccumulateGrad`` node, ``grad_inputs`` is ``()`` and the hook runs once ``.grad``
        has been accumulated.

        Examples
        --------
        >>> import symgrad
        >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * symgrad.tensor([3.0, 4.0])
        >>> h = y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: print(grad_inputs))
        >>> y.sum().backward()
        (tensor([3., 4.]), None)
        """
        return _added(self.hook_lists().post, hook)

    def hook_lists(self) -> NodeHooks:
        """This node's hooks, made empty at the first registration."""
        if self._hooks is None:
            self._hooks = NodeHooks()
        return self._hooks

    def __call__(self, *grad_outputs: Any) -> Any:
        """This node's backward run on ``grad_outputs`` (one per output; None for zeros): the
        gradient for each entry of :attr:`next_functions`, one tensor for one entry, recorded
        when grad mode is on. No hooks run.

        Examples
        --------
        >>> import symgrad
        >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * symgrad.tensor([3.0, 4.0])
        >>> y.grad_fn(symgrad.ones(2))
        (tensor([3., 4.]), None)
        """
        if len(grad_outputs) != self.num_outputs:
            raise TypeError(
                f"expected {self.num_outputs} arguments, got {len(grad_outputs)} instead"
            )
        record = grad_mode.is_grad_enabled()
        given = [g if record or g is None else g._data for g in grad_outputs]
        grads = tuple(
            g if g is None or isinstance(g, Tensor) else Tensor._make(g)
            for g in as_public(self, self.apply(given, record))
        )
        return grads[0] if len(grads) == 1 else grads

    # what the primitive answers ----------------------------------------------------------
    def apply(self, grads: list, create_graph: bool) -> tuple:
        """Gradients for each entry of ``next_functions`` from the output gradients."""
        return self.prim.apply(self, grads, create_graph)

    @property
    def expression(self) -> Any:
        """The forward formula in the node's own input symbols (see the primitive)."""
        return self.prim.local_formulas(self)[0]

    @property
    def local_derivatives(self) -> tuple:
        """For each input, the local derivative (element-wise) or the gradient it receives
        from a symbolic incoming gradient ``g`` (structural), in the node's own symbols."""
        return self.prim.local_formulas(self)[1]


# the saved values under PyTorch's names (grad_fn._saved_self): properties that raise
# AttributeError where a node has no such value (not __getattr__, which would slow every
# attribute read of every node)
add_saved_properties(Node, static_names())

_NAMESPACE = "torch::autograd::"
_NAMESPACED = frozenset(
    {"AccumulateGrad", "CopySlices", "CopyBackwards", "GraphRoot", "Error", "NotImplemented"}
)


class AccumulateGrad(Node):
    """The node of a leaf tensor: backward adds the incoming gradient to ``leaf.grad``.

    The leaf keeps its node for its whole life (one node, not one per training step) and the
    node refers back to the leaf weakly, so the two make no reference cycle; the nodes whose
    edges lead here hold the leaf itself (``_held``), so it lives as long as their graph.
    """

    __module__ = "builtins"  # as PyTorch's: <class 'AccumulateGrad'>
    __slots__ = ("_leaf_ref",)
    has_forward = False

    def __init__(self, leaf: Any) -> None:
        Node.__init__(self, None, None, (), (), None, ())
        self._leaf_ref = weakref.ref(leaf)

    @property
    def _leaf(self) -> Any:
        return self._leaf_ref()

    @property
    def variable(self) -> Any:
        """The leaf tensor this node accumulates into (PyTorch's name)."""
        return self._leaf_ref()

    def apply(self, grads: list, create_graph: bool) -> tuple:
        return ()


def accumulator_of(leaf: Any) -> AccumulateGrad:
    """The (cached) AccumulateGrad node of a leaf that requires grad."""
    node = leaf._accumulator
    if node is None:
        node = leaf._accumulator = AccumulateGrad(leaf)
    return node


class NodeHooks:
    """The hooks registered on one node, in the groups the engine runs them in, in PyTorch's
    order: ``tensor`` (the output tensors' :meth:`~symgrad.Tensor.register_hook`; on a leaf's
    node, the leaf's) and ``retain`` (``retain_grad``), which change the list of output
    gradients in place; ``pre`` (:meth:`Node.register_prehook`); the backward itself; then
    ``post_accumulate`` (a leaf's ``register_post_accumulate_grad_hook``) and ``post``
    (:meth:`Node.register_hook`). Each group runs in registration order."""

    __slots__ = ("tensor", "retain", "pre", "post", "post_accumulate")

    def __init__(self) -> None:
        self.tensor: list = []
        self.retain: list = []
        self.pre: list = []
        self.post: list = []
        self.post_accumulate: list = []


class RemovableHandle:
    """What registering a hook returns: ``handle.remove()`` unregisters the hook (a second
    call does nothing); as a context manager, the hook is removed on exit.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0], requires_grad=True)
    >>> with x.register_hook(lambda g: g * 10):
    ...     (x * 2).backward()
    >>> (x * 2).backward()
    >>> x.grad
    tensor([22.])
    """

    __module__ = "symgrad.utils.hooks"  # PyTorch's home: torch.utils.hooks
    __slots__ = ("_hooks", "_hook", "id", "_extra")
    _ids = itertools.count()  # each handle's ``id``: one count for the process, as PyTorch's

    def __init__(self, hooks: list | dict, hook: Any = None, extra: tuple = ()) -> None:
        self._hooks = hooks
        self._hook = hook
        self._extra = extra
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        """Unregister the hook (from a dict of hooks: the entry keyed by ``id``, also in
        the ``extra`` dicts)."""
        if isinstance(self._hooks, dict):
            for table in (self._hooks, *self._extra):
                table.pop(self.id, None)
            return
        for i, h in enumerate(self._hooks):
            if h is self._hook:
                del self._hooks[i]
                return

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _added(hooks: list, hook: Any) -> RemovableHandle:
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


_NODE_CLASSES: dict[tuple, type] = {}


def node_class(name: str, base: type = Node, outputs: int = 1) -> type:
    """The subclass of ``base`` called ``name`` (``MulBackward0``), with ``outputs`` outputs
    (``LinalgQrBackward0`` has two): one per name and count, made once."""
    cls = _NODE_CLASSES.get((base, name, outputs))
    if cls is None:
        # PyTorch's node classes are built-in: <class 'MulBackward0'>
        attrs = {"__slots__": (), "__module__": "builtins"}
        if outputs != 1:
            attrs["num_outputs"] = outputs
        cls = _NODE_CLASSES[(base, name, outputs)] = type(name, (base,), attrs)
    return cls
