"""Random programs of views and in-place changes (:mod:`tests.autograd.view_programs`): the
same errors, values, shapes, flags and gradients as PyTorch's, recorded in
``view_programs.json`` and, when PyTorch is importable, checked against it directly."""

from __future__ import annotations

import json

import pytest

import symgrad

from .view_programs import EXPECTED, SEEDS, differences, program, run

_RECORDED = json.loads(EXPECTED.read_text())


def test_every_program_is_recorded():
    assert sorted(map(int, _RECORDED)) == list(SEEDS)


@pytest.mark.parametrize("seed", SEEDS)
def test_as_recorded_from_pytorch(seed):
    found = differences(run(symgrad, seed), _RECORDED[str(seed)])
    assert not found, f"program {seed} {[s[1] for s in program(seed)]}: {found}"


@pytest.mark.torch
@pytest.mark.parametrize("seed", range(1000, 1040))
def test_as_pytorch_on_programs_not_recorded(seed):
    torch = pytest.importorskip("torch")
    found = differences(run(symgrad, seed), run(torch, seed))
    assert not found, f"program {seed} {[s[1] for s in program(seed)]}: {found}"
