"""The sweep: every op of the op table on 0-d, empty, size-1, non-contiguous and view inputs,
compared with PyTorch's answers recorded in ``expected.json``.

Each case ``op-kind-check`` (see :mod:`sweep.cases`) runs with symgrad and is compared with the
recorded result (:mod:`sweep.compare`). Cases that differ for a known reason are expected to
fail (:mod:`sweep.known`, strict: they flip when fixed). When PyTorch is importable, one more
test re-runs every case with it and checks the file is still PyTorch's answer; without PyTorch
the sweep runs all the same from the file.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import re
from pathlib import Path

import pytest

import symgrad
from symgrad.ops.elementwise import REGISTRY

from .cases import OPS_BY_NAME, REGISTRY_OPS, case_names, run, setups
from .compare import difference
from .known import KNOWN_FAILURES, PYTORCH_NOISE

EXPECTED_FILE = Path(__file__).with_name("expected.json")
EXPECTED = json.loads(EXPECTED_FILE.read_text())["cases"]
SETUPS = {setup.name: setup for setup in setups()}
CASES = {name: setup.name for setup in SETUPS.values() for name in case_names(setup)}

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:.*degrees of freedom:UserWarning"),
]


# each reason's patterns as one regular expression: the cases are many, matching them one
# pattern at a time was a noticeable part of collecting the sweep
_KNOWN_MATCHERS = {
    reason: re.compile("|".join(fnmatch.translate(p) for p in patterns))
    for reason, patterns in KNOWN_FAILURES.items()
}


def _known(name: str) -> str | None:
    for reason, matcher in _KNOWN_MATCHERS.items():
        if matcher.match(name):
            return reason
    return None


def _params() -> list:
    params = []
    for name in CASES:
        reason = _known(name)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        params.append(pytest.param(name, marks=marks, id=name))
    return params


@functools.cache
def _symgrad_results(setup_name: str) -> dict:
    return run(symgrad, SETUPS[setup_name])


@pytest.mark.parametrize("name", _params())
def test_case(name):
    assert name in EXPECTED, f"{name}: nothing recorded; run python -m tests.sweep.record"
    found = difference(
        _symgrad_results(CASES[name])[name], EXPECTED[name], tol=_noise_tolerance(name)
    )
    assert found is None, f"{name}: {found}"


def test_expected_file_holds_exactly_the_cases():
    assert sorted(EXPECTED) == sorted(CASES)


def test_every_registry_primitive_is_swept():
    missing = sorted(set(REGISTRY) - set(REGISTRY_OPS))
    assert not missing, f"primitives without a sweep op in cases.REGISTRY_OPS: {missing}"
    unknown = sorted(op for op in REGISTRY_OPS.values() if op not in OPS_BY_NAME)
    assert not unknown, f"cases.REGISTRY_OPS names ops the sweep lacks: {unknown}"


def test_every_known_failure_pattern_names_cases():
    names = list(CASES)
    stale = [
        p
        for patterns in [*KNOWN_FAILURES.values(), PYTORCH_NOISE]
        for p in patterns
        if not fnmatch.filter(names, p)  # one compiled pattern over all the names
    ]
    assert not stale, f"known-failure patterns that match no case: {stale}"


_BY_OP: dict = {}
for _key, _setup in SETUPS.items():
    _BY_OP.setdefault(_key.rsplit("-", 1)[0], []).append(_setup)


def _noise_tolerance(name: str) -> dict | None:
    """The tolerances of a case whose recorded PyTorch answer is machine-dependent noise."""
    return next((tol for p, tol in PYTORCH_NOISE.items() if fnmatch.fnmatchcase(name, p)), None)


@pytest.mark.torch
@pytest.mark.parametrize("op", sorted(_BY_OP))  # one test per op: the workers share them
def test_expected_is_still_pytorchs_answer(op):
    torch = pytest.importorskip("torch")
    differ = []
    for setup in _BY_OP[op]:
        for name, result in run(torch, setup).items():
            found = difference(result, EXPECTED[name], tol=_noise_tolerance(name))
            if found:
                differ.append(f"{name}: {found}")
    assert not differ, f"{len(differ)} cases changed; re-record them:\n" + "\n".join(differ[:20])
