"""Pictures call tensors as the chain-rule derivation does: one namer for both."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

import symgrad
from symgrad.symbolic import derivation
from symgrad.viz import draw


def scalar(value: float, name: str | None = None, requires_grad: bool = True) -> symgrad.Tensor:
    return symgrad.tensor(value, dtype=symgrad.float64, requires_grad=requires_grad, name=name)


def unnamed() -> symgrad.Tensor:
    a, b, c, d = (scalar(v) for v in (2.0, 3.0, 5.0, 10.0))
    return a * b + symgrad.log(d) * c


def leaf_called_v1() -> symgrad.Tensor:
    v1 = scalar(0.5, "v1")
    return symgrad.sin(v1 * 3.0) * v1


def constant_called_v2() -> symgrad.Tensor:
    x, v2 = scalar(0.5, "x"), scalar(4.0, "v2", requires_grad=False)
    return symgrad.exp(x * v2) + symgrad.sin(x)


def intermediate_called_v2() -> symgrad.Tensor:
    x = scalar(2.0, "x")
    u = x * 3.0
    u.name = "v2"
    return symgrad.sin(u) * x


def leaf_called_y() -> symgrad.Tensor:
    x, y = scalar(2.0, "x"), scalar(3.0, "y")
    return x * y + x


def intermediate_called_y() -> symgrad.Tensor:
    x = scalar(2.0, "x")
    u = x * 3.0
    u.name = "y"
    return symgrad.sin(u) + x


def named_output() -> symgrad.Tensor:
    x = scalar(2.0, "x")
    e = symgrad.exp(x) * x
    e.name = "e"
    return e


GRAPHS = {
    f.__name__: f
    for f in (
        unnamed,
        leaf_called_v1,
        constant_called_v2,
        intermediate_called_v2,
        leaf_called_y,
        intermediate_called_y,
        named_output,
    )
}


def tensor_names(source: str) -> tuple[list[str], list[str]]:
    """The names of a picture's tensor boxes, and of those an operation computes, in the order
    they are drawn."""
    boxes = dict(re.findall(r"  (t\d+) \[shape=box.*?<TD>(?:<B>)?([^<]*)<", source))
    computed = set(re.findall(r"  op\d+ -> (t\d+);", source))
    return list(boxes.values()), [name for ident, name in boxes.items() if ident in computed]


@pytest.mark.parametrize("make", GRAPHS.values(), ids=list(GRAPHS))
def test_pictures_name_tensors_as_the_derivation_does(make: Callable[[], symgrad.Tensor]):
    root = make()
    story = derivation(root)
    source = draw(root).source
    names, computed = tensor_names(source)
    assert len(names) == len(set(names)), f"two tensors share a name: {names}"
    assert set(story.values) <= set(names)
    assert computed == [str(symbol) for symbol, _ in story.definitions]
    assert computed[-1] == story.output
    for symbol, definition in story.definitions:
        assert f"{symbol} = {definition}" in source


def test_labels_given_to_draw_are_taken_names():
    x = scalar(2.0)
    y = symgrad.sin(x * 3.0)
    names, computed = tensor_names(draw(y, names={"v1": x}).source)
    assert names == ["v1", "v2", "y"] and computed == ["v2", "y"]
