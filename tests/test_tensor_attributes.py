"""Attributes a user sets on a tensor (``t.note = ...``), which PyTorch's tensors take and keep
through ``copy``, ``deepcopy``, ``pickle`` and ``save``/``load`` (not through ``detach``,
views, ``clone`` or a Parameter's ``deepcopy``)."""

from __future__ import annotations

import copy
import io
import pickle

import pytest

import symgrad
from symgrad import nn


def _tagged() -> symgrad.Tensor:
    t = symgrad.tensor([1.0, 2.0], requires_grad=True)
    t.note, t.tags = 3, [1]
    return t


def test_a_tensor_takes_attributes():
    t = _tagged()
    assert (t.note, t.tags) == (3, [1])
    assert vars(t) == {"note": 3, "tags": [1]}
    assert vars(symgrad.ones(1)) == {}  # the tensor's own state is not among them


@pytest.mark.parametrize(
    "make",
    [
        lambda t: t.detach(),
        lambda t: t[0],
        lambda t: t.clone(),
        lambda t: t * 2,
        lambda t: t.as_subclass(type("Sub", (symgrad.Tensor,), {})),
    ],
    ids=["detach", "view", "clone", "op", "as_subclass"],
)
def test_new_tensors_start_without_them(make):
    assert vars(make(_tagged())) == {}


def test_copies_keep_them():
    t = _tagged()
    deep = copy.deepcopy(t)
    assert vars(deep) == {"note": 3, "tags": [1]} and deep.tags is not t.tags
    assert copy.copy(t).note == 3
    assert vars(pickle.loads(pickle.dumps(t))) == {"note": 3, "tags": [1]}


def test_a_parameters_deepcopy_drops_them_as_pytorchs_does():
    p = nn.Parameter(symgrad.ones(2))
    p.note = 1
    assert vars(copy.deepcopy(p)) == {}
    assert vars(pickle.loads(pickle.dumps(p))) == {"note": 1}
    layer = nn.Linear(2, 2)
    layer.weight.note = 5
    assert vars(layer.state_dict()["weight"]) == {}


@pytest.mark.parametrize("zip_format", [True, False])
def test_save_and_load_keep_them(zip_format):
    p = nn.Parameter(symgrad.ones(2))
    p.note = 1
    buffer = io.BytesIO()
    symgrad.save({"t": _tagged(), "p": p}, buffer, _use_new_zipfile_serialization=zip_format)
    buffer.seek(0)
    loaded = symgrad.load(buffer)
    assert vars(loaded["t"]) == {"note": 3, "tags": [1]}
    assert loaded["t"].requires_grad and loaded["t"].tolist() == [1.0, 2.0]
    assert type(loaded["p"]) is nn.Parameter and vars(loaded["p"]) == {"note": 1}


def test_a_saved_read_only_property_is_named():
    buffer = io.BytesIO()
    t = symgrad.ones(1)
    t.__dict__["shape"] = 3  # (a state no tensor can take back)
    symgrad.save(t, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="attribute 'shape'.*read-only property"):
        symgrad.load(buffer)


@pytest.mark.torch
def test_files_move_between_symgrad_and_torch():
    torch = pytest.importorskip("torch")
    for lib_save, lib_load in [(symgrad, torch), (torch, symgrad)]:
        t = lib_save.tensor([1.0, 2.0], requires_grad=True)
        t.note, t.tags = 3, [1]
        p = lib_save.nn.Parameter(lib_save.ones(2))
        p.note = 1
        buffer = io.BytesIO()
        lib_save.save({"t": t, "p": p}, buffer)
        buffer.seek(0)
        loaded = lib_load.load(buffer)
        assert vars(loaded["t"]) == {"note": 3, "tags": [1]}
        assert vars(loaded["p"]) == {"note": 1}
        assert type(loaded["p"]).__name__ == "Parameter"


@pytest.mark.torch
def test_same_as_torch():
    torch = pytest.importorskip("torch")

    def facts(lib):
        t = lib.tensor([1.0, 2.0], requires_grad=True)
        t.note = 3
        p = lib.nn.Parameter(lib.ones(2))
        p.note = 1
        return [
            vars(t),
            vars(copy.deepcopy(t)),
            vars(copy.copy(t)),
            vars(t.detach()),
            vars(t[0]),
            vars(copy.deepcopy(p)),
            vars(copy.copy(p)),
            vars(pickle.loads(pickle.dumps(p))),
        ]

    assert facts(symgrad) == facts(torch)
