"""symgrad.viz.draw: the DOT text of graph pictures, and rendering it with Graphviz."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.prim.text import array_lines
from symgrad.symbolic import derivation
from symgrad.viz import GraphPicture, GraphvizNotFoundError, draw

# -- reading the DOT back ------------------------------------------------------------------------

_STATEMENT = re.compile(
    r"  (?:(?:graph|node|edge) \[[^<>]*\]"
    r"|(?:t|k|op)\d+ \[[^<>]*label=<(?P<node>.*)>\]"
    r"|(?:t|k|op)\d+ -> (?:t|k|op)\d+(?: \[[^<>]*?(?:label=<(?P<edge>.*)>)?\])?);"
)


def _label_text(label: str) -> list[str]:
    """The text lines of an HTML-like label; raises if it is not well-formed XML."""
    root = ET.fromstring(f"<LABEL>{label}</LABEL>")
    lines, current = [], []
    for element in root.iter():
        if element.tag in ("BR", "TR") and current:
            lines.append("".join(current))
            current = []
        if element.text:
            current.append(element.text)
        if element.tail and element.tag not in ("TR", "TD", "LABEL", "TABLE"):
            current.append(element.tail)
    if current:
        lines.append("".join(current))
    return [line.replace("\\\\", "\\") for line in lines]


def parse(source: str) -> dict:
    """Check every line of ``source`` is a statement ``draw`` writes, with well-formed labels,
    and return ``{"nodes": {id: lines}, "edges": [(from, to, label lines)]}``."""
    lines = source.splitlines()
    assert lines[0] == "digraph symgrad {" and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[1:-1]:
        match = _STATEMENT.fullmatch(line)
        assert match, f"unexpected DOT statement: {line!r}"
        ident = line.split()[0]
        if match["node"] is not None:
            nodes[ident] = _label_text(match["node"])
        elif "->" in line:
            target = line.split()[2].rstrip(";")
            label = _label_text(match["edge"]) if match["edge"] is not None else []
            edges.append((ident, target, label))
    return {"nodes": nodes, "edges": edges}


def by_name(picture: dict) -> dict:
    """``{first label line: lines}``: tensors and constants by name, operations by node name."""
    return {lines[0]: lines for lines in picture["nodes"].values()}


def all_lines(picture: dict) -> set[str]:
    return {line for lines in picture["nodes"].values() for line in lines}


def edge_labels(picture: dict) -> list[str]:
    return [" ".join(label) for _, _, label in picture["edges"] if label]


def tutorial(named: bool = True, backward: bool = True) -> dict:
    """PyTorch's tutorial graph ``e = a*b + log(d)*c``, with ``t`` retaining its gradient."""
    a, b, c, d = (
        symgrad.tensor([v], requires_grad=True, name=n)
        for v, n in ((2.0, "a"), (3.0, "b"), (5.0, "c"), (10.0, "d"))
    )
    u = a * b
    t = symgrad.log(d)
    t.retain_grad()
    v = t * c
    e = u + v
    if named:
        for tensor, name in ((u, "u"), (t, "t"), (v, "v"), (e, "e")):
            tensor.name = name
    if backward:
        e.backward()
    return {"a": a, "b": b, "c": c, "d": d, "u": u, "t": t, "v": v, "e": e}


# -- the tutorial graph --------------------------------------------------------------------------


def test_tutorial_graph_has_every_operation_tensor_and_derivative():
    g = tutorial()
    picture = parse(draw(g["e"]).source)
    boxes = by_name(picture)
    ops = sorted(lines[0] for lines in picture["nodes"].values() if lines[0].endswith("0"))
    assert ops == ["AddBackward0", "LogBackward0", "MulBackward0", "MulBackward0"]
    forwards = all_lines(picture)
    assert {"u = a*b", "t = log(d)", "v = c*t", "e = u + v"} <= forwards
    for name in "abcduvte":
        assert name in boxes
    assert set(edge_labels(picture)) == {
        "∂u/∂a = b = 3",
        "∂u/∂b = a = 2",
        "∂t/∂d = 1/d = 0.1",
        "∂v/∂t = c = 5",
        "∂v/∂c = t = 2.3026",
        "∂e/∂u = 1",
        "∂e/∂v = 1",
    }
    assert len(picture["edges"]) == 7 + 4  # into the operations, and out to their results


