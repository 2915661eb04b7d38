"""The errors of common mistakes, where symgrad once differed from PyTorch: the exception's
type and the first line of its message (the text programmers search the web for; symgrad
keeps its own hint on the lines after), for products, convolutions and losses given
mismatched shapes or dtypes, recurrent layers given states of the wrong size, reshapes and
expands of impossible sizes, joins of mismatched tensors, indices out of range, integer
tensors that require grad, in-place changes of leaves and of saved tensors, backward misuse,
and ``view(-2, 6)``, which once viewed silently.

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(the exception's type and the first line of its message, with the package's name read as
``torch``): the table holds the expected data, checked for symgrad always and for PyTorch
when it is installed.
"""

from __future__ import annotations

from _torch_table import table_tests


def _raised(T, fn):
    """``fn(T)``'s exception as (type name, first line of the message)."""
    try:
        fn(T)
    except Exception as error:
        message = str(error).splitlines()[0] if str(error) else ""
        return type(error).__name__, message.replace(T.__name__ + ".", "torch.")
    return None


def _errors(*fns):
    return lambda T: tuple(_raised(T, fn) for fn in fns)


def _phrases(*fns):
    """The errors' messages up to PyTorch's key phrase (symgrad names the op after it)."""

    def run(T):
        return tuple((kind, text.split(" (")[0].rstrip(".")) for kind, text in _errors(*fns)(T))

    return run


def _linear(T, features, x):
    T.manual_seed(0)
    return T.nn.Linear(*features)(x)


def _saved_output_changed(T):
    x = T.ones(3, requires_grad=True)
    y = x.exp()
    y.add_(1)
    y.sum().backward()


def _saved_input_changed(T):
    x = T.ones(2, 3, requires_grad=True, dtype=T.float64)
    h = x * 2
    z = (h.exp() * h).sum()
    h.add_(1)
    z.backward()


def _saved_constant_changed(T):
    x = T.ones(3, requires_grad=True)
    w = T.ones(3)
    y = x * w
    w.mul_(2)
    y.sum().backward()


def _saved_written_by_key(T):
    x = T.ones(3, requires_grad=True)
    h = x * 2
    z = (h.exp() * h).sum()
    h[0] = 5
    z.backward()


