"""A batch norm's state dict without ``num_batches_tracked`` (checkpoints older than the
buffer, or dicts built by hand) loads as in PyTorch: the count is kept, not reported missing,
unless the dict says (through ``_metadata``) that it was saved with the buffer."""

from __future__ import annotations

import pytest

import symgrad
from symgrad import nn


def _without_count(lib, keep_metadata):
    bn = lib.nn.BatchNorm1d(2)
    saved = bn.state_dict()
    del saved["num_batches_tracked"]
    if not keep_metadata:
        saved = dict(saved)
    bn.train()
    bn(lib.tensor([[1.0, 2.0], [3.0, 5.0]]))
    result = bn.load_state_dict(saved, strict=False)
    return result.missing_keys, int(bn.num_batches_tracked)


def test_a_plain_dict_without_the_count_loads_and_keeps_it():
    assert _without_count(symgrad, keep_metadata=False) == ([], 1)
    bn = nn.BatchNorm2d(3)
    state = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    assert repr(bn.load_state_dict(state)) == "<All keys matched successfully>"


def test_a_state_dict_saved_with_the_count_reports_it_missing():
    assert _without_count(symgrad, keep_metadata=True) == (["num_batches_tracked"], 1)
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    assert model.state_dict()._metadata["1"] == {"version": 2}
    assert model.state_dict()._metadata["0"] == {"version": 1}


def test_a_nested_plain_dict_reports_only_the_other_missing_keys():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    result = model.load_state_dict({"0.weight": symgrad.zeros(4, 3)}, strict=False)
    expected = ["0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var"]
    assert result.missing_keys == expected


@pytest.mark.parametrize("keep_metadata", [False, True])
def test_against_torch(keep_metadata):
    torch = pytest.importorskip("torch")
    assert _without_count(symgrad, keep_metadata) == _without_count(torch, keep_metadata)
