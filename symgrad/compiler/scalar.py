"""The scalar programs of ``symgrad.compile``: a function of one-element values on Python floats.

On a one-element array every NumPy call costs about a microsecond whatever it computes, while
``math.sin`` of a float costs a tenth of that. When every value of a program (its arguments,
the tensors it captures, every step's output) holds one float32 or float64 element and every
step is element-wise, the program gets a twin on Python floats: the same lines, each step's
kernel lambdified with the ``math`` module (:mod:`symgrad.compiler.scalar_kernels`), the
arguments read with ``.item()`` on entry and the results made arrays of the traced shapes and
dtypes on exit. Float32 steps round each result to float32 (and their number arguments, as
NumPy's weak promotion does), so the values are the eager float32 ones.

Where NumPy would answer with inf or nan (a division by zero, an overflow, ``log`` of a
negative number), a math function raises: that call then runs the NumPy program instead, so
the results stay NumPy's, edge values included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.compiler import scalar_kernels
from symgrad.compiler.scalar_kernels import FALLBACK, number
from symgrad.prim.elementwise import Elementwise

__all__ = ["eligible", "attach"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def eligible(steps: list, values: dict) -> bool:
    """Whether a plan's program can run on floats: one-element float32/float64 values, and
    element-wise steps with number constants and parameters."""
    for value in values.values():
        if not (type(value) is np.ndarray and value.size == 1 and value.dtype in _FLOATS):
            return False
    for step in steps:
        if not isinstance(step.prim, Elementwise) or step.param_fn is not None or step.sized:
            return False
        if len(step.keys) != 1:
            return False
        dtype = step.arrays[0].dtype
        consts = [key[1] for key in step.inputs if key[0] == "const"]
        if any(number(v, dtype) is None for v in [*consts, *step.params]):
            return False
    return True


def attach(program: Any, parts: Any) -> None:
    """Give ``program`` (built by :func:`symgrad.compiler.emit.build` from ``parts``) its
    twin on floats: ``program.forward`` and ``program.backward`` run it, and the NumPy
    program where it raises."""
    ns = dict(parts.ns)
    values = parts.values
    for j, step in enumerate(parts.steps):
        dtype = step.arrays[0].dtype
        params = tuple(number(v, dtype) for v in step.params)
        traced = [float(key[1]) if key[0] == "const" else values[key].item() for key in step.inputs]
        for i, key in enumerate(step.inputs):
            if key[0] == "const":
                ns[f"c{j}_{i}"] = number(key[1], dtype)
        for n, v in enumerate(params):
            if f"c{j}_p{n}" in ns:
                ns[f"c{j}_p{n}"] = v
        ns[f"f{j}"] = scalar_kernels.forward_kernel(step.prim, params, traced, dtype)
        for i in range(len(step.inputs)):
            if f"k{j}_{i}" in ns:
                ns[f"k{j}_{i}"] = scalar_kernels.vjp_kernel(
                    step.prim, i, params, traced, dtype, step.meta[i][1]
                )
    source = _source(parts, ns)
    code = compile(source, "<symgrad.compile>", "exec")
    exec(code, ns)  # noqa: S102 - generated from the plan: temporaries' names only
    program.numpy_source = program.source
    program.source = source
    program.forward = _forward(ns["forward"], program.forward)
    saved_meta = [
        (values[parts.key_of[name]].shape, values[parts.key_of[name]].dtype) for name in parts.saved
    ]
    program.backward = _backward(ns["backward"], program.backward, len(parts.grads_in), saved_meta)
    program.scalar = True


def _converter(shape: tuple, dtype: Any) -> Any:
    """A float as an array of ``shape`` (one element) and ``dtype``."""
    if shape == ():
        return lambda v, _a=np.array, _d=dtype: _a(v, _d)
    if shape == (1,):
        return lambda v, _a=np.array, _d=dtype: _a((v,), _d)
    return lambda v, _a=np.array, _d=dtype, _s=shape: _a(v, _d).reshape(_s)


def _source(parts: Any, ns: dict) -> str:
    """The twin's source: the NumPy program's lines between reading the arguments as floats
    and making arrays of the results."""
    values, key_of = parts.values, parts.key_of
    lines = [f"def forward({', '.join(parts.inputs)}):"]
    if parts.inputs:
        items = ", ".join(f"{a}.item()" for a in parts.inputs)
        lines.append(f"    {', '.join(parts.inputs)} = {items}")
    lines += parts.fwd_lines
    outs = []
    for k, name in enumerate(parts.out_names):
        value = values[key_of[name]]
        ns[f"o{k}"] = _converter(value.shape, value.dtype)
        outs.append(f"o{k}({name})")
    lines.append(f"    return {_tuple(outs)}, {_tuple(parts.saved)}")
    lines += ["", "", f"def backward({', '.join(parts.grads_in + parts.saved)}):"]
    if parts.grads_in:
        items = ", ".join(f"{g}.item()" for g in parts.grads_in)
        lines.append(f"    {', '.join(parts.grads_in)} = {items}")
    lines += parts.bwd_lines[:-1]
    grads = []
    for k, (key, name) in enumerate(zip(parts.grad_inputs, parts.grad_names)):
        if name == "None":
            grads.append(name)
            continue
        value = values[key]
        ns[f"G{k}"] = _converter(value.shape, value.dtype)
        grads.append(f"G{k}({name})")
    lines.append(f"    return {_tuple(grads)}")
    return "\n".join(lines) + "\n"


def _tuple(items: list) -> str:
    if not items:
        return "()"
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _forward(scalar: Any, numpy: Any) -> Any:
    def forward(*arrays: Any) -> tuple:
        try:
            return scalar(*arrays)
        except FALLBACK:  # inf or nan somewhere: NumPy's answer
            outs, saved = numpy(*arrays)
            return outs, tuple([s.item() for s in saved])

    return forward


def _backward(scalar: Any, numpy: Any, n_grads: int, saved_meta: list) -> Any:
    def backward(*args: Any) -> tuple:
        try:
            return scalar(*args)
        except FALLBACK:
            saved = [
                np.array(v, dtype).reshape(shape)
                for v, (shape, dtype) in zip(args[n_grads:], saved_meta)
            ]
            return numpy(*args[:n_grads], *saved)

    return backward
