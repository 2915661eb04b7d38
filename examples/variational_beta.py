"""Variational inference with reparameterized Beta samples: the bias of a coin.

A coin shows 14 heads in 20 throws. With a uniform prior, Beta(1, 1), the exact posterior of
its bias is Beta(1 + 14, 1 + 6) = Beta(15, 7). Here a Beta(a, b) is fitted to it by maximizing
the evidence lower bound, estimated from ``rsample()`` draws: the draws are differentiable in
``a`` and ``b`` (the implicit reparameterization gradient of gamma samples), so Adam follows
the estimate's gradient. The closed-form KL divergence to the exact posterior measures the fit.

Run it with ``python examples/variational_beta.py``; it works the same with
``import torch`` in place of ``import symgrad as torch``.
"""

import symgrad as torch
from symgrad.distributions import Bernoulli, Beta, kl_divergence

torch.manual_seed(0)
heads, throws = 14, 20
data = torch.cat([torch.ones(heads), torch.zeros(throws - heads)])
prior = Beta(torch.tensor(1.0), torch.tensor(1.0))

# unconstrained parameters: a = exp(log_a), b = exp(log_b)
log_a = torch.zeros((), requires_grad=True)
log_b = torch.zeros((), requires_grad=True)
optimizer = torch.optim.Adam([log_a, log_b], lr=0.08)

for _ in range(800):
    q = Beta(log_a.exp(), log_b.exp())
    p = q.rsample((64,)).clamp(1e-6, 1 - 1e-6)  # 64 draws of the bias, differentiable
    log_likelihood = Bernoulli(probs=p.unsqueeze(-1)).log_prob(data).sum(-1)
    elbo = (log_likelihood + prior.log_prob(p) - q.log_prob(p)).mean()
    optimizer.zero_grad()
    (-elbo).backward()
    optimizer.step()

exact = Beta(torch.tensor(1.0 + heads), torch.tensor(1.0 + throws - heads))
fitted = Beta(log_a.exp().detach(), log_b.exp().detach())
print(
    f"fitted posterior: Beta({fitted.concentration1.item():.1f}, "
    f"{fitted.concentration0.item():.1f})"
)
print(
    f"exact posterior:  Beta({exact.concentration1.item():.0f}, {exact.concentration0.item():.0f})"
)
print(f"posterior mean: fitted {fitted.mean.item():.3f}, exact {exact.mean.item():.3f}")
print(f"KL(fitted || exact) = {kl_divergence(fitted, exact).item():.4f}")
