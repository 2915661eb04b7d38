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
