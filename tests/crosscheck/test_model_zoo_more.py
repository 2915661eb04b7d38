"""Whole programs of kinds the other tables leave out (a DCGAN step, WGAN-GP, VAEs, policy
gradients, DQN, seq2seq with attention, packed LSTMs, style transfer, adversarial examples,
distillation, ...), and the pieces of such programs where symgrad once differed from PyTorch.

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests


def _error(fn, *args, **kwargs) -> tuple | None:
    """The type and message of what ``fn(*args, **kwargs)`` raises (None when it returns)."""
    try:
        fn(*args, **kwargs)
    except Exception as error:  # the type and message are the expected answer
        return type(error).__name__, str(error)
    return None


def _batch_norm_sizes(T):
    """A batch norm given an input of other channels than it was built for (a wrong
    ``in_features`` after a Linear): PyTorch names the running mean first, then the running
    variance, then the weight and bias, and in evaluation asks for missing statistics first."""
    F = T.nn.functional
    x, three, four = T.ones(2, 4), T.ones(3), T.ones(4)
    found = [_error(lambda: T.nn.BatchNorm1d(3)(x))]
    found.append(_error(lambda: T.nn.BatchNorm1d(3, track_running_stats=False)(x)))
    for stats, affine in (
        ((four, three), (three, three)),
        ((four, four), (three, three)),
        ((None, four), (three, three)),
        ((four, None), (three, three)),
        ((four, None), (four, four)),
    ):
        for training in (True, False):
            found.append(_error(F.batch_norm, x, *stats, *affine, training=training))
    found.append(_error(lambda: T.batch_norm(x, three, three, four, three, True, 0.1, 1e-5, False)))
    return found


def _views_of_views(T):
    """In-place changes to a view of a piece of ``split``/``unbind`` or of a custom Function's
    output (a module with a full backward hook, as Grad-CAM registers, returns one): PyTorch's
    views inherit how their base was made, so these raise its RuntimeError at once, naming the
    view's own op."""

    class Same(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    layer = T.nn.Linear(3, 3)
    layer.register_full_backward_hook(lambda module, grad_input, grad_output: None)
    found = []
    for make, change in (
        (lambda x: x.split(2)[0], lambda piece: piece[1:].mul_(2)),
        (lambda x: x.unbind(0)[1], lambda piece: piece.view(3, 1).add_(1)),
        (lambda x: x.chunk(2)[1], lambda piece: piece.t().add_(1)),
        (lambda x: Same.apply(x), lambda out: out[0].mul_(2)),
        (lambda x: layer(x), lambda out: out.view(-1).relu_()),
    ):
        x = T.ones(4, 3, requires_grad=True) * 1
        found.append(_error(lambda c, m, x: c(m(x)), change, make, x))
    plain = T.ones(4, 3).unbind(0)[1]
    found.append(_error(lambda: plain[1:].mul_(T.ones(2, requires_grad=True)))[1][:48])
    kept = T.ones(4, 3, requires_grad=True) * 1
    kept.split(2)[0].detach()[0].add_(1)  # a detached alias is a tensor of its own
    return [(kind, message.split(" is ")[0], message[-33:]) for kind, message in found[:-1]] + [
        found[-1],
        kept.sum(),
    ]


def _no_grad_views(T):
    """Views of parameters taken under no_grad (printing a row of a weight in an evaluation
    loop, a frozen copy of part of a layer): in PyTorch they require grad, without history;
    gradients reaching them go nowhere (no ``.grad``, no error from ``backward``); a view
    of one taken while recording records its op, and changing either in place while
    recording raises; ``numpy()`` asks for ``detach()``."""
    layer = T.nn.Linear(3, 2)
    with T.no_grad():
        layer.weight.copy_(T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        row, pieces, columns = layer.weight[0], layer.weight.split(1), layer.weight.t()
        strided = layer.weight.as_strided((2,), (3,))
    found = [t.requires_grad for t in (row, pieces[1], columns, strided)]
    found += [row.is_leaf, row.grad_fn is None, "requires_grad=True" in repr(row)]
    loss = (row * T.tensor([1.0, -1.0, 2.0])).sum()
    loss.backward()
    found += [type(loss.grad_fn).__name__, row.grad, layer.weight.grad]
    found.append(_error(row.numpy)[0])
    later = row[1:]
    found += [type(later.grad_fn).__name__, later.requires_grad]
    for changed in (row, later):
        kind, message = _error(changed.mul_, 2)
        found.append((kind, message.split(" no_grad mode")[0]))
    with T.no_grad():
        row.mul_(2)
    return found + [layer.weight, (layer.weight * 1).sum()]


def _init(T, module, seed: int, scale: float = 0.3):
    """``module`` with its parameters drawn from NumPy, the same for symgrad and PyTorch."""
    rng = np.random.default_rng(seed)
    with T.no_grad():
        for p in module.parameters():
            p.copy_(T.tensor(rng.normal(size=tuple(p.shape)) * scale))
    return module


def _names(fn) -> list:
    return [None if n is None else type(n).__name__ for n, _ in fn.next_functions]


def _conv_gradient_penalty(T):
    """WGAN-GP with a convolutional critic (and a transposed convolution, as a DCGAN
    generator's): the gradient of the critic at the interpolates, taken with
    ``create_graph=True``, is the output of PyTorch's ``ConvolutionBackwardBackward0`` node
    (edges: the output's gradient, input, weight), and the penalty's backward goes through it."""
    nn = T.nn
    critic = nn.Sequential(
        nn.Conv2d(1, 2, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(2 * 2 * 2, 1)
    )
    _init(T, critic, 5)
    rng = np.random.default_rng(1)
    real, fake = (T.tensor(rng.normal(size=(2, 1, 4, 4)), dtype=T.float32) for _ in range(2))
    alpha = T.tensor([0.3, 0.8]).view(2, 1, 1, 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d = critic(interp)
    (g,) = T.autograd.grad(d, interp, T.ones_like(d), create_graph=True)
    penalty = ((g.reshape(2, -1).norm(2, dim=1) - 1) ** 2).mean()
    penalty.backward()
    up = _init(T, nn.ConvTranspose2d(2, 1, 4, 2, 1), 2)
    z = T.tensor(rng.normal(size=(1, 2, 2, 2)), dtype=T.float32, requires_grad=True)
    (gz,) = T.autograd.grad(up(z).pow(2).sum(), z, create_graph=True)
    gz.sum().backward()
    return (
        type(g.grad_fn).__name__,
        _names(g.grad_fn),
        penalty,
        critic[0].weight.grad.sum((1, 2, 3)),
        critic[0].bias.grad,
        critic[3].weight.grad,
        type(gz.grad_fn).__name__,
        _names(gz.grad_fn),
        up.weight.grad.sum((0, 2, 3)),
        z.grad.sum((0, 2, 3)),
    )


def _sums(module) -> list:
    """Each parameter's gradient summed (a compact fingerprint of every ``.grad``)."""
    return [round(p.grad.sum().item(), 4) for p in module.parameters()]


def _upsampling_penalty(T):
    """A gradient penalty through a U-Net-like decoder's upsampling: under
    ``create_graph=True`` the input's gradient of an interpolation is the output of
    PyTorch's ``Upsample...BackwardBackward0`` node, reading the incoming gradient only, and
    differentiating it again goes through that node."""
    F = T.nn.functional
    rows = [[0.1, 1.3, -0.7], [2.2, 0.45, 0.9], [-1.0, 0.3, 0.6]]
    x = T.tensor([[rows]], dtype=T.float64, requires_grad=True)
    found = []
    for mode, extra in (("bilinear", {"align_corners": False}), ("nearest", {})):
        y = F.interpolate(x, scale_factor=2, mode=mode, **extra)
        (g,) = T.autograd.grad(y.pow(3).sum(), x, create_graph=True)
        (h,) = T.autograd.grad(g.pow(2).sum(), x, create_graph=True)
        found += [type(g.grad_fn).__name__, _names(g.grad_fn), type(h.grad_fn).__name__]
        found.append(T.autograd.grad(h.sum(), x)[0][0, 0, 1])
    return found


def _training_boilerplate(T):
    """The switches nanoGPT-style training scripts set before training: TF32 for matmuls and
    cuDNN, cuDNN's benchmark, the attention kernels; they change no value on the CPU."""
    backends = T.backends
    old = T.get_float32_matmul_precision()
    backends.cuda.matmul.allow_tf32 = True
    backends.cudnn.allow_tf32 = True
    backends.cudnn.benchmark = True
    found = [backends.cuda.matmul.allow_tf32, T.get_float32_matmul_precision()]
    backends.cuda.matmul.allow_tf32 = False
    found += [T.get_float32_matmul_precision(), backends.cuda.is_built()]
    found.append(backends.cuda.matmul.allow_fp16_reduced_precision_reduction)
    found.append(_error(setattr, backends.cuda.matmul, "allow_tf33", True))
    backends.cuda.enable_flash_sdp(False)
    found.append(backends.cuda.flash_sdp_enabled())
    backends.cuda.enable_flash_sdp(True)
    found += [backends.cuda.flash_sdp_enabled(), backends.cuda.math_sdp_enabled()]
    T.set_float32_matmul_precision(old)
    backends.cudnn.benchmark = False
    found.append(type(backends.cpu.get_cpu_capability()).__name__)
    found += [lib.is_available() in (0, 1) for lib in (backends.mkldnn, backends.mkl)]
    found += [backends.openmp.is_available() in (0, 1), T.cuda.max_memory_allocated() / 2**20]
    found += [T.cuda.memory_reserved(), T.cuda.max_memory_reserved()]
    distributed = T.distributed
    found.append(distributed.is_available() and distributed.is_initialized())
    found.append(_error(distributed.get_rank))
    from importlib import import_module

    parallel = import_module(T.__name__ + ".nn.parallel")
    found.append(_error(parallel.DistributedDataParallel, T.nn.Linear(2, 2))[0])
    found.append(parallel.DataParallel is T.nn.DataParallel)
    found.append(_error(import_module(T.__name__ + ".distributed").destroy_process_group))
    return found


def _module_paths(T):
    """Layer classes imported from PyTorch's files (``from torch.nn.modules.activation import
    MultiheadAttention``, as custom transformer code does; ``...pooling import MaxPool2d``,
    ``...loss import KLDivLoss``, ``...flatten import Flatten``): the classes of ``nn``."""
    from importlib import import_module

    found = []
    for module, name in (
        ("activation", "MultiheadAttention"),
        ("activation", "GELU"),
        ("pooling", "MaxPool2d"),
        ("loss", "KLDivLoss"),
        ("conv", "ConvTranspose2d"),
        ("transformer", "TransformerDecoderLayer"),
        ("normalization", "RMSNorm"),
        ("flatten", "Unflatten"),
        ("distance", "CosineSimilarity"),
        ("pixelshuffle", "PixelShuffle"),
        ("fold", "Unfold"),
        ("container", "ParameterList"),
    ):
        found.append(getattr(import_module(f"{T.__name__}.nn.modules.{module}"), name))
    found = [cls is getattr(T.nn, cls.__name__) for cls in found]
    activation = import_module(f"{T.__name__}.nn.modules.activation")
    found.append(_error(getattr, activation, "Conv2d")[0])
    handles = import_module(f"{T.__name__}.utils.hooks").RemovableHandle
    handle = T.nn.Linear(2, 2).register_forward_hook(lambda module, args, out: None)
    found.append(isinstance(handle, handles))
    types = import_module(f"{T.__name__}.nn.common_types")
    return found + [types._size_2_t == (int | tuple[int, int])]


def _attention_kernel_choice(T):
    """``with sdpa_kernel(SDPBackend.MATH):`` around attention (as code pinning PyTorch's
    reference kernel writes it): the same values, the kernels' switches set inside the block
    and restored after; a decorator too; a string is refused with PyTorch's AssertionError."""
    from importlib import import_module

    attention = import_module(T.__name__ + ".nn.attention")
    backend, choose = attention.SDPBackend, attention.sdpa_kernel
    rng = np.random.default_rng(3)
    q, k, v = (T.tensor(rng.normal(size=(1, 2, 3, 4)), dtype=T.float64) for _ in range(3))
    cuda = T.backends.cuda
    with choose(backend.MATH):
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        inside = [cuda.flash_sdp_enabled(), cuda.math_sdp_enabled()]
    with choose([backend.FLASH_ATTENTION, backend.EFFICIENT_ATTENTION]):
        inside += [cuda.mem_efficient_sdp_enabled(), cuda.math_sdp_enabled()]

    @choose(backend.MATH)
    def flash_inside():
        return cuda.flash_sdp_enabled()

    after = [cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(), flash_inside()]
    refused = _error(lambda: choose("math").__enter__())
    numbers = [int(b) for b in (backend.ERROR, backend.MATH, backend.CUDNN_ATTENTION)]
    return out[0, 1, 2], inside, after, refused, numbers, repr(backend.MATH)


def _dcgan(T):
    """Two steps of a DCGAN: transposed convolutions, batch norms, LeakyReLU, BCELoss, Adam
    with betas (0.5, 0.999) for each network, the fake batch detached for the critic."""
    nn = T.nn
    G = nn.Sequential(
        nn.ConvTranspose2d(3, 4, 4, 1, 0, bias=False),
        nn.BatchNorm2d(4),
        nn.ReLU(True),
        nn.ConvTranspose2d(4, 1, 4, 2, 1, bias=False),
        nn.Tanh(),
    )
    D = nn.Sequential(
        nn.Conv2d(1, 4, 4, 2, 1, bias=False),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(4, 1, 4, 1, 0, bias=False),
        nn.Sigmoid(),
    )
    _init(T, G, 1, 0.2), _init(T, D, 2, 0.2)
    criterion = nn.BCELoss()
    opt_d = T.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_g = T.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    rng = np.random.default_rng(3)
    real = T.tensor(rng.normal(size=(2, 1, 8, 8)), dtype=T.float32).tanh()
    noise = T.tensor(rng.normal(size=(2, 3, 1, 1)), dtype=T.float32)
    losses = []
    for _ in range(2):
        D.zero_grad()
        label = T.full((2,), 1.0)
        err_real = criterion(D(real).view(-1), label)
        err_real.backward()
        fake = G(noise)
        label.fill_(0.0)
        err_fake = criterion(D(fake.detach()).view(-1), label)
        err_fake.backward()
        opt_d.step()
        G.zero_grad()
        label.fill_(1.0)
        err_g = criterion(D(fake).view(-1), label)
        err_g.backward()
        opt_g.step()
        losses.append((round((err_real + err_fake).item(), 4), round(err_g.item(), 4)))
    return losses, _sums(G), _sums(D), G[1].running_var, type(err_g.grad_fn).__name__


def _vae(T):
    """A VAE's steps: reparameterisation with given noise, binary cross-entropy summed, the
    KL term; a conditional decoder fed ``cat`` of the code and a ``one_hot`` label."""
    nn, F = T.nn, T.nn.functional
    enc, mu, logvar = nn.Linear(6 + 3, 5), nn.Linear(5, 2), nn.Linear(5, 2)
    dec = nn.Sequential(nn.Linear(2 + 3, 5), nn.ReLU(), nn.Linear(5, 6))
    model = _init(T, nn.ModuleList([enc, mu, logvar, dec]), 3)
    opt = T.optim.Adam(model.parameters(), lr=1e-2)
    rng = np.random.default_rng(4)
    x = T.tensor(rng.uniform(size=(4, 6)), dtype=T.float32)
    label = F.one_hot(T.tensor([0, 2, 1, 2]), 3).float()
    losses = []
    for _ in range(3):
        eps = T.tensor(rng.normal(size=(4, 2)), dtype=T.float32)
        h = F.relu(enc(T.cat([x, label], dim=1)))
        m, lv = mu(h), logvar(h)
        z = m + eps * T.exp(0.5 * lv)
        recon = T.sigmoid(dec(T.cat((z, label), 1)))
        bce = F.binary_cross_entropy(recon, x, reduction="sum")
        kld = -0.5 * T.sum(1 + lv - m.pow(2) - lv.exp())
        opt.zero_grad()
        (bce + kld).backward()
        opt.step()
        losses.append((round(bce.item(), 4), round(kld.item(), 4)))
    return losses, _sums(model), type(kld.grad_fn).__name__


def _policy_gradients(T):
    """REINFORCE (Categorical log_prob, returns normalised by their std) and PPO's clipped
    objective over minibatches in a fixed order (ratio of exp(logp - old_logp), clamp, min,
    an entropy bonus, a smooth-L1 value loss, clip_grad_norm_)."""
    from importlib import import_module

    nn, F = T.nn, T.nn.functional
    Categorical = import_module(T.__name__ + ".distributions").Categorical
    body, pi, v = nn.Linear(4, 8), nn.Linear(8, 3), nn.Linear(8, 1)
    model = _init(T, nn.ModuleList([body, pi, v]), 6)
    opt = T.optim.Adam(model.parameters(), lr=3e-3)
    obs = T.tensor(np.random.default_rng(1).normal(size=(8, 4)), dtype=T.float32)

    def heads(x):
        h = T.tanh(body(x))
        return Categorical(logits=pi(h)), v(h).squeeze(-1)

    dist, _ = heads(obs)
    actions = dist.probs.argmax(-1)
    rewards = T.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0])
    returns, running = [], 0.0
    for r in reversed(rewards.tolist()):
        running = r + 0.9 * running
        returns.insert(0, running)
    returns = T.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    reinforce = (-dist.log_prob(actions) * returns).sum()
    opt.zero_grad()
    reinforce.backward()
    opt.step()
    with T.no_grad():
        dist, value = heads(obs)
        old_logp = dist.log_prob(actions)
    adv = rewards - value
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    order, losses = T.tensor([3, 6, 0, 7, 1, 4, 2, 5]), []
    for _ in range(2):
        for start in (0, 4):
            idx = order[start : start + 4]
            dist, value = heads(obs[idx])
            ratio = T.exp(dist.log_prob(actions[idx]) - old_logp[idx])
            clipped = T.clamp(ratio, 0.8, 1.2) * adv[idx]
            loss = -T.min(ratio * adv[idx], clipped).mean()
            loss = loss + 0.5 * F.smooth_l1_loss(value, rewards[idx]) - 0.01 * dist.entropy().mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            losses.append(round(loss.item(), 4))
    return round(reinforce.item(), 4), losses, _sums(model), ratio


def _dqn(T):
    """DQN steps: Q gathered at the actions, the target network's max(1)[0] under no_grad
    for the non-final states, Huber loss, soft updates by mul_/add_ and by lerp_."""
    nn, F = T.nn, T.nn.functional
    policy = _init(T, nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 2)), 7)
    target = _init(T, nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 2)), 8)
    opt = T.optim.AdamW(policy.parameters(), lr=1e-2, amsgrad=True)
    rng = np.random.default_rng(2)
    s, s2 = (T.tensor(rng.normal(size=(5, 3)), dtype=T.float32) for _ in range(2))
    a, r = T.tensor([0, 1, 1, 0, 1]), T.tensor([1.0, 0.0, 1.0, 1.0, 0.0])
    done = T.tensor([False, False, True, False, True])
    losses = []
    for step in range(3):
        q = policy(s).gather(1, a.unsqueeze(1))
        following = T.zeros(5)
        with T.no_grad():
            following[~done] = target(s2[~done]).max(1)[0]
        loss = F.smooth_l1_loss(q, (following * 0.99 + r).unsqueeze(1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        with T.no_grad():
            for tp, pp in zip(target.parameters(), policy.parameters()):
                if step % 2:
                    tp.lerp_(pp, 0.3)
                else:
                    tp.mul_(0.9).add_(pp, alpha=0.1)
        losses.append(round(loss.item(), 4))
    return losses, _sums(policy), target[2].bias, type(q.grad_fn).__name__


def _seq2seq(T):
    """A GRU encoder-decoder with Bahdanau attention (bmm, softmax), teacher forcing and
    NLLLoss, then greedy decoding by topk."""
    nn, F = T.nn, T.nn.functional
    H, V = 4, 6
    emb_e, gru_e = nn.Embedding(V, H), nn.GRU(H, H, batch_first=True)
    emb_d, gru_d, out = nn.Embedding(V, H), nn.GRU(2 * H, H, batch_first=True), nn.Linear(H, V)
    wa, ua, va = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(H, 1)
    model = _init(T, nn.ModuleList([emb_e, gru_e, emb_d, gru_d, out, wa, ua, va]), 2, 0.4)
    opt = T.optim.Adam(model.parameters(), lr=1e-2)
    src, tgt = T.tensor([[1, 2, 3, 4], [5, 4, 3, 0]]), T.tensor([[2, 3, 1], [5, 5, 1]])

    def decode(keys, h, target=None):
        inp, outs, weights = T.zeros(2, 1, dtype=T.long), [], []
        for i in range(3):
            scores = va(T.tanh(wa(h.permute(1, 0, 2)) + ua(keys))).squeeze(2).unsqueeze(1)
            w = F.softmax(scores, dim=-1)
            o, h = gru_d(T.cat((emb_d(inp), T.bmm(w, keys)), dim=2), h)
            outs.append(out(o))
            weights.append(w)
            inp = target[:, i].unsqueeze(1) if target is not None else o.topk(1)[1].squeeze(-1)
        return F.log_softmax(T.cat(outs, 1), -1), T.cat(weights, 1)

    losses = []
    for _ in range(2):
        keys, h = gru_e(emb_e(src))
        logp, attention = decode(keys, h, tgt)
        loss = F.nll_loss(logp.view(-1, V), tgt.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    with T.no_grad():
        keys, h = gru_e(emb_e(src))
        greedy = decode(keys, h)[0].argmax(-1)
    return losses, attention[1], _sums(gru_d), greedy


def _packed_lstm(T):
    """Variable-length sequences through a bidirectional two-layer LSTM:
    ``pack_padded_sequence(enforce_sorted=False)``, ``pad_packed_sequence``, the last hidden
    states of both directions classified."""
    nn, F = T.nn, T.nn.functional
    rnn = nn.utils.rnn
    emb = _init(T, nn.Embedding(9, 3, padding_idx=0), 1)
    lstm = _init(T, nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True), 2)
    head = _init(T, nn.Linear(8, 2), 3)
    seqs = [[3, 4, 1], [5, 6, 7, 8, 2], [1, 2]]
    lengths = T.tensor([len(s) for s in seqs])
    padded = rnn.pad_sequence([T.tensor(s) for s in seqs], batch_first=True)
    packed = rnn.pack_padded_sequence(emb(padded), lengths, batch_first=True, enforce_sorted=False)
    output, (h, c) = lstm(packed)
    unpacked, lens = rnn.pad_packed_sequence(output, batch_first=True)
    logits = head(T.cat([h[-2], h[-1]], dim=1))
    loss = F.cross_entropy(logits, T.tensor([0, 1, 1])) + unpacked.pow(2).mean()
    loss.backward()
    return loss, lens, packed.batch_sizes, unpacked[2, :, 0], _sums(lstm), emb.weight.grad[:2]


def _tcn(T):
    """A time-series 1-D CNN: causal padding by F.pad, dilated Conv1d, MaxPool1d, MSE, SGD
    with Nesterov momentum and StepLR."""
    nn, F = T.nn, T.nn.functional
    c1, c2, head = nn.Conv1d(2, 3, 3), nn.Conv1d(3, 3, 3, dilation=2), nn.Linear(3 * 4, 1)
    model = _init(T, nn.ModuleList([c1, c2, head]), 3)
    opt = T.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    sched = T.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    t = np.linspace(0, 6, 8)
    x = T.tensor(np.stack([np.stack([np.sin(t + i), np.cos(2 * t - i)]) for i in range(3)]))
    x, y = x.float(), T.tensor([[0.5], [-0.2], [0.1]])
    losses = []
    for _ in range(3):
        h = F.relu(c1(F.pad(x, (2, 0))))
        h = F.max_pool1d(F.relu(c2(F.pad(h, (4, 0)))), 2)
        loss = F.mse_loss(head(h.flatten(1)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(round(loss.item(), 4))
    return losses, _sums(model), sched.get_last_lr()


def _transformer(T):
    """A Transformer encoder (batch_first, pre- and post-norm layers) with a key padding
    mask, mean-pooled over the real tokens; MultiheadAttention with need_weights and a
    boolean attn_mask."""
    nn = T.nn
    found = []
    for norm_first in (False, True):
        layer = nn.TransformerEncoderLayer(
            4, 2, 8, dropout=0.0, batch_first=True, norm_first=norm_first
        )
        encoder = _init(T, nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), 2)
        ids = T.tensor([[1, 2, 3, 0], [4, 5, 0, 0]])
        emb = _init(T, nn.Embedding(6, 4), 3)
        pad = ids == 0
        h = encoder(emb(ids), src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        pooled = (h * keep).sum(1) / keep.sum(1)
        pooled.pow(2).sum().backward()
        found += [pooled, _sums(encoder)[:4]]
    attention = _init(T, nn.MultiheadAttention(4, 2, batch_first=True), 4)
    q = T.tensor(np.random.default_rng(5).normal(size=(1, 3, 4)), dtype=T.float32)
    mask = T.triu(T.ones(3, 3, dtype=T.bool), diagonal=1)
    out, weights = attention(q, q, q, attn_mask=mask, need_weights=True)
    return found + [out.sum(), weights]


def _adversarial(T):
    """FGSM (x.grad.sign() of data made to require grad) and two PGD steps clamped to the
    eps-ball and to [0, 1]; distillation by KLDivLoss(batchmean) with a temperature,
    log_target False and True."""
    nn, F = T.nn, T.nn.functional
    model = _init(T, nn.Sequential(nn.Flatten(), nn.Linear(4, 3)), 3).eval()
    data = T.tensor(np.random.default_rng(1).uniform(size=(2, 1, 2, 2)), dtype=T.float32)
    target = T.tensor([0, 2])
    data.requires_grad = True
    F.nll_loss(F.log_softmax(model(data), 1), target).backward()
    fgsm = T.clamp(data + 0.1 * data.grad.sign(), 0, 1)
    x0, x = data.detach(), data.detach().clone()
    for _ in range(2):
        x.requires_grad_()
        (g,) = T.autograd.grad(F.cross_entropy(model(x), target), [x])
        x = T.min(T.max(x.detach() + 0.05 * g.sign(), x0 - 0.08), x0 + 0.08).clamp(0.0, 1.0)
    student = _init(T, nn.Linear(4, 3), 4)
    soft = []
    for log_target in (False, True):
        s, t = student(x0.flatten(1)) / 2.0, model(x0) / 2.0
        kl = nn.KLDivLoss(reduction="batchmean", log_target=log_target)
        want = F.log_softmax(t, -1) if log_target else F.softmax(t, -1)
        loss = kl(F.log_softmax(s, -1), want.detach()) * 4.0
        loss.backward()
        soft.append(loss)
    return fgsm, x, soft, student.weight.grad[0]


def _function_hooks_checkpoint(T):
    """A custom Function (save_for_backward, needs_input_grad, once_differentiable), a hook
    scaling an activation's gradient, a full backward hook of a module, and a checkpointed
    block."""
    from importlib import import_module

    nn = T.nn
    once = import_module(T.__name__ + ".autograd.function").once_differentiable
    checkpoint = import_module(T.__name__ + ".utils.checkpoint").checkpoint
    needs = []

    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        @once
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            needs.append(tuple(ctx.needs_input_grad))
            return g * w if ctx.needs_input_grad[0] else None, (g * x).sum(0)

    lin, block = nn.Linear(3, 3), nn.Sequential(nn.Linear(3, 3), nn.Tanh())
    model = _init(T, nn.ModuleList([lin, block]), 5)
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append(round(go[0].sum().item(), 4)))
    x = T.tensor(np.random.default_rng(2).normal(size=(2, 3)), dtype=T.float32)
    w = T.tensor([1.0, -2.0, 0.5], requires_grad=True)
    h = lin(x)
    h.register_hook(lambda g: g * 0.5)
    out = checkpoint(block, Scale.apply(h, w), use_reentrant=False)
    out.pow(2).sum().backward()
    return type(out.grad_fn).__name__, needs, seen, w.grad, _sums(model)


_MULTI = "replace the inplace operation by an out-of-place one."
_CUSTOM = "by cloning the output of the custom Function."


def _channels(name: str) -> tuple:
    return ("RuntimeError", f"{name} should contain 4 elements not 3")


def _undefined(name: str) -> tuple:
    return ("RuntimeError", f"{name} must be defined in evaluation mode")


_BOTH = ("ValueError", "running_mean and running_var must either both be None or neither be None")

_TWICE = "ConvolutionBackwardBackward0"
_BACKEND = "Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
_INIT = "please make sure to call init_process_group."

CASES = {
    "attention_kernel_choice": (
        _attention_kernel_choice,
        (
            ([-1.8855, -0.3989, -0.1062, 0.6172], "float64", None),
            (False, True, True, False),
            (True, True, False),
            ("AssertionError", _BACKEND + "got str"),
            (-1, 0, 3),
            "<SDPBackend.MATH: 0>",
        ),
    ),
    "layers_from_pytorchs_module_paths": (
        _module_paths,
        (True,) * 12 + ("AttributeError", True, True),
    ),
    "training_boilerplate": (
        _training_boilerplate,
        (
            True,
            "high",
            "highest",
            False,
            True,
            ("AttributeError", "Unknown attribute allow_tf33"),
            False,
            True,
            True,
            "str",
            True,
            True,
            True,
            0.0,
            0,
            0,
            False,
            ("ValueError", "Default process group has not been initialized, " + _INIT),
            "ValueError",
            True,
            ("AssertionError", "Process group cannot be None"),
        ),
    ),
    "upsampling_gradient_penalty": (
        _upsampling_penalty,
        (
            "UpsampleBilinear2DBackwardBackward0",
            ("MulBackward0",),
            "UpsampleBilinear2DBackwardBackward0",
            ([1641.9136, 872.4372, 560.7533], "float64", None),
            "UpsampleNearest2DBackwardBackward0",
            ("MulBackward0",),
            "UpsampleNearest2DBackwardBackward0",
            ([8363.52, 349.92, 1399.68], "float64", None),
        ),
    ),
    "dcgan_step": (
        _dcgan,
        (
            ((1.4878, 0.7065), (1.4685, 0.7012)),
            (-0.23, -0.0349, -0.0147, -0.5745),
            (-0.1129, -4.556),
            ([0.8152, 0.842, 0.8258, 0.832], "float32", None),
            "BinaryCrossEntropyBackward0",
        ),
    ),
    "vae_and_conditional_vae": (
        _vae,
        (
            ((16.0693, 1.9236), (15.55, 1.5866), (15.5148, 1.2968)),
            (6.5176, 1.4016, -4.8236, -2.7502, -2.1575, -1.1582, 0.6348, -0.5905, -4.2847, -1.7744),
            "MulBackward0",
        ),
    ),
    "reinforce_and_ppo": (
        _policy_gradients,
        (
            -0.1607,
            (-0.3396, 0.4927, -0.3487, 0.4939),
            (0.5116, -0.0135, 0.0, -0.0, -0.0729, -0.0322),
            ([1.042, 1.008, 1.0322, 0.9919], "float32", "ExpBackward0"),
        ),
    ),
    "dqn_soft_updates": (
        _dqn,
        (
            (0.5515, 0.481, 0.3606),
            (0.0487, 0.0527, -0.1383, -0.5648),
            ([0.2696, -0.0229], "float32", None),
            "GatherBackward0",
        ),
    ),
    "seq2seq_bahdanau_attention": (
        _seq2seq,
        (
            (1.8475, 1.8024),
            (
                [
                    [0.2497, 0.2435, 0.2644, 0.2423],
                    [0.2532, 0.2408, 0.2684, 0.2375],
                    [0.253, 0.2413, 0.2677, 0.2381],
                ],
                "float32",
                "SelectBackward0",
            ),
            (0.1009, -0.0839, 0.2921, 0.1475),
            ([[5, 5, 5], [5, 5, 5]], "int64", None),
        ),
    ),
    "packed_bidirectional_lstm": (
        _packed_lstm,
        (
            (0.8469, "float32", "AddBackward0"),
            ([3, 5, 2], "int64", None),
            ([3, 3, 2, 1, 1], "int64", None),
            ([0.0447, 0.0797, 0.0, 0.0, 0.0], "float32", "SelectBackward0"),
            (
                -0.0011,
                0.0036,
                0.0364,
                0.0364,
                -0.003,
                -0.0026,
                0.0164,
                0.0164,
                -0.0346,
                0.0041,
                0.1087,
                0.1087,
                0.0078,
                -0.001,
                -0.0151,
                -0.0151,
            ),
            ([[0.0, 0.0, 0.0], [0.0003, 0.001, 0.0041]], "float32", None),
        ),
    ),
    "causal_dilated_conv1d": (
        _tcn,
        ((0.0657, 0.0407, 0.0367), (-0.0121, -0.0567, -0.162, -0.1384, 0.3898, 0.0944), (0.025,)),
    ),
    "transformer_encoder_padding_mask": (
        _transformer,
        (
            (
                [[0.3936, -0.0607, -0.0872, -0.503], [0.4006, -0.0599, -0.0857, -0.5031]],
                "float32",
                "DivBackward0",
            ),
            (0.0021, 0.0409, 0.0, 0.0),
            (
                [[-0.11, 0.1831, 0.33, -0.9001], [0.0018, 0.4378, 0.7659, -0.8771]],
                "float32",
                "DivBackward0",
            ),
            (-0.8205, 0.6736, -0.38, -0.3372),
            (-2.6205, "float32", "SumBackward0"),
            (
                [[[1.0, 0.0, 0.0], [0.4967, 0.5033, 0.0], [0.2446, 0.2717, 0.4837]]],
                "float32",
                "MeanBackward1",
            ),
        ),
    ),
    "fgsm_pgd_distillation": (
        _adversarial,
        (
            (
                [[[[0.4118, 1.0], [0.0442, 1.0]]], [[[0.4118, 0.3233], [0.7277, 0.3092]]]],
                "float32",
                "ClampBackward1",
            ),
            (
                [[[[0.4318, 1.0], [0.0642, 1.0]]], [[[0.3918, 0.3433], [0.7477, 0.3292]]]],
                "float32",
                None,
            ),
            ((0.1537, "float32", "MulBackward0"), (0.1537, "float32", "MulBackward0")),
            ([0.151, 0.2591, 0.1433, 0.2568], "float32", None),
        ),
    ),
    "function_hooks_checkpoint": (
        _function_hooks_checkpoint,
        (
            "TanhBackward0",
            ((True, True),),
            (0.549,),
            ([0.3353, -0.1131, -0.1259], "float32", None),
            (0.1151, 0.549, -0.0389, -1.9706),
        ),
    ),
    "conv_gradient_penalty": (
        _conv_gradient_penalty,
        (
            _TWICE,
            ("LeakyReluBackwardBackward0", "AccumulateGrad", "AccumulateGrad"),
            (0.6315, "float32", "MeanBackward0"),
            ([-0.0044, 0.0824], "float32", None),
            ([0.0, 0.0], "float32", None),
            (
                [[0.0162, -0.2562, -0.0106, -0.0102, -0.4921, -0.609, 0.0134, 0.7636]],
                "float32",
                None,
            ),
            _TWICE,
            ("MulBackward0", "AccumulateGrad", "AccumulateGrad"),
            ([33.5874], "float32", None),
            ([8.9317, 7.8175], "float32", None),
        ),
    ),
    "views_made_under_no_grad": (
        _no_grad_views,
        (
            True,
            True,
            True,
            True,
            True,
            True,
            True,
            "SumBackward0",
            None,
            None,
            "RuntimeError",
            "SliceBackward0",
            True,
            ("RuntimeError", "A view was created in"),
            ("RuntimeError", "Output 0 of Slice is a view of a view which was created in"),
            ([[2.0, 4.0, 6.0], [4.0, 5.0, 6.0]], "float32", None),
            (27.0, "float32", "SumBackward0"),
        ),
    ),
    "views_of_views_inherit": (
        _views_of_views,
        (
            ("RuntimeError", "Output 0 of Slice", _MULTI[-33:]),
            ("RuntimeError", "Output 0 of View", _MULTI[-33:]),
            ("RuntimeError", "Output 0 of T", _MULTI[-33:]),
            ("RuntimeError", "Output 0 of Select", _CUSTOM[-33:]),
            ("RuntimeError", "Output 0 of View", _CUSTOM[-33:]),
            "A view was created in no_grad mode and is being ",
            (15.0, "float32", "SumBackward0"),
        ),
    ),
    "batch_norm_size_checks": (
        _batch_norm_sizes,
        (
            _channels("running_mean"),
            _channels("weight"),
            _channels("running_var"),
            _channels("running_var"),
            _channels("weight"),
            _channels("weight"),
            _channels("weight"),
            _undefined("running_mean"),
            _channels("weight"),
            _undefined("running_var"),
            _BOTH,
            _undefined("running_var"),
            _channels("running_var"),
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
