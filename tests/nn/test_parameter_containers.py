"""ParameterDict and ParameterList as PyTorch's: key order, non-tensor values, the dict and
list methods, and their errors."""

from collections import OrderedDict

import pytest

import symgrad
import symgrad.nn as nn


def _dict(lib):
    return lib.nn.ParameterDict({"z": lib.ones(1), "y": lib.ones(2), "n": 3})


def test_plain_dict_keys_are_sorted():
    d = _dict(symgrad)
    assert list(d) == ["n", "y", "z"]
    assert [n for n, _ in d.named_parameters()] == ["y", "z"]
    assert list(d.state_dict()) == ["y", "z"]
    pairs = nn.ParameterDict([("b", symgrad.ones(1)), ("a", 2)])
    assert list(pairs.keys()) == ["b", "a"]
    ordered = nn.ParameterDict(OrderedDict([("b", symgrad.ones(1)), ("a", 2)]))
    assert list(ordered.keys()) == ["b", "a"]
    assert list(nn.ParameterDict(ordered).keys()) == ["b", "a"]


def test_dict_holds_other_objects():
    d = _dict(symgrad)
    assert d["n"] == 3 and d.get("n") == 3 and d.get("q", 7) == 7 and d.get("q") is None
    assert isinstance(d["y"], nn.Parameter) and d["y"].requires_grad
    assert repr(d) == (
        "ParameterDict(\n"
        "    (n): Object of type: int\n"
        "    (y): Parameter containing: [torch.FloatTensor of size 2]\n"
        "    (z): Parameter containing: [torch.FloatTensor of size 1]\n"
        ")"
    )
    d["n"] = None
    assert d["n"] is None and "n" in d and len(d) == 3
    assert repr(nn.ParameterDict({"a": None})) == "ParameterDict(  (a): Object of type: NoneType)"
    with pytest.raises(TypeError, match=r"cannot assign 'int' as parameter 'y'"):
        d["y"] = 5
    d["y"] = None
    assert [n for n, _ in d.named_parameters()] == ["z"]


def test_dict_methods():
    d = _dict(symgrad)
    assert list(reversed(d)) == ["z", "y", "n"]
    assert "y" in d and 1 not in d and "q" not in d
    e = nn.ParameterDict({"a": 1})
    assert list((d | e).keys()) == ["n", "y", "z", "a"] and list(d.keys()) == ["n", "y", "z"]
    assert list((e | d).keys()) == ["a", "n", "y", "z"]
    assert type(e | {"k": 1}) is nn.ParameterDict and list(e | {"k": 1}) == ["a", "k"]
    merged = {"k": 1} | e
    assert type(merged) is dict and list(merged) == ["k", "a"]
    f = nn.ParameterDict({"a": 1})
    f |= {"c": 2, "b": 3}
    assert list(f.keys()) == ["a", "b", "c"]
    assert f.pop("b") == 3 and list(f) == ["a", "c"]
    assert f.popitem() == ("c", 2) and list(f) == ["a"]
    x = f.setdefault("x", symgrad.zeros(2))
    assert isinstance(x, nn.Parameter) and f.setdefault("x", 5) is x
    assert f.setdefault("w") is None and list(f) == ["a", "x", "w"]
    g = f.copy()
    assert type(g) is nn.ParameterDict and g["x"] is x and list(g) == ["a", "x", "w"]
    assert list(f.fromkeys(["p", "q"], 1).items()) == [("p", 1), ("q", 1)]
    assert list(f) == ["a", "x", "w"]
    assert [v.shape for v in f.fromkeys(["p"], symgrad.ones(2)).values()] == [(2,)]
    f.clear()
    assert len(f) == 0 and list(f._parameters) == [] and "w" not in f.__dict__
    assert list(nn.ParameterDict().keys()) == []