def test_tutorial_graph_values_and_gradients_after_backward():
    g = tutorial()  # kept alive: t's retained .grad lives on the tensor
    boxes = by_name(parse(draw(g["e"]).source))
    expected = {
        "a": ("2", "3"),
        "b": ("3", "2"),
        "c": ("5", "2.3026"),
        "d": ("10", "0.5"),
        "t": ("2.3026", "5"),
        "u": ("6", None),
        "v": ("11.5129", None),
        "e": ("17.5129", None),
    }
    for name, (value, grad) in expected.items():
        assert f"value {value}" in boxes[name]
        assert (
            (f"grad {grad}" in boxes[name])
            if grad
            else not any(line.startswith("grad") for line in boxes[name])
        )
    assert "leaf · shape [1]" in boxes["a"]
    assert "output · shape [1]" in boxes["e"]


def test_no_gradients_before_backward():
    source = draw(tutorial(backward=False)["e"]).source
    assert "value 17.5129" in source
    assert "grad" not in source.replace("symgrad", "")


def test_automatic_names_agree_with_derivation():
    a, b, c, d = (symgrad.tensor(v, requires_grad=True) for v in (2.0, 3.0, 5.0, 10.0))
    e = a * b + symgrad.log(d) * c
    steps = derivation(e)
    picture = parse(draw(e).source)
    boxes, forwards = by_name(picture), all_lines(picture)
    for symbol, definition in steps.definitions:
        assert f"{symbol} = {definition}" in forwards
    assert {"v1", "v2", "v3", "y"} <= set(boxes)


def test_options_hide_values_gradients_and_formulas():
    e = tutorial()["e"]
    no_values = draw(e, values=False).source
    assert "value" not in no_values and "17.5129" not in no_values
    assert "∂u/∂a = b" in no_values and "∂u/∂a = b = 3" not in no_values
    assert "shape [1]" in no_values and "grad 3" in no_values
    no_grads = draw(e, grads=False).source
    assert "grad" not in no_grads.replace("symgrad", "") and "value 2" in no_grads
    no_formulas = parse(draw(e, formulas=False).source)
    assert edge_labels(no_formulas) == []
    ops = [lines for lines in no_formulas["nodes"].values() if lines[0].endswith("Backward0")]
    assert len(ops) == 4 and all(len(lines) == 1 for lines in ops)


def test_rankdir_and_argument_errors():
    e = tutorial()["e"]
    assert "rankdir=LR" in draw(e, rankdir="LR").source
    assert "rankdir=BT" in draw(e).source
    with pytest.raises(ValueError, match="rankdir must be one of"):
        draw(e, rankdir="BT]; evil [")
    with pytest.raises(TypeError, match="expects a Tensor"):
        draw(np.ones(2))
    with pytest.raises(TypeError, match="must be a Tensor"):
        draw(e, names={"x": 3})
    with pytest.raises(TypeError, match="string keys"):
        draw(e, names={e: "e"})


def test_names_label_tensors_and_win_over_their_own():
    g = tutorial()
    picture = parse(draw(g["e"], names={"total": g["e"], "alpha": g["a"]}).source)
    assert {"total", "alpha", "u"} <= set(by_name(picture))
    assert "∂total/∂u = 1" in edge_labels(picture)
    assert "∂u/∂alpha = b = 3" in edge_labels(picture)


def test_root_is_y_unless_a_tensor_is_called_y():
    x = symgrad.tensor(2.0, requires_grad=True, name="x")
    y = symgrad.tensor(3.0, name="y")
    boxes = by_name(parse(draw(x * y + x).source))
    assert "y" in boxes and "v2" in boxes and boxes["v2"][1].startswith("output")


def test_a_leaf_alone():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    picture = draw(x)
    assert repr(picture) == "<GraphPicture of x: 1 tensor, 0 operations>"
    assert by_name(parse(picture.source))["x"][1:] == ["output · shape [2]", "value [1, 2]"]


def test_constants_are_dashed_boxes_without_derivatives():
    x = symgrad.tensor([3.0], requires_grad=True, name="x")
    k = symgrad.tensor([1.0, 2.0])
    y = (x * 2 + k).sum()
    source = draw(y).source
    picture = parse(source)
    boxes = by_name(picture)
    assert boxes["2"] == ["2"] and boxes["const1"] == ["const1", "[1, 2]"]
    assert "v1 = 2*x" in boxes["MulBackward0"] and "v2 = const1 + v1" in boxes["AddBackward0"]
    constants = {i for i, lines in picture["nodes"].items() if lines[0] in ("2", "const1")}
    into = [(src, label) for src, _, label in picture["edges"] if src in constants]
    assert len(into) == 2 and all(label == [] for _, label in into)
    assert "∂v1/∂x = 2" in edge_labels(picture)
    assert source.count("style=dashed") == 2


