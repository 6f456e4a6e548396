"""The Hamburger context block (modules/ham_block.cpp, ham_decomposition.cpp), in eval and training mode:
lower SN 1x1 bread (W / sigma, no bias) -> ReLU (NMF only) -> K steps of NMF, soft VQ or soft concept
decomposition of X (B, d, n) at rank r -> final code step -> upper SN 1x1 bread -> class-conditional BN (G
only) -> x + sigma * out. Bases D (B, d, r), codes C (B, n, r), reconstruction D C^T."""
import torch
from torch import nn

from .layers import ConditionalBN, SNConv2d, fp32_region

HAM_EPS = 1e-6      # denominators and normalisations (kHamEps)
ONLINE_ETA = 0.9    # online bases: D += eta (mean_B(D_K) - D), then L2-normalised over d


def _normalize_d(t, eps):
    return t / t.norm(2, 1, keepdim=True).clamp_min(eps)


def random_bases(kind, batch, d, r, device=None, generator=None, dtype=None):
    """ham_random_bases: NMF U[0,1) (not normalised), VQ/CD N(0,1) L2-normalised over d (eps 1e-12)."""
    if kind == "nmf":
        return torch.rand(batch, d, r, device=device, generator=generator, dtype=dtype)
    return _normalize_d(torch.randn(batch, d, r, device=device, generator=generator, dtype=dtype), 1e-12)


def _soft_assign(logits, temperature):
    """softmax over r of logits / T, each column then divided by its sum over n (paper Alg. 1)."""
    c = torch.softmax(logits / temperature, -1)
    return c / (c.sum(1, keepdim=True) + HAM_EPS)


def _inverse_column_norms(x):
    return x.norm(2, 1, keepdim=True).clamp_min(1e-12).reciprocal().transpose(1, 2)  # (B, n, 1)


def _nmf_update_codes(x, bases, codes):
    return codes * torch.bmm(x.transpose(1, 2), bases) / (torch.bmm(codes, torch.bmm(bases.transpose(1, 2), bases))
                                                          + HAM_EPS)


def _nmf_update_bases(x, bases, codes):
    return bases * torch.bmm(x, codes) / (torch.bmm(bases, torch.bmm(codes.transpose(1, 2), codes)) + HAM_EPS)