def test_dict_errors():
    d = _dict(symgrad)
    with pytest.raises(AttributeError, match="'ParameterDict' object has no attribute 'q'"):
        d["q"]
    with pytest.raises(AttributeError):
        d.pop("q")
    with pytest.raises(KeyError, match="dictionary is empty"):
        nn.ParameterDict().popitem()
    with pytest.raises(TypeError, match=r"not a string \(type is 'int'\)"):
        d[1]
    with pytest.raises(TypeError, match="should be called with an iterable of key/value pairs"):
        nn.ParameterDict(5)
    with pytest.raises(TypeError, match="but got NoneType"):
        d.update(None)
    with pytest.raises(ValueError, match="element #0 has length 3; 2 is required"):
        nn.ParameterDict([("a", 1, 2)])
    with pytest.raises(TypeError, match="element #0 should be Iterable; isint"):
        nn.ParameterDict([5])
    with pytest.raises(RuntimeError, match="ParameterDict should not be called."):
        d(1)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'input'"):
        d()
    with pytest.raises(KeyError, match="contain"):
        nn.ParameterDict({"a.b": symgrad.ones(1)})


def test_list_holds_other_objects():
    ps = nn.ParameterList([symgrad.ones(2), 3, "s", None])
    assert len(ps) == 4 and [n for n, _ in ps.named_parameters()] == ["0"]
    assert list(ps)[1:] == [3, "s", None] and isinstance(ps[0], nn.Parameter)
    assert repr(ps) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [symgrad.float32 of size 2]\n"
        "    (1): Object of type: int\n"
        "    (2): Object of type: str\n"
        "    (3): Object of type: NoneType\n"
        ")"
    )
    ps[-1] = symgrad.zeros(1)
    assert [n for n, _ in ps.named_parameters()] == ["0", "3"]
    assert [k for k in dir(ps) if k.isdigit()] == []
    assert repr(nn.ParameterList()) == "ParameterList()"


def test_list_methods_and_errors():
    ps = nn.ParameterList([symgrad.ones(2), 3, "s", symgrad.zeros(1)])
    for idx in (4, -5):
        with pytest.raises(IndexError, match=f"index {idx} is out of range"):
            ps[idx]
    with pytest.raises(IndexError, match="index 4 is out of range"):
        ps[4] = 1
    with pytest.raises(TypeError, match="'str' object cannot be interpreted as an integer"):
        ps["0"]
    with pytest.raises(TypeError, match="extend should be called with an iterable, but got Tensor"):
        ps.extend(symgrad.ones(2))
    with pytest.raises(TypeError, match="but got int"):
        nn.ParameterList(5)
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        ps()
    part = ps[1:3]
    assert type(part) is nn.ParameterList and list(part) == [3, "s"]
    backwards = ps[::-1]
    assert [n for n, _ in backwards.named_parameters()] == ["0", "3"]
    grown = nn.ParameterList()
    grown += [symgrad.ones(1), 2]
    assert type(grown) is nn.ParameterList and len(grown) == 2 and grown[1] == 2
    assert grown.append(5) is grown and grown.extend([]) is grown and ps[True] == 3


def test_against_torch():
    torch = pytest.importorskip("torch")
    for lib in (symgrad, torch):
        d = _dict(lib)
        d.update([("b", lib.ones(3)), ("a", 1)])
        d |= {"d": lib.ones(1), "c": 2}
        assert list(d) == ["n", "y", "z", "b", "a", "c", "d"]
        assert list(d.state_dict()) == ["y", "z", "b", "d"]
        assert list(d.popitem()[1].shape) == [1]


@pytest.mark.parametrize(
    "data, name",
    [([1.0, 2.0], "list"), (symgrad.ones(2).numpy(), "numpy.ndarray"), (3.0, "float")],
)
def test_parameter_of_data_that_is_not_a_tensor_fails_as_pytorchs(data, name):
    """PyTorch calls ``data.detach()``: an AttributeError naming the type given."""
    with pytest.raises(AttributeError) as info:
        nn.Parameter(data)
    assert str(info.value).split("\n")[0] == f"'{name}' object has no attribute 'detach'"
