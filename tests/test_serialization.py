"""save/load: round trips of tensors, parameters, state dicts and containers; shared memory
kept; the safe loader refuses arbitrary globals unless weights_only=False."""

from __future__ import annotations

import collections
import io
import os
import pickle

import numpy as np
import pytest

import symgrad
from symgrad import nn, serialization


def _round_trip(obj, **options):
    buffer = io.BytesIO()
    symgrad.save(obj, buffer)
    buffer.seek(0)
    return symgrad.load(buffer, **options)


class _Custom:
    pass


class _Runs:
    """Unpickling this would call os.system: the safe loader must never get that far."""

    def __reduce__(self):
        return (os.system, ("echo unsafe",))


def test_tensors_and_containers():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    obj = {
        "x": x,
        "y": x * 2,
        "ints": symgrad.tensor([1, 2], dtype=symgrad.int16),
        "nested": [1, 2.5, "s", (symgrad.tensor(True), None)],
        "size": symgrad.Size([2, 3]),
        "dtype": symgrad.float64,
        "device": symgrad.device("cpu"),
        "set": {1, 2},
        "empty": symgrad.zeros(0, 3),
    }
    got = _round_trip(obj)
    assert got["x"].tolist() == [1.0, 2.0] and got["x"].requires_grad and got["x"].is_leaf
    assert got["y"].requires_grad and got["y"].grad_fn is None  # the graph is not saved
    assert got["ints"].dtype is symgrad.int16 and got["ints"].tolist() == [1, 2]
    assert got["nested"][:3] == [1, 2.5, "s"] and got["nested"][3][0].item() is True
    assert got["size"] == (2, 3) and type(got["size"]) is symgrad.Size
    assert got["dtype"] is symgrad.float64 and got["device"] == symgrad.device("cpu")
    assert got["set"] == {1, 2} and got["empty"].shape == (0, 3)


def test_shared_memory_and_identity_are_kept():
    base = symgrad.arange(6.0)
    part = base[1:3]
    flipped = base.flip(0)
    transposed = symgrad.arange(6).reshape(2, 3).t()
    a, b, c, d, again = _round_trip([base, part, flipped, transposed, base])
    a[1] = 9.0
    assert b.tolist() == [9.0, 2.0]
    assert c.tolist() == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]  # flip copies, as in PyTorch
    assert d.tolist() == [[0, 3], [1, 4], [2, 5]] and d.stride() == transposed.stride()
    assert again is a


def test_parameters_and_state_dicts(tmp_path):
    model = nn.Linear(3, 2)
    path = tmp_path / "model.pt"
    symgrad.save(model.state_dict(), path)
    state = symgrad.load(str(path))
    assert isinstance(state, collections.OrderedDict) and list(state) == ["weight", "bias"]
    assert hasattr(state, "_metadata")
    other = nn.Linear(3, 2)
    other.load_state_dict(state)
    assert symgrad.equal(other.weight, model.weight)
    p = _round_trip(nn.Parameter(symgrad.zeros(2)))
    assert type(p) is nn.Parameter and p.requires_grad


def test_safe_loading_refuses_other_globals():
    for obj in ({"a": _Custom()}, _Runs(), nn.Linear(2, 2)):
        with pytest.raises(pickle.UnpicklingError, match="weights_only=False"):
            _round_trip(obj)
        with pytest.raises(pickle.UnpicklingError, match="not allowed"):
            _round_trip(obj, weights_only=True)
    assert type(_round_trip({"a": _Custom()}, weights_only=False)["a"]) is _Custom
    model = _round_trip(nn.Linear(2, 2), weights_only=False)
    assert isinstance(model, nn.Linear)


@pytest.mark.parametrize("zipped", [True, False])
def test_safe_loading_allows_pytorchs_builtins_only(zipped):
    # PyTorch's weights-only unpickler rebuilds Counter, set, complex and bytearray, and
    # refuses slice, range and frozenset unless allowed with add_safe_globals, in either format
    def round_trip(obj, **options):
        buffer = io.BytesIO()
        symgrad.save(obj, buffer, _use_new_zipfile_serialization=zipped)
        buffer.seek(0)
        return symgrad.load(buffer, **options)

    kept = {"c": collections.Counter(a=2), "s": {1, 2}, "z": 1 + 2j, "b": bytearray(b"ab")}
    assert round_trip(kept) == kept
    # (symgrad's own format pickles a frozenset with an opcode of its own, no global to refuse)
    for obj in (slice(1, 2), range(3), frozenset([1])) if zipped else (slice(1, 2), range(3)):
        name = type(obj).__name__
        with pytest.raises(pickle.UnpicklingError, match=f"builtins.{name} is not allowed"):
            round_trip(obj)
        assert round_trip(obj, weights_only=False) == obj
        with serialization.safe_globals([type(obj)]):
            assert round_trip(obj) == obj


