"""From a plan to two straight-line Python functions over NumPy arrays: the forward pass and
the backward pass.

Each step becomes one line calling the primitive's NumPy kernel (forward) or its VJP rule on
the NumPy interpreter (backward), with the parameters bound beforehand; nothing else runs
between them: no tensors, no nodes, no dtype promotion (the trace fixed the dtypes, and a cast
is emitted where a kernel's result needs one). The source names only generated temporaries
(``a0`` arguments, ``e0`` captured tensors, ``v3`` step outputs, ``gv3`` their gradients);
the kernels, parameters and numbers are handed to it in its namespace, never written into it.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from symgrad._tracing import GraphBreak
from symgrad.compiler import scalar as _scalar
from symgrad.compiler.inline import inline_forward, inline_vjp, without_dead_lines
from symgrad.prim.elementwise import Elementwise
from symgrad.prim.numpy_xp import NP, reduce_to
from symgrad.prim.primitive import Ctx, gradients_in
from symgrad.prim.structural import Structural

__all__ = ["Program", "ShapeChanged", "build"]


class ShapeChanged(Exception):
    """A value found from the arguments' values has another shape than the traced one (the
    elements a mask selects): the program does not hold for these arguments."""


def _watch(
    program: Program, names: dict, values: dict, saved: list, n_args: int, n_ext: int, outs: Any
) -> None:
    """Which arguments, externals and outputs share memory with a value the backward reads
    (the value itself or a view of it): an in-place change of one between the call and its
    backward is PyTorch's error, never a changed gradient."""
    by_name = {name: values[key] for key, name in names.items() if key in values}
    kept = [by_name[n] for n in saved if type(by_name.get(n)) is np.ndarray]

    def read(key: tuple) -> bool:
        value = values.get(key)
        return type(value) is np.ndarray and any(np.may_share_memory(value, v) for v in kept)

    program.watched_args = [k for k in range(n_args) if read(("arg", k))]
    program.watched_ext = [k for k in range(n_ext) if read(("ext", k))]
    program.watched_outs = [i for i, (key, _) in enumerate(outs) if read(key)]


class Program:
    """The generated forward and backward functions of one plan, and what they need."""

    def __init__(self) -> None:
        self.forward: Any = None  # (*arrays) -> (outputs, saved)
        self.backward: Any = None  # (*output grads, *saved) -> input grads
        self.source = ""
        self.out_requires: list[bool] = []
        self.grad_inputs: list[tuple] = []  # the keys of the inputs that get a gradient
        self.out_meta: list[tuple] = []  # (shape, dtype) per output
        self.grad_names: list[str] = []  # the backward's gradient of each of grad_inputs
        self.scalar = False  # whether forward and backward run on Python floats
        # the arguments, externals and outputs whose memory the backward reads (``_watch``)
        self.watched_args: list[int] = []
        self.watched_ext: list[int] = []
        self.watched_outs: list[int] = []


