"""Element-wise primitives and their nodes.

An :class:`Elementwise` primitive is a SymPy expression of scalar input symbols; its kernels
(forward and one fused ``g * partial`` VJP per input) are lambdified from it once, lazily, and
its differentiable VJP is itself an element-wise primitive: every order of derivative from SymPy.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp
from symgrad._meta import MetaArray, meta_array
from symgrad._silent import quiet, silencer
from symgrad.autograd import grad_mode
from symgrad.autograd.current_pass import CURRENT, edge_needs
from symgrad.autograd.node import Node, node_class
from symgrad.autograd.saved_names import add_saved_properties
from symgrad.prim import blocks
from symgrad.prim.application import Application
from symgrad.prim.domains import Domain
from symgrad.prim.formulas import at_zero_as_pytorch, call_with_names, names_of, symbols_of
from symgrad.prim.kernels import blockwise, lambdify
from symgrad.prim.numpy_xp import reduce_to
from symgrad.prim.primitive import (
    Ctx,
    Primitive,
    camel,
)
from symgrad.tensor import Tensor

_HALF = np.dtype(np.float16)

__all__ = ["Elementwise"]

_EAGER_MIN = blocks.EAGER_MIN


class Elementwise(Application, Primitive):
    """An element-wise primitive declared by a SymPy expression of scalar input symbols.

    Parameters
    ----------
    name : the op's NumPy/PyTorch name.
    inputs : the input names (``"x y"``) or SymPy symbols (differentiable arguments, in order).
    expr : the forward formula: a function of the input and parameter symbols, called by name
        on first use (so SymPy loads only then), or a SymPy expression in ``inputs``.
    params : names or symbols of non-differentiable scalar parameters (a slope, a bound).
    partials : optional rewritten partials, one per input, which may use the output ``out``:
        a function of the symbols it names (``lambda out: (out,)``), or SymPy expressions.
    kernel : optional NumPy forward kernel (numerically stable or faster), tested to agree.
    partial_kernels : optional ``{i: f(*inputs, out, *params)}`` kernels for partials.
    vjp_kernels : optional ``{i: f(*inputs, out, g, *params)}`` kernels for ``g * partial_i``
        itself, where fusing the product is much faster (tested to agree like the others).
    promote : ``"same"`` keeps the promoted dtype, ``"float"`` turns integers into the default
        float dtype (``exp`` of an integer tensor is a float tensor).
    exact : False when ``partials`` are declared subgradients that ``sympy.diff`` would not
        give (sign's zero derivative instead of a Dirac delta, elu's 0 second derivative at 0).
    domain : where the tests sample each input and which parameter values they try: a
        :class:`~symgrad.prim.domains.Domain`, or ``{input name: kind}`` (see its kinds).
    edges : PyTorch's edges where they are not one per input (``where``'s condition has
        none): the input position of each (see :attr:`Primitive.edges`).
    vjp_edges : the same for the backward op of each input (whose inputs are the op's, its
        output, then the gradient), where PyTorch's backward op of several inputs orders
        them otherwise (``_prelu_kernel_backward(grad_output, self, weight)``).
    """

    batch = "elementwise"  # a batch is one more broadcast dimension
    tangent_inputs: Any = None  # the inputs PyTorch's forward formula reads, where not all

    def __init__(
        self,
        name: str,
        inputs: Any,
        expr: Any,
        *,
        params: Any = (),
        partials: Any = None,
        kernel: Callable | None = None,
        partial_kernels: dict | None = None,
        vjp_kernels: dict | None = None,
        vjp_partial_kernels: dict | None = None,
        promote: str = "same",
        backward: str | None = None,
        exact: bool = True,
        level: int = 0,
        domain: Any = None,
        masked: bool = False,
        vjp_backward: str | tuple | None = None,
        reads_result: bool = False,
        half_backward: Any = None,
        edges: Any = None,
        vjp_edges: tuple | None = None,
    ) -> None:
        self.name = name
        self.edges = edges  # PyTorch's edges, where not one per input (Primitive.edges)
        self.vjp_edges = vjp_edges
        # how PyTorch's own backward kernel (sigmoid_backward, silu_backward, ...) computes a
        # float16 gradient: "float32" (the VJP in float32, rounded once) or a function of the
        # float16 input, result and gradient; None: its formula's ops one by one
        self.half_backward = half_backward
        # PyTorch's backward reads the result (the in-place activations): the node saves it
        # and an in-place change of it breaks the backward
        self.reads_result = reads_result
        # the name of its gradient's node under create_graph, where PyTorch computes the
        # gradient with a backward op of its own (relu's is ThresholdBackwardBackward0)
        self.vjp_backward = vjp_backward
        # PyTorch's gradient is g masked by a comparison of the inputs (clamp, maximum): under
        # create_graph it has no graph back to them, so differentiating it again raises there
        self.masked = masked
        self._declared = (inputs, expr, params, partials)
        self.arity = len(names_of(inputs))
        self.input_names = tuple(str(v) for v in names_of(inputs))
        self.param_names = tuple(str(v) for v in names_of(params))
        if domain is None:
            domain = Domain(params=((),) if not self.param_names else ())
        elif isinstance(domain, dict):
            domain = Domain(domain)
        domain.check(name, self.input_names, self.param_names)
        self.domain = domain
        self.kernel = kernel
        self.partial_kernels = dict(partial_kernels or {})
        self._vjp_kernels: dict[int, Callable] = dict(vjp_kernels or {})
        # {i: partial_kernels of input i's backward primitive}: PyTorch's double-backward
        # formulas where they differ from the derivative of the (clamped) first one
        self.vjp_partial_kernels = dict(vjp_partial_kernels or {})
        self.promote = promote
        self.exact = exact
        self.level = level
        self.backward_name = backward
        self._node_cls = node_class(self.node_name())
        add_saved_properties(Node, self.param_names)  # grad_fn._saved_exponent
        self._forward: Callable | None = None
        self._vjp_prims: dict[int, Elementwise] = {}
        self._vjp_uses: dict[int, tuple] = {}
        self._needs: tuple | None = None

    # -- the declaration, in SymPy, made on first use ------------------------------------
    @functools.cached_property
    def _symbols(self) -> tuple:
        """(input symbols, parameter symbols, formula, declared partials or None)."""
        inputs, expr, params, partials = self._declared
        xs, ps = symbols_of(inputs), symbols_of(params)
        named = {str(v): v for v in xs + ps}
        named["out"] = self.out_symbol
        if callable(expr) and not isinstance(expr, sp.Basic):
            expr = call_with_names(expr, named)
        if callable(partials):
            partials = tuple(call_with_names(partials, named))
        return xs, ps, sp.sympify(expr, strict=True), partials

    @property
    def inputs(self) -> tuple:
        """The input symbols (differentiable arguments, in order)."""
        return self._symbols[0]

    @property
    def params(self) -> tuple:
        """The symbols of the non-differentiable scalar parameters."""
        return self._symbols[1]

    @property
    def expr(self) -> Any:
        """The forward formula in the input and parameter symbols."""
        return self._symbols[2]

    @property
    def declared_partials(self) -> tuple | None:
        """The partials as declared (possibly with the output symbol), or None."""
        return self._symbols[3]

    @functools.cached_property
    def out_symbol(self) -> Any:
        """The symbol standing for the output in rewritten partials."""
        return sp.Symbol("out" if self.level == 0 else f"out{self.level}", real=True)

    def __repr__(self) -> str:
        return f"<elementwise primitive {self.name}: {self.expr}>"

    # -- derived, once per primitive -----------------------------------------------------
    @functools.cached_property
    def partials(self) -> tuple:
        """One partial derivative per input, possibly written with the output symbol."""
        if self.declared_partials is not None:
            return tuple(sp.sympify(p, strict=True) for p in self.declared_partials)
        # derivatives of steps (sign, Heaviside) are 0 almost everywhere, PyTorch's convention,
        # not a Dirac delta that no kernel can evaluate
        partials = tuple(
            sp.diff(self.expr, x).replace(sp.DiracDelta, lambda *a: sp.Integer(0))
            for x in self.inputs
        )
        if self.level:
            partials = tuple(at_zero_as_pytorch(p, set(self.params)) for p in partials)
        return partials

    @functools.cached_property
    def local_derivatives(self) -> tuple:
        """The partials in the input symbols only (the output symbol replaced by ``expr``)."""
        return tuple(p.subs(self.out_symbol, self.expr) for p in self.partials)

    def needs(self) -> tuple:
        """(which inputs, whether the output) the numeric VJP needs saved."""
        if self._needs is None:
            free = set().union(*(p.free_symbols for p in self.partials)) if self.partials else set()
            needs_in = tuple(x in free for x in self.inputs)
            self._needs = (needs_in, self.out_symbol in free or self.reads_result)
        return self._needs

    @property
    def numeric(self) -> Callable:
        """The forward kernel: ``kernel`` if declared, else the lambdified expression."""
        if self._forward is None:
            # inf and nan (log(0), 1/0, inf - inf) come out silently, as in PyTorch; anomaly
            # mode is the way to be told
            raw = self.kernel
            if raw is None:
                raw = blockwise(lambdify(self.inputs + self.params, self.expr), self.expr)
            self._forward = quiet(raw)
            self._raw = raw if silencer()[0] is not None else None
        return self._forward

    def vjp_kernel(self, i: int) -> Callable:
        """``f(*inputs, out, g, *params) = g * partial_i``, fused into one NumPy function."""
        kernel = self._vjp_kernels.get(i)
        if kernel is None:
            g = _g_symbol(self.level)
            override = self.partial_kernels.get(i)
            if override is not None:
                n = len(self.inputs) + 1

                def kernel(*args: Any, _p: Callable = override, _n: int = n) -> Any:
                    return args[_n] * _p(*args[:_n], *args[_n + 1 :])
            else:
                args = self.inputs + (self.out_symbol, g) + self.params
                expr = self.vjp_expression(i)
                kernel = blockwise(lambdify(args, expr), expr)
            self._vjp_kernels[i] = kernel
        return kernel

    def vjp_expression(self, i: int) -> Any:
        """``g * partial_i`` with ``g`` moved inside piecewise branches, so that a zero branch
        gives 0 even for an infinite ``g`` (PyTorch's masking), not ``inf * 0 = nan``."""
        return sp.piecewise_fold(_g_symbol(self.level) * self.partials[i])

    def vjp_uses(self, i: int) -> tuple:
        """Which inputs ``g * partial_i`` depends on."""
        uses = self._vjp_uses.get(i)
        if uses is None:
            free = self.vjp_expression(i).free_symbols
            if i in self.partial_kernels:
                # a kernel may read inputs its formula does not name (pow's mask reads y)
                free = set(self.inputs)
            uses = self._vjp_uses[i] = tuple(x in free for x in self.inputs)
        return uses

    def used_saves(self, needs: tuple) -> tuple:
        """Which inputs the VJPs of the inputs that ``needs`` a gradient read."""
        uses = [self.vjp_uses(i) for i, need in enumerate(needs) if need]
        return tuple(any(u[j] for u in uses) for j in range(self.arity))

    def vjp_primitive(self, i: int) -> Elementwise:
        """``g * partial_i`` as an element-wise primitive of its own (for ``create_graph``)."""
        prim = self._vjp_prims.get(i)
        if prim is None:
            g = _g_symbol(self.level)
            suffix = "" if len(self.inputs) == 1 else str(i)
            prim = Elementwise(
                f"{self.name}_backward{suffix}",
                self.inputs + (self.out_symbol, g),
                self.vjp_expression(i),
                params=self.params,
                kernel=self.vjp_kernel(i),
                partial_kernels=self.vjp_partial_kernels.get(i),
                backward=self._vjp_name(i),
                level=self.level + 1,
                edges=self._vjp_edges(),
            )
            self._vjp_prims[i] = prim
        return prim

    def _vjp_edges(self) -> tuple | None:
        """PyTorch's edges of the backward op of a one-input primitive, where its VJP is one
        (``sigmoid_backward(grad_output, output)``, ``threshold_backward(grad_output,
        self)``): the gradient, then the result or the input the formula reads; None (one
        edge per input of the VJP primitive) for several inputs."""
        if self.vjp_edges is not None:
            return self.vjp_edges
        if isinstance(self.vjp_backward, tuple):
            return None
        n = len(self.inputs)
        if n != 1:
            # where(mask, grad, 0) of clamp's tensor bounds: the gradient, then no edge
            masked_where = self.masked and self.vjp_backward == "WhereBackward0"
            return (n + 1, 0) if masked_where else None
        free = self.vjp_expression(0).free_symbols
        reads_out = self.reads_result or (self.out_symbol in free and self.inputs[0] not in free)
        return (2, 1) if reads_out else (2, 0)

    def _vjp_name(self, i: int) -> str:
        """The node name of input ``i``'s VJP: PyTorch's backward op where declared (one name,
        or one per input, None for the default), else named after the derivative."""
        name = self.vjp_backward
        if isinstance(name, tuple):
            name = name[i]
        return name or f"{camel(self.name)}BackwardBackward{i}"

    # -- the protocol ------------------------------------------------------------------------
    def saves(self, n: int) -> tuple[tuple, bool]:
        return self._needs or self.needs()

    def forward(self, xp: Any, *inputs: Any, **params: Any) -> Any:
        """The formula on interpreter ``xp``, parameters by name (``exponent=2``)."""
        return xp.elementwise(self, inputs, tuple(params[str(p)] for p in self.params))

    def outputs(self, xp: Any, inputs: tuple, params: tuple) -> tuple:
        return (xp.elementwise(self, tuple(inputs), params),)

    def recompute(self, inputs: tuple, params: tuple) -> tuple:
        return (self(*inputs, params=params),)

    def apply(self, node: Any, grads: list, create_graph: bool) -> Any:
        """The numeric VJP runs the fused ``g * partial_i`` kernels straight on the saved
        arrays (the same words ``vjp`` speaks to the NumPy interpreter, one call fewer per
        input, on the path every backward pass takes); ``create_graph`` goes through ``vjp``."""
        if create_graph:
            return Primitive.apply(self, node, grads, True)
        g = grads[0]
        saved = node._unpack()
        out = node._out if node._packed is None else node._packed.output(node)
        params, meta, kernels = node.params, node._meta, self._vjp_kernels
        if type(g) is np.ndarray and g.dtype is _HALF:
            return self._half_vjp(node, g, saved, out)
        if type(g) is MetaArray:  # a meta tensor's gradients: the inputs' shapes and dtypes
            return [
                None if fn is None else meta_array(*meta[i])
                for i, (fn, _) in enumerate(node._edges)
            ]
        if len(saved) == 1 and node._edges[0][0] is not None:  # one input: no loops
            s = saved[0]
            x = s._data if type(s) is Tensor or isinstance(s, Tensor) else s
            kernel = kernels.get(0) or self.vjp_kernel(0)
            if type(g) is np.ndarray and g.size >= _EAGER_MIN:
                r = blocks.call(kernel, (x, out, g, *params))
            else:
                r = kernel(x, out, g, *params)
            m = meta[0]
            if (
                type(r) is not np.ndarray
                or r.shape != m[0]
                or (r.dtype is not m[1] and r.dtype != m[1])
            ):
                r = reduce_to(r, m[0], m[1])
            return [r]
        xs = []
        for s in saved:  # a loop, not a comprehension: no frame of its own
            xs.append(s._data if isinstance(s, Tensor) else s)
        result = []
        big = type(g) is np.ndarray and g.size >= _EAGER_MIN
        wanted = edge_needs(node) if CURRENT.partial else None  # (grad(): only some inputs)
        for i, (fn, _) in enumerate(node._edges):
            if fn is None or (wanted is not None and not wanted[i]):
                result.append(None)
                continue
            kernel = kernels.get(i) or self.vjp_kernel(i)
            if big:
                r = blocks.call(kernel, (*xs, out, g, *params))
            else:
                r = kernel(*xs, out, g, *params)
            m = meta[i]
            if type(r) is not np.ndarray or r.shape != m[0] or r.dtype != m[1]:
                r = reduce_to(r, m[0], m[1])
            result.append(r)
        return result

    def _half_vjp(self, node: Any, g: np.ndarray, saved: tuple, out: Any) -> list:
        """The VJP of float16 arrays as PyTorch computes it: its fused backward kernel's
        formula in float32, rounded once; else its derivative formula's ops one by one, each
        computed in float32 and rounded to float16 (the rule spoken to the tensor
        interpreter, recording nothing)."""
        if self.half_backward is not None:  # (one input: the activations)
            x = saved[0]._data if isinstance(saved[0], Tensor) else saved[0]
            if self.half_backward == "float32":
                kernel = self._vjp_kernels.get(0) or self.vjp_kernel(0)
                x, wide = (None if a is None else a.astype(np.float32) for a in (x, out))
                r = kernel(x, wide, g.astype(np.float32), *node.params)
            else:
                r = self.half_backward(x, out, g, *node.params)
            return [reduce_to(np.asarray(r).astype(_HALF), *node._meta[0])]
        with grad_mode.no_grad():
            result = Primitive.apply(self, node, [Tensor._make(g)], True)
        return [None if r is None else r._data for r in result]

    def vjp(self, xp: Any, g: Any, ctx: Ctx) -> list:
        """``g * partial_i`` for each input that needs it (broadcast to the output's shape)."""
        args, out, params, vjp = ctx.inputs, ctx.out, ctx.params, xp.elementwise_vjp
        return [
            vjp(self, i, args, out, g, params) if need else None for i, need in enumerate(ctx.needs)
        ]

    def jvp(self, xp: Any, tangents: tuple, ctx: Ctx) -> Any:
        """The sum of ``partial_i * tangent_i`` over the inputs that have a tangent (the fused
        ``g * partial_i`` kernels, with the tangent as ``g``)."""
        args = tuple(ctx.inputs)
        total = None
        for i, t in enumerate(tangents):
            if t is not None and (self.tangent_inputs is None or i in self.tangent_inputs):
                term = xp.elementwise_vjp(self, i, args, ctx.out, t, ctx.params)
                total = term if total is None else total + term
        return total

    def local_formulas(self, node: Any) -> tuple:
        """The formula and its partials, with number inputs and parameters substituted."""
        from symgrad.prim.sympy_xp import exact

        subs = {x: exact(v) for x, v in zip(self.inputs, node._consts) if _is_number(v)}
        subs.update({p: exact(v) for p, v in zip(self.params, node.params)})
        return self.expr.subs(subs), tuple(p.subs(subs) for p in self.local_derivatives)

    def scalar_partial(self, i: int, inputs: tuple, params: tuple) -> Any:
        if any(np.size(a) != 1 for a in inputs):
            return None
        from symgrad.prim.sympy_xp import exact

        subs = {
            x: sp.sympify(np.asarray(a).flat[0], strict=True) for x, a in zip(self.inputs, inputs)
        }
        subs.update({p: exact(v) for p, v in zip(self.params, params)})
        return self.local_derivatives[i].xreplace(subs)

    def text(self, node: Any, names: list, symbols: list, outs: list, outputs: list, args: list):
        from symgrad.prim.text import elementwise_text

        return elementwise_text(self, node.params, outs[0], names, symbols, args)


_G_SYMBOLS: dict[int, Any] = {}


def _g_symbol(level: int) -> Any:
    if level not in _G_SYMBOLS:
        _G_SYMBOLS[level] = sp.Symbol("g" if level == 0 else f"g{level}", real=True)
    return _G_SYMBOLS[level]


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
