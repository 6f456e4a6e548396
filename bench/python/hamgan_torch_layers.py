"""The layers of the C++ library in PyTorch eager Python, for bench/python/hamgan_torch.py: spectral norm
(modules/spectral_norm.cpp), the weight initialisations and TF-GAN conditional batch norm
(modules/conditional_bn.cpp), with the library's float32 regions under bf16 autocast (modules/fp32_region.h)."""
import torch
import torch.nn.functional as F
from torch import nn


def fp32_region(device):
    """Autocast off: what runs inside stays float32 (modules/fp32_region.h's Fp32Region)."""
    return torch.autocast(device.type, enabled=False)


def l2_normalize(x, eps=1e-12):
    return x * torch.rsqrt(torch.clamp_min(x.square().sum(), eps))


def spectral_normalize(weight, u, exact, update):
    with fp32_region(weight.device):
        return spectral_normalize_fp32(weight, u, exact, update)


def spectral_normalize_fp32(weight, u, exact, update):
    w = weight.reshape(weight.size(0), -1)
    with torch.no_grad():
        v = l2_normalize(torch.mv(w.t(), u))
        u_new = l2_normalize(torch.mv(w, v))
        if update:
            u.copy_(u_new)
    sigma = torch.dot(u_new, torch.mv(w, v))
    return weight / (sigma if exact else torch.clamp_min(sigma, 1.0))


def init_weight(w, fan_in, fan_out, scheme):
    with torch.no_grad():
        if scheme == "xavier":
            bound = (6.0 / (fan_in + fan_out)) ** 0.5
            w.uniform_(-bound, bound)
        elif scheme == "orthogonal":
            nn.init.orthogonal_(w)
        else:
            w.normal_(0.0, 0.02)


class SNConv2d(nn.Module):
    def __init__(self, cin, cout, k, bias=True, exact=False, init="xavier"):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(cout, cin, k, k))
        self.bias = nn.Parameter(torch.zeros(cout)) if bias else None
        self.register_buffer("u", torch.randn(cout))
        self.exact, self.pad = exact, k // 2
        init_weight(self.weight, cin * k * k, cout * k * k, init)

    def normalized_weight(self):
        return spectral_normalize(self.weight, self.u, self.exact, self.training)

    def forward(self, x):
        return F.conv2d(x, self.normalized_weight(), self.bias, padding=self.pad)


class SNLinear(nn.Module):
    def __init__(self, fin, fout, init):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(fout, fin))
        self.bias = nn.Parameter(torch.zeros(fout))
        self.register_buffer("u", torch.randn(fout))
        init_weight(self.weight, fin, fout, init)

    def forward(self, x):
        return F.linear(x, spectral_normalize(self.weight, self.u, False, self.training), self.bias)


class SNEmbedding(nn.Module):
    def __init__(self, classes, dim, init):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(classes, dim))
        self.register_buffer("u", torch.randn(classes))
        init_weight(self.weight, classes, dim, init)

    def forward(self, y):
        return F.embedding(y, spectral_normalize(self.weight, self.u, False, self.training))


class ConditionalBN(nn.Module):
    """TF-GAN batch norm: biased batch variance, eps 1e-3, decay 0.999; per-class gain and bias (classes 0: one row)."""

    def __init__(self, c, classes):
        super().__init__()
        rows = max(classes, 1)
        self.gain, self.bias = nn.Parameter(torch.ones(rows, c)), nn.Parameter(torch.zeros(rows, c))
        self.register_buffer("running_mean", torch.zeros(c))
        self.register_buffer("running_var", torch.ones(c))
        self.conditional, self.c = classes > 0, c

    def forward(self, x, y=None):
        with fp32_region(x.device):  # statistics and normalisation in float32 (conditional_bn.cpp)
            return self.forward_fp32(x.float(), y)

    def forward_fp32(self, x, y):
        c = self.c
        g = (self.gain[y] if self.conditional else self.gain).view(-1, c, 1, 1)
        b = (self.bias[y] if self.conditional else self.bias).view(-1, c, 1, 1)
        if self.training:  # ATen's fused batch norm, as F.batch_norm; the moving averages take the biased variance
            out, mean, inv_std = torch.native_batch_norm(x, None, None, None, None, True, 0.0, 1e-3)
            with torch.no_grad():
                self.running_mean.mul_(1 - 1e-3).add_(mean, alpha=1e-3)
                self.running_var.mul_(1 - 1e-3).add_(inv_std.pow(-2) - 1e-3, alpha=1e-3)
            return torch.addcmul(b, out, g)
        mean, var = self.running_mean, self.running_var
        return (x - mean.view(1, c, 1, 1)) * torch.rsqrt(var + 1e-3).view(1, c, 1, 1) * g + b
