"""Every script in ``examples/`` runs and prints what it should.

Each script runs in a fresh interpreter (``sys.executable``), as a user would run it. The expected
numbers come from the PyTorch tutorials the examples reproduce (their printed output) or are
derived by hand in the test; none is taken from symgrad's own output. When PyTorch is installed,
the deterministic tutorials are also run under PyTorch itself and must print the same text.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))


@functools.cache
def run(name: str, source: str | None = None) -> subprocess.CompletedProcess:
    """Run ``examples/<name>`` (or ``source`` in its place) and capture what it prints."""
    env = dict(os.environ)
    # the checkout first, so the tests exercise this tree even when symgrad is not installed
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PYTHONWARNINGS"] = "default"
    program = [str(EXAMPLES / name)] if source is None else ["-c", source]
    cmd = [sys.executable, *program]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def stdout_of(name: str) -> str:
    result = run(name)
    assert result.returncode == 0, f"{name} failed:\n{result.stderr}"
    return result.stdout


def tensors_in(text: str) -> list[np.ndarray]:
    """The values of every ``tensor(...)`` printed in ``text``, in order."""
    values = []
    for match in re.finditer(r"tensor\(", text):
        start = match.end()
        depth, end = 0, start
        while end < len(text):
            ch = text[end]
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
            elif ch in ",)" and depth == 0:
                break
            end += 1
        values.append(np.array(ast.literal_eval(text[start:end]), dtype=np.float64))
    return values


def without_addresses(text: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "0x...", text)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def one_layer_weights(draws: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(w, b)`` pairs the one-layer examples draw after ``manual_seed(0)``.

    symgrad is used here only as the random generator the scripts draw from; the gradients the
    tests expect are derived from these inputs by hand.
    """
    import symgrad

    symgrad.manual_seed(0)
    pairs = []
    for _ in range(draws):
        w = symgrad.randn(5, 3).numpy().astype(np.float64)
        b = symgrad.randn(3).numpy().astype(np.float64)
        pairs.append((w, b))
    return pairs