def _hint(message):
    """PyTorch's message with the package named as the test reads it."""
    return message + (
        " Hint: enable anomaly detection to find the operation that failed to compute its "
        "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


_MODIFIED = "one of the variables needed for gradient computation has been modified by an "


CASES = {
    "linear_shapes": (
        _errors(lambda T: _linear(T, (128, 10), T.ones(64, 784))),
        (("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (64x784 and 128x10)"),),
    ),
    "softmax_of_integers": (
        _errors(
            lambda T: T.softmax(T.ones(2, 3, dtype=T.long), -1),
            lambda T: T.softmax(T.ones(2, 3, dtype=T.long), 0),
            lambda T: T.log_softmax(T.ones(3, dtype=T.int32), 0),
            lambda T: T.nn.functional.cross_entropy(T.ones(2, 3, dtype=T.long), T.tensor([0, 1])),
            lambda T: T.nn.functional.cross_entropy(
                T.ones(2, 3, 4, dtype=T.long), T.ones(2, 4, dtype=T.long)
            ),
        ),
        (
            ("NotImplementedError", "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
            ("NotImplementedError", "\"softmax_kernel_impl\" not implemented for 'Long'"),
            (
                "NotImplementedError",
                "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Int'",
            ),
            (
                "NotImplementedError",
                "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'",
            ),
            ("NotImplementedError", "\"log_softmax_kernel_impl\" not implemented for 'Long'"),
        ),
    ),
    "linear_bias_shapes": (
        _errors(
            lambda T: T.nn.functional.linear(T.ones(1, 3), T.ones(3, 3), T.ones(2)),
            lambda T: T.nn.functional.linear(T.ones(2, 4, 3), T.ones(3, 3), T.ones(2)),
            lambda T: T.nn.functional.linear(T.ones(1, 3), T.ones(3, 3), T.ones(1, 1, 3)),
        ),
        (
            (
                "RuntimeError",
                "The expanded size of the tensor (3) must match the existing size (2) at "
                "non-singleton dimension 1.  Target sizes: [1, 3].  Tensor sizes: [2]",
            ),
            (
                "RuntimeError",
                "The expanded size of the tensor (3) must match the existing size (2) at "
                "non-singleton dimension 1.  Target sizes: [8, 3].  Tensor sizes: [2]",
            ),
            (
                "RuntimeError",
                "expand(torch.FloatTensor{[1, 1, 3]}, size=[1, 3]): the number of sizes "
                "provided (2) must be greater or equal to the number of dimensions in the "
                "tensor (3)",
            ),
        ),
    ),
    "linear_dtypes": (
        _errors(
            lambda T: _linear(T, (3, 2), T.ones(2, 3, dtype=T.float64)),
            lambda T: _linear(T, (3, 2), T.ones(2, 3, dtype=T.long)),
        ),
        (
            ("RuntimeError", "mat1 and mat2 must have the same dtype, but got Double and Float"),
            ("RuntimeError", "mat1 and mat2 must have the same dtype, but got Long and Float"),
        ),
    ),
    "matmul_shapes": (
        _errors(
            lambda T: T.mm(T.ones(2, 3), T.ones(4, 5)),
            lambda T: T.ones(2, 3) @ T.ones(4, 5),
            lambda T: T.ones(3) @ T.ones(4),
            lambda T: T.ones(2, 3) @ T.ones(4),
            lambda T: T.ones(3) @ T.ones(4, 5),
            lambda T: T.ones(2, 2, 3) @ T.ones(4, 5),
            lambda T: T.ones(2, 2, 3) @ T.ones(2, 4, 5),
            lambda T: T.ones(2, 2, 3) @ T.ones(3, 4, 5),
            lambda T: T.ones(()) @ T.ones(3),
            lambda T: T.mv(T.ones(2, 3), T.ones(4)),
        ),
        (
            ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
            ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
            (
                "RuntimeError",
                "inconsistent tensor size, expected tensor [3] and src [4] to have the same "
                "number of elements, but got 3 and 4 elements respectively",
            ),
            ("RuntimeError", "size mismatch, got input (2), mat (2x3), vec (4)"),
            ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)"),
            ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)"),
            (
                "RuntimeError",
                "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but "
                "got: [2, 4].",
            ),
            (
                "RuntimeError",
                "The size of tensor a (2) must match the size of tensor b (3) at "
                "non-singleton dimension 0",
            ),
            (
                "RuntimeError",
                "both arguments to matmul need to be at least 1D, but they are 0D and 1D",
            ),
            ("RuntimeError", "size mismatch, got input (2), mat (2x3), vec (4)"),
        ),
    ),
    "matmul_ranks": (
        _errors(
            lambda T: T.mm(T.ones(2, 2, 3), T.ones(3, 5)),
            lambda T: T.mm(T.ones(3, 5), T.ones(5)),
            lambda T: T.bmm(T.ones(2, 3), T.ones(2, 3, 5)),
            lambda T: T.bmm(T.ones(2, 2, 3), T.ones(3, 5)),
            lambda T: T.mv(T.ones(3, 3), T.ones(3, 3)),
        ),
        (
            ("RuntimeError", "self must be a matrix"),
            ("RuntimeError", "mat2 must be a matrix"),
            ("RuntimeError", "batch1 must be a 3D tensor"),
            ("RuntimeError", "batch2 must be a 3D tensor"),
            ("RuntimeError", "vector + matrix @ vector expected, got 1, 2, 2"),
        ),
    ),
    "matmul_dtypes": (
        _errors(
            lambda T: T.mm(T.ones(2, 3), T.ones(3, 2, dtype=T.float64)),
            lambda T: T.ones(2, 3) @ T.ones(3, 2, dtype=T.float64),
            lambda T: T.ones(2, 3, dtype=T.long) @ T.ones(3, 2),
            lambda T: T.ones(3) @ T.ones(3, dtype=T.float64),
            lambda T: T.dot(T.ones(3), T.ones(3, dtype=T.long)),
            lambda T: T.ones(2, 3, 3) @ T.ones(2, 3, 3, dtype=T.float64),
            lambda T: T.ones(2, 3) @ T.ones(4, 5, dtype=T.float64),
        ),
        (
            ("RuntimeError", "expected m1 and m2 to have the same dtype, but got: float != double"),
            ("RuntimeError", "expected m1 and m2 to have the same dtype, but got: float != double"),
            (
                "RuntimeError",
                "expected m1 and m2 to have the same dtype, but got: long int != float",
            ),
            (
                "RuntimeError",
                "dot : expected both vectors to have same dtype, but found Float and Double",
            ),
            (
                "RuntimeError",
                "dot : expected both vectors to have same dtype, but found Float and Long",
            ),
            ("RuntimeError", "expected scalar type Float but found Double"),
            ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
        ),
    ),
    "reshape_sizes": (
        _errors(
            lambda T: T.ones(12).view(-2, 6),
            lambda T: T.ones(12).reshape(3, -2, 2),
            lambda T: T.ones(12).reshape(-1, -1),
            lambda T: T.ones(12).view(3, 5),
            lambda T: T.ones(0).reshape(0, -1),
        ),
        (
            ("RuntimeError", "invalid shape dimension -2 at index 0 of shape [-2, 6]"),
            ("RuntimeError", "invalid shape dimension -2 at index 1 of shape [3, -2, 2]"),
            ("RuntimeError", "only one dimension can be inferred"),
            ("RuntimeError", "shape '[3, 5]' is invalid for input of size 12"),
            (
                "RuntimeError",
                "cannot reshape tensor of 0 elements into shape [0, -1] because the "
                "unspecified dimension size -1 can be any value and is ambiguous",
            ),
        ),
    ),
    "integer_requires_grad": (
        _errors(
            lambda T: T.ones(3, dtype=T.long, requires_grad=True),
            lambda T: T.tensor([1, 2], requires_grad=True),
            lambda T: T.tensor([1, 2]).requires_grad_(),
            lambda T: setattr(T.tensor([True]), "requires_grad", True),
            lambda T: T.nn.Parameter(T.tensor([1, 2])),
        ),
        (
            (
                "RuntimeError",
                "Only Tensors of floating point and complex dtype can require gradients",
            ),
            (
                "RuntimeError",
                "Only Tensors of floating point and complex dtype can require gradients",
            ),
            ("RuntimeError", "only Tensors of floating point dtype can require gradients"),
            (
                "RuntimeError",
                "only Tensors of floating point and complex dtype can require gradients",
            ),
            (
                "RuntimeError",
                "Only Tensors of floating point and complex dtype can require gradients",
            ),
        ),
    ),
    "python_scalars": (
        _errors(
            lambda T: T.ones(3).item(),
            lambda T: float(T.ones(3)),
            lambda T: int(T.ones(0)),
            lambda T: bool(T.ones(3)),
            lambda T: bool(T.ones(0)),
        ),
        (
            ("RuntimeError", "a Tensor with 3 elements cannot be converted to Scalar"),
            ("ValueError", "only one element tensors can be converted to Python scalars"),
            ("ValueError", "only one element tensors can be converted to Python scalars"),
            ("RuntimeError", "Boolean value of Tensor with more than one value is ambiguous"),
            ("RuntimeError", "Boolean value of Tensor with no values is ambiguous"),
        ),
    ),
    "index_out_of_bounds": (
        _errors(
            lambda T: T.ones(3)[5],
            lambda T: T.ones(3)[-4],
            lambda T: T.ones(2, 3)[1, 4],
            lambda T: T.ones(2, 3)[:, 3],
            lambda T: T.ones(3)[T.tensor([0, 5])],
            lambda T: T.ones(3)[[0, 5]],
            lambda T: T.ones(3)[0, 0],
            lambda T: T.ones(3)[T.tensor([True, False])],
            lambda T: T.ones(2, 3, 4)[T.ones(2, 4, dtype=T.bool)],
            lambda T: T.ones(3).__setitem__(5, 1.0),
        ),
        (
            ("IndexError", "index 5 is out of bounds for dimension 0 with size 3"),
            ("IndexError", "index -4 is out of bounds for dimension 0 with size 3"),
            ("IndexError", "index 4 is out of bounds for dimension 1 with size 3"),
            ("IndexError", "index 3 is out of bounds for dimension 1 with size 3"),
            ("IndexError", "index 5 is out of bounds for dimension 0 with size 3"),
            ("IndexError", "index 5 is out of bounds for dimension 0 with size 3"),
            ("IndexError", "too many indices for tensor of dimension 1"),
            (
                "IndexError",
                "The shape of the mask [2] at index 0 does not match the shape of the indexed "
                "tensor [3] at index 0",
            ),
            (
                "IndexError",
                "The shape of the mask [2, 4] at index 1 does not match the shape of the "
                "indexed tensor [2, 3, 4] at index 1",
            ),
            ("IndexError", "index 5 is out of bounds for dimension 0 with size 3"),
        ),
    ),
    "leaf_written_by_key": (
        _phrases(
            lambda T: T.ones(3, requires_grad=True).__setitem__(0, 2.0),
            lambda T: T.ones(3, requires_grad=True).__setitem__(slice(0, 2), 0.0),
            lambda T: T.ones(3, requires_grad=True).__setitem__([0], 1.0),
            lambda T: T.ones(3, requires_grad=True).add_(1),
        ),
        tuple(
            (
                "RuntimeError",
                f"{start}leaf Variable that requires grad is being used in an in-place operation",
            )
            for start in ("a view of a ", "a view of a ", "a ", "a ")
        ),
    ),
    "saved_tensor_changed": (
        lambda T: tuple(
            _raised(T, fn)
            for fn in (
                _saved_output_changed,
                _saved_input_changed,
                _saved_constant_changed,
                _saved_written_by_key,
            )
        ),
        tuple(
            ("RuntimeError", _hint(_MODIFIED + "inplace operation: " + text))
            for text in (
                "[torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; "
                "expected version 0 instead.",
                "[torch.DoubleTensor [2, 3]], which is output 0 of Add, is at version 1; "
                "expected version 0 instead.",
                "[torch.FloatTensor [3]] is at version 1; expected version 0 instead.",
                "[torch.FloatTensor [3]], which is output 0 of torch::autograd::CopySlices, is at "
                "version 1; expected version 0 instead.",
            )
        ),
    ),
    "join_shapes": (
        _errors(
            lambda T: T.cat([T.ones(2, 3), T.ones(2, 4)]),
            lambda T: T.cat([T.ones(2, 3), T.ones(3, 4)], dim=1),
            lambda T: T.cat([T.ones(2, 3), T.ones(3)]),
            lambda T: T.stack([T.ones(2, 3), T.ones(2, 4)]),
        ),
        (
            (
                "RuntimeError",
                "Sizes of tensors must match except in dimension 0. Expected size 3 but got "
                "size 4 for tensor number 1 in the list.",
            ),
            (
                "RuntimeError",
                "Sizes of tensors must match except in dimension 1. Expected size 2 but got "
                "size 3 for tensor number 1 in the list.",
            ),
            ("RuntimeError", "Tensors must have same number of dimensions: got 2 and 1"),
            (
                "RuntimeError",
                "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and "
                "[2, 4] at entry 1",
            ),
        ),
    ),
    "expand_sizes": (
        _errors(
            lambda T: T.ones(3, 2).expand(3, 4),
            lambda T: T.ones(3, 2).expand_as(T.ones(4, 4)),
            lambda T: T.broadcast_to(T.ones(3, 2), (3, 4)),
            lambda T: T.ones(3, 2).expand(2),
            lambda T: T.ones(3).expand(3, -1, 3),
        ),
        (
            (
                "RuntimeError",
                "The expanded size of the tensor (4) must match the existing size (2) at "
                "non-singleton dimension 1.  Target sizes: [3, 4].  Tensor sizes: [3, 2]",
            ),
            (
                "RuntimeError",
                "The expanded size of the tensor (4) must match the existing size (2) at "
                "non-singleton dimension 1.  Target sizes: [4, 4].  Tensor sizes: [3, 2]",
            ),
            (
                "RuntimeError",
                "The expanded size of the tensor (4) must match the existing size (2) at "
                "non-singleton dimension 1.  Target sizes: [3, 4].  Tensor sizes: [3, 2]",
            ),
            (
                "RuntimeError",
                "expand(torch.FloatTensor{[3, 2]}, size=[2]): the number of sizes provided (1) "
                "must be greater or equal to the number of dimensions in the tensor (2)",
            ),
            (
                "RuntimeError",
                "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                "dimension 1",
            ),
        ),
    ),
    "class_targets": (
        _errors(
            lambda T: T.nn.functional.cross_entropy(T.ones(4, 3), T.ones(4)),
            lambda T: T.nn.functional.cross_entropy(T.ones(4, 3), T.ones(4, 2)),
            lambda T: T.nn.functional.cross_entropy(T.ones(4, 3), T.tensor([0, 1, 2, 3])),
            lambda T: T.nn.functional.nll_loss(T.ones(4, 3), T.tensor([0, 1, 2, -1])),
            lambda T: T.nn.functional.cross_entropy(
                T.ones(4, 3), T.tensor([0, 1, 2, 1], dtype=T.int32)
            ),
            lambda T: T.nn.functional.cross_entropy(T.ones(4, 3), T.tensor([0, 1, 2])),
            lambda T: T.nn.functional.nll_loss(T.ones(()), T.tensor(1)),
            lambda T: T.nn.functional.nll_loss(T.ones(2, 3, 4, 4), T.ones(2, 4, dtype=T.long)),
        ),
        (
            ("RuntimeError", "expected target dtype to be Long or Byte, but got Float"),
            ("RuntimeError", "0D or 1D target tensor expected, multi-target not supported"),
            ("IndexError", "Target 3 is out of bounds."),
            ("IndexError", "Target -1 is out of bounds."),
            ("RuntimeError", "expected target dtype to be Long or Byte, but got Int"),
            ("ValueError", "Expected input batch_size (4) to match target batch_size (3)."),
            ("ValueError", "Expected 1 or more dimensions (got 0)"),
            (
                "RuntimeError",
                "only batches of spatial targets supported (3D tensors) but got targets of "
                "dimension: 2",
            ),
        ),
    ),
    "binary_targets": (
        _errors(
            lambda T: T.nn.functional.binary_cross_entropy(
                T.full((3,), 0.5), T.tensor([0.0, 1.0, 2.0])
            ),
            lambda T: T.nn.functional.binary_cross_entropy(
                T.tensor([0.5, 1.5]), T.tensor([0.0, 1.0])
            ),
            lambda T: T.nn.functional.binary_cross_entropy(T.full((3,), 0.5), T.tensor([0, 1, 1])),
        ),
        (
            ("RuntimeError", "all elements of target should be between 0 and 1"),
            ("RuntimeError", "all elements of input should be between 0 and 1"),
            ("RuntimeError", "Found dtype Long but expected Float"),
        ),
    ),
    "recurrent_inputs": (
        _errors(
            lambda T: T.nn.LSTM(4, 5)(T.ones(4)),
            lambda T: T.nn.LSTM(4, 5)(T.ones(3, 2, 1, 4)),
            lambda T: T.nn.LSTM(4, 5)(T.ones(3, 2, 4), (T.zeros(1, 3, 5), T.zeros(1, 3, 5))),
            lambda T: T.nn.LSTM(4, 5)(T.ones(3, 2, 4), (T.zeros(1, 2, 5), T.zeros(1, 3, 5))),
            lambda T: T.nn.GRU(4, 5)(T.ones(3, 2, 4), T.zeros(2, 2, 5)),
            lambda T: T.nn.LSTM(4, 5)(T.ones(3, 4), (T.zeros(1, 3, 5), T.zeros(1, 3, 5))),
            lambda T: T.nn.GRU(4, 5)(T.ones(3, 2, 4), T.zeros(1, 5)),
            lambda T: T.nn.LSTM(4, 5)(T.ones(3, 2, 4), T.zeros(1, 2, 5)),
            lambda T: T.nn.GRU(4, 5)(T.ones(3, 2, 4), (T.zeros(1, 2, 5),)),
        ),
        (
            ("ValueError", "LSTM: Expected input to be 2D or 3D, got 1D instead"),
            ("ValueError", "LSTM: Expected input to be 2D or 3D, got 4D instead"),
            ("RuntimeError", "Expected hidden[0] size (1, 2, 5), got [1, 3, 5]"),
            ("RuntimeError", "Expected hidden[1] size (1, 2, 5), got [1, 3, 5]"),
            ("RuntimeError", "Expected hidden size (1, 2, 5), got [2, 2, 5]"),
            (
                "RuntimeError",
                "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 3-D) tensors",
            ),
            ("RuntimeError", "For batched 3-D input, hx should also be 3-D but got 2-D tensor"),
            ("IndexError", "index 1 is out of bounds for dimension 0 with size 1"),
            ("AttributeError", "'tuple' object has no attribute 'dim'"),
        ),
    ),
    "convolution_dtypes": (
        _errors(
            lambda T: T.nn.functional.conv2d(
                T.ones(1, 3, 5, 5, dtype=T.float64), T.ones(2, 3, 3, 3)
            ),
            lambda T: T.nn.functional.conv2d(
                T.ones(1, 3, 5, 5, dtype=T.float64), T.ones(2, 3, 3, 3), T.ones(2)
            ),
            lambda T: T.nn.functional.conv1d(
                T.ones(1, 3, 5, dtype=T.long), T.ones(2, 3, 3), T.ones(2)
            ),
            lambda T: T.nn.functional.conv2d(
                T.ones(1, 3, 5, 5), T.ones(2, 3, 3, 3, dtype=T.float64), T.ones(2)
            ),
        ),
        (
            ("RuntimeError", "expected scalar type Double but found Float"),
            ("RuntimeError", "Input type (double) and bias type (float) should be the same"),
            ("RuntimeError", "Input type (long int) and bias type (float) should be the same"),
            ("RuntimeError", "expected scalar type Float but found Double"),
        ),
    ),
    "in_place_casts": (
        _errors(
            lambda T: T.ones(3, dtype=T.long).add_(T.ones(3)),
            lambda T: T.ones(3, dtype=T.long).mul_(1.5),
            lambda T: T.ones(3, dtype=T.long).div_(2),
            lambda T: T.nn.functional.binary_cross_entropy_with_logits(
                T.full((3,), 0.5), T.tensor([0, 1, 1])
            ),
        ),
        (
            ("RuntimeError", "result type Float can't be cast to the desired output type Long"),
            ("RuntimeError", "result type Float can't be cast to the desired output type Long"),
            ("RuntimeError", "result type Float can't be cast to the desired output type Long"),
            ("RuntimeError", "result type Float can't be cast to the desired output type Long"),
        ),
    ),
    "autograd_misuse": (
        _errors(
            lambda T: (T.ones(3, requires_grad=True) * 2).backward(),
            lambda T: (T.ones(3) * 2).sum().backward(),
            lambda T: T.ones(3, requires_grad=True).numpy(),
            lambda T: (T.ones(3, requires_grad=True) * 2).backward(T.ones(4)),
            lambda T: T.autograd.grad(
                (T.ones(3, requires_grad=True) * 2).sum(),
                [T.ones(3, requires_grad=True), T.ones(3, requires_grad=True)],
            ),
        ),
        (
            ("RuntimeError", "grad can be implicitly created only for scalar outputs"),
            (
                "RuntimeError",
                "element 0 of tensors does not require grad and does not have a grad_fn",
            ),
            (
                "RuntimeError",
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead.",
            ),
            (
                "RuntimeError",
                "Mismatch in shape: grad_output[0] has a shape of torch.Size([4]) and "
                "output[0] has a shape of torch.Size([3]).",
            ),
            (
                "RuntimeError",
                "The differentiated Tensor at index 0 appears to not have been used in the "
                "graph. Set allow_unused=True if this is the desired behavior.",
            ),
        ),
    ),
    "in_place_on_leaves": (
        _errors(
            lambda T: T.ones(3, requires_grad=True).add_(1),
            lambda T: T.ones(3, requires_grad=True)[:2].mul_(2),
            lambda T: T.ones(3, 1).add_(T.ones(3, 4)),
        ),
        (
            (
                "RuntimeError",
                "a leaf Variable that requires grad is being used in an in-place operation.",
            ),
            (
                "RuntimeError",
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.",
            ),
            ("RuntimeError", "output with shape [3, 1] doesn't match the broadcast shape [3, 4]"),
        ),
    ),
    "layouts_and_broadcasting": (
        _errors(
            lambda T: T.ones(3, 4).t().view(12),
            lambda T: T.ones(3) + T.ones(4),
            lambda T: T.ones(2, 3) * T.ones(3, 2),
            lambda T: T.nn.functional.mse_loss(T.ones(3, 2), T.ones(4)),
        ),
        (
            (
                "RuntimeError",
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
            ),
            (
                "RuntimeError",
                "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                "dimension 0",
            ),
            (
                "RuntimeError",
                "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                "dimension 1",
            ),
            (
                "RuntimeError",
                "The size of tensor a (2) must match the size of tensor b (4) at non-singleton "
                "dimension 1",
            ),
        ),
    ),
    "building_tensors": (
        _errors(
            lambda T: T.tensor([[1, 2], [3]]),
            lambda T: T.tensor([[1.0, 2.0], 3.0]),
            lambda T: T.tensor(["a"]),
            lambda T: T.tensor([T.ones(2), T.ones(2)]),
            lambda T: T.utils.data.TensorDataset(T.ones(3), T.ones(4)),
            lambda T: T.cat(T.ones(2, 3)),
            lambda T: T.cat([T.ones(()), T.ones(())]),
        ),
        (
            ("ValueError", "expected sequence of length 2 at dim 1 (got 1)"),
            ("TypeError", "not a sequence"),
            ("ValueError", "too many dimensions 'str'"),
            ("ValueError", "only one element tensors can be converted to Python scalars"),
            ("AssertionError", "Size mismatch between tensors"),
            (
                "TypeError",
                "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor",
            ),
            ("RuntimeError", "zero-dimensional tensor (at position 0) cannot be concatenated"),
        ),
    ),
    "index_kinds": (
        _errors(
            lambda T: T.ones(3)[T.tensor([0.0])],
            lambda T: T.ones(3)[1.0],
            lambda T: T.gather(T.ones(3), 0, T.tensor([5])),
            lambda T: T.index_select(T.ones(3), 0, T.tensor([5])),
            lambda T: T.nn.Embedding(10, 3)(T.tensor([1, 10])),
        ),
        (
            ("IndexError", "tensors used as indices must be long, int, byte or bool tensors"),
            (
                "IndexError",
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got float)",
            ),
            ("RuntimeError", "index 5 is out of bounds for dimension 0 with size 3"),
            ("IndexError", "index out of range in self"),
            ("IndexError", "index out of range in self"),
        ),
    ),
    "layer_inputs": (
        _errors(
            lambda T: T.nn.BatchNorm1d(4)(T.ones(1, 4)),
            lambda T: T.nn.GroupNorm(2, 4)(T.ones(1, 2, 1)),
            lambda T: T.nn.functional.binary_cross_entropy_with_logits(T.ones(3), T.ones(3, 1)),
            lambda T: T.nn.Embedding(10, 3)(T.tensor([1.0])),
            lambda T: T.nn.Module().add_module("a.b", T.nn.Linear(1, 1)),
            lambda T: T.ones(3, 2).repeat(2),
        ),
        (
            (
                "ValueError",
                "Expected more than 1 value per channel when training, got input size "
                "torch.Size([1, 4])",
            ),
            (
                "ValueError",
                "Expected more than 1 value per channel when training, got input size [1, 2, 1]",
            ),
            (
                "ValueError",
                "Target size (torch.Size([3, 1])) must be the same as input size (torch.Size([3]))",
            ),
            (
                "RuntimeError",
                "Expected tensor for argument #1 'indices' to have one of the following scalar "
                "types: Long, Int; but got torch.FloatTensor instead (while checking arguments "
                "for embedding)",
            ),
            ("KeyError", "'module name can\\'t contain \".\", got: a.b'"),
            (
                "RuntimeError",
                "Number of dimensions of repeat dims can not be smaller than number of "
                "dimensions of tensor",
            ),
        ),
    ),
    "more_misuse": (
        _errors(
            lambda T: T.tensor(1.0)[0],
            lambda T: T.tensor(1.0)[:],
            lambda T: T.ones(2, 3).sum(dim=(0, -2)),
            lambda T: T.where(T.ones(3), T.ones(3), T.zeros(3)),
            lambda T: T.clamp(T.ones(2)),
            lambda T: T.ones(2, 3).permute(0, 0),
            lambda T: setattr(T.ones(2, requires_grad=True), "grad", T.ones(3)),
            lambda T: T.manual_seed(None),
        ),
        (
            (
                "IndexError",
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
            ),
            ("IndexError", "slice() cannot be applied to a 0-dim tensor."),
            ("RuntimeError", "dim 0 appears multiple times in the list of dims"),
            (
                "RuntimeError",
                "where expected condition to be a boolean tensor, but got a tensor with dtype "
                "Float",
            ),
            ("RuntimeError", "torch.clamp: At least one of 'min' or 'max' must not be None"),
            ("RuntimeError", "permute(): duplicate dims are not allowed."),
            (
                "RuntimeError",
                "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. "
                "Please ensure that the gradient and the tensor are the same size",
            ),
            (
                "TypeError",
                "int() argument must be a string, a bytes-like object or a real number, not "
                "'NoneType'",
            ),
        ),
    ),
    "seeds_as_pytorch_reads_them": (
        lambda T: tuple(T.manual_seed(seed).initial_seed() for seed in (1.5, "12", True)),
        (1, 12, 1),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