def test_a_reused_tensor_has_one_edge_per_use():
    x = symgrad.tensor(3.0, requires_grad=True, name="x")
    y = x * x + x
    picture = parse(draw(y).source)
    x_id = next(i for i, lines in picture["nodes"].items() if lines[0] == "x")
    assert sum(src == x_id for src, _, _ in picture["edges"]) == 3
    assert edge_labels(picture).count("∂v1/∂x = x = 3") == 2


def test_custom_function_with_and_without_a_formula():
    import sympy as sp

    class Exp(symgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out

    class SymbolicExp(Exp):
        @staticmethod
        def symbolic(x):
            return sp.exp(x)

    x = symgrad.tensor(0.0, requires_grad=True, name="x")
    boxes = by_name(parse(draw(SymbolicExp.apply(x)).source))
    assert boxes["SymbolicExpBackward"][1] == "y = exp(x)" and "value 1" in boxes["y"]
    assert "∂y/∂x = exp(x)" in draw(SymbolicExp.apply(x)).source
    plain = parse(draw(Exp.apply(x)).source)
    assert "∂y/∂x (by Exp.backward)" in edge_labels(plain)
    assert "value 1" in by_name(plain)["y"]  # the root's own value


# -- tensors ---------------------------------------------------------------------------------------


def one_layer_network() -> dict:
    x = symgrad.ones(5)
    y = symgrad.zeros(3)
    w = symgrad.randn(5, 3, requires_grad=True)
    b = symgrad.randn(3, requires_grad=True)
    z = symgrad.matmul(x, w) + b
    loss = F.binary_cross_entropy_with_logits(z, y)
    loss.backward()
    return {"x": x, "y": y, "w": w, "b": b, "z": z, "loss": loss}


def test_one_layer_network():
    net = one_layer_network()
    picture = parse(draw(net["loss"], names=net).source)
    boxes = by_name(picture)
    # x @ w of a vector: PyTorch's unsqueeze, mm, squeeze; the unsqueezed x is drawn as x
    ops = (
        "MmBackward0",
        "SqueezeBackward4",
        "AddBackward0",
        "BinaryCrossEntropyWithLogitsBackward0",
    )
    for op in ops:
        assert op in boxes
    assert "v1 = x @ w" in boxes["MmBackward0"]
    assert (
        "loss = mean(z*(1 - y) + log(1 + exp(-z)))"
        in boxes["BinaryCrossEntropyWithLogitsBackward0"]
    )
    labels = edge_labels(picture)
    assert "∂v1[i,j]/∂w[k,j] = x[i,k]" in labels
    assert "∂v2/∂v1 = 1 for each element it copies" in labels
    assert "∂loss/∂z = (-y + 1 - exp(-z)/(1 + exp(-z)))/3" in labels
    assert {"∂z/∂b = 1", "∂z/∂v2 = 1"} <= set(labels)
    assert "leaf · shape [5, 3]" in boxes["w"] and "shape [3]" in boxes["z"][1]
    assert boxes["x"] == ["x", "[1, 1, 1, 1, 1]"] and boxes["y"] == ["y", "[0, 0, 0]"]
    grad_b = ", ".join(
        np.format_float_positional(g, precision=4, trim="-") for g in net["b"].grad.numpy()
    )
    assert f"grad [{grad_b}]" in boxes["b"]
    assert "grad" in boxes["w"] and len(boxes["w"]) > 6  # a summarised 5x3 array, row by row
    loss = np.format_float_positional(net["loss"].item(), precision=4, trim="-")
    assert f"value {loss}" in boxes["loss"]


def test_matrix_product_derivatives_in_index_notation():
    X = symgrad.tensor(np.random.randn(4, 3), name="X")
    W = symgrad.tensor(np.random.randn(3, 2), requires_grad=True, name="W")
    labels = edge_labels(parse(draw((X @ W).sum()).source))
    assert "∂v1[i,j]/∂W[k,j] = X[i,k]" in labels
    assert "∂y/∂v1 = 1 for each element" in labels
    # a batch times a matrix: PyTorch folds the batch into the rows of one mm (a view of B)
    batched = symgrad.tensor(np.random.randn(2, 4, 3), requires_grad=True, name="B")
    folded = draw(batched @ W).source
    assert "∂v2[i,j]/∂v1[i,k] = W[k,j]" in folded
    assert "∂v1/∂B = 1 for each element it copies" in folded


OPERATIONS = {
    "mm": lambda x, v: x @ x.t(),
    "mv": lambda x, v: x @ v,
    "sum_dim": lambda x, v: x.sum(1, keepdim=True),
    "mean": lambda x, v: x.mean(0),
    "softmax": lambda x, v: symgrad.softmax(x, 1),
    "log_softmax": lambda x, v: symgrad.log_softmax(x, 1),
    "logsumexp": lambda x, v: symgrad.logsumexp(x, 1),
    "getitem": lambda x, v: x[1:, 0],
    "mask": lambda x, v: x[x > 0],
    "cat": lambda x, v: symgrad.cat([x, x * 2]),
    "expand": lambda x, v: v.expand(4, 3),
    "permute": lambda x, v: x.permute(1, 0),
    "view": lambda x, v: x.reshape(12),
    "max": lambda x, v: x.max(),
    "max_dim": lambda x, v: x.max(1)[0],
    "var": lambda x, v: x.var(1),
    "norm": lambda x, v: x.norm(),
    "where": lambda x, v: symgrad.where(x > 0, x, x * 3),
    "relu": lambda x, v: symgrad.relu(x),
    "gelu": lambda x, v: F.gelu(x),
    "clamp": lambda x, v: x.clamp(-0.5, 0.5),
    "pow": lambda x, v: x**3,
    "linear": lambda x, v: F.linear(x, v.expand(2, 3), v[:2]),
    "mse": lambda x, v: F.mse_loss(x, symgrad.zeros(4, 3)),
    "bce": lambda x, v: F.binary_cross_entropy(symgrad.sigmoid(x), symgrad.ones_like(x)),
    "cross_entropy": lambda x, v: F.cross_entropy(x, symgrad.tensor([0, 1, 2, 0])),
    "split": lambda x, v: x.split(2)[1],
    "float64": lambda x, v: x.double(),
}


@pytest.mark.parametrize("op", sorted(OPERATIONS))
def test_every_kind_of_operation_is_drawn_with_recomputed_values(op):
    x = symgrad.tensor(np.random.randn(4, 3), dtype=symgrad.float32, requires_grad=True, name="x")
    v = symgrad.tensor(np.random.randn(3), dtype=symgrad.float32, requires_grad=True, name="v")
    h = OPERATIONS[op](x, v)
    h.name = "h"
    picture = parse(draw((h * 1.5).sum()).source)
    boxes = by_name(picture)
    assert h.grad_fn.name() in boxes
    lines = boxes["h"]
    assert f"shape {list(h.shape)}" in lines[1]
    expected = np.asarray(h.detach().numpy(), dtype=float)
    shown = " ".join(lines[2:]).removeprefix("value ")
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]\d+)?", shown)]
    if expected.size <= 12:  # shown in full, to four decimals
        np.testing.assert_allclose(numbers, expected.ravel(), atol=6e-5, rtol=1e-4)
    else:  # summarised: the same text as the tensor's own value gives
        assert [line.removeprefix("value ") for line in lines[2:] if line != "value"] == (
            array_lines(h)
        )
    assert all(label.startswith("∂") for label in edge_labels(picture))


