"""The package's layers point one way, read from its source (imports inside functions count).

- ``tensor.py`` (and what it stands on) imports neither the ops nor the engine: ``ops`` binds
  the Tensor methods, ``autograd`` binds ``backward``;
- ``prim/`` and ``autograd/`` never import ``ops``, ``symbolic``, ``check``, ``viz`` or ``cli``
  (the ``autograd`` package face may re-export the checks lazily, under PyTorch's names);
- no module takes part in an import cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "symgrad"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
FACES = {m for m, p in MODULES.items() if p.name == "__init__.py"}


def _imports(module: str) -> set[str]:
    """The package modules ``module`` imports (anywhere in it), package faces left out."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module and name not in FACES:
                found.add(name)
    return found


GRAPH = {m: _imports(m) for m in MODULES if m not in FACES}


def _reaches(start: str) -> set[str]:
    seen, stack = set(), [start]
    while stack:
        for nxt in GRAPH.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def test_the_scan_sees_the_package():
    assert "symgrad.tensor" in GRAPH and "symgrad.ops.math" in GRAPH
    assert "symgrad.prim.primitive" in GRAPH["symgrad.ops.math"]


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_no_import_cycle(module):
    assert module not in _reaches(module)


@pytest.mark.parametrize("low", ["symgrad.tensor", "symgrad._data", "symgrad.dtypes"])
def test_the_tensor_stands_on_nothing_above_it(low):
    above = {m for m in _reaches(low) if m.startswith(("symgrad.ops", "symgrad.autograd"))}
    assert above == set()


@pytest.mark.parametrize(
    "module", sorted(m for m in GRAPH if m.startswith(("symgrad.prim", "symgrad.autograd")))
)
def test_the_machinery_never_imports_the_layers_above(module):
    above = ("symgrad.ops", "symgrad.symbolic", "symgrad.check", "symgrad.viz", "symgrad.cli")
    assert sorted(m for m in _imports(module) if m.startswith(above)) == []