def build(plan: Any, arg_requires: list[bool], arg_data: list, scalar: bool = False) -> Program:
    """The program of ``plan`` for arguments requiring grad as ``arg_requires``, checked
    step by step against the traced values on ``arg_data``; with ``scalar``, a twin on Python
    floats where every value holds one element (:mod:`symgrad.compiler.scalar`). Structural
    steps are written out as NumPy lines where their rules allow
    (:mod:`symgrad.compiler.inline`), else each is a call of its rule."""
    steps = _needed(plan)
    requires, needs = _requirements(steps, arg_requires, plan.externals)
    for j, step in enumerate(steps):
        if hasattr(step, "use_partials"):  # a fused region: its partials in the forward pass?
            step.use_partials(needs[j])
    names: dict[tuple, str] = {}
    for k in range(len(arg_requires)):
        names[("arg", k)] = f"a{k}"
    for k in range(len(plan.externals)):
        names[("ext", k)] = f"e{k}"
    for j, step in enumerate(steps):
        for nr, key in enumerate(step.keys):
            names[key] = f"v{j}" if len(step.keys) == 1 else f"v{j}_{nr}"
    ns: dict[str, Any] = {"_acc": _acc, "_Changed": ShapeChanged}
    values: dict[tuple, Any] = {("arg", k): d for k, d in enumerate(arg_data)}
    values.update({("ext", k): t._data for k, t in enumerate(plan.externals)})
    fwd_lines, known = [], {}
    for j, step in enumerate(steps):
        args, arrays = [], []
        for i, key in enumerate(step.inputs):
            if key[0] == "const":
                ns[f"c{j}_{i}"] = key[1]
                args.append(f"c{j}_{i}")
                arrays.append(key[1])
            else:
                args.append(names[key])
                arrays.append(values[key])
        if step.param_fn is not None:  # parameters computed from values at each call
            ns[f"q{j}"] = step.param_fn
            given = [names[key] for key in step.param_inputs]
            fwd_lines.append(f"    p{j} = q{j}({', '.join(given)})")
            args.append(f"p{j}")
            arrays.append(step.param_fn(*[values[key] for key in step.param_inputs]))
        written = inline_forward(step, j, names, values, ns, known)
        if written is not None:
            values[step.key] = written[1]
        else:
            kernel = _fitted(_kernel(step), step, arrays)
            ns[f"f{j}"] = kernel
            outs = kernel(*arrays)
            for key, out in zip(step.keys, outs if len(step.keys) > 1 else (outs,)):
                values[key] = out
        made = ", ".join(names[key] for key in step.keys)
        if written is not None:
            fwd_lines.append(f"    # {_label(step.prim)}")
            fwd_lines.extend(written[0])
        else:
            fwd_lines.append(f"    {made} = f{j}({', '.join(args)})  # {_label(step.prim)}")
        if step.sized:  # its shape depends on the values: the traced one, or an eager call
            ns[f"s{j}"] = step.arrays[0].shape
            fwd_lines.append(f"    if {names[step.key]}.shape != s{j}: raise _Changed")
    program = Program()
    out_names = []
    for key, det in plan.outputs:
        out_names.append(names[key])
        program.out_requires.append(requires[key] and not det)
        program.out_meta.append((values[key].shape, values[key].dtype))
    inputs = [names[("arg", k)] for k in range(len(arg_requires))]
    inputs += [names[("ext", k)] for k in range(len(plan.externals))]
    bwd_lines, saved = _backward(plan, steps, names, requires, needs, ns, program, values)
    _watch(program, names, values, saved, len(arg_requires), len(plan.externals), plan.outputs)
    head = f"def forward({', '.join(inputs)}):"
    ret = f"    return {_tuple(out_names)}, {_tuple(saved)}"
    grads_in = [f"g{k}" for k in range(len(plan.outputs))]
    bhead = f"def backward({', '.join(grads_in + saved)}):"
    program.source = "\n".join([head, *fwd_lines, ret, "", "", bhead, *bwd_lines]) + "\n"
    code = compile(program.source, "<symgrad.compile>", "exec")
    exec(code, ns)  # noqa: S102 - generated from the plan: temporaries' names only
    program.forward, program.backward = ns["forward"], ns["backward"]
    if scalar and _scalar.eligible(steps, values):
        parts = _Parts(steps, values, dict(ns), inputs, fwd_lines, out_names, saved)
        parts.key_of = {name: key for key, name in names.items()}
        parts.grads_in, parts.bwd_lines = grads_in, bwd_lines
        parts.grad_inputs, parts.grad_names = program.grad_inputs, program.grad_names
        _scalar.attach(program, parts)
    return program


def _requirements(steps: list, arg_requires: list, externals: list) -> tuple:
    """Which values require grad (by key) and, per step, which of its inputs need a gradient,
    as the traced dtypes and flags say."""
    requires = {("arg", k): r for k, r in enumerate(arg_requires)}
    for k, t in enumerate(externals):
        requires[("ext", k)] = bool(t._requires_grad)
    needs = {}
    for j, step in enumerate(steps):
        needs[j] = [
            key[0] != "const" and requires.get(key, False) and not det
            for key, det in zip(step.inputs, step.detached)
        ]
        for key, a in zip(step.keys, step.arrays):
            requires[key] = step.grad and any(needs[j]) and a.dtype.kind in "fc"
    return requires, needs


class _Parts:
    """What the scalar twin of a program reuses: its steps, traced values, namespace, lines
    and names."""

    def __init__(self, steps, values, ns, inputs, fwd_lines, out_names, saved) -> None:
        self.steps, self.values, self.ns = steps, values, ns
        self.inputs, self.fwd_lines, self.out_names, self.saved = (
            inputs,
            fwd_lines,
            out_names,
            saved,
        )


def _label(prim: Any) -> str:
    """The step's comment: the op's name when it is a plain identifier (an element-wise op a
    user declared may be named anything: such a name never enters the source)."""
    name = prim.name
    return name if name.isidentifier() and name.isascii() else "a declared op"


def _needed(plan: Any) -> list:
    """The steps the outputs depend on, in order."""
    by_key = {key: step for step in plan.steps for key in step.keys}
    wanted, stack = set(), [key for key, _ in plan.outputs]
    while stack:
        key = stack.pop()
        if key not in by_key or id(by_key[key]) in wanted:
            continue
        step = by_key[key]
        wanted.add(id(step))
        stack.extend(k for k in step.inputs if k[0] != "const")
        stack.extend(step.param_inputs)
    return [step for step in plan.steps if id(step) in wanted]