@pytest.mark.slow
@pytest.mark.graphviz
def test_the_dot_program_draws_every_kind_of_operation():
    x = symgrad.tensor(np.random.randn(4, 3), requires_grad=True, name="x")
    v = symgrad.tensor(np.random.randn(3), requires_grad=True, name="v")
    for make in OPERATIONS.values():
        svg = ET.fromstring(draw(make(x, v).sum()).pipe("svg"))
        assert svg.tag.endswith("svg")


# -- escaping -------------------------------------------------------------------------------------

HOSTILE = [
    'say "hi"',
    "}{ evil -> op0 [label=x]; {",
    "<B>bold</B> & <FONT>",
    "two\nlines",
    "back\\slash \\N \\G \\L",
    "&amp; &#60; ]]> <!-- -->",
    "nul\x00bell\x07 zero\u200bwidth",
    "ünïcødé ∂ 🙂",
]


def hostile_graph() -> symgrad.Tensor:
    leaves = [
        symgrad.tensor(float(i + 1), requires_grad=True, name=n) for i, n in enumerate(HOSTILE)
    ]
    total = leaves[0]
    for i, leaf in enumerate(leaves[1:]):
        total = total * leaf
        total.name = f"{HOSTILE[-1 - i]}!"
    return total


def shown(name: str) -> str:
    """How a name reads in the picture: control characters as escapes."""
    return (
        name.replace("\n", "\\n")
        .replace("\x00", "\\x00")
        .replace("\x07", "\\x07")
        .replace("\u200b", "\\u200b")
    )


