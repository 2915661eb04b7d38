"""Programs over torch.func and forward-mode AD that once differed from PyTorch: vmap's
results keep their own ``grad_fn`` and map empty batches, the transforms' errors for integer
inputs and outputs, and the forward-mode checks (symgrad.func, symgrad.autograd.forward_ad,
symgrad.autograd.functional).

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

from _torch_table import table_tests

F32, F64 = "float32", "float64"


def _x(T, values=(0.5, -1.0, 2.0), requires_grad=True):
    return T.tensor(list(values), dtype=T.float64, requires_grad=requires_grad)


def _rows(T, requires_grad=True):
    return T.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=T.float64, requires_grad=requires_grad)


def _vmap_backward(T):
    x = _rows(T)
    out = T.func.vmap(lambda r: (r * r).sum())(x)
    out.sum().backward()
    return out, x.grad


def _ensemble(T):
    """Model ensembling: one forward of stacked copies of a linear layer, as in PyTorch's
    tutorial; the result is the addition's own output."""
    layers = [T.nn.Linear(2, 1, dtype=T.float64) for _ in range(2)]
    with T.no_grad():
        for k, layer in enumerate(layers):
            layer.weight.fill_(k + 1.0)
            layer.bias.fill_(0.5)
    params, buffers = T.func.stack_module_state(layers)

    def run(p, b, x):
        return T.func.functional_call(layers[0], (p, b), (x,))

    return T.func.vmap(run, in_dims=(0, 0, None))(params, buffers, _rows(T, False))


CASES = {
    # -- vmap: with the batch at dimension 0 in and out, the result is the op's own output
    "vmap_exp_grad_fn": (
        lambda T: T.func.vmap(T.exp)(T.tensor([[0.0], [1.0]], requires_grad=True)),
        ([[1.0], [2.7183]], F32, "ExpBackward0"),
    ),
    "vmap_sum_backward": (
        _vmap_backward,
        (([5.0, 10.0], F64, "SumBackward1"), ([[2.0, 4.0], [6.0, -2.0]], F64, None)),
    ),
    "vmap_unbatched_output_is_expanded": (
        lambda T: T.func.vmap(lambda r, w: w * 2, in_dims=(0, None))(
            _rows(T, False), _x(T, (1.0, 2.0))
        ),
        ([[2.0, 4.0], [2.0, 4.0]], F64, "ExpandBackward0"),
    ),
    "vmap_ensemble": (
        _ensemble,
        ([[[3.5], [2.5]], [[6.5], [4.5]]], F64, "AddBackward0"),
    ),
    # -- vmap over an empty batch runs the function once on it
    "vmap_empty_batch_sum": (
        lambda T: T.func.vmap(lambda r: r.sum())(T.zeros(0, 3)),
        ([], F32, None),
    ),
    "vmap_empty_batch_matmul": (
        lambda T: T.func.vmap(lambda r, w: r @ w, in_dims=(0, None))(T.zeros(0, 3), T.ones(3, 2)),
        ([], F32, None),
    ),
}


def _ints(T):
    return T.tensor([1, 2])


def _linearize_integer_output(T):
    out, jvp_fn = T.func.linearize(lambda x: (x.argmax(), x * 2), T.tensor([1.0, 2.0]))
    return out, jvp_fn(T.tensor([1.0, 1.0]))


