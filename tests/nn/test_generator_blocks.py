"""Generator and decoder blocks of the DCGAN and UNet kind (transposed convolutions,
upsampling, pixel shuffle, skip connections) against PyTorch with the same weights: outputs
and every parameter's gradient after one backward pass, and one optimizer step."""

from __future__ import annotations

import numpy as np
import pytest


def _generator(T):
    nn = T.nn
    return nn.Sequential(
        nn.ConvTranspose2d(8, 16, 4, 1, 0, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(True),
        nn.ConvTranspose2d(16, 8, 4, 2, 1, bias=False),
        nn.BatchNorm2d(8),
        nn.ReLU(True),
        nn.Upsample(scale_factor=2, mode="bilinear"),
        nn.Conv2d(8, 12, 3, padding=1),
        nn.PixelShuffle(2),
        nn.ConvTranspose2d(3, 3, 3, 2, 1, output_padding=1),
        nn.Tanh(),
    )


def _unet_step(T, modules, x):
    down, up, merge = modules
    skip = T.relu(down(x))
    low = T.nn.functional.max_pool2d(skip, 2)
    high = up(low)
    joined = T.cat([high, T.nn.functional.interpolate(low, size=high.shape[-2:])], dim=1)
    return merge(joined)


def test_generator_and_unet_blocks_against_torch():
    torch = pytest.importorskip("torch")
    import symgrad

    torch.manual_seed(0)
    theirs = _generator(torch)
    ours = _generator(symgrad)
    ours.load_state_dict({k: symgrad.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    z = np.random.default_rng(0).standard_normal((4, 8, 1, 1)).astype(np.float32)
    ty, y = theirs(torch.tensor(z)), ours(symgrad.tensor(z))
    assert y.shape == (4, 3, 64, 64)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), atol=2e-6)
    ty.pow(2).mean().backward()
    y.pow(2).mean().backward()
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(
            p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name
        )

    def unet(T):
        nn = T.nn
        return [nn.Conv2d(2, 4, 3, padding=1), nn.ConvTranspose2d(4, 4, 2, 2), nn.Conv2d(8, 1, 1)]

    tmods, mods = unet(torch), unet(symgrad)
    for m, tm in zip(mods, tmods):
        m.load_state_dict({k: symgrad.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    params = [p for m in mods for p in m.parameters()]
    tparams = [p for m in tmods for p in m.parameters()]
    opt, topt = symgrad.optim.SGD(params, lr=0.1), torch.optim.SGD(tparams, lr=0.1)
    x = np.random.default_rng(1).standard_normal((2, 2, 6, 6)).astype(np.float32)
    for _ in range(2):
        loss = _unet_step(symgrad, mods, symgrad.tensor(x)).pow(2).mean()
        tloss = _unet_step(torch, tmods, torch.tensor(x)).pow(2).mean()
        np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
        opt.zero_grad()
        topt.zero_grad()
        loss.backward()
        tloss.backward()
        opt.step()
        topt.step()
    for p, q in zip(params, tparams):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)