@pytest.mark.torch
def test_safe_loading_allows_pytorchs_builtins_only_as_pytorch():
    torch = pytest.importorskip("torch")
    for obj, kept in ((collections.Counter(a=2), True), (bytearray(b"a"), True), (range(3), False)):
        for zipped in (True, False):
            outcomes = []
            for lib in (torch, symgrad):
                buffer = io.BytesIO()
                lib.save(obj, buffer, _use_new_zipfile_serialization=zipped)
                buffer.seek(0)
                try:
                    outcomes.append(lib.load(buffer) == obj)
                except pickle.UnpicklingError:
                    outcomes.append(False)
            assert outcomes == [kept, kept]


def test_add_safe_globals():
    try:
        serialization.add_safe_globals([_Custom])
        assert type(_round_trip(_Custom())) is _Custom
    finally:
        serialization.clear_safe_globals()
    with pytest.raises(pickle.UnpicklingError):
        _round_trip(_Custom())


def test_bad_files():
    with pytest.raises(pickle.UnpicklingError, match="not a file written by symgrad.save"):
        symgrad.load(io.BytesIO(pickle.dumps([1, 2])))
    with pytest.raises(RuntimeError, match="failed reading zip archive"):
        symgrad.load(io.BytesIO(b"PK\x03\x04rest of a zip"))
    # a storage too small for the shape it claims: numpy's bounds check, no stray read
    forged = io.BytesIO()
    forged.write(serialization._MAGIC)
    payload = (
        serialization._rebuild_tensor,
        (np.zeros(4, np.uint8), 0, (100,), (8,), "float64", False),
    )

    class Forged:
        def __reduce__(self):
            return payload

    pickle.Pickler(forged, 4).dump(Forged())
    forged.seek(0)
    with pytest.raises(pickle.UnpicklingError):  # numpy's array is not among the globals
        symgrad.load(forged)


def test_against_pytorch_semantics():
    torch = pytest.importorskip("torch")
    for lib in (torch, symgrad):
        x = lib.ones(2, requires_grad=True)
        buffer = io.BytesIO()
        lib.save({"x": x, "y": x * 2, "p": lib.nn.Parameter(lib.zeros(1))}, buffer)
        buffer.seek(0)
        got = lib.load(buffer)
        flags = (got["x"].requires_grad, got["y"].requires_grad, got["y"].grad_fn is None)
        assert flags == (True, True, True)
        assert type(got["p"]).__name__ == "Parameter"


def test_plain_pickle_keeps_values_dtype_and_flag_as_pytorch():
    # PyTorch: a tensor with views, a non-leaf (it comes back a leaf requiring grad) and a
    # Parameter pickle; the graph and .grad do not travel
    x = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * 2).sum().backward()
    view = x[:2]
    y = x * 2
    ints = symgrad.arange(4, dtype=symgrad.int16).reshape(2, 2).t()
    p = nn.Parameter(symgrad.ones(2))
    got_x, got_view, got_y, got_ints, got_p = pickle.loads(pickle.dumps([x, view, y, ints, p]))
    assert got_x.tolist() == [1.0, 2.0, 3.0] and got_x.requires_grad and got_x.grad is None
    assert got_view.tolist() == [1.0, 2.0] and got_view.requires_grad and got_view._base is None
    assert got_y.tolist() == [2.0, 4.0, 6.0] and got_y.requires_grad and got_y.is_leaf
    assert got_ints.dtype is symgrad.int16 and got_ints.tolist() == [[0, 2], [1, 3]]
    assert type(got_p) is nn.Parameter and got_p.requires_grad
    with symgrad.no_grad():
        got_x.add_(1)  # its own memory
    assert x.tolist() == [1.0, 2.0, 3.0]
