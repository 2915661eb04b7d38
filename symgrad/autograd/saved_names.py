"""A node's saved values under PyTorch's attribute names: ``grad_fn._saved_self``,
``_saved_other``, ``_saved_result``, ``_saved_exponent``, and ``grad_fn._raw_saved_self`` (a
:class:`SavedTensor`, on which hooks can be registered for that one value).

The names are derived from what the primitive declares: its inputs in order take PyTorch's
argument names (``self`` for one input; ``self``, ``other`` for two), its saved output is
``result``, an element-wise primitive's parameters keep their declared names
(``negative_slope``, ``exponent``). Where PyTorch's function names its arguments otherwise
(``mm(self, mat2)``, ``where(condition, self, other)``), the small tables below say so, keyed
by the node's name as in PyTorch's ``derivatives.yaml``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd.saved import FREED, STATE, Packed, packed, packed_number, packed_of
from symgrad.autograd.saved_table import SAVED, VALUES, size_value
from symgrad.tensor import Tensor

__all__ = [
    "saved_fields",
    "saved_attribute",
    "SavedTensor",
    "pack_node",
    "used_inputs",
    "add_saved_properties",
    "static_names",
]

_DEFAULT_ARGUMENTS = {1: ("self",), 2: ("self", "other"), 3: ("self", "other", "weight")}

# PyTorch's argument names where they are not the defaults (None: a value PyTorch saves in
# another form, not shown under a name)
ARGUMENTS = {
    "MmBackward0": ("self", "mat2"),
    "CdistBackward0": ("x1", "x2"),
    "IndexAddBackward0": ("self", "source"),
    "IndexCopyBackward0": ("self", "source"),
    "BmmBackward0": ("self", "mat2"),
    "MvBackward0": ("self", "vec"),
    "DotBackward0": ("self", "tensor"),
    "AddmmBackward0": ("self", "mat1", "mat2"),
    "BaddbmmBackward0": ("self", "batch1", "batch2"),
    "AddmvBackward0": ("self", "mat", "vec"),
    "PowBackward1": ("self", "exponent"),
    "PreluKernelBackward0": ("self", "weight"),
    "BinaryCrossEntropyWithLogitsBackward0": ("self", "target"),
    "ConvolutionBackward0": ("input", "weight", "bias"),
    "NativeLayerNormBackward0": ("input", "weight", "bias"),
    "NativeBatchNormBackward0": ("input", "weight", "bias"),
    "NativeGroupNormBackward0": ("input", "weight", "bias"),
    "WhereBackward0": ("condition", "self", "other"),
    "GridSampler2DBackward0": ("input", "grid"),
    "GridSampler3DBackward0": ("input", "grid"),
    "PowBackward2": ("exponent",),
    "LerpBackward0": ("self", "end"),
    "LerpBackward1": ("self", "end", "weight"),
    "XlogyBackward1": ("other",),
    "ClampBackward0": ("self", "min", "max"),
    "ClampMinBackward1": ("self", "min"),
    "ClampMaxBackward1": ("self", "max"),
    "AddcmulBackward0": ("self", "tensor1", "tensor2"),
    "AddcdivBackward0": ("self", "tensor1", "tensor2"),
    "MseLossBackward0": ("self", "target"),
    "L1LossBackward0": ("self", "target"),
    "HuberLossBackward0": ("self", "target"),
    "SmoothL1LossBackward0": ("self", "target"),
    "BinaryCrossEntropyBackward0": ("self", "target", "weight"),
}

# an element-wise primitive's parameters under PyTorch's names, where they differ
PARAMETERS = {
    "MulBackward1": {"c": "other"},
    "AddBackward1": {"c": None},
    "PowBackward2": {"base": "self"},
    "CopysignBackward1": {"y": "other"},
    "XlogyBackward1": {"x": "self"},
    "XlogyBackward2": {"y": "other"},
}

# the parameters of structural primitives PyTorch saves, by node name
STRUCTURAL_PARAMETERS = {
    "SoftmaxBackward0": ("dim",),
    "LogSoftmaxBackward0": ("dim",),
    "CumsumBackward0": ("dim",),
    "CumprodBackward0": ("dim",),
    "VarMeanBackward0": ("correction", "dim", "keepdim"),
    "StdMeanBackward0": ("correction", "dim", "keepdim"),
}

# the names of several saved outputs
OUTPUTS = {
    "LinalgQrBackward0": ("Q", "R"),
    "LinalgEighBackward0": ("eigenvalues", "eigenvectors"),
    "LinalgSvdBackward0": ("U", "S", "Vh"),
    "VarMeanBackward0": (None, None),  # (None: an output PyTorch does not save)
    "StdMeanBackward0": ("result0", None),
    "AminmaxBackward0": ("min", "max"),
}


def _saved_property(attribute: str) -> property:
    def get(node: Any) -> Any:
        own = getattr(node, "__dict__", None)  # a custom Function's ctx may use the name
        if own is not None and attribute in own:
            return own[attribute]
        return saved_attribute(node, attribute)

    def set_(node: Any, value: Any) -> None:
        own = getattr(node, "__dict__", None)
        if own is None:
            raise AttributeError(
                f"'{type(node).__name__}' object attribute '{attribute}' is read-only"
            )
        own[attribute] = value

    return property(get, set_, doc=f"The node's saved value ``{attribute}`` (PyTorch's name).")


def saved_properties(names: Any) -> dict:
    """``{"_saved_<name>": property, "_raw_saved_<name>": property}`` for each name."""
    found = {}
    for name in names:
        for attribute in (f"_saved_{name}", f"_raw_saved_{name}"):
            found[attribute] = _saved_property(attribute)
    return found


def static_names() -> set:
    """Every name a node may save a value under, but element-wise parameters' (which their
    primitives add)."""
    arguments = {"self", "other", "weight"}
    for names in ARGUMENTS.values():
        arguments.update(n for n in names if n is not None)
    names = arguments | {f"{n}_sym_sizes" for n in arguments} | {"result", "result0", "result1"}
    for outputs in OUTPUTS.values():
        names.update(n for n in outputs if n is not None)
    for renames in PARAMETERS.values():
        names.update(n for n in renames.values() if n is not None)
    for params in STRUCTURAL_PARAMETERS.values():
        names.update(params)
    for listed in SAVED.values():
        names.update(listed)
    return names


def add_saved_properties(cls: type, names: Any) -> None:
    """Give a node class the saved-value properties of ``names`` (Node the static names;
    each element-wise primitive its parameters')."""
    for attribute, prop in saved_properties(names).items():
        if not hasattr(cls, attribute):
            setattr(cls, attribute, prop)


def used_inputs(node: Any) -> tuple | None:
    """For each saved input, whether the backward reads it given which inputs need a
    gradient (PyTorch saves only those), or None for a custom Function (all it saved)."""
    if node.runs_user_code:
        return None
    needs = tuple(fn is not None for fn, _ in node._edges)
    return node.prim.used_saves(needs)


def pack_node(node: Any, outputs: tuple = ()) -> None:
    """Pack what ``node`` saved with the innermost hooks: each saved tensor its backward reads
    and, when it saved its output, each of ``outputs`` (the node's output tensors). The inputs
    are packed in PyTorch's order, by their argument names, then the outputs."""
    if not STATE.hooks:
        return  # active in another thread only
    pack_hook, unpack_hook = STATE.hooks[-1]
    used = used_inputs(node)
    saved = node._saved
    order = range(len(saved))
    if used is not None:
        names = _arguments(node)
        order = sorted(order, key=lambda i: names[i] if i < len(names) and names[i] else "~")
    for i in order:
        t = saved[i]
        if isinstance(t, Tensor) and (used is None or used[i]):
            packed_of(node).pack_input(node, i, packed(t, pack_hook, unpack_hook))
    if node._out is not None:
        for k, t in enumerate(outputs):
            p = packed(t, pack_hook, unpack_hook, output=k)
            packed_of(node).pack_output(node, k, p)


def _arguments(node: Any) -> tuple:
    """PyTorch's argument name of each input of ``node``."""
    # a primitive may name them itself (clamp's one tensor bound: min or max)
    own = getattr(node.prim, "argument_names", None)
    return own or ARGUMENTS.get(type(node).__name__) or _DEFAULT_ARGUMENTS.get(len(node._meta), ())


def saved_fields(node: Any) -> dict:
    """``{name: (kind, which)}`` for each ``_saved_<name>`` of ``node``: kind ``"input"``
    (``which`` its position), ``"output"`` (its index), ``"value"`` (``which`` the value) or
    ``"computed"`` (``which`` a function of the node giving the value)."""
    prim = node.prim
    if prim is None or node.runs_user_code or not node.has_forward:
        return {}
    found = _kept_fields(node)
    listed = SAVED.get(type(node).__name__)
    if listed is None:
        return found
    computed = VALUES.get(type(node).__name__, {})
    params = node.params if isinstance(node.params, dict) else {}
    shown = dict(params.get("saved_as", ()))  # arguments kept as given, where an op keeps them
    arguments = _arguments(node)
    fields: dict = {}
    for name in listed:
        if name in shown:
            fields[name] = ("value", shown[name])
        elif name in computed:
            fields[name] = ("computed", computed[name])
        elif name in found:
            fields[name] = found[name]
        elif (sizes := size_value(node, name, arguments)) is not None:
            fields[name] = sizes
        elif name in params:
            fields[name] = ("value", params[name])
    return fields


def _kept_fields(node: Any) -> dict:
    """The fields of what ``node`` saved: its inputs and outputs under PyTorch's names, its
    parameters (an element-wise primitive's, or those :data:`STRUCTURAL_PARAMETERS` lists)."""
    prim = node.prim
    name = type(node).__name__
    keep, keep_out = prim._needs or prim.saves(len(node._meta))
    fields: dict = {}
    for i, arg in enumerate(_arguments(node)[: len(node._meta)]):
        if arg is not None and keep[i]:
            fields[arg] = ("input", i)
    if keep_out:
        outputs = OUTPUTS.get(name) or (
            ("result",)
            if node.num_outputs == 1
            else tuple(f"result{k}" for k in range(node.num_outputs))
        )
        fields.update((out, ("output", k)) for k, out in enumerate(outputs) if out is not None)
    params = node.params
    if isinstance(params, tuple):  # an element-wise primitive's, in its declared order
        renames = PARAMETERS.get(name, {})
        for p, value in zip(prim.param_names, params):
            p = renames.get(p, p)
            if p is not None:
                fields[p] = ("value", value)
    elif isinstance(params, dict):
        # a primitive may keep the arguments as PyTorch shows them (before normalizing)
        shown = dict(params.get("saved_as", ()))
        for p in STRUCTURAL_PARAMETERS.get(name, ()):
            value = params[p]
            if p in shown:
                value = shown[p]
            elif p == "dim" and isinstance(value, tuple) and len(value) == 1:
                value = value[0]  # these ops take one dim (an int in PyTorch)
            fields[p] = ("value", value)
    return fields


def _field(node: Any, attribute: str, prefix: str) -> tuple:
    field = saved_fields(node).get(attribute[len(prefix) :])
    if field is None:
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{attribute}'")
    return field


def saved_attribute(node: Any, attribute: str) -> Any:
    """The value of ``node._saved_<name>`` (or the :class:`SavedTensor` of
    ``node._raw_saved_<name>``); AttributeError for a name the node does not save."""
    if attribute.startswith("_raw_saved_"):
        kind, which = _field(node, attribute, "_raw_saved_")
        if kind in ("value", "computed"):
            raise AttributeError(
                f"'{type(node).__name__}' object has no attribute '{attribute}' (the saved "
                f"'{attribute[11:]}' is not a tensor: read it as _saved_{attribute[11:]})"
            )
        return SavedTensor(node, kind, which)
    kind, which = _field(node, attribute, "_saved_")
    if kind == "value":
        return which
    if kind == "computed":
        return which(node)
    return _unpacked(node, kind, which)


def _unpacked(node: Any, kind: str, which: int) -> Any:
    """Saved input or output ``which`` of ``node``, unpacked (None where not saved)."""
    if kind == "input":
        used = used_inputs(node)
        if used is not None and not used[which]:
            return None  # the backward does not read it: PyTorch does not save it
    saved = node._saved
    if saved is None:
        raise RuntimeError(FREED)
    hooked = node._packed
    if kind == "output":
        p = None if hooked is None or hooked.outputs is None else hooked.outputs[which]
        if p is not None:
            return p.tensor(node)
        if node._out_version is not None:
            node._check_outputs()
        out = node._out if hooked is None else hooked.plain_out
        t = Tensor._make(out if node.num_outputs == 1 else out[which], node, True)
        t._output_nr = which
        return t
    p = None if hooked is None else hooked.inputs[which]
    if p is not None:
        return p.tensor(node)
    value = saved[which]
    if isinstance(value, Tensor):
        version = node._versions[which]
        if version is not None and value._counter.value != version:
            node._raise_modified(value, version, value._counter.value)
        return value
    return Tensor._make(np.asarray(value))  # a number, as PyTorch's wrapped number tensor


class SavedTensor:
    """One value a node saved for its backward (``grad_fn._raw_saved_self``), as PyTorch's
    ``torch._C._autograd.SavedTensor``: :meth:`register_hooks` packs it now and unpacks it
    whenever the backward reads it.

    Examples
    --------
    >>> import symgrad
    >>> a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = a * symgrad.tensor([3.0, 4.0], requires_grad=True)
    >>> y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 10, lambda t: t)
    >>> y.grad_fn._saved_self
    tensor([10., 20.], requires_grad=True)
    """

    __slots__ = ("_node", "_kind", "_which")

    def __init__(self, node: Any, kind: str, which: int) -> None:
        self._node, self._kind, self._which = node, kind, which

    def __repr__(self) -> str:
        return f"<symgrad.autograd.graph.SavedTensor object at {id(self):#x}>"

    def unpack(self) -> Any:
        """The saved value (through its unpack hook, if it has one)."""
        return _unpacked(self._node, self._kind, self._which)

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        """Keep this value as ``pack_hook(value)`` (called now, with the value detached) and
        give ``unpack_hook(packed)`` to the backward whenever it reads it."""
        node = self._node
        if node._saved is None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward."
            )
        if self._packed() is not None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        value = self.unpack()
        if value is None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor with value None is forbidden"
            )
        if self._kind == "output":
            p = packed(value, pack_hook, unpack_hook, output=self._which, detach=True)
            packed_of(node).pack_output(node, self._which, p)
        elif isinstance(node._saved[self._which], Tensor):
            p = packed(value, pack_hook, unpack_hook, detach=True)
            packed_of(node).pack_input(node, self._which, p)
        else:
            p = packed_number(node._saved[self._which], pack_hook, unpack_hook)
            packed_of(node).pack_input(node, self._which, p)

    def _packed(self) -> Packed | None:
        hooked = self._node._packed
        if hooked is None:
            return None
        if self._kind == "output":
            return None if hooked.outputs is None else hooked.outputs[self._which]
        return hooked.inputs[self._which]
