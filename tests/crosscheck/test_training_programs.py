"""Whole training programs as the PyTorch tutorials and examples write them, seeded with
``manual_seed``: data loaders over ``TensorDataset`` with ``random_split``, seeded shuffling,
``drop_last`` and a ``WeightedRandomSampler``; ``Sequential`` and ``Module`` models with
convolutions, batch norm, dropout, LSTM/GRU, embeddings, layer norm and a transformer encoder;
SGD, Adam(W), RMSprop, Adagrad and NAdam with parameter groups and schedulers, gradient
clipping, accumulation, freezing, checkpointing, early stopping, and a state dict saved to a
``BytesIO`` and resumed; the reprs users print and the errors they meet.

The programs run in float64 (``set_default_dtype``), where PyTorch's and NumPy's ``exp`` and
``log`` agree; the seeded draws (initial weights, shuffles, dropout masks) are PyTorch's, so the
losses and weights are PyTorch's up to the order of BLAS sums. Each case reduces its outcome to
plain data (values to 4 decimals, dtype, grad_fn name, or the exception's type): the table holds
the expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import io

from _torch_table import rounded, table_tests


def _numbers(value):
    """``value`` with its Python floats (losses read by ``item()``) to 4 decimals."""
    if isinstance(value, float):
        return rounded(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_numbers(v) for v in value)
    return value


def _float64(fn):
    """``fn(T)`` under a float64 default dtype, restored after, its floats rounded."""

    def run(T):
        saved = T.get_default_dtype()
        T.set_default_dtype(T.float64)
        try:
            return _numbers(fn(T))
        finally:
            T.set_default_dtype(saved)

    run.__doc__ = fn.__doc__
    return run


def _text(obj) -> list:
    """``str(obj)``'s lines, with symgrad's names as PyTorch's."""
    return str(obj).replace("symgrad.", "torch.").splitlines()


@_float64
def _mlp_classifier(T):
    """The quickstart loop: random_split, a seeded shuffling loader with drop_last, Dropout,
    SGD with Nesterov momentum and weight decay, StepLR, evaluation by argmax under no_grad."""
    nn, F, data = T.nn, T.nn.functional, T.utils.data
    T.manual_seed(0)
    X = T.randn(60, 4)
    y = (X[:, 0] + X[:, 1] > 0).long()
    train, val = data.random_split(data.TensorDataset(X, y), [48, 12], T.Generator().manual_seed(4))
    loader = data.DataLoader(
        train, batch_size=16, shuffle=True, drop_last=True, generator=T.Generator().manual_seed(1)
    )
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 2))
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    sched = T.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    losses, correct = [], []
    for _ in range(3):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        sched.step()
        model.eval()
        with T.no_grad():
            xb, yb = X[val.indices], y[val.indices]
            correct.append((model(xb).argmax(dim=1) == yb).sum().item())
    return losses, correct, sched.get_last_lr(), train.indices[:6], model[3].bias


class _Net:
    """The MNIST example's network, smaller: conv, batch norm, pooling, Dropout2d, linear."""

    @staticmethod
    def make(T):
        nn, F = T.nn, T.nn.functional

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
                self.bn1 = nn.BatchNorm2d(4)
                self.conv2 = nn.Conv2d(4, 8, 3)
                self.drop = nn.Dropout2d(0.25)
                self.fc = nn.Linear(8 * 2 * 2, 3)

            def forward(self, x):
                x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
                x = self.drop(F.relu(self.conv2(x)))
                return F.log_softmax(self.fc(T.flatten(x, 1)), dim=1)

        return Net()

    @staticmethod
    def optimizer(T, model):
        groups = [
            {"params": [*model.conv1.parameters(), *model.bn1.parameters()], "lr": 1e-2},
            {"params": model.conv2.parameters()},
            {"params": model.fc.parameters(), "weight_decay": 1e-3},
        ]
        return T.optim.Adam(groups, lr=5e-3, amsgrad=True)