def bce_with_logits_grad_b(w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """d/db of mean(BCE(sigmoid(z), 0)) with z = ones(5) @ w + b: sigmoid(z) / 3."""
    z = np.ones(5) @ w + b
    return sigmoid(z) / 3


# Printing rounds to 4 decimals: a printed value is within 5e-5 of the true one.
PRINTED = 5e-5


# -- every example runs -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", SCRIPTS)
def test_example_runs(name):
    result = run(name)
    assert result.returncode == 0, f"{name} failed:\n{result.stderr}"
    assert result.stdout.strip(), f"{name} printed nothing"


def test_every_example_is_checked():
    # A new example must come with a check of what it prints, here.
    assert SCRIPTS, "no examples found"
    assert set(SCRIPTS) == set(CHECKS), (
        f"examples without checks: {sorted(set(SCRIPTS) - set(CHECKS))}; "
        f"checks without examples: {sorted(set(CHECKS) - set(SCRIPTS))}"
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", SCRIPTS)
def test_example_output(name):
    if name not in CHECKS:
        pytest.fail(f"examples/{name} has no output check in tests/test_examples.py")
    CHECKS[name](stdout_of(name))


# -- the computational-graph tutorial ---------------------------------------------------------

# The tutorial's printout (object addresses aside); the four gradients are derived by hand.
GRAPH_BEFORE = """\
True
None
None

False
<AddBackward0 object at 0x...>
None

False
<LogBackward0 object at 0x...>
None
"""
GRAPH_AFTER = """\
True
None
tensor([3.])

False
<AddBackward0 object at 0x...>
None

False
<LogBackward0 object at 0x...>
tensor([5.])
"""


def check_computational_graph(out: str) -> None:
    text = without_addresses(out)
    assert text.startswith(GRAPH_BEFORE + "\n")
    assert text.endswith(GRAPH_AFTER)
    grads = dict(re.findall(r"\\partial e\}\{\\partial (\w)\} = (\S+)", text))
    assert sorted(grads) == ["a", "b", "c", "d"]
    # e = a*b + log(d)*c: de/da = b, de/db = a, de/dc = log(d), de/dd = c/d
    assert float(grads["a"]) == 3.0
    assert float(grads["b"]) == 2.0
    assert float(grads["c"]) == pytest.approx(math.log(10.0), rel=1e-7)  # float32 log
    assert float(grads["d"]) == 0.5


@pytest.mark.slow
def test_computational_graph_warns_on_non_leaf_grad():
    stderr = run("tutorial_computational_graph.py").stderr
    assert "UserWarning" in stderr
    assert "not a leaf Tensor" in stderr


# -- the Jacobian-product tutorial ---------------------------------------------------------------

JACOBIAN_OUTPUT = """\
First call
 tensor([[4., 2., 2., 2., 2.],
        [2., 4., 2., 2., 2.],
        [2., 2., 4., 2., 2.],
        [2., 2., 2., 4., 2.],
        [2., 2., 2., 2., 4.]])

Second call
 tensor([[8., 4., 4., 4., 4.],
        [4., 8., 4., 4., 4.],
        [4., 4., 8., 4., 4.],
        [4., 4., 4., 8., 4.],
        [4., 4., 4., 4., 8.]])

Call after zeroing gradients
 tensor([[4., 2., 2., 2., 2.],
        [2., 4., 2., 2., 2.],
        [2., 2., 4., 2., 2.],
        [2., 2., 2., 4., 2.],
        [2., 2., 2., 2., 4.]])
"""


def check_jacobian_product(out: str) -> None:
    assert out == JACOBIAN_OUTPUT
    # d/dx (x + 1)^2 = 2 (x + 1) on eye(5); the second call accumulates, zero_() resets
    once = 2 * (np.eye(5) + 1)
    first, second, after_zero = tensors_in(out)
    np.testing.assert_array_equal(first, once)
    np.testing.assert_array_equal(second, 2 * once)
    np.testing.assert_array_equal(after_zero, once)


# -- the one-layer-network tutorial ------------------------------------------------------------


def check_one_layer_network(out: str) -> None:
    lines = without_addresses(out).splitlines()
    assert lines[0] == "Gradient function for z =  <AddBackward0 object at 0x...>"
    assert lines[1] == (
        "Gradient function for loss =  <BinaryCrossEntropyWithLogitsBackward0 object at 0x...>"
    )
    assert lines[-3:] == ["True", "False", "False"]  # grad mode on, no_grad, detach
    w_grad, b_grad, after_1, after_2, after_zero = tensors_in(out)
    (w1, b1), (w2, b2) = one_layer_weights(2)

    expected = bce_with_logits_grad_b(w1, b1)
    np.testing.assert_allclose(b_grad, expected, atol=PRINTED)
    # x is all ones, so every row of w.grad is b.grad
    np.testing.assert_allclose(w_grad, np.tile(expected, (5, 1)), atol=PRINTED)

    expected = np.tile(bce_with_logits_grad_b(w2, b2), (5, 1))
    np.testing.assert_allclose(after_1, expected, atol=PRINTED)
    np.testing.assert_allclose(after_2, 2 * expected, atol=PRINTED)  # accumulation doubles
    np.testing.assert_array_equal(after_zero, np.zeros((5, 3)))
    assert "w gradients after backward 2: " in out and "w gradients after grad.zero: " in out


# -- the custom Function ------------------------------------------------------------------------


def check_custom_function(out: str) -> None:
    lines = without_addresses(out).splitlines()
    assert lines[0] == "tensor([1.0000, 2.7183, 7.3891], grad_fn=<ExpBackward>)"
    assert lines[1].endswith("ExpBackward object at 0x...>")
    custom, builtin = tensors_in("\n".join(lines[2:4]))
    np.testing.assert_allclose(custom, np.exp([0.0, 1.0, 2.0]), atol=PRINTED)  # d e^x/dx = e^x
    np.testing.assert_array_equal(custom, builtin)
    assert lines[4] == "equal: True"


# -- the walkthrough ------------------------------------------------------------------------------


def check_walkthrough(out: str) -> None:
    parts = re.split(r"^\d\. ", out, flags=re.M)[1:]
    assert len(parts) == 6, "the walkthrough has six numbered sections"
    section = dict(zip("123456", parts, strict=True))

    # 1. e = a*b + log(d)*c at a, b, c, d = 2, 3, 5, 10
    e, a_grad, b_grad, c_grad, d_grad = tensors_in(section["1"])
    assert e[0] == pytest.approx(6 + 5 * math.log(10), abs=PRINTED)
    assert "tensor([17.5129], grad_fn=<AddBackward0>)" in section["1"]
    assert "a.grad = tensor([3.])" in section["1"]
    assert "b.grad = tensor([2.])" in section["1"]
    assert "c.grad = tensor([2.3026])" in section["1"]
    assert "d.grad = tensor([0.5000])" in section["1"]
    assert c_grad[0] == pytest.approx(math.log(10), abs=PRINTED)

    # 2. the nodes' formulas and derivatives, and the chain rule multiplied out
    nodes = re.findall(
        r"^\s+(\S+) = .*?(\w+Backward0)\s+expression: (.+?)\s+local_derivatives: (.+)$",
        section["2"],
        flags=re.M,
    )
    assert nodes == [
        ("u", "MulBackward0", "x*y", "(y, x)"),
        ("t", "LogBackward0", "log(x)", "(1/x,)"),
        ("v", "MulBackward0", "x*y", "(y, x)"),
        ("e", "AddBackward0", "x + y", "(1, 1)"),
    ]
    assert "de/dd = de/dv * dv/dt * dt/dd = 1 * c * 1/d = c/d" in section["2"]
    assert "de/dd = 1/2 = 0.5;  d.grad.item() = 0.5" in section["2"]

    # 3. the closed forms, in the tensors' names
    assert "e = a*b + c*log(d)" in section["3"]
    assert "(de/da, de/db, de/dc, de/dd) = [b, a, log(d), c/d]" in section["3"]

    # 4. y = x**2 at x = 1, 2, 3 with v = 1, 0.1, 0.01: v * 2x
    assert "d(x**2)/dx: 2*x" in section["4"]
    (x_grad,) = tensors_in(section["4"])
    np.testing.assert_allclose(x_grad, [2.0, 0.4, 0.06], atol=PRINTED)

    # 5. d2/dd2 (log(d) * c) = -c / d**2 = -0.05
    assert "de/dd = 0.5  (a tensor with a graph: requires_grad=True)" in section["5"]
    (second,) = tensors_in(section["5"])
    np.testing.assert_allclose(second, [-0.05], atol=PRINTED)

    # 6. the one-layer network: the loss and b.grad derived by hand from the same draws
    ((w, b),) = one_layer_weights(1)
    z = np.ones(5) @ w + b
    loss, b_grad = tensors_in(section["6"])
    assert float(loss) == pytest.approx(np.mean(np.log1p(np.exp(z))), abs=PRINTED)
    np.testing.assert_allclose(b_grad, sigmoid(z) / 3, atol=PRINTED)
    assert "equals b.grad (x is all ones): True" in section["6"]
    assert "(x @ w + b).requires_grad = False" in section["6"]


# -- verifying a custom backward -------------------------------------------------------------

GELU_X = np.array([-2.0, -0.5, 0.5, 1.0, 2.0])


def gelu_derivative(x: np.ndarray, c: float = math.sqrt(2 / math.pi), three: float = 3.0):
    """d/dx of x/2 (1 + tanh(sqrt(2/pi) (x + a x**3))) by the chain rule; ``three=1`` drops
    the factor d(a x**3)/dx brings down, ``c`` is the constant the backward multiplies by."""
    a = 0.044715
    t = np.tanh(math.sqrt(2 / math.pi) * (x + a * x**3))
    return (1 + t) / 2 + x / 2 * (1 - t * t) * c * (1 + three * a * x**2)


def report_verdicts(text: str) -> dict:
    """{"engine vs finite differences": "ok" or "FAIL", ...} from a printed gradient report."""
    rows = [re.split(r"\s{2,}", line) for line in text.splitlines() if line.startswith("input 0  ")]
    return {cells[1]: cells[-1] for cells in rows if cells[-1] in ("ok", "FAIL")}


def report_worst(text: str) -> tuple[int, dict]:
    """The worst element and its three values from a report's closing line."""
    m = re.search(
        r"^input 0, worst element \[(\d+)\]: engine (\S+), finite differences (\S+), "
        r"closed form (\S+)$",
        text,
        flags=re.M,
    )
    assert m, text
    return int(m[1]), {"engine": float(m[2]), "fd": float(m[3]), "closed": float(m[4])}


def check_verify_custom_backward(out: str) -> None:
    parts = re.split(r"^\d\. ", out, flags=re.M)[1:]
    assert len(parts) == 6, "the walkthrough has six numbered sections"
    section = dict(zip("123456", parts, strict=True))
    right, buggy = gelu_derivative(GELU_X), gelu_derivative(GELU_X, three=1.0)
    rounded = gelu_derivative(GELU_X, c=0.7978846)
    disagree = {
        "engine vs finite differences": "FAIL",
        "engine vs closed form": "FAIL",
        "finite differences vs closed form": "ok",
    }

    # 1. the forward values and the buggy backward
    value, grad = tensors_in(section["1"])
    t = np.tanh(math.sqrt(2 / math.pi) * (GELU_X + 0.044715 * GELU_X**3))
    np.testing.assert_allclose(value, GELU_X / 2 * (1 + t), atol=PRINTED)
    np.testing.assert_allclose(grad, buggy, atol=PRINTED)

    # 2. gradcheck names the input and the element furthest beyond atol + rtol |numerical|
    assert "Jacobian mismatch for output 0 with respect to input 0," in section["2"]
    k = int(np.argmax(np.abs(right - buggy) - (1e-5 + 1e-3 * np.abs(right))))
    m = re.search(
        rf"d\(output 0\)\[{k}\] / d\(input 0\)\[{k}\]: numerical (\S+) vs "
        r"analytical (\S+) ",
        section["2"],
    )
    assert m, section["2"]
    assert float(m[1]) == pytest.approx(right[k], rel=1e-8)
    assert float(m[2]) == pytest.approx(buggy[k], rel=1e-12)

    # 3. verify of the sum: the engine alone disagrees; the three values by hand
    assert "GRADIENTS DISAGREE (scalar output)" in section["3"]
    assert report_verdicts(section["3"]) == disagree
    k, values = report_worst(section["3"])
    assert k == int(np.argmax(np.abs(right - buggy) - (1e-6 + 1e-4 * np.abs(right))))
    assert values["engine"] == pytest.approx(buggy[k], rel=1e-12)
    assert values["fd"] == pytest.approx(right[k], rel=1e-8)
    assert values["closed"] == pytest.approx(right[k], rel=1e-12)

    # 4. check_function projects the output: the ratio engine / exact is still f'_bug / f'
    assert report_verdicts(section["4"]) == disagree
    k, values = report_worst(section["4"])
    assert values["engine"] / values["closed"] == pytest.approx(buggy[k] / right[k], rel=1e-12)

    # 5. the fix passes everything and gives f'
    assert "gradcheck: True\nverify ok: True\ncheck_function ok: True" in section["5"]
    (fixed,) = tensors_in(section["5"])
    np.testing.assert_allclose(fixed, right, atol=PRINTED)

    # 6. an error of a few parts in 1e8: only the comparisons with the closed form see it
    assert "gradcheck: True" in section["6"]
    assert "verify, engine vs finite differences: ok" in section["6"]
    assert "verify, engine vs closed form: FAIL" in section["6"]
    assert report_verdicts(section["6"]) == {**disagree, "engine vs finite differences": "ok"}
    k, values = report_worst(section["6"])
    assert values["engine"] / values["closed"] - 1 == pytest.approx(
        rounded[k] / right[k] - 1, rel=1e-5
    )


# -- training a network with nn and optim --------------------------------------------------------

MLP_REPR = """\
MLP(
  (layers): Sequential(
    (0): Linear(in_features=2, out_features=8, bias=True)
    (1): Tanh()
    (2): Linear(in_features=8, out_features=1, bias=True)
  )
)
parameters: ['layers.0.weight', 'layers.0.bias', 'layers.2.weight', 'layers.2.bias']
"""


def mlp_structure(out: str) -> str:
    """The lines of train_mlp.py's output that do not depend on the random weights."""
    lines = out.splitlines()
    return "\n".join(lines[:8] + lines[-1:])


def check_train_mlp(out: str) -> None:
    assert out.startswith(MLP_REPR)
    losses = [float(v) for v in re.findall(r"^step +\d+  loss (\S+)$", out, flags=re.M)]
    assert len(losses) == 4 and losses[0] > 0.5 and max(losses[1:]) < 1e-3
    predictions, final = tensors_in(out.split("predictions:")[1])
    xor = np.array([-1.0, 1.0, 1.0, -1.0])
    np.testing.assert_allclose(predictions, xor, atol=0.01)
    # the printed loss is the mean squared error of the printed predictions
    assert float(final) == pytest.approx(np.mean((predictions - xor) ** 2), abs=1e-6)
    assert out.endswith("a copy from the state_dict predicts the same: True\n")


@pytest.mark.slow
@pytest.mark.torch
def test_train_mlp_runs_under_pytorch():
    if not _torch_installed():
        pytest.skip("PyTorch is not installed")
    source = (EXAMPLES / "train_mlp.py").read_text().replace("symgrad", "torch")
    result = run("train_mlp.py", source)
    assert result.returncode == 0, result.stderr
    check_train_mlp(result.stdout)  # PyTorch's own run passes the same checks
    assert mlp_structure(result.stdout) == mlp_structure(stdout_of("train_mlp.py"))


def check_two_moons(out: str) -> None:
    epochs = re.findall(r"epoch (\d+)  loss ([0-9.]+)  accuracy ([0-9.]+)  lr ([0-9.e-]+)", out)
    assert [int(e) for e, *_ in epochs] == [20, 40, 60]
    losses = [float(loss) for _, loss, _, _ in epochs]
    assert losses == sorted(losses, reverse=True) and losses[-1] < 0.1
    assert float(epochs[-1][2]) >= 0.95  # the moons are separated
    assert [float(lr) for *_, lr in epochs] == [0.025, 0.0125, 0.00625]  # StepLR halves it
    matrix = re.search(r"dL/d hidden.weight = (.*)", out).group(1)
    for part in ("HadamardProduct", "out.weight.T", "tanh(hidden.bias + hidden.weight*x.T)", "*x"):
        assert part in matrix
    element = re.search(r"dL/d hidden.weight\[0, 0\] = (.*)", out).group(1)
    assert element.startswith("out.weight[0, 0]*x[0, 0]*(1 - tanh(hidden.bias[0]")
    exact, engine = re.search(r"at the trained weights: (\S+) \(backward: (\S+)\)", out).groups()
    assert exact == engine
    assert "Gradient report: all gradients agree" in out
    assert out.count("  ok\n") == 12 and "MISMATCH" not in out.upper()


def check_compiled_training(out: str) -> None:
    eager, compiled = (float(v) for v in re.findall(r"^\w+ +final loss (\S+)", out, flags=re.M))
    assert eager == compiled and eager < 0.2  # the same training, and it learned
    assert "the trained weights agree: True" in out
    assert re.search(r"^speed-up: \d+\.\dx$", out, flags=re.M)
    program = out.split("the generated forward program:\n")[1]
    assert program.startswith("def forward(a0, a1, e0, e1, e2, e3, e4, e5):")
    # each layer is PyTorch's addmm(bias, input, weight.t())
    assert program.count("# t\n") == 3 and program.count("# addmm") == 3
    assert program.count("# tanh") == 2


def check_variational_beta(out: str) -> None:
    # 14 heads in 20 throws, uniform prior: the exact posterior is Beta(15, 7), mean 15/22
    a, b = (float(v) for v in re.search(r"fitted posterior: Beta\((\S+), (\S+)\)", out).groups())
    assert abs(a - 15) < 2 and abs(b - 7) < 1
    assert "exact posterior:  Beta(15, 7)" in out
    fitted, exact = (float(v) for v in re.search(r"fitted (\S+), exact (\S+)", out).groups())
    assert exact == round(15 / 22, 3) and abs(fitted - exact) < 0.02
    assert 0 <= float(re.search(r"KL\(fitted \|\| exact\) = (\S+)", out).group(1)) < 0.02


CHECKS = {
    "variational_beta.py": check_variational_beta,
    "compiled_training.py": check_compiled_training,
    "two_moons.py": check_two_moons,
    "train_mlp.py": check_train_mlp,
    "tutorial_computational_graph.py": check_computational_graph,
    "tutorial_jacobian_product.py": check_jacobian_product,
    "tutorial_one_layer_network.py": check_one_layer_network,
    "custom_function.py": check_custom_function,
    "walkthrough.py": check_walkthrough,
    "verify_custom_backward.py": check_verify_custom_backward,
}


# -- the same scripts under PyTorch ------------------------------------------------------------


def _torch_installed() -> bool:
    # the scripts run under sys.executable, the interpreter running these tests
    return importlib.util.find_spec("torch") is not None


# The tutorials whose output does not depend on random numbers.
@pytest.mark.slow
@pytest.mark.torch
@pytest.mark.parametrize(
    "name",
    [
        "tutorial_computational_graph.py",
        "tutorial_jacobian_product.py",
        "custom_function.py",
    ],
)
def test_prints_what_pytorch_prints(name):
    if not _torch_installed():
        pytest.skip("PyTorch is not installed")
    source = (EXAMPLES / name).read_text().replace("symgrad", "torch")
    result = run(name, source)
    assert result.returncode == 0, result.stderr
    # symgrad names its own module where PyTorch names torch (dtypes, custom nodes)
    ours = without_addresses(stdout_of(name)).replace("symgrad.", "torch.")
    assert ours == without_addresses(result.stdout)


# -- the examples in the README and the docs -----------------------------------------------------


def readme_examples_table() -> list[str]:
    """The files named in the first column of the table under the README's "Examples"."""
    text = (ROOT / "README.md").read_text()
    section = re.search(r"^## Examples\n(.*?)(?=^## )", text, flags=re.S | re.M).group(1)
    return re.findall(r"^\| `([^`]+)` \|", section, flags=re.M)


def test_readme_lists_every_example_and_notebook():
    listed = readme_examples_table()
    on_disk = SCRIPTS + sorted(f"notebooks/{p.name}" for p in EXAMPLES.glob("notebooks/*.ipynb"))
    assert len(listed) == len(set(listed)), f"listed twice in the README: {listed}"
    assert not set(on_disk) - set(listed), (
        f"README.md's examples table does not list {sorted(set(on_disk) - set(listed))}"
    )
    assert not set(listed) - set(on_disk), (
        f"README.md's examples table lists missing files {sorted(set(listed) - set(on_disk))}"
    )


def readme_example() -> tuple[str, list[str]]:
    """The README's first Python block and the output lines its comments promise.

    A comment right after a ``print(...)`` line states what that call prints.
    """
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", text, flags=re.S).group(1)
    expected, after_print = [], False
    for line in block.splitlines():
        if after_print and line.startswith("# "):
            expected.append(line[2:])
            continue
        after_print = line.startswith("print(")
    return block, expected


@pytest.mark.slow
def test_readme_example_prints_what_it_says():
    source, expected = readme_example()
    assert len(expected) >= 2, "the README example states what it prints"
    result = run("README.md", source)
    assert result.returncode == 0, result.stderr
    assert without_addresses(result.stdout).splitlines() == expected


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "docs").glob("*.md")))
def test_docs_examples_run(page):
    import doctest

    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    failures, _ = doctest.testfile(
        str(ROOT / "docs" / page), module_relative=False, optionflags=flags, verbose=False
    )
    assert failures == 0


def test_api_page_names_every_public_name():
    import types

    import symgrad
    import symgrad.nn.functional as F

    text = (ROOT / "docs" / "api.md").read_text()
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text))
    public = {
        name
        for name in dir(symgrad)
        if not name.startswith("_") and not isinstance(getattr(symgrad, name), types.ModuleType)
    }
    public |= set(symgrad.autograd.__all__) | set(F.__all__)
    public |= set(symgrad.nn.__all__) | set(symgrad.nn.init.__all__) | set(symgrad.optim.__all__)
    public |= {name for name in dir(symgrad.Tensor) if not name.startswith("_")}
    for module in ("symbolic", "linalg"):
        sub = getattr(symgrad, module, None)
        public |= set(getattr(sub, "__all__", ()))
    missing = sorted(public - words)
    assert not missing, f"docs/api.md does not mention {missing}"
