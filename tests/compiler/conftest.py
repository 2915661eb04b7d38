"""Fixtures shared by the compiler's tests."""

from __future__ import annotations

import pytest

from symgrad.prim import blocks


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few hundred elements shared among three threads, from 1000 elements: the
    fused regions' blocked runs, on arrays small enough for tests."""
    monkeypatch.setattr(blocks, "MIN_BLOCKED", 1000)
    monkeypatch.setattr(blocks, "BLOCK", 256)
    monkeypatch.setattr(blocks, "threads", lambda: 3)
