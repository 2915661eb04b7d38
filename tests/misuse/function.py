"""Custom autograd Functions used wrongly: what forward returns, what backward returns, what
ctx is asked to save, mark or give back, how apply is called."""

from __future__ import annotations

from misuse.registry import case


def _leaf(T, values=(1.0, 2.0)):
    return T.tensor(list(values), requires_grad=True)


def _function(T, forward, backward=None, name="Custom"):
    """A Function class with the given static forward and backward."""

    def default_backward(ctx, g):
        return g

    return type(
        name,
        (T.autograd.Function,),
        {
            "forward": staticmethod(forward),
            "backward": staticmethod(backward or default_backward),
        },
    )


# -- forward ------------------------------------------------------------------------------------


@case(3.0)
def forward_returning_a_python_number(T):
    return _function(T, lambda ctx, x: 3.0).apply(_leaf(T))


@case(None)
def forward_returning_none(T):
    return _function(T, lambda ctx, x: None).apply(_leaf(T))


@case([[2.0, 4.0], 7])
def forward_returning_a_tensor_and_a_number(T):
    y, n = _function(T, lambda ctx, x: (x * 2, 7)).apply(_leaf(T))
    return [y.tolist(), n]


@case(True)
def forward_returning_a_list_of_tensors(T):
    out = _function(T, lambda ctx, x: [x * 2, x * 3]).apply(_leaf(T))
    return isinstance(out, list)


# keyword arguments are inputs too: backward returns one gradient (or None) for each
@case([[2.0, 4.0], [2.0, 2.0]])
def apply_with_a_keyword_argument(T):
    x = _leaf(T)
    fn = _function(T, lambda ctx, x, scale=1.0: x * scale, lambda ctx, g: (g * 2, None))
    y = fn.apply(x, scale=2.0)
    y.sum().backward()
    return [y.tolist(), x.grad.tolist()]


@case(RuntimeError, says=("expected 2, got 1",))
def apply_with_a_keyword_argument_and_one_gradient(T):
    fn = _function(T, lambda ctx, x, scale=1.0: x * scale, lambda ctx, g: g * 2)
    fn.apply(_leaf(T), scale=2.0).sum().backward()


@case([[1.0, 1.0], [2.0, 2.0]])
def apply_with_a_keyword_argument_requiring_grad(T):
    x, s = _leaf(T), T.ones(2, requires_grad=True)
    fn = _function(T, lambda ctx, x, scale: x * scale, lambda ctx, g: (g, g * 2))
    fn.apply(x, scale=s).sum().backward()
    return [x.grad.tolist(), s.grad.tolist()]


@case(TypeError, says=("'b'",))
def apply_with_an_unknown_keyword_argument(T):
    _function(T, lambda ctx, x, a=1: x * a).apply(_leaf(T), b=2)


@case(TypeError, says=("'a'",))
def apply_with_a_keyword_argument_skipping_a_parameter(T):
    _function(T, lambda ctx, x, a=1, b=2: x * a * b).apply(_leaf(T), b=2)


@case(RuntimeError)
def function_instance_called(T):
    fn = _function(T, lambda ctx, x: x * 2)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        instance = fn()
    instance(_leaf(T))


@case(NotImplementedError)
def function_without_forward(T):
    class NoForward(T.autograd.Function):
        @staticmethod
        def backward(ctx, g):
            return g

    NoForward.apply(_leaf(T))


@case(NotImplementedError)
def function_without_backward(T):
    class NoBackward(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    NoBackward.apply(_leaf(T)).sum().backward()


# -- backward -----------------------------------------------------------------------------------


@case(RuntimeError, says=("incorrect number of gradients", "expected 1, got 2"))
def backward_returning_too_many_gradients(T):
    fn = _function(T, lambda ctx, x: x * 2, lambda ctx, g: (g, g))
    fn.apply(_leaf(T)).sum().backward()


@case([2.0, 2.0])
def backward_returning_extra_nones(T):
    x = _leaf(T)
    fn = _function(T, lambda ctx, x: x * 2, lambda ctx, g: (g * 2, None, None))
    fn.apply(x).sum().backward()
    return x.grad.tolist()


@case(RuntimeError, says=("incorrect number of gradients",))
def backward_returning_too_few_gradients(T):
    fn = _function(T, lambda ctx, x, y: x * y, lambda ctx, g: g)
    fn.apply(_leaf(T), _leaf(T)).sum().backward()


@case(RuntimeError, says=("[3]", "[2]"))
def backward_returning_a_gradient_of_wrong_shape(T):
    fn = _function(T, lambda ctx, x: x * 2, lambda ctx, g: T.ones(3))
    fn.apply(_leaf(T)).sum().backward()


@case([3.0, 3.0])  # summed over the leading dimension
def backward_returning_a_broadcastable_gradient(T):
    x = _leaf(T)
    fn = _function(T, lambda ctx, x: x * 2, lambda ctx, g: T.ones(3, 2))
    fn.apply(x).sum().backward()
    return x.grad.tolist()


@case(["torch.float32", [1.0, 1.0]])
def backward_returning_a_gradient_of_wrong_dtype(T):
    x = _leaf(T)
    fn = _function(T, lambda ctx, x: x * 2, lambda ctx, g: T.ones(2, dtype=T.float64))
    fn.apply(x).sum().backward()
    return [str(x.grad.dtype).replace("symgrad", "torch"), x.grad.tolist()]


@case(RuntimeError, says=("float",))
def backward_returning_a_python_number(T):
    fn = _function(T, lambda ctx, x: x * 2, lambda ctx, g: 1.0)
    fn.apply(_leaf(T)).sum().backward()


@case(RuntimeError, says=("list",))
def backward_returning_a_list(T):
    fn = _function(T, lambda ctx, x: x * 2, lambda ctx, g: [g])
    fn.apply(_leaf(T)).sum().backward()


@case(RuntimeError, says=("[2, 1]", "[2]"))
def backward_returning_a_gradient_the_input_does_not_broadcast_to(T):
    fn = _function(T, lambda ctx, x: x * 2, lambda ctx, g: T.ones(2, 1))
    fn.apply(_leaf(T)).sum().backward()


@case(RuntimeError)
def backward_returning_a_0d_gradient_for_a_vector(T):
    fn = _function(T, lambda ctx, x: x * 2, lambda ctx, g: T.tensor(1.0))
    fn.apply(_leaf(T)).sum().backward()


@case([2.0])
def backward_returning_a_vector_for_a_one_element_input(T):
    x = T.ones(1, requires_grad=True)
    fn = _function(T, lambda ctx, x: x * 2, lambda ctx, g: T.ones(2))
    fn.apply(x).sum().backward()
    return x.grad.tolist()


@case(RuntimeError, says=("position 2", "not a Variable"))
def backward_returning_a_gradient_for_a_non_tensor_input(T):
    fn = _function(T, lambda ctx, x, k: x * k, lambda ctx, g: (g, g))
    fn.apply(_leaf(T), 2.0).sum().backward()


# -- ctx ----------------------------------------------------------------------------------------


@case(TypeError, says=("int",))
def save_for_backward_of_a_python_number(T):
    def forward(ctx, x):
        ctx.save_for_backward(x, 3)
        return x * 2

    _function(T, forward).apply(_leaf(T))


@case(TypeError)
def save_for_backward_of_a_list_of_tensors(T):
    def forward(ctx, x):
        ctx.save_for_backward([x])
        return x * 2

    _function(T, forward).apply(_leaf(T))


@case([2.0, 4.0])  # checked only when the call is recorded
def save_for_backward_of_a_python_number_under_no_grad(T):
    def forward(ctx, x):
        ctx.save_for_backward(x, 3)
        return x * 2

    with T.no_grad():
        return _function(T, forward).apply(_leaf(T)).tolist()


def _saving(T):
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2

    return _function(T, forward, backward)


@case(RuntimeError, says=("second time",))
def saved_tensors_after_backward_freed_them(T):
    y = _saving(T).apply(_leaf(T)).sum()
    y.backward()
    y.backward()


@case(RuntimeError, says=("second time",))
def saved_tensors_read_from_ctx_after_backward(T):
    y = _saving(T).apply(_leaf(T))
    y.sum().backward()
    return y.grad_fn.saved_tensors


@case(RuntimeError)
def saved_tensor_changed_in_place_before_backward(T):
    w = _leaf(T) * 1
    y = _saving(T).apply(w)
    w.add_(1)
    y.sum().backward()


@case(RuntimeError, says=("returned",))
def mark_dirty_of_a_tensor_not_returned(T):
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x * 2

    _function(T, forward).apply(_leaf(T) * 1)


@case(RuntimeError, says=("leaf",))
def mark_dirty_of_a_leaf_requiring_grad(T):
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    _function(T, forward).apply(_leaf(T))


@case([2.0, 3.0])
def mark_dirty_of_a_leaf_requiring_grad_under_no_grad(T):
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    with T.no_grad():
        return _function(T, forward).apply(_leaf(T)).tolist()


@case(RuntimeError)
def mark_dirty_of_a_tensor_not_returned_without_grad(T):
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x * 2

    _function(T, forward).apply(T.ones(2))


@case(UserWarning, says=("not an input",))
def mark_dirty_of_a_tensor_not_an_input(T):
    def forward(ctx, x):
        out = x * 3
        ctx.mark_dirty(out)
        return out

    _function(T, forward).apply(_leaf(T))


@case(RuntimeError)
def mark_dirty_of_a_python_number(T):
    def forward(ctx, x):
        ctx.mark_dirty(3)
        return x * 2

    _function(T, forward).apply(T.ones(2))


@case([True, True, False, 2])
def mark_dirty_of_an_input_not_requiring_grad(T):
    def forward(ctx, a, b):
        a.add_(b)
        ctx.mark_dirty(a)
        return a

    a = T.ones(2)
    out = _function(T, forward, lambda ctx, g: (g, g)).apply(a, _leaf(T))
    return [out is a, a.requires_grad, a.is_leaf, a._version]


@case([[4.0, 8.0], [4.0, 4.0]])  # out is y + y: the changed y is the function's output
def mark_dirty_used_rightly(T):
    x = _leaf(T)

    def forward(ctx, y):
        y.mul_(2)
        ctx.mark_dirty(y)
        return y

    def backward(ctx, g):
        return g * 2

    y = x * 1
    out = _function(T, forward, backward).apply(y) + y
    out.sum().backward()
    return [out.tolist(), x.grad.tolist()]


@case(
    [[2.0, 4.0, 3.0], [2.0, 20.0, 100.0]],
    xfail="mark_dirty of a view: PyTorch records the change in the base's history "
    "(CopySlices); symgrad raises NotImplementedError rather than miss it",
)
def mark_dirty_of_a_view(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def forward(ctx, a):
        a.mul_(2)
        ctx.mark_dirty(a)
        return a

    base = x * 1
    _function(T, forward, lambda ctx, g: g * 2).apply(base[:2])
    (base * T.tensor([1.0, 10.0, 100.0])).sum().backward()
    return [base.tolist(), x.grad.tolist()]


@case([False, True])
def mark_non_differentiable_output(T):
    def forward(ctx, x):
        out = x * 2
        ctx.mark_non_differentiable(out)
        return out, x * 3

    a, b = _function(T, forward, lambda ctx, ga, gb: gb * 3).apply(_leaf(T))
    return [a.requires_grad, b.requires_grad]


@case(True)
def mark_non_differentiable_of_a_tensor_not_returned(T):
    def forward(ctx, x):
        ctx.mark_non_differentiable(x * 5)
        return x * 2

    return _function(T, forward).apply(_leaf(T)).requires_grad


@case(RuntimeError, says=("int",))
def mark_non_differentiable_of_a_python_number(T):
    def forward(ctx, x):
        ctx.mark_non_differentiable(3)
        return x * 2

    _function(T, forward).apply(_leaf(T))