def _backward(plan, steps, names, requires, needs, ns, program, values) -> tuple:
    """The backward function's lines and the forward values it reads."""
    lines, saved, have = [], {}, set()
    known: dict = {}  # the backward's transposed views (see code_xp.Emitter)

    def use(name: str) -> str:
        if name[0] in "aevp":
            saved.setdefault(name, None)
        return name

    for k, (key, det) in enumerate(plan.outputs):
        if requires[key] and not det:
            g = "g" + names[key]
            lines.append(f"    {g} = _acc({g}, g{k})" if g in have else f"    {g} = g{k}")
            have.add(g)
    for j in range(len(steps) - 1, -1, -1):
        step = steps[j]
        gs = ["g" + names[key] if "g" + names[key] in have else "None" for key in step.keys]
        if all(g == "None" for g in gs) or not any(needs[j]):
            continue
        written = None
        if not _fusable(step) and gs[0] != "None":
            written = inline_vjp(step, j, needs[j], names, values, gs[0], ns, known)
        if written is not None:
            body, results, read = written
            for name in sorted(read):
                use(name)
            lines.append(f"    # {_label(step.prim)}")
            lines.extend(body)
            for i, key in enumerate(step.inputs):
                if needs[j][i] and results[i] is not None:
                    gi = "g" + names[key]
                    term = results[i]
                    if gi in have:
                        lines.append(f"    {gi} = _acc({gi}, {term})")
                    else:
                        lines.append(f"    {gi} = {term}")
                        if term in known:  # a transposed view, under the gradient's name
                            known[gi] = known[term]
                    have.add(gi)
            continue
        args = [
            f"c{j}_{i}" if key[0] == "const" else use(names[key])
            for i, key in enumerate(step.inputs)
        ]
        if _fusable(step):  # element-wise: its fused g * partial kernels, called directly
            given = [key[1] if key[0] == "const" else values[key] for key in step.inputs]
            for n, v in enumerate(step.params):
                ns[f"c{j}_p{n}"] = v
            call = args + [use(names[step.key]), gs[0]]
            call += [f"c{j}_p{n}" for n in range(len(step.params))]
            for i, key in enumerate(step.inputs):
                if needs[j][i]:
                    gi, term = "g" + names[key], gs[0]
                    if not _passes_g(step, i, values[step.key]):
                        ns[f"k{j}_{i}"] = _partial_kernel(step, i, given, values[step.key])
                        term = f"k{j}_{i}({', '.join(call)})"
                    lines.append(
                        f"    {gi} = _acc({gi}, {term})" if gi in have else f"    {gi} = {term}"
                    )
                    have.add(gi)
            continue
        ns[f"b{j}"] = _vjp(step, needs[j])
        g = gs[0] if len(gs) == 1 else _tuple(gs)
        out = use(names[step.key]) if len(gs) == 1 else _tuple([use(names[k]) for k in step.keys])
        params = f", {use(f'p{j}')}" if step.param_fn is not None else ""
        lines.append(f"    r = b{j}({_tuple(args)}, {out}, {g}{params})")
        for i, key in enumerate(step.inputs):
            if needs[j][i]:
                gi = "g" + names[key]
                lines.append(
                    f"    {gi} = _acc({gi}, r[{i}])" if gi in have else f"    {gi} = r[{i}]"
                )
                have.add(gi)
    grad_keys = [("arg", k) for k in range(_count_args(names))]
    grad_keys += [("ext", k) for k in range(len(plan.externals))]
    program.grad_inputs = [key for key in grad_keys if requires.get(key)]
    outs = ["g" + names[key] if "g" + names[key] in have else "None" for key in program.grad_inputs]
    program.grad_names = outs
    lines.append(f"    return {_tuple(outs)}")
    lines, read = without_dead_lines(lines)
    return lines, sorted((name for name in saved if name in read), key=_order)


def _order(name: str) -> tuple:
    """Arguments, captured tensors, then values in the order the forward pass makes them."""
    kind, number = name[0], name[1:].split("_")
    return ({"a": 0, "e": 1}.get(kind, 2), int(number[0]), kind, name)


def _tuple(items: list) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _count_args(names: dict) -> int:
    return sum(1 for key in names if key[0] == "arg")


