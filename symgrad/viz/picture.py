"""``draw`` and the picture it makes: DOT text, rendered by Graphviz when it is installed.

Rendering to SVG, PNG or PDF uses the optional ``graphviz`` Python package and the Graphviz
``dot`` program (``pip install symgrad[viz]`` and the system package, e.g. ``apt-get install
graphviz``); the DOT text (``.source``) needs nothing beyond symgrad.
"""

from __future__ import annotations

import pathlib
import warnings
from collections.abc import Mapping

from symgrad.tensor import Tensor
from symgrad.viz.dot import dot
from symgrad.viz.graph import Graph, name_overrides

__all__ = ["draw", "GraphPicture", "GraphvizNotFoundError"]

_RANKDIRS = ("BT", "TB", "LR", "RL")
_SUFFIX_FORMATS = ("svg", "png", "pdf")
_INSTALL = (
    "pip install 'symgrad[viz]' for the graphviz Python package, and the Graphviz system "
    "package for the dot program (e.g. apt-get install graphviz, brew install graphviz or "
    "conda install graphviz); .source holds the DOT text without either"
)


class GraphvizNotFoundError(RuntimeError):
    """Rendering needs the ``graphviz`` Python package and the Graphviz ``dot`` program.

    Examples
    --------
    >>> from symgrad.viz import GraphvizNotFoundError
    >>> issubclass(GraphvizNotFoundError, RuntimeError)
    True
    """


class GraphPicture:
    """A picture of a recorded graph, as DOT text that Graphviz renders.

    ``source`` is the DOT text; :meth:`pipe` and :meth:`render` run Graphviz on it, and Jupyter
    shows the picture through ``_repr_svg_``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.viz import draw
    >>> x = symgrad.tensor(3.0, requires_grad=True, name="x")
    >>> picture = draw(x * x)
    >>> picture.source.count(" -> ")  # x into the product twice, the product out to y
    3
    """

    def __init__(self, source: str, title: str, tensors: int, operations: int) -> None:
        self.source = source
        self._summary = (
            f"<GraphPicture of {title}: {_count(tensors, 'tensor')}, "
            f"{_count(operations, 'operation')}>"
        )

    def __repr__(self) -> str:
        return self._summary

    def pipe(self, format: str = "svg") -> bytes:
        """The picture rendered by Graphviz in ``format`` (``"svg"``, ``"png"``, ``"pdf"``...)."""
        try:
            import graphviz
        except ImportError:
            raise GraphvizNotFoundError(f"rendering needs Graphviz: {_INSTALL}") from None
        try:
            return graphviz.Source(self.source).pipe(format=format)
        except graphviz.ExecutableNotFound:
            raise GraphvizNotFoundError(
                f"rendering needs the Graphviz dot program, which is not on PATH: {_INSTALL}"
            ) from None

    def render(self, path: str | pathlib.Path, format: str | None = None) -> pathlib.Path:
        """Write the picture to ``path``; the format comes from its suffix unless given."""
        path = pathlib.Path(path)
        if format is None:
            format = path.suffix.lstrip(".").lower()
            if format not in _SUFFIX_FORMATS:
                raise ValueError(
                    f"can't tell the format of {str(path)!r} from its suffix: use .svg, .png or "
                    ".pdf, or pass format="
                )
        path.write_bytes(self.pipe(format))
        return path

    def _repr_svg_(self) -> str | None:
        # without Graphviz a notebook still shows the text repr, with the way to get pictures
        try:
            return self.pipe("svg").decode("utf-8")
        except GraphvizNotFoundError as err:
            warnings.warn(str(err), RuntimeWarning, stacklevel=2)
            return None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def draw(
    root: Tensor,
    *,
    values: bool = True,
    grads: bool = True,
    formulas: bool = True,
    names: Mapping[str, Tensor] | None = None,
    rankdir: str = "BT",
) -> GraphPicture:
    """A picture of the graph that produced ``root``.

    Tensors are boxes (leaves blue, intermediates grey, ``root`` green) showing their name,
    shape, value and ``.grad``; operations are ellipses showing PyTorch's node name and the
    forward formula; each edge from a tensor into an operation carries the local derivative
    of the operation's output with respect to that tensor (with its number when all operands
    have one element). Inputs that need no gradient are small dashed boxes.

    Parameters
    ----------
    root : the tensor whose graph is drawn.
    values : show each tensor's value (intermediate values are recomputed from the leaves).
    grads : show ``.grad`` where it is set (leaves after ``backward``, and ``retain_grad``).
    formulas : show forward formulas and the local derivatives on the edges.
    names : extra labels, ``{"w": w, "z": z}``; they win over the tensors' own names.
        Otherwise a tensor is called by its ``name``, a leaf by its symbol (``x_1``), an
        intermediate ``v1``, ``v2``, ... (skipping names already taken) and ``root`` ``y``
        (or the next ``v`` when a tensor is called ``y``), exactly as in
        :func:`symgrad.symbolic.derivation`.
    rankdir : the direction of the picture: ``"BT"`` (inputs at the bottom), ``"TB"``,
        ``"LR"`` or ``"RL"``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.viz import draw
    >>> a = symgrad.tensor(2.0, requires_grad=True, name="a")
    >>> b = symgrad.tensor(3.0, requires_grad=True, name="b")
    >>> y = a * b
    >>> y.backward()
    >>> picture = draw(y)
    >>> picture
    <GraphPicture of y: 3 tensors, 1 operation>
    >>> print(picture.source.splitlines()[0])
    digraph symgrad {
    >>> "∂y/∂a = b = 3" in picture.source
    True

    ``picture.render("graph.svg")`` writes the picture (this needs Graphviz).
    """
    if not isinstance(root, Tensor):
        raise TypeError(f"draw() expects a Tensor, got {type(root).__name__}")
    if rankdir not in _RANKDIRS:
        raise ValueError(f"draw(): rankdir must be one of {', '.join(_RANKDIRS)}, got {rankdir!r}")
    graph = Graph(root, *name_overrides(names))
    options = {"values": values, "grads": grads, "formulas": formulas}
    source = dot(graph, options, rankdir)
    return GraphPicture(
        source,
        graph.boxes[graph.root_key].name,
        sum(b.kind != "constant" for b in graph.boxes.values()),
        len(graph.ops),
    )
