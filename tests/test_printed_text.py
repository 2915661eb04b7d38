"""What programs print, character for character as PyTorch 2.13 prints it: tensor subclasses,
tensors inside vmap, gradcheck's Jacobians.

Each case builds the same object with ``T`` either symgrad or torch and returns its text (a
module prefix ``symgrad.`` is written ``torch.``): the table holds the expected text, checked
for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import re

from _torch_table import table_tests


def _text(T, value) -> str:
    return str(value).replace("symgrad.", "torch.")


def _subclass(T, base=None):
    class Scaled(base or T.Tensor):
        pass

    return Scaled


def _subclass_text(T) -> str:
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).as_subclass(_subclass(T))
    return _text(T, x)


def _parameter_subclass_text(T) -> str:
    return _text(T, _subclass(T, T.nn.Parameter)(T.ones(2)))


def _printed_in_vmap(T, fn, x, levels: int = 1) -> str:
    """What ``print(x)`` shows inside ``levels`` nested vmaps of ``fn``."""
    seen = []

    def body(x):
        seen.append(_text(T, fn(x)))
        return x

    for _ in range(levels):
        body = T.func.vmap(body)
    body(x)
    return seen[0]


def _module_tables(T) -> str:
    """How a module's tables and iterators print."""
    model = T.nn.Sequential(T.nn.Linear(1, 1))
    named = re.sub(r" at 0x[0-9a-f]+", "", repr(model.named_parameters()))
    heads = T.nn.ModuleDict({"a": T.nn.ReLU()})
    return "\n".join(
        [named, repr(model._modules), repr(model[0]._parameters.keys()), repr(heads.keys())]
    )


def _made_subclass_text(T) -> str:
    class Weight(T.Tensor):
        def __new__(cls, data):
            return T.Tensor._make_subclass(cls, data, True)

    w = Weight(T.ones(2) * 2)
    return f"{_text(T, w)} {w.is_leaf} {w.requires_grad}"


def _own_repr_text(T) -> str:
    class Pretty(T.Tensor):
        def __repr__(self):
            return "Pretty:" + super().__repr__()

    x = T.tensor([1.0, 2.0]).as_subclass(Pretty)
    return f"{x} | {[x]}"


def _make_subclass_errors(T) -> list:
    class Weight(T.Tensor):
        pass

    calls = [
        lambda: T.Tensor._make_subclass(int, T.ones(1), True),
        lambda: T.Tensor._make_subclass(Weight, [1.0], True),
        lambda: T.Tensor._make_subclass(Weight, T.ones(1), 1),
        lambda: T.Tensor._make_subclass(Weight, T.ones(1, dtype=T.int64), True),
    ]
    errors = []
    for call in calls:
        try:
            call()
        except Exception as error:
            errors.append((type(error).__name__, str(error).split("\n")[0]))
    return errors


CASES = {
    # a subclass opens with its class name, rows aligned under it
    "tensor_subclass": (
        _subclass_text,
        "Scaled([[1., 2.],\n        [3., 4.]], grad_fn=<AliasBackward0>)",
    ),
    "tensor_subclass_0d": (
        lambda T: _text(T, T.tensor(1.5).as_subclass(_subclass(T))),
        "Scaled(1.5000)",
    ),
    "parameter_subclass": (
        _parameter_subclass_text,
        "Parameter containing:\nParameter(Scaled([1., 1.], requires_grad=True))",
    ),
    "buffer_is_plain": (lambda T: _text(T, T.nn.Buffer(T.ones(2))), "tensor([1., 1.])"),
    "tensor_contents": (
        lambda T: _text(T, T.ones(2, dtype=T.float64).__repr__(tensor_contents="[...]")),
        "tensor([...], dtype=torch.float64)",
    ),
    # inside vmap: the level, the batch dimension and the whole batch, indented
    "vmap_batched": (
        lambda T: _printed_in_vmap(T, lambda x: x, T.tensor([[1.0, 2.0], [3.0, 4.0]])),
        "BatchedTensor(lvl=1, bdim=0, value=\n    tensor([[1., 2.],\n            [3., 4.]])\n)",
    ),
    "vmap_batched_grad_fn": (
        lambda T: _printed_in_vmap(T, lambda x: x * 2, T.ones(2, 1, requires_grad=True)),
        "BatchedTensor(lvl=1, bdim=0, value=\n"
        "    tensor([[2.],\n"
        "            [2.]], grad_fn=<MulBackward0>)\n"
        ")",
    ),
    "vmap_nested": (
        lambda T: _printed_in_vmap(T, lambda x: x, T.zeros(2, 3, dtype=T.int64), levels=2),
        "BatchedTensor(lvl=2, bdim=0, value=\n"
        "    BatchedTensor(lvl=1, bdim=0, value=\n"
        "        tensor([[0, 0, 0],\n"
        "                [0, 0, 0]])\n"
        "    )\n"
        ")",
    ),
    # Tensor._make_subclass: a leaf of the class sharing the data, without its history
    "make_subclass": (_made_subclass_text, "Weight([2., 2.], requires_grad=True) True True"),
    "make_subclass_errors": (
        _make_subclass_errors,
        (
            (
                "TypeError",
                "Creating a Tensor subclass from a class that does not inherit from Tensor is "
                "not possible. Make sure your class inherits from Tensor.",
            ),
            (
                "TypeError",
                "_make_subclass(): argument 'data' (position 2) must be Tensor, not list",
            ),
            (
                "TypeError",
                "_make_subclass(): argument 'require_grad' (position 3) must be bool, not int",
            ),
            (
                "RuntimeError",
                "Only Tensors of floating point and complex dtype can require gradients",
            ),
        ),
    ),
    # str() and print() use a subclass's own __repr__
    "own_repr": (_own_repr_text, "Pretty:Pretty([1., 2.]) | [Pretty:Pretty([1., 2.])]"),
    # a module keeps its members in plain dicts; named_parameters is a generator of its own
    "module_tables": (
        _module_tables,
        "<generator object Module.named_parameters>\n"
        "{'0': Linear(in_features=1, out_features=1, bias=True)}\n"
        "dict_keys(['weight', 'bias'])\n"
        "dict_keys(['a'])",
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