def _kernel(step: Any) -> Any:
    """The NumPy function of one step: the primitive's kernel with its parameters bound."""
    prim, params = step.prim, step.params
    if step.param_fn is not None:
        if not isinstance(prim, Structural):
            raise GraphBreak(f"{prim.name} takes parameters from values: it can't be compiled")
        return lambda *xs: prim.kernel(NP, *xs[:-1], **xs[-1])
    if type(prim) is Elementwise or isinstance(prim, Elementwise):
        # the kernel without its own switch of NumPy's warnings: the program runs silenced
        numeric = prim.numeric
        numeric = getattr(prim, "_raw", None) or numeric
        if not params:
            return numeric
        return lambda *xs: numeric(*xs, *params)
    if len(step.keys) > 1:
        return lambda *xs: prim.outputs(NP, xs, params)
    if isinstance(prim, Structural):
        return functools.partial(prim.kernel, NP, **params)
    return lambda *xs: prim.outputs(NP, xs, params)[0]


def _fitted(kernel: Any, step: Any, arrays: list) -> Any:
    """``kernel``, with a cast where its result's type is not the traced value's."""
    want = step.arrays[0]
    got = kernel(*arrays)
    if len(step.keys) > 1:
        scalars = False
        for out, t in zip(got, step.arrays):
            if np.shape(out) != t.shape or np.result_type(out) != t.dtype:
                raise GraphBreak(f"{step.prim.name}'s outputs can't be compiled yet")
            scalars = scalars or type(out) is not np.ndarray
        if not scalars:
            return kernel

        def as_arrays(*xs: Any) -> tuple:  # NumPy's scalars of whole reductions: arrays
            return tuple(np.asarray(out) for out in kernel(*xs))

        return as_arrays
    if type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape:
        return kernel
    shape, dtype = want.shape, want.dtype
    if np.shape(got) == shape and np.result_type(got) == dtype:  # a NumPy scalar for 0-d

        def as_array(*xs: Any) -> np.ndarray:
            return np.asarray(kernel(*xs))

        return as_array

    def fitted(*xs: Any) -> np.ndarray:
        return np.asarray(np.broadcast_to(kernel(*xs), shape), dtype=dtype)

    return fitted


def _fusable(step: Any) -> bool:
    return isinstance(step.prim, Elementwise) and step.param_fn is None and len(step.keys) == 1


def _passes_g(step: Any, i: int, out: Any) -> bool:
    """Whether the element-wise step's ``g * partial_i`` is ``g`` itself (an addition's
    operand of the output's shape and dtype): the gradient is then passed on, not computed."""
    prim = step.prim
    return (
        i not in prim.partial_kernels
        and step.meta[i] == (np.shape(out), np.result_type(out))
        and prim.partials[i] == 1
    )


def _partial_kernel(step: Any, i: int, inputs: list, out: Any) -> Any:
    """The element-wise step's ``g * partial_i`` kernel, summed and cast to input ``i``'s
    shape and dtype where its result needs it (as found on a probe gradient of ones)."""
    prim, params = step.prim, tuple(step.params)
    kernel = prim._vjp_kernels.get(i) or prim.vjp_kernel(i)
    shape, dtype = step.meta[i]
    probe = kernel(*inputs, out, np.ones_like(out), *params)
    if type(probe) is np.ndarray and probe.shape == shape and probe.dtype == dtype:
        return kernel

    def fitted(*xs: Any) -> np.ndarray:
        return reduce_to(kernel(*xs), shape, dtype)

    return fitted


def _vjp(step: Any, needs: list) -> Any:
    """The step's VJP rule on NumPy, each gradient summed and cast to its input's type."""
    prim, params, meta = step.prim, step.params, step.meta
    needs = tuple(needs)

    factors = hasattr(prim, "n_outputs")  # a factorization: its rule takes every output

    def vjp(inputs: tuple, out: Any, g: Any, given: Any = params) -> list:
        if factors and type(g) is not tuple:
            out, g = (out,), (g,)
        if type(g) is tuple:  # several outputs: a rule taking them all, or one at a time
            if factors:
                result = prim.vjp(NP, g, Ctx(inputs, out, None, needs, given, 0, meta))
            else:
                result = None
                for k, gk in enumerate(g):
                    if gk is not None:
                        rk = prim.vjp(NP, gk, Ctx(inputs, out, None, needs, given, k, meta))
                        result = rk if result is None else [_acc(a, b) for a, b in zip(result, rk)]
        else:
            result = prim.vjp(NP, g, Ctx(inputs, out, None, needs, given, 0, meta))
        return gradients_in(result, needs, meta)

    return vjp


def _acc(a: Any, b: Any) -> Any:
    if a is None:
        return b
    return a if b is None else a + b
