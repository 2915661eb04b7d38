"""Record PyTorch's answers for every case of the sweep into ``expected.json``.

Run with PyTorch installed, from the repository root::

    python -m tests.sweep.record        # or: python tests/sweep/record.py

The file holds one line per case, ``"op-kind-check": result``, so that a change of PyTorch's
answers shows as a readable diff. ``test_sweep.py`` compares symgrad with it, and re-runs the
cases with PyTorch (when importable) to check it is still PyTorch's answer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
EXPECTED = TESTS / "sweep" / "expected.json"

if str(TESTS) not in sys.path:  # the sweep imports the op table as the test suite does
    sys.path.insert(0, str(TESTS))


def record() -> dict:
    """``{case name: PyTorch's result}`` for every case, in the sweep's order."""
    import torch

    from sweep.cases import run, setups

    results: dict = {}
    for setup in setups():
        results.update(run(torch, setup))
    return results


def dumps(results: dict, version: str) -> str:
    """The JSON text: the PyTorch version, then one case per line."""
    lines = [
        f'"{name}": {json.dumps(value, separators=(",", ":"))}' for name, value in results.items()
    ]
    body = ",\n".join(lines)
    return f'{{"torch": {json.dumps(version)},\n"cases": {{\n{body}\n}}}}\n'


def main() -> None:
    import torch

    results = record()
    EXPECTED.write_text(dumps(results, torch.__version__))
    errors = sum("error" in v for v in results.values() if isinstance(v, dict))
    size = EXPECTED.stat().st_size
    print(f"{len(results)} cases ({errors} raise) written to {EXPECTED} ({size // 1024} KiB)")


if __name__ == "__main__":
    main()