@_float64
def _cnn_resumed(T):
    """Adam with amsgrad and three parameter groups, CosineAnnealingLR, clip_grad_norm_; the
    model, optimizer and scheduler saved to a BytesIO, loaded into fresh ones, and both runs
    continued by one step: they agree."""
    F = T.nn.functional
    T.manual_seed(0)
    model = _Net.make(T)
    X, y = T.randn(12, 1, 8, 8), T.randint(0, 3, (12,))
    opt = _Net.optimizer(T, model)
    sched = T.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    losses, norms = [], []
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        loss = F.nll_loss(model(X), y)
        loss.backward()
        norms.append(T.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0).item())
        opt.step()
        sched.step()
        losses.append(loss.item())
    buf = io.BytesIO()
    T.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, buf)
    buf.seek(0)
    ck = T.load(buf)
    model2 = _Net.make(T)
    opt2 = _Net.optimizer(T, model2)
    sched2 = T.optim.lr_scheduler.CosineAnnealingLR(opt2, T_max=4)
    keys = _text(model2.load_state_dict(ck["model"]))
    opt2.load_state_dict(ck["opt"])
    sched2.load_state_dict(ck["sched"])
    after = []
    for m, o in ((model, opt), (model2, opt2)):
        T.manual_seed(5)
        o.zero_grad()
        loss = F.nll_loss(m(X), y)
        loss.backward()
        o.step()
        after.append(loss.item())
    step = opt2.state_dict()["state"][0]["step"]
    lrs = [g["lr"] for g in opt2.param_groups]
    return losses, norms, after, keys, step, lrs, model.bn1.running_var, model2.fc.bias


@_float64
def _recurrent_classifier(T):
    """Embedding (padding_idx), a two-layer bidirectional LSTM or GRU with dropout, LayerNorm
    and a head; RMSprop (centered, momentum), ExponentialLR, clip_grad_value_, label
    smoothing."""
    nn, F = T.nn, T.nn.functional
    T.manual_seed(0)
    out = []
    for rnn in (nn.LSTM, nn.GRU):
        emb = nn.Embedding(20, 6, padding_idx=0)
        layers = rnn(6, 5, num_layers=2, batch_first=True, dropout=0.1, bidirectional=True)
        norm, head = nn.LayerNorm(10), nn.Linear(10, 3)
        model = nn.ModuleList([emb, layers, norm, head])
        X, y = T.randint(0, 20, (6, 5)), T.randint(0, 3, (6,))
        opt = T.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.5, alpha=0.9, centered=True)
        sched = T.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        for _ in range(2):
            opt.zero_grad()
            loss = F.cross_entropy(head(norm(layers(emb(X))[0][:, -1])), y, label_smoothing=0.1)
            loss.backward()
            nn.utils.clip_grad_value_(model.parameters(), 0.5)
            opt.step()
            sched.step()
            out.append(loss.item())
        out.append(emb.weight.grad[0].abs().sum().item())
    return out