def test_hostile_names_stay_text():
    root = hostile_graph()
    source = draw(root).source
    picture = parse(source)  # every line a statement draw writes, every label well-formed
    names = set(by_name(picture))
    for name in HOSTILE:
        assert shown(name) in names
    assert len(picture["nodes"]) == 2 * len(HOSTILE) - 1 + len(HOSTILE) - 1
    assert len(picture["edges"]) == 3 * (len(HOSTILE) - 1)
    assert "\x00" not in source and "\x07" not in source
    assert f"∂{shown(HOSTILE[-1])}!/∂{shown(HOSTILE[1])} = {shown(HOSTILE[0])} = 1" in (
        edge_labels(picture)
    )


def test_hostile_names_via_names_argument():
    x = symgrad.tensor(2.0, requires_grad=True)
    y = x * 3
    picture = parse(draw(y, names={HOSTILE[1]: x, HOSTILE[2]: y}).source)
    assert f"∂{HOSTILE[2]}/∂{HOSTILE[1]} = 3" in edge_labels(picture)


@pytest.mark.graphviz
def test_hostile_names_render_literally():
    svg = ET.fromstring(draw(hostile_graph()).pipe("svg"))
    texts = {t.text for t in svg.iter() if t.tag.endswith("text") and t.text}
    for name in HOSTILE:
        assert shown(name) in texts
    assert not any("evil" in (e.get("id") or "") for e in svg.iter())


# -- rendering ------------------------------------------------------------------------------------


@pytest.mark.graphviz
def test_render_svg_png_pdf(tmp_path):
    picture = draw(tutorial()["e"])
    svg_path = picture.render(tmp_path / "graph.svg")
    assert svg_path == tmp_path / "graph.svg"
    svg = ET.parse(svg_path).getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    texts = [t.text for t in svg.iter() if t.tag.endswith("text")]
    assert "MulBackward0" in texts and "∂u/∂a = b = 3" in texts and "grad 0.5" in texts
    assert picture.render(tmp_path / "graph.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert picture.render(str(tmp_path / "graph.PDF")).read_bytes().startswith(b"%PDF")
    assert (
        picture.render(tmp_path / "graph.out", format="svg")
        .read_bytes()
        .lstrip()
        .startswith(b"<?xml")
    )
    assert picture.pipe("png").startswith(b"\x89PNG")
    assert "<svg" in picture._repr_svg_()


@pytest.mark.graphviz
def test_the_dot_program_accepts_every_picture():
    net = one_layer_network()
    for picture in (
        draw(net["loss"]),
        draw(net["loss"], rankdir="LR", values=False),
        draw(tutorial()["e"], formulas=False, grads=False),
    ):
        ET.fromstring(picture.pipe("svg"))


def test_render_needs_a_known_suffix(tmp_path):
    with pytest.raises(ValueError, match="suffix"):
        draw(tutorial()["e"]).render(tmp_path / "graph.txt")


def test_missing_dot_program_is_a_clear_error(monkeypatch, tmp_path):
    graphviz = pytest.importorskip("graphviz", reason="needs the graphviz Python package")

    def missing(*args, **kwargs):
        raise graphviz.ExecutableNotFound(["dot"])

    monkeypatch.setattr(graphviz.Source, "pipe", missing)
    picture = draw(tutorial()["e"])
    with pytest.raises(GraphvizNotFoundError, match="dot program") as error:
        picture.render(tmp_path / "graph.svg")
    message = str(error.value)
    assert "pip install 'symgrad[viz]'" in message and "apt-get install graphviz" in message
    assert "\n" not in message and not (tmp_path / "graph.svg").exists()
    with pytest.warns(RuntimeWarning, match="apt-get install graphviz"):
        assert picture._repr_svg_() is None
    assert picture.source.startswith("digraph")  # the DOT text needs no Graphviz


def test_missing_graphviz_package_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # import graphviz now raises ImportError
    picture = draw(tutorial()["e"])
    with pytest.raises(GraphvizNotFoundError, match=r"symgrad\[viz\]"):
        picture.pipe("svg")
    assert isinstance(picture, GraphPicture) and "LogBackward0" in picture.source


@pytest.mark.slow
def test_import_symgrad_does_not_import_viz():
    code = (
        "import sys, symgrad; a = 'symgrad.viz' in sys.modules; import symgrad.viz; "
        "print(a, 'graphviz' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    path = os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root, check=True
    )
    assert out.stdout.split() == ["False", "False"]