CASES.update(
    {
        # -- forward mode refuses an integer primal with ValueError before running the function
        "jvp_integer_primal": (
            lambda T: T.func.jvp(lambda x: x * 2.0, (_ints(T),), (T.ones(2),)),
            ("raises", "ValueError"),
        ),
        "jacfwd_integer_primal": (
            lambda T: T.func.jacfwd(lambda x: x * 2.0)(_ints(T)),
            ("raises", "ValueError"),
        ),
        "hessian_integer_primal": (
            lambda T: T.func.hessian(lambda x: (x * 2.0).sum())(_ints(T)),
            ("raises", "ValueError"),
        ),
        "linearize_integer_primal": (
            lambda T: T.func.linearize(lambda x: x * 2.0, _ints(T)),
            ("raises", "ValueError"),
        ),
        "functional_forward_jacobian_integer_input": (
            lambda T: T.autograd.functional.jacobian(
                lambda x: x * 2.0, _ints(T), vectorize=True, strategy="forward-mode"
            ),
            ("raises", "ValueError"),
        ),
        # ... reverse mode keeps its RuntimeError
        "grad_integer_input": (
            lambda T: T.func.grad(lambda x: (x * 2.0).sum())(_ints(T)),
            ("raises", "RuntimeError"),
        ),
        # -- vjp and jacrev refuse an integer or boolean output
        "vjp_integer_output": (
            lambda T: T.func.vjp(lambda x: x.argmax(), T.tensor([1.0, 2.0])),
            ("raises", "RuntimeError"),
        ),
        "jacrev_boolean_output": (
            lambda T: T.func.jacrev(lambda x: x > 1)(T.tensor([1.0, 2.0])),
            ("raises", "RuntimeError"),
        ),
        "jacrev_one_integer_output": (
            lambda T: T.func.jacrev(lambda x: (x * 2, x.argmax()))(T.tensor([1.0, 2.0])),
            ("raises", "RuntimeError"),
        ),
        # ... while jvp, jacfwd and linearize give an integer output a zero tangent
        "jacfwd_integer_output": (
            lambda T: T.func.jacfwd(lambda x: x.argmax())(T.tensor([1.0, 2.0])),
            ([0, 0], "int64", None),
        ),
        "linearize_integer_output": (
            _linearize_integer_output,
            (
                ((1, "int64", None), ([2.0, 4.0], F32, None)),
                ((0, "int64", None), ([2.0, 2.0], F32, None)),
            ),
        ),
    }
)


def _jacfwd_random(T, randomness):
    """jacfwd of a product with random numbers: each column draws its own (``"different"``)
    or all draw the same (``"same"``); the Jacobian's shape, whether it is diagonal, and
    the (deterministic) aux."""
    jac, aux = T.func.jacfwd(
        lambda x: (x * T.rand(3), x.sum()), has_aux=True, randomness=randomness
    )(T.tensor([1.0, 2.0, 3.0]))
    return tuple(jac.shape), bool((jac == T.diag(T.diagonal(jac))).all()), aux


CASES.update(
    {
        # -- jacfwd passes its randomness to the vmap over the basis
        "jacfwd_randomness_same": (
            lambda T: _jacfwd_random(T, "same"),
            ((3, 3), True, (6.0, F32, None)),
        ),
        "jacfwd_randomness_different": (
            lambda T: _jacfwd_random(T, "different"),
            ((3, 3), True, (6.0, F32, None)),
        ),
        "jacfwd_randomness_error": (
            lambda T: _jacfwd_random(T, "error"),
            ("raises", "RuntimeError"),
        ),
    }
)


def _dual_tangent(T):
    fw = T.autograd.forward_ad
    with fw.dual_level():
        tangent = fw.make_dual(T.ones(2), T.ones(2))
        return fw.make_dual(T.zeros(2), tangent)


def _functional_jvp_create_graph(T):
    x = _x(T)
    out, jv = T.autograd.functional.jvp(
        lambda x: x.sin() * x, x, _x(T, (1.0, 0.0, 2.0), False), create_graph=True
    )
    return out, jv, T.autograd.grad(out.sum() + jv.sum(), x)


CASES.update(
    {
        # -- a tangent may not itself carry a tangent
        "make_dual_tangent_is_dual": (_dual_tangent, ("raises", "RuntimeError")),
        # -- autograd.functional.jvp(create_graph=True) returns the function's own outputs
        "functional_jvp_create_graph": (
            _functional_jvp_create_graph,
            (
                ([0.2397, 0.8415, 1.8186], F64, "MulBackward0"),
                ([0.9182, 0.0, 0.154], F64, "AddBackward0"),
                (([2.4337, -1.3818, -5.2248], F64, None),),
            ),
        ),
    }
)


