"""Shared test set-up: seeded randomness, a hypothesis profile, the default dtype restored, and
the ``graphviz`` marker for tests that render pictures."""

from __future__ import annotations

import functools
import shutil

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


@functools.cache
def graphviz_missing() -> str | None:
    """Why graph pictures cannot be rendered here, or ``None`` when they can.

    Rendering needs both the ``graphviz`` Python package and the Graphviz ``dot`` program.
    """
    try:
        import graphviz  # noqa: F401
    except ImportError:
        return "rendering needs the graphviz Python package (pip install -e '.[viz]')"
    if shutil.which("dot") is None:
        return "rendering needs the Graphviz dot program on PATH (e.g. apt-get install graphviz)"
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("graphviz") is not None:
        reason = graphviz_missing()
        if reason is not None:
            pytest.skip(reason)


@pytest.fixture
def graphviz_installed() -> bool:
    """Whether graph pictures can be rendered here (the package and the dot program)."""
    return graphviz_missing() is None