class HamBlock(nn.Module):
    """`ham` with the model keys ham_type, ham_train_steps, ham_eval_steps, ham_rank (0: max(1, d/8)),
    ham_gradient (one-step: K steps without autograd, gradient through the final code step; bptt),
    ham_temperature (0: NMF 1, VQ/CD 0.01), ham_beta (CD ridge term) and ham_init (random: fresh bases each
    forward from torch's default generator on the input's device; online: the `online_bases` buffer,
    moved towards the batch's bases after every eval forward)."""

    def __init__(self, channels, opts, classes=0, init="xavier"):
        super().__init__()
        c = channels
        self.channels, self.kind = c, opts["ham_type"]
        self.rank = opts["ham_rank"] if opts["ham_rank"] > 0 else max(1, c // 8)
        if self.rank > c:
            raise ValueError(f"ham: ham_rank {self.rank} is more than the block's {c} channels; use a ham_rank "
                             f"from 1 to {c}, or 0 for max(1, channels / 8) = {max(1, c // 8)}")
        self.train_steps, self.eval_steps = opts["ham_train_steps"], opts["ham_eval_steps"]
        self.one_step = opts["ham_gradient"] == "one-step"
        self.temperature = opts["ham_temperature"] or (1.0 if self.kind == "nmf" else 0.01)
        self.beta, self.online = opts["ham_beta"], opts["ham_init"] == "online"
        self.lower = SNConv2d(c, c, 1, bias=False, exact=True, init=init)
        self.upper = SNConv2d(c, c, 1, bias=False, exact=True, init=init)
        self.bn = ConditionalBN(c, classes) if classes > 0 else None
        self.sigma = nn.Parameter(torch.zeros(()))
        if self.online:
            self.register_buffer("online_bases", _normalize_d(random_bases(self.kind, 1, c, self.rank), 1e-12))
        # Set by fix_ham_bases: one (1, d, r) set instead of fresh draws; not part of the weights.
        self.register_buffer("fixed_bases", None, persistent=False)

    def initial_bases(self, batch, like):
        """D0 in X's dtype (float32 under autocast, float64 for a float64 block), as ham_block.cpp builds it."""
        if self.online:
            return self.online_bases.to(like.dtype).expand(batch, -1, -1).contiguous()
        if self.fixed_bases is not None:
            return self.fixed_bases.to(like.dtype).expand(batch, -1, -1).contiguous()
        return random_bases(self.kind, batch, self.channels, self.rank, device=like.device, dtype=like.dtype)

    def forward(self, x, y=None):
        if x.dim() != 4 or x.size(1) != self.channels:
            raise ValueError(f"ham: expected input (N, {self.channels}, H, W), got {tuple(x.shape)}")
        if self.bn is not None and (y is None or y.dim() != 1 or y.size(0) != x.size(0)):
            raise ValueError("ham: class-conditional BN needs labels of shape (N,) with N = batch size")
        b, c, n = x.size(0), self.channels, x.size(2) * x.size(3)
        w_low = self.lower.normalized_weight().reshape(c, c)
        X = torch.bmm(w_low.expand(b, c, c), x.reshape(b, c, n))  # the 1x1 conv as one batched matmul
        with fp32_region(x.device):  # the decomposition is float32, or float64 in a float64 block
            X = X.float() if X.dtype in (torch.float16, torch.bfloat16) else X
            if self.kind == "nmf":  # NMF factors a non-negative matrix
                X = torch.relu(X)
            bases, codes = self.decompose(X, self.initial_bases(b, X))
        if self.online and not self.training:
            self._online_update(bases)
        w_up = self.upper.normalized_weight().reshape(c, c)
        if self.bn is not None:  # CBN needs the activations: W_u (D C^T)
            out = torch.bmm(w_up.expand(b, c, c), torch.bmm(bases, codes.transpose(1, 2)))
            return x + self.sigma * self.bn(out.view(x.shape), y)
        m = torch.matmul(w_up, bases) * self.sigma  # (W_u D) C^T: the (d x n) reconstruction never formed
        return torch.baddbmm(x.reshape(b, c, n), m, codes.transpose(1, 2)).view(x.shape)

    def decompose(self, X, bases):
        """K local steps (without autograd in one-step mode), then the final code step."""
        steps = self.train_steps if self.training else self.eval_steps
        codes = None
        with torch.set_grad_enabled(torch.is_grad_enabled() and not self.one_step):
            if self.kind == "nmf":
                codes = torch.softmax(torch.bmm(X.transpose(1, 2), bases) / self.temperature, -1)
                for _ in range(steps):
                    codes = _nmf_update_codes(X, bases, codes)
                    bases = _nmf_update_bases(X, bases, codes)
            elif self.kind == "vq":
                for _ in range(steps):
                    cosine = torch.bmm(X.transpose(1, 2), _normalize_d(bases, HAM_EPS)) * _inverse_column_norms(X)
                    codes = _soft_assign(cosine, self.temperature)
                    bases = torch.bmm(X, codes)
            else:
                for _ in range(steps):
                    codes = _soft_assign(torch.bmm(X.transpose(1, 2), bases) * _inverse_column_norms(X),
                                         self.temperature)
                    bases = _normalize_d(torch.bmm(X, codes), HAM_EPS)
        if self.one_step:
            bases = bases.detach()
            codes = codes.detach() if codes is not None else None
        return bases, self.final_codes(X, bases, codes)

    def final_codes(self, X, bases, codes):
        if self.kind == "nmf":
            if self.one_step:  # C (X^T D) / (C D^T D + eps) with C, D constant: one differentiable product
                with torch.no_grad():
                    scale = codes / (torch.bmm(codes, torch.bmm(bases.transpose(1, 2), bases)) + HAM_EPS)
                return torch.bmm(X.transpose(1, 2), bases) * scale
            return _nmf_update_codes(X, bases, codes)
        if self.kind == "vq":
            norm = X.norm(2, 1, keepdim=True).transpose(1, 2)  # (B, n, 1)
            if self.one_step:
                norm = norm.detach()
            cosine = torch.bmm(X.transpose(1, 2), _normalize_d(bases, HAM_EPS)) / (norm + HAM_EPS)
            return torch.softmax(cosine / self.temperature, -1)
        # CD: ridge least squares C = X^T D (D^T D + beta I)^-1, solved, not inverted
        gram = torch.bmm(bases.transpose(1, 2), bases) + self.beta * torch.eye(self.rank, device=bases.device)
        return torch.linalg.solve_ex(gram, torch.bmm(bases.transpose(1, 2), X))[0].transpose(1, 2)

    @torch.no_grad()
    def _online_update(self, bases):
        updated = self.online_bases + ONLINE_ETA * (bases.mean(0, keepdim=True).to(self.online_bases.dtype)
                                                    - self.online_bases)
        self.online_bases.copy_(_normalize_d(updated, 1e-12))


def fix_ham_bases(module, seed):
    """Every random-init HamBlock in `module` uses one (1, d, r) set of bases drawn once from
    torch.Generator().manual_seed(seed) (a fresh generator per block), broadcast over the batch, so outputs no
    longer depend on the global RNG; seed None: back to fresh draws each forward. Online blocks keep theirs."""
    for m in module.modules():
        if isinstance(m, HamBlock) and not m.online:
            if seed is None:
                m.fixed_bases = None
                continue
            bases = random_bases(m.kind, 1, m.channels, m.rank, generator=torch.Generator().manual_seed(seed))
            m.fixed_bases = bases.to(m.lower.weight.device)
    return module
