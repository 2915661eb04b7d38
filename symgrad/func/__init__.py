"""Function transforms in the style of ``torch.func`` and JAX: ``grad``, ``grad_and_value``,
``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap``,
``functional_call``, ``stack_module_state``, ``replace_all_batch_norm_modules_``,
``functionalize`` and ``debug_unwrap``.

Inputs and outputs may be pytrees: tuples, lists, dicts and named tuples of tensors, nested
(a dict of a model's parameters, for example), read as PyTorch reads them.

Each transform takes a function of tensors and returns a function. The derivatives are taken by
the same engine as ``backward()``: inside a transform the inputs become fresh tensors that
require grad, the function is traced, and the engine differentiates it, recording the
derivative's own graph (``create_graph``) so that transforms compose (``grad(grad(f))``,
``jacrev(jacrev(f))``). Results keep a graph back to the caller's tensors only where those
require grad, as in PyTorch.

``vmap`` runs the function once per batch element and stacks the results (see :func:`vmap`).

Examples
--------
>>> import symgrad
>>> from symgrad.func import grad, vmap
>>> x = symgrad.tensor([1.0, 2.0, 3.0])
>>> grad(lambda x: (x ** 3).sum())(x)
tensor([ 3., 12., 27.])
>>> grad(grad(lambda x: x ** 3))(symgrad.tensor(2.0))
tensor(12.)
"""

from symgrad.func.functional_call import functional_call
from symgrad.func.functionalize import debug_unwrap, functionalize
from symgrad.func.jacobians import hessian, jacfwd, jacrev
from symgrad.func.linearize import linearize
from symgrad.func.module_state import replace_all_batch_norm_modules_, stack_module_state
from symgrad.func.forward_mode import jvp
from symgrad.func.transforms import grad, grad_and_value, vjp
from symgrad.func.vmap import vmap
from symgrad.func.rearrange import rearrange

__all__ = [
    "grad",
    "grad_and_value",
    "vjp",
    "jvp",
    "jacrev",
    "jacfwd",
    "hessian",
    "vmap",
    "functional_call",
    "linearize",
    "stack_module_state",
    "replace_all_batch_norm_modules_",
    "functionalize",
    "debug_unwrap",
    "rearrange",
]
