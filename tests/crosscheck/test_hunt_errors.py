"""The errors of common mistakes, where symgrad once differed from PyTorch: the exception's
type and the first line of its message (the text programmers search the web for), for
products of mismatched shapes or dtypes, ...

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(the exception's type and message, with the package's name read as ``torch``): the table holds
the expected data, checked for symgrad always and for PyTorch when it is installed.
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


def _linear(T, features, x):
    T.manual_seed(0)
    return T.nn.Linear(*features)(x)


CASES = {
    "linear_shapes": (
        _errors(lambda T: _linear(T, (128, 10), T.ones(64, 784))),
        (("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (64x784 and 128x10)"),),
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
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
