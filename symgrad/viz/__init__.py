"""Pictures of recorded graphs: tensors, operations and the local derivative on every edge.

:func:`draw` turns the graph that produced a tensor into a :class:`GraphPicture`. Its DOT text
(``.source``) needs nothing beyond symgrad; rendering it to SVG, PNG or PDF uses the optional
``graphviz`` Python package and the Graphviz ``dot`` program (``pip install symgrad[viz]`` and
the system package, e.g. ``apt-get install graphviz``).

The package's modules: :mod:`~symgrad.viz.picture` (``draw`` and the picture),
:mod:`~symgrad.viz.graph` (the tensors and operations drawn, and their names),
:mod:`~symgrad.viz.dot` (the DOT text), :mod:`~symgrad.viz.nodes` (what is read from graph
nodes) and :mod:`~symgrad.prim.text` (formulas, numbers and arrays as text).
"""

from symgrad.viz.picture import GraphPicture, GraphvizNotFoundError, draw

__all__ = ["draw", "GraphPicture", "GraphvizNotFoundError"]