@_float64
def _transformer_lm(T):
    """The language-model tutorial: positional encoding buffer, TransformerEncoder with a
    causal mask, SGD with lr 5, clip_grad_norm_ 0.5, StepLR; the loss in eval mode after."""
    import math

    nn = T.nn
    T.manual_seed(0)
    ntokens, d = 11, 8
    emb, lin = nn.Embedding(ntokens, d), nn.Linear(d, ntokens)
    layer = nn.TransformerEncoderLayer(d, 2, 16, 0.2)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    emb.weight.data.uniform_(-0.1, 0.1)
    lin.bias.data.zero_()
    lin.weight.data.uniform_(-0.1, 0.1)
    position = T.arange(20).unsqueeze(1)
    div = T.exp(T.arange(0, d, 2) * (-math.log(10000.0) / d))
    pe = T.zeros(20, 1, d)
    pe[:, 0, 0::2] = T.sin(position * div)
    pe[:, 0, 1::2] = T.cos(position * div)
    model = nn.ModuleList([emb, encoder, lin])
    drop = nn.Dropout(0.2)

    def forward(src, mask):
        x = drop(emb(src) * math.sqrt(d) + pe[: src.size(0)])
        return lin(encoder(x, mask))

    data = T.randint(0, ntokens, (9, 3))
    mask = nn.Transformer.generate_square_subsequent_mask(8)
    crit = nn.CrossEntropyLoss()
    opt = T.optim.SGD(model.parameters(), lr=5.0)
    sched = T.optim.lr_scheduler.StepLR(opt, 1.0, gamma=0.95)
    losses = []
    for _ in range(3):
        model.train()
        drop.train()
        loss = crit(forward(data[:-1], mask).view(-1, ntokens), data[1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        T.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        sched.step()
        losses.append(loss.item())
    model.eval()
    drop.eval()
    with T.no_grad():
        final = crit(forward(data[:-1], mask).view(-1, ntokens), data[1:].reshape(-1)).item()
    return losses, final, sched.get_last_lr(), T.isinf(mask[:3, :3])


def _sampling_orders(T):
    """The orders seeded loaders and samplers read: shuffling (with the default generator and
    with one of its own), weighted sampling with and without replacement, a distributed
    sampler over two epochs, random_split by fractions, and collation of dict samples."""
    data = T.utils.data
    T.manual_seed(0)
    shuffled = [b.tolist() for b in data.DataLoader(T.arange(10), batch_size=4, shuffle=True)]
    weights = [0.2, 1.0, 3.0, 0.5, 0.1]
    weighted = list(data.WeightedRandomSampler(weights, 8))
    unique = list(data.WeightedRandomSampler(weights, 4, replacement=False))
    epochs = []
    for epoch in range(2):
        sampler = data.DistributedSampler(list(range(11)), num_replicas=3, rank=2, seed=7)
        sampler.set_epoch(epoch)
        epochs.append(list(sampler))
    parts = [list(p) for p in data.random_split(range(9), [0.4, 0.6])]
    own = data.DataLoader(
        T.arange(7), batch_size=3, shuffle=True, generator=T.Generator().manual_seed(5)
    )
    rows = [{"x": T.tensor([float(i), 1.0]), "label": i % 2, "name": f"s{i}"} for i in range(5)]
    batch = next(iter(data.DataLoader(rows, batch_size=3, sampler=[4, 0, 2])))
    after = T.rand(2)
    return (
        shuffled, weighted, unique, epochs, parts, [b.tolist() for b in own],
        batch["x"], batch["label"], batch["name"], after,
    )  # fmt: skip


@_float64
def _accumulate_stop_freeze(T):
    """Gradient accumulation over three batches with zero_grad(set_to_none=False), nn.init by
    Module.apply, ReduceLROnPlateau and early stopping on a validation loss (the best state
    kept in a BytesIO and loaded back), then the body frozen by requires_grad_(False) and the
    head tuned by Adagrad."""
    nn, F = T.nn, T.nn.functional
    T.manual_seed(0)

    def init(m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("relu"))
            nn.init.constant_(m.bias, 0.01)
        elif isinstance(m, nn.Conv1d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            nn.init.zeros_(m.bias)

    model = nn.Sequential(
        nn.Conv1d(2, 4, 3), nn.BatchNorm1d(4), nn.ReLU(), nn.Flatten(),
        nn.Linear(4 * 6, 8), nn.Tanh(), nn.Linear(8, 1),
    )  # fmt: skip
    model.apply(init)
    X = T.randn(40, 2, 8)
    y = X.mean((1, 2)).unsqueeze(1) * 3
    opt = T.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, dampening=0.1)
    sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    best, bad, best_state, history = float("inf"), 0, None, []
    for _ in range(12):
        model.train()
        opt.zero_grad(set_to_none=False)
        for i in range(6):
            loss = F.mse_loss(model(X[5 * i : 5 * i + 5]), y[5 * i : 5 * i + 5]) / 3
            loss.backward()
            if (i + 1) % 3 == 0:
                opt.step()
                opt.zero_grad(set_to_none=False)
        model.eval()
        with T.no_grad():
            val = F.mse_loss(model(X[30:]), y[30:]).item()
        sched.step(val)
        history.append((round(val, 4), opt.param_groups[0]["lr"]))
        if val < best - 1e-4:
            best, bad = val, 0
            buf = io.BytesIO()
            T.save(model.state_dict(), buf)
            best_state = buf.getvalue()
        else:
            bad += 1
            if bad >= 3:
                break
    model.load_state_dict(T.load(io.BytesIO(best_state)))
    for p in model[:2].parameters():
        p.requires_grad_(False)
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    opt2 = T.optim.Adagrad(
        [p for p in model.parameters() if p.requires_grad], lr=0.1, lr_decay=0.01,
        initial_accumulator_value=0.1,
    )  # fmt: skip
    model.train()
    tuned = []
    for _ in range(3):
        opt2.zero_grad()
        loss = F.smooth_l1_loss(model(X[:30]), y[:30])
        loss.backward()
        opt2.step()
        tuned.append(loss.item())
    return history, trainable, tuned, model[0].weight.grad is None, model[6].bias


@_float64
def _checkpointed_blocks(T):
    """Pre-norm residual blocks with dropout run through torch.utils.checkpoint (use_reentrant
    False) and without: the same losses and weights under AdamW (amsgrad), the dropout masks
    drawn again in the recomputation as in the first pass."""
    import copy

    nn, F = T.nn, T.nn.functional
    checkpoint = T.utils.checkpoint.checkpoint

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln, self.fc1, self.fc2 = nn.LayerNorm(6), nn.Linear(6, 12), nn.Linear(12, 6)
            self.drop = nn.Dropout(0.3)

        def forward(self, x):
            return x + self.drop(self.fc2(F.gelu(self.fc1(self.ln(x)))))

    T.manual_seed(1)
    blocks = nn.ModuleList([Block() for _ in range(2)])
    head = nn.Linear(6, 1)
    X = T.randn(8, 6)
    y = X.sum(1).sin()
    results = []
    for use in (True, False):
        bs, h = copy.deepcopy(blocks), copy.deepcopy(head)
        opt = T.optim.AdamW(
            [*bs.parameters(), *h.parameters()], lr=1e-2, weight_decay=0.05, amsgrad=True
        )
        T.manual_seed(5)
        losses = []
        for _ in range(3):
            x = X
            for b in bs:
                x = checkpoint(b, x, use_reentrant=False) if use else b(x)
            loss = F.mse_loss(h(x).squeeze(-1), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        results.append((losses, h.weight))
    return results


def _reprs(T):
    """print(model), print(optimizer) after a scheduler set initial_lr, and the keys of the
    state dicts (non-persistent buffers left out, the optimizer's groups by position)."""
    nn = T.nn
    T.manual_seed(0)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 4, 3, bias=False), nn.BatchNorm2d(4), nn.ReLU(inplace=True)
            )
            self.rnn = nn.GRU(4, 8, batch_first=True)
            self.head = nn.ModuleDict({"cls": nn.Linear(8, 3), "drop": nn.Dropout(0.1)})
            self.register_buffer("seen", T.zeros((), dtype=T.long))
            self.register_buffer("cache", T.zeros(2), persistent=False)

    model = Model()
    opt = T.optim.AdamW(
        [{"params": model.features.parameters()}, {"params": model.head.parameters(), "lr": 1e-2}],
        lr=1e-3, amsgrad=True,
    )  # fmt: skip
    T.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=4)
    sgd = T.optim.SGD(model.rnn.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    groups = opt.state_dict()["param_groups"]
    return (
        _text(model), _text(opt), _text(sgd), list(model.state_dict()),
        [g["params"] for g in groups], sorted(groups[1]),
    )  # fmt: skip


def _error(fn):
    """The exception type ``fn(T)`` raises, or None."""

    def run(T):
        try:
            fn(T)
        except Exception as error:  # the type is the expected answer
            return type(error).__name__
        return None

    return run


def _errors(T):
    """The errors of the tutorials' common mistakes: a Linear fed the wrong width or dtype, a
    float or int32 target for cross_entropy, a class out of range, unequal batch sizes, a state
    dict with missing or unexpected keys or other shapes, an optimizer without parameters, an
    optimizer state of another number of groups, backward through a freed graph or of a
    non-scalar."""
    nn, F = T.nn, T.nn.functional
    lin = nn.Linear(4, 3)
    out = lambda: lin(T.randn(2, 4))  # noqa: E731
    seq = nn.Sequential(nn.Linear(4, 3))

    def freed(T):
        loss = lin(T.randn(2, 4)).sum()
        loss.backward()
        loss.backward()

    def step_without_grads(T):
        lin.zero_grad()
        opt = T.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
        before = lin.weight.clone()
        opt.step()
        if not bool((lin.weight == before).all()):
            raise AssertionError("moved")

    cases = [
        lambda T: lin(T.randn(2, 5)),
        lambda T: lin(T.randn(2, 4, dtype=T.float64)),
        lambda T: F.cross_entropy(out(), T.tensor([0.0, 1.0])),
        lambda T: F.cross_entropy(out(), T.tensor([0, 1], dtype=T.int32)),
        lambda T: F.cross_entropy(out(), T.tensor([0, 3])),
        lambda T: F.cross_entropy(out(), T.tensor([0, 1, 2])),
        lambda T: seq.load_state_dict(lin.state_dict()),
        lambda T: nn.Linear(4, 3, bias=False).load_state_dict(lin.state_dict()),
        lambda T: nn.Linear(4, 2).load_state_dict(lin.state_dict()),
        lambda T: T.optim.SGD([], lr=0.1),
        lambda T: T.optim.Adam(lin.parameters(), betas=(1.0, 0.9)),
        lambda T: T.optim.SGD(lin.parameters(), lr=0.1, nesterov=True),
        lambda T: T.optim.SGD(lin.parameters(), lr=0.1).load_state_dict(
            {"state": {}, "param_groups": []}
        ),
        freed,
        lambda T: out().backward(),
        step_without_grads,
    ]
    lenient = _text(nn.Linear(4, 3, bias=False).load_state_dict(lin.state_dict(), strict=False))
    return [_error(fn)(T) for fn in cases], lenient


CASES = {
    "mlp_classifier": (
        _mlp_classifier,
        (
            (0.6193, 0.6519, 0.6761, 0.5885, 0.5468, 0.4791, 0.4209, 0.4436, 0.4801),
            (9, 10, 10),
            (0.05,),
            (10, 44, 19, 11, 5, 41),
            ([0.0779, -0.0886], "float64", None),
        ),
    ),
    "cnn_resumed": (
        _cnn_resumed,
        (
            (1.0725, 1.0522, 0.8825),
            (2.2166, 1.5905, 1.4571),
            (0.926, 0.926),
            ("<All keys matched successfully>",),
            (4.0, "float64", None),
            (0.0015, 0.0007, 0.0007),
            ([0.7435, 0.6922, 0.7107, 0.7335], "float64", None),
            ([0.1421, 0.0511, -0.006], "float64", None),
        ),
    ),
    "recurrent_classifier": (_recurrent_classifier, (1.1759, 0.8273, 0.0, 1.121, 0.8903, 0.0)),
    "transformer_lm": (
        _transformer_lm,
        (
            (2.4203, 2.1986, 2.3316),
            2.176,
            (4.2869,),
            ([[False, True, True], [False, False, True], [False, False, False]], "bool", None),
        ),
    ),
    "sampling_orders": (
        _sampling_orders,
        (
            ((6, 7, 1, 4), (2, 0, 9, 8), (3, 5)),
            (2, 3, 2, 2, 1, 2, 2, 2),
            (2, 1, 3, 0),
            ((9, 8, 1, 3), (2, 1, 6, 10)),
            ((1, 5, 6, 3), (4, 2, 7, 8, 0)),
            ((2, 4, 3), (5, 0, 6), (1,)),
            ([[4.0, 1.0], [0.0, 1.0], [2.0, 1.0]], "float32", None),
            ([0, 0, 0], "int64", None),
            ("s4", "s0", "s2"),
            ([0.5263, 0.2437], "float32", None),
        ),
    ),
    "accumulate_stop_freeze": (
        _accumulate_stop_freeze,
        (
            (
                (1.4441, 0.05),
                (1.6043, 0.05),
                (0.7452, 0.05),
                (0.6205, 0.05),
                (0.7152, 0.05),
                (1.136, 0.025),
                (1.1317, 0.025),
            ),
            ("4.weight", "4.bias", "6.weight", "6.bias"),
            (0.2667, 0.155, 0.1393),
            False,
            ([0.1405], "float64", None),
        ),
    ),
    "checkpointed_blocks": (
        _checkpointed_blocks,
        (
            (
                (1.4094, 1.0942, 0.8821),
                ([[0.0093, -0.2276, 0.1105, -0.0597, -0.2719, 0.171]], "float64", None),
            ),
            (
                (1.4094, 1.0942, 0.8821),
                ([[0.0093, -0.2276, 0.1105, -0.0597, -0.2719, 0.171]], "float64", None),
            ),
        ),
    ),
    "reprs": (
        _reprs,
        (
            (
                "Model(",
                "  (features): Sequential(",
                "    (0): Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), bias=False)",
                "    (1): BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)",  # noqa: E501
                "    (2): ReLU(inplace=True)",
                "  )",
                "  (rnn): GRU(4, 8, batch_first=True)",
                "  (head): ModuleDict(",
                "    (cls): Linear(in_features=8, out_features=3, bias=True)",
                "    (drop): Dropout(p=0.1, inplace=False)",
                "  )",
                ")",
            ),
            (
                "AdamW (",
                "Parameter Group 0",
                "    amsgrad: True",
                "    betas: (0.9, 0.999)",
                "    capturable: False",
                "    decoupled_weight_decay: True",
                "    differentiable: False",
                "    eps: 1e-08",
                "    foreach: None",
                "    fused: None",
                "    initial_lr: 0.001",
                "    lr: 0.0005",
                "    maximize: False",
                "    weight_decay: 0.01",
                "",
                "Parameter Group 1",
                "    amsgrad: True",
                "    betas: (0.9, 0.999)",
                "    capturable: False",
                "    decoupled_weight_decay: True",
                "    differentiable: False",
                "    eps: 1e-08",
                "    foreach: None",
                "    fused: None",
                "    initial_lr: 0.01",
                "    lr: 0.005",
                "    maximize: False",
                "    weight_decay: 0.01",
                ")",
            ),
            (
                "SGD (",
                "Parameter Group 0",
                "    dampening: 0",
                "    differentiable: False",
                "    foreach: None",
                "    fused: None",
                "    lr: 0.1",
                "    maximize: False",
                "    momentum: 0.9",
                "    nesterov: True",
                "    weight_decay: 0",
                ")",
            ),
            (
                "seen",
                "features.0.weight",
                "features.1.weight",
                "features.1.bias",
                "features.1.running_mean",
                "features.1.running_var",
                "features.1.num_batches_tracked",
                "rnn.weight_ih_l0",
                "rnn.weight_hh_l0",
                "rnn.bias_ih_l0",
                "rnn.bias_hh_l0",
                "head.cls.weight",
                "head.cls.bias",
            ),
            ((0, 1, 2), (3, 4)),
            (
                "amsgrad",
                "betas",
                "capturable",
                "decoupled_weight_decay",
                "differentiable",
                "eps",
                "foreach",
                "fused",
                "initial_lr",
                "lr",
                "maximize",
                "params",
                "weight_decay",
            ),
        ),
    ),
    "errors": (
        _errors,
        (
            (
                "RuntimeError",
                "RuntimeError",
                "RuntimeError",
                "RuntimeError",
                "IndexError",
                "ValueError",
                "RuntimeError",
                "RuntimeError",
                "RuntimeError",
                "ValueError",
                "ValueError",
                "ValueError",
                "ValueError",
                "RuntimeError",
                "RuntimeError",
                None,
            ),
            ("_IncompatibleKeys(missing_keys=[], unexpected_keys=['bias'])",),
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
