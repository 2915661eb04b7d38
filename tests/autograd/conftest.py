"""Fixtures shared by the autograd tests."""

from __future__ import annotations

import importlib
import warnings

import pytest


@pytest.fixture
def no_loop(monkeypatch):
    """Any fallback to a loop warns, and the warning is an error here."""
    monkeypatch.setattr(importlib.import_module("symgrad.func.vmap"), "_warned_loop", [False])
    monkeypatch.setattr(importlib.import_module("symgrad.prim.batch_rules"), "_warned", set())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield
