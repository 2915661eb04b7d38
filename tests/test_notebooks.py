"""Every notebook in ``examples/notebooks/`` runs from top to bottom, and none is stored with
outputs.

Each notebook runs in a fresh ``python3`` Jupyter kernel started by ``nbclient`` (the ``test``
extra installs it and ``ipykernel``), in the notebook's own folder, with this checkout first on
the path. A cell that raises, a formatter that fails while displaying a result, or anything
written to stderr (a warning a reader would see) fails the test. The one exception: where
Graphviz is not installed, a graph picture shows ``symgrad.viz``'s warning that says how to
install it instead of the picture, which is what such a reader sees too.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "examples" / "notebooks"
NOTEBOOKS = sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 120  # seconds per cell: generous, only to stop a hung kernel from hanging CI

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _kernel_env() -> dict[str, str]:
    env = dict(os.environ)
    # the checkout first, so the notebooks exercise this tree even when symgrad is not installed
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    # the python3 kernel spec runs "python" from PATH: make that this interpreter, the one
    # that has ipykernel, even when the tests run from a virtual environment not activated
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _is_missing_graphviz_warning(text: str) -> bool:
    return "RuntimeWarning" in text and "Graphviz" in text


def _cell_label(index: int, cell) -> str:
    first_line = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
    return f"cell {index} ({first_line[:60]!r})"


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebooks found in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_stored_without_outputs(name):
    cells = json.loads((NOTEBOOK_DIR / name).read_text(encoding="utf-8"))["cells"]
    stored = [
        i
        for i, cell in enumerate(cells)
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count"))
    ]
    assert not stored, (
        f"{name}: code cells {stored} hold outputs or execution counts; clear them before "
        f"committing (jupyter nbconvert --clear-output --inplace {name})"
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(name, graphviz_installed):
    reason = "executing notebooks needs nbclient, nbformat and ipykernel (the test extra)"
    nbformat = pytest.importorskip("nbformat", reason=reason)
    nbclient = pytest.importorskip("nbclient", reason=reason)
    pytest.importorskip("ipykernel", reason=reason)

    notebook = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    try:
        client.execute(env=_kernel_env())
    except nbclient.exceptions.CellExecutionError as error:
        pytest.fail(f"{name} failed:\n{_ANSI.sub('', str(error))}", pytrace=False)

    problems = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            if output.output_type == "error":
                trace = _ANSI.sub("", "\n".join(output.get("traceback", [])))
                problems.append(f"{_cell_label(index, cell)} shows an error:\n{trace}")
            elif output.output_type == "stream" and output.name == "stderr":
                if not graphviz_installed and _is_missing_graphviz_warning(output.text):
                    continue
                problems.append(f"{_cell_label(index, cell)} wrote to stderr:\n{output.text}")
    assert not problems, f"{name}:\n" + "\n".join(problems)
