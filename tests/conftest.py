"""Shared test set-up: seeded randomness, a hypothesis profile, the default dtype restored."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import symgrad

settings.register_profile(
    "symgrad", deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("symgrad")


@pytest.fixture(autouse=True)
def _isolate():
    """Each test starts from the same seed and leaves the default dtype as it found it."""
    symgrad.manual_seed(0)
    np.random.seed(0)
    default = symgrad.get_default_dtype()
    yield
    symgrad.set_default_dtype(default)