def _dual_floor_divide(T, make):
    fw = T.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(T.tensor([3.0, 4.0]), T.tensor([1.0, 1.0]))
        return fw.unpack_dual(make(d))


CASES.update(
    {
        # -- floor_divide has no forward rule in PyTorch: NotImplementedError (a backward
        # through it raises RuntimeError); a floor-rounded div has tangent 0
        "forward_floor_divide": (
            lambda T: _dual_floor_divide(T, lambda d: d // 2),
            ("raises", "NotImplementedError"),
        ),
        "forward_rfloordiv": (
            lambda T: _dual_floor_divide(T, lambda d: 7.0 // d),
            ("raises", "NotImplementedError"),
        ),
        "forward_div_floor": (
            lambda T: _dual_floor_divide(T, lambda d: d.div(2, rounding_mode="floor")),
            (([1.0, 2.0], F32, None), ([0.0, 0.0], F32, None)),
        ),
    }
)


def _in_inference_mode(T, transform):
    with T.inference_mode():
        return transform(T, _x(T, requires_grad=False))


CASES.update(
    {
        # -- the transforms differentiate under inference_mode, as PyTorch's (they run with
        # inference mode off); autograd.functional's results stay zeros there, as PyTorch's
        "inference_mode_grad": (
            lambda T: _in_inference_mode(T, lambda T, x: T.func.grad(lambda x: (x**3).sum())(x)),
            ([0.75, 3.0, 12.0], F64, None),
        ),
        "inference_mode_vjp": (
            lambda T: _in_inference_mode(
                T, lambda T, x: T.func.vjp(lambda x: x**2, x)[1](T.ones(3, dtype=T.float64))
            ),
            (([1.0, -2.0, 4.0], F64, None),),
        ),
        "inference_mode_jacrev": (
            lambda T: _in_inference_mode(T, lambda T, x: T.func.jacrev(lambda x: x**2)(x[:2])),
            ([[1.0, 0.0], [0.0, -2.0]], F64, None),
        ),
        "inference_mode_jacfwd": (
            lambda T: _in_inference_mode(T, lambda T, x: T.func.jacfwd(lambda x: x**2)(x[:2])),
            ([[1.0, 0.0], [0.0, -2.0]], F64, None),
        ),
        "inference_mode_jvp": (
            lambda T: _in_inference_mode(T, lambda T, x: T.func.jvp(lambda x: x**2, (x,), (x,))),
            (([0.25, 1.0, 4.0], F64, None), ([0.5, 2.0, 8.0], F64, None)),
        ),
        "inference_mode_hessian": (
            lambda T: _in_inference_mode(
                T, lambda T, x: T.func.hessian(lambda x: (x**3).sum())(x[:2])
            ),
            ([[3.0, 0.0], [0.0, -6.0]], F64, None),
        ),
        "inference_mode_vmap_grad": (
            lambda T: _in_inference_mode(T, lambda T, x: T.func.vmap(T.func.grad(T.sin))(x)),
            ([0.8776, 0.5403, -0.4161], F64, None),
        ),
        "inference_mode_functional_jacobian": (
            lambda T: _in_inference_mode(
                T, lambda T, x: T.autograd.functional.jacobian(lambda x: x**2, x[:2])
            ),
            ([[0.0, 0.0], [0.0, 0.0]], F64, None),
        ),
    }
)


def _vjp_none(T, func, cotangents):
    return T.func.vjp(func, _x(T, requires_grad=False))[1](cotangents)


CASES.update(
    {
        # -- vjp_fn: a None cotangent of a one-element output is ones (as backward's implied
        # gradient), of a larger output an error
        "vjp_none_cotangent_scalar": (
            lambda T: _vjp_none(T, lambda x: (x**2).sum(), None),
            (([1.0, -2.0, 4.0], F64, None),),
        ),
        "vjp_none_cotangent_in_tuple": (
            lambda T: _vjp_none(
                T, lambda x: (x * 3, (x**2).sum()), (T.ones(3, dtype=T.float64), None)
            ),
            (([4.0, 1.0, 7.0], F64, None),),
        ),
        "vjp_none_cotangent_vector": (
            lambda T: _vjp_none(T, lambda x: x * 3, None),
            ("raises", "RuntimeError"),
        ),
    }
)


def _mixed(x, y):
    return (x * y.exp()).sum()


def _nested_flags(T, make):
    """Whether a nested transform's result keeps a graph, for inputs that don't require grad."""
    x, y = _x(T, requires_grad=False), _x(T, (1.0, 0.0, -1.0), requires_grad=False)
    out = make(T, x, y)
    return out.requires_grad, out.grad_fn is None


CASES.update(
    {
        # -- an inner transform over another argument leaves no graph on the outer result
        "jacfwd_of_jacrev_other_argnums": (
            lambda T: _nested_flags(
                T, lambda T, x, y: T.func.jacfwd(T.func.jacrev(_mixed, argnums=1))(x, y)
            ),
            (False, True),
        ),
        "jvp_of_grad_other_argument": (
            lambda T: _nested_flags(
                T,
                lambda T, x, y: T.func.jvp(
                    lambda x: T.func.grad(_mixed, argnums=1)(x, y), (x,), (y,)
                )[1],
            ),
            (False, True),
        ),
        "jacrev_of_jacrev_values": (
            lambda T: T.func.jacrev(T.func.jacrev(_mixed, argnums=1))(
                _x(T, requires_grad=False), T.zeros(3, dtype=T.float64)
            ),
            ([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], F64, None),
        ),
    }
)


def _backward_after_vmap(T):
    x = _rows(T)
    T.func.vmap(lambda r: r * 2)(x).sum().backward()
    return x.grad


def _backward_inside(T, transform):
    """``.backward()`` called inside a transform (on a graph of an outside parameter)."""
    w = T.ones(3, requires_grad=True)

    def step(r):
        (w * r).sum().backward()
        return (w * r).sum()

    return transform(T, step), w.grad


CASES.update(
    {
        # -- backward() inside a transform of symgrad.func is refused, as PyTorch's
        "backward_inside_grad": (
            lambda T: _backward_inside(T, lambda T, f: T.func.grad(f)(T.ones(3))),
            ("raises", "RuntimeError"),
        ),
        "backward_inside_vmap": (
            lambda T: _backward_inside(T, lambda T, f: T.func.vmap(f)(T.ones(2, 3))),
            ("raises", "RuntimeError"),
        ),
        "backward_inside_vjp": (
            lambda T: _backward_inside(T, lambda T, f: T.func.vjp(f, T.ones(3))),
            ("raises", "RuntimeError"),
        ),
        "backward_inside_jvp": (
            lambda T: _backward_inside(T, lambda T, f: T.func.jvp(f, (T.ones(3),), (T.ones(3),))),
            ("raises", "RuntimeError"),
        ),
        "backward_after_vmap": (_backward_after_vmap, ([[2.0, 2.0], [2.0, 2.0]], F64, None)),
    }
)


def _dual(T, make):
    fw = T.autograd.forward_ad
    with fw.dual_level():
        return make(T, fw)


def _detached_in_place(T, fw):
    d = fw.make_dual(T.ones(2), T.ones(2)) * 2
    d.detach_()
    return fw.unpack_dual(d).tangent is None, d


def _tangent_strides(T, fw):
    across = T.arange(6.0).reshape(3, 2).t()
    d = fw.make_dual(T.ones(2, 3), across)
    tangent = fw.unpack_dual(d).tangent
    return tangent.stride(), tangent, fw.unpack_dual(d.view(-1)).tangent


CASES.update(
    {
        # -- detach_() drops the tangent too
        "dual_detach_in_place": (
            lambda T: _dual(T, _detached_in_place),
            (True, ([2.0, 2.0], F32, None)),
        ),
        # -- make_dual lays the tangent out as the primal
        "dual_tangent_strides": (
            lambda T: _dual(T, _tangent_strides),
            (
                (3, 1),
                ([[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]], F32, None),
                ([0.0, 2.0, 4.0, 1.0, 3.0, 5.0], F32, None),
            ),
        ),
    }
)


def _second_order(T, name, func):
    args = (func, T.tensor([1.0, 2.0]))
    if name != "hessian":
        args += (T.ones(2),)
    return getattr(T.autograd.functional, name)(*args)


for _name in ("hessian", "hvp", "vhp"):
    CASES.update(
        {
            # -- hessian, hvp and vhp take one tensor with one element, not a tuple of it
            f"{_name}_of_a_tuple": (
                lambda T, n=_name: _second_order(T, n, lambda x: ((x**3).sum(),)),
                ("raises", "RuntimeError"),
            ),
            f"{_name}_of_a_vector": (
                lambda T, n=_name: _second_order(T, n, lambda x: x**3),
                ("raises", "RuntimeError"),
            ),
        }
    )
CASES["hessian_of_one_element"] = (
    lambda T: _second_order(T, "hessian", lambda x: (x**3).sum().reshape(1)),
    ([[6.0, 0.0], [0.0, 12.0]], F32, None),
)


def _vmap_out(T, func, out_dims):
    return T.func.vmap(func, out_dims=out_dims)(_rows(T, False))


CASES.update(
    {
        # -- out_dims: a dimension out of range is an IndexError (it used to wrap around)
        "vmap_out_dims_out_of_range": (
            lambda T: _vmap_out(T, lambda r: r * 2, 2),
            ("raises", "IndexError"),
        ),
        "vmap_out_dims_of_scalar_out_of_range": (
            lambda T: _vmap_out(T, lambda r: r.sum(), 1),
            ("raises", "IndexError"),
        ),
        "vmap_out_dims_negative": (
            lambda T: _vmap_out(T, lambda r: r * 2, -1),
            ([[2.0, 6.0], [4.0, -2.0]], F64, None),
        ),
        # ... and a one-element tuple is taken for a single tensor
        "vmap_out_dims_one_tuple": (
            lambda T: _vmap_out(T, lambda r: r * 2, (1,)),
            ([[2.0, 6.0], [4.0, -2.0]], F64, None),
        ),
        "vmap_out_dims_tuple_too_long": (
            lambda T: _vmap_out(T, lambda r: r * 2, (1, 0)),
            ("raises", "ValueError"),
        ),
    }
)


def _jvp_tangent_requires_grad(T):
    out, jv = T.func.jvp(lambda x: x.exp(), (_x(T, requires_grad=False),), (_x(T),))
    return out.requires_grad, jv.requires_grad


def _cubes(x):
    return (x**3).sum()


CASES.update(
    {
        # -- jvp: when only the tangents require grad, the output does not
        "jvp_only_tangent_requires_grad": (_jvp_tangent_requires_grad, (False, True)),
        # -- Jacobians of inputs that require grad are views of the stacked rows, as PyTorch's
        "jacfwd_requires_grad_grad_fn": (
            lambda T: T.func.jacfwd(lambda x: x**2)(_x(T)),
            ([[1.0, 0.0, 0.0], [0.0, -2.0, 0.0], [0.0, 0.0, 4.0]], F64, "ViewBackward0"),
        ),
        "hessian_requires_grad_grad_fn": (
            lambda T: T.func.hessian(_cubes)(_x(T)),
            ([[3.0, 0.0, 0.0], [0.0, -6.0, 0.0], [0.0, 0.0, 12.0]], F64, "ViewBackward0"),
        ),
        "jacrev_of_a_matrix_grad_fn": (
            lambda T: T.func.jacrev(lambda w: (_rows(T, False) @ w.t()).tanh())(_rows(T)),
            (
                [
                    [[[0.0002, 0.0004], [0.0, 0.0]], [[0.0, 0.0], [0.42, 0.8399]]],
                    [[[1.2599, -0.42], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]],
                ],
                F64,
                "ViewBackward0",
            ),
        ),
    }
)


def _jvp_with_parameter(T):
    w = _x(T, (2.0, 1.0, 0.5))
    x = _x(T, requires_grad=False)
    out, jv, aux = T.func.jvp(
        lambda x: (x * w, (x * 3, x * w)), (x,), (T.ones(3, dtype=T.float64),), has_aux=True
    )
    return out, jv.requires_grad, aux


def _aux_flags(T, transform):
    """Which auxiliary outputs keep a graph when the function closes over a parameter: only
    those computed from it."""
    w = _x(T, (2.0, 1.0, 0.5))
    aux = transform(T, lambda x: (x * w, (x * 3, x * w)), _x(T, requires_grad=False))
    return tuple(a.requires_grad for a in aux)


CASES.update(
    {
        # -- jvp's output that requires grad is an alias of the function's, as PyTorch's
        "jvp_output_alias": (
            _jvp_with_parameter,
            (
                ([1.0, -1.0, 1.0], F64, "AliasBackward0"),
                True,
                (([1.5, -3.0, 6.0], F64, None), ([1.0, -1.0, 1.0], F64, "MulBackward0")),
            ),
        ),
        # -- an aux output keeps a graph only where it reaches a closed-over parameter
        "grad_aux_flags": (
            lambda T: _aux_flags(
                T,
                lambda T, f, x: T.func.grad(lambda x: (f(x)[0].sum(), f(x)[1]), has_aux=True)(x)[1],
            ),
            (False, True),
        ),
        "vjp_aux_flags": (
            lambda T: _aux_flags(T, lambda T, f, x: T.func.vjp(f, x, has_aux=True)[2]),
            (False, True),
        ),
        "jacrev_aux_flags": (
            lambda T: _aux_flags(T, lambda T, f, x: T.func.jacrev(f, has_aux=True)(x)[1]),
            (False, True),
        ),
        "jacfwd_aux_flags": (
            lambda T: _aux_flags(T, lambda T, f, x: T.func.jacfwd(f, has_aux=True)(x)[1]),
            (False, True),
        ),
    }
)


def _std_tangent(T, make):
    x = T.tensor([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]], dtype=T.float64)
    v = T.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=T.float64)
    fw = T.autograd.forward_ad
    with fw.dual_level():
        return fw.unpack_dual(make(fw.make_dual(x, v))).tangent


CASES.update(
    {
        # -- std's tangent is 0 where std is 0 (a constant row), as its gradient is
        "std_tangent_constant_row": (
            lambda T: _std_tangent(T, lambda d: d.std(1)),
            ([0.0, 0.982], F64, None),
        ),
        "std_tangent_constant_keepdim": (
            lambda T: _std_tangent(T, lambda d: d[:1].std(1, keepdim=True, correction=0)),
            ([[0.0]], F64, None),
        ),
        "std_tangent_all": (
            lambda T: _std_tangent(T, lambda d: (d * d).std()),
            (5.1, F64, None),
        ),
        "std_tangent_no_degrees_of_freedom": (
            lambda T: _std_tangent(T, lambda d: d.std(1, correction=3)),
            (["nan", "nan"], F64, None),
        ),
    }
)


def _dual_level_decorator(T):
    fw = T.autograd.forward_ad

    @fw.dual_level()
    def tripled():
        return fw.unpack_dual(fw.make_dual(T.ones(2), T.ones(2)) * 3)

    return tripled()


CASES.update(
    {
        # -- dual_level decorates a function, as PyTorch's
        "dual_level_decorator": (
            _dual_level_decorator,
            (([3.0, 3.0], F32, None), ([3.0, 3.0], F32, None)),
        ),
        # -- unpack_dual of a non-tensor inside a level is a TypeError (outside, passed through)
        "unpack_dual_non_tensor": (
            lambda T: _dual(T, lambda T, fw: fw.unpack_dual(3.0)),
            ("raises", "TypeError"),
        ),
        "unpack_dual_non_tensor_outside": (
            lambda T: tuple(T.autograd.forward_ad.unpack_dual(3.0)),
            (3.0, None),
        ),
    }
)

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
