"""Sphinx configuration for symgrad's documentation.

Build with ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (the ``docs``
extra installs Sphinx and MyST). Pages are MyST Markdown; the reference is generated from the
package's NumPy-style docstrings. Nothing here runs notebooks or needs the Graphviz binary.
"""

from __future__ import annotations

import sys
from pathlib import Path

# the checkout, so that autodoc documents this tree even when symgrad is not installed
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import symgrad  # noqa: E402

project = "symgrad"
author = "the symgrad authors"
copyright = "the symgrad authors"  # noqa: A001 - Sphinx's setting name
release = str(symgrad.__version__)  # (a plain string: the version object compares by numbers)
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# -- MyST ---------------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath"]
# links such as [the API page](api.md#derivatives-at-kinks) need anchors for headings
myst_heading_anchors = 3

# -- autodoc and napoleon -------------------------------------------------------------------------
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"
# types only where the docstring describes the parameter or the result: "Any" is noise
autodoc_typehints_description_target = "documented"
# the ops are implemented in submodules but used as symgrad.exp, symgrad.matmul, ...: show
# the short names
add_module_names = False
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False

# -- HTML ----------------------------------------------------------------------------------------
html_theme = "alabaster"
html_title = f"symgrad {release}"
# derivations and generated code have long lines: a wider page than the theme's 940px
html_theme_options = {"page_width": "1160px", "sidebar_width": "220px"}
html_static_path: list[str] = []


def _drop_module_docstrings(app, what, name, obj, options, lines):
    # module docstrings describe the implementation; the reference page introduces each
    # section for users itself
    if what == "module":
        lines.clear()


def setup(app):
    app.connect("autodoc-process-docstring", _drop_module_docstrings)
