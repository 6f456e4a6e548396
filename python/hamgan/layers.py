"""HamGAN's layers: spectral norm (modules/spectral_norm.cpp, spectral_divide.cpp), the weight
initialisations (gan/model/model_init.cpp) and TF-GAN conditional batch norm (modules/conditional_bn.cpp).

Names follow the C++ modules: SN layers hold the raw `weight`, `bias` and the buffer `u`; ConditionalBN
holds `gain`, `bias`, `running_mean`, `running_var`. Under bf16 autocast the parts the library keeps in
float32 (modules/fp32_region.h) stay float32 here too."""
import torch
import torch.nn.functional as F
from torch import nn

SN_EPS = 1e-12  # tf.math.l2_normalize's bound on the squared norm
BN_EPS, BN_MOMENTUM = 1e-3, 1e-3  # TF-GAN batch norm: eps 1e-3, moving-average decay 0.999


def fp32_region(device):
    """Autocast off for the scope: what runs inside stays float32 (modules/fp32_region.h)."""
    return torch.autocast(device.type, enabled=False)


def _l2_normalize(x):
    return x * torch.rsqrt(torch.clamp_min(torch.linalg.vector_norm(x).square(), SN_EPS))


class _SpectralDivide(torch.autograd.Function):
    """W / d with the library's closed-form backward G/d - scale * <G, W> * u v^T (u, v, scale constants)."""

    @staticmethod
    def forward(ctx, w, d, u, v, scale):
        ctx.save_for_backward(w, d, u, v, scale)
        return w / d

    @staticmethod
    def backward(ctx, g):
        w, d, u, v, scale = ctx.saved_tensors
        c = (g * w).sum() * scale
        return g / d - torch.outer(u * c, v).view_as(w), None, None, None, None


def spectral_normalize(weight, u, exact, update):
    """W / sigma (exact) or W / max(1, sigma) after one power iteration from the stored u; u is overwritten
    only when `update` (training). The arithmetic of the C++ code, so eval outputs agree to rounding."""
    with fp32_region(weight.device):
        with torch.no_grad():
            w = weight.detach().reshape(weight.size(0), -1)
            v = _l2_normalize(torch.mv(w.t(), u))
            wv = torch.mv(w, v)
            sum_squares = torch.linalg.vector_norm(wv).square()
            factor = torch.rsqrt(torch.clamp_min(sum_squares, SN_EPS))
            u_new = wv * factor
            if update:
                u.copy_(u_new)
            sigma = sum_squares * factor  # u^T W v with u = Wv / |Wv|
            d = sigma if exact else torch.clamp_min(sigma, 1.0)
        if torch.is_grad_enabled() and weight.requires_grad:
            counts = torch.ones_like(sigma) if exact else sigma.ge(1.0).to(sigma.dtype)
            return _SpectralDivide.apply(weight, d, u_new, v, counts / (d * d))
        return weight / d  # plain ops without autograd: traceable and exportable


def init_weight(w, fan_in, fan_out, scheme):
    """The `init` model key: xavier (Glorot uniform, TF-GAN), orthogonal or n02 (N(0, 0.02))."""
    with torch.no_grad():
        if scheme == "xavier":
            bound = (6.0 / (fan_in + fan_out)) ** 0.5
            w.uniform_(-bound, bound)
        elif scheme == "orthogonal":
            nn.init.orthogonal_(w)
        elif scheme == "n02":
            w.normal_(0.0, 0.02)
        else:
            raise ValueError(f"init '{scheme}' is unknown; use xavier, orthogonal or n02")


class SNConv2d(nn.Module):
    """Spectrally normalised conv, 'same' padding, stride 1; exact: W / sigma (the context blocks' 1x1 convs),
    else W / max(1, sigma)."""

    def __init__(self, cin, cout, k, bias=True, exact=False, init="xavier"):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(cout, cin, k, k))
        self.bias = nn.Parameter(torch.zeros(cout)) if bias else None
        self.register_buffer("u", torch.randn(cout))
        self.exact, self.padding = exact, k // 2
        init_weight(self.weight, cin * k * k, cout * k * k, init)

    def normalized_weight(self):
        return spectral_normalize(self.weight, self.u, self.exact, self.training)

    def forward(self, x):
        return F.conv2d(x, self.normalized_weight(), self.bias, padding=self.padding)


class SNLinear(nn.Module):
    def __init__(self, fin, fout, init="xavier", bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(fout, fin))
        self.bias = nn.Parameter(torch.zeros(fout)) if bias else None
        self.register_buffer("u", torch.randn(fout))
        init_weight(self.weight, fin, fout, init)

    def forward(self, x):
        return F.linear(x, spectral_normalize(self.weight, self.u, False, self.training), self.bias)


class SNEmbedding(nn.Module):
    """Class embedding of the projection D, normalised as a (classes, dim) matrix (u has one entry per class)."""

    def __init__(self, classes, dim, init="xavier"):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(classes, dim))
        self.register_buffer("u", torch.randn(classes))
        init_weight(self.weight, classes, dim, init)

    def forward(self, y):
        return F.embedding(y, spectral_normalize(self.weight, self.u, False, self.training))


class ConditionalBN(nn.Module):
    """TF-GAN batch norm: biased batch variance, eps 1e-3, decay 0.999; per-class gain (init 1, used
    directly) and bias tables gathered by label; classes 0: one row, labels ignored."""

    def __init__(self, c, classes):
        super().__init__()
        rows = max(classes, 1)
        self.gain, self.bias = nn.Parameter(torch.ones(rows, c)), nn.Parameter(torch.zeros(rows, c))
        self.register_buffer("running_mean", torch.zeros(c))
        self.register_buffer("running_var", torch.ones(c))
        self.conditional, self.c = classes > 0, c

    def forward(self, x, y=None):
        with fp32_region(x.device):  # float32 statistics; a bf16 map stays bf16 (conditional_bn.cpp)
            return self._forward(x, y)

    def _forward(self, x, y):
        c, reduced = self.c, x.dtype in (torch.bfloat16, torch.float16)
        if self.conditional:
            if y is None:
                raise ValueError(f"ConditionalBN({c}): class-conditional BN needs int64 labels of shape (N,)")
            g, b = self.gain[y].view(-1, c, 1, 1), self.bias[y].view(-1, c, 1, 1)
        else:
            g, b = self.gain.view(1, c, 1, 1), self.bias.view(1, c, 1, 1)
        if self.training:  # ATen's fused batch norm; the moving averages take the biased variance
            # A float32 weight keeps the statistics of a bf16 input in float32.
            unit = torch.ones(c, device=x.device) if reduced else None
            out, mean, inv_std = torch.native_batch_norm(x, unit, None, None, None, True, 0.0, BN_EPS)
            with torch.no_grad():
                moving = [self.running_mean, self.running_var]
                torch._foreach_mul_(moving, 1 - BN_MOMENTUM)
                torch._foreach_add_(moving, [mean, inv_std.pow(-2) - BN_EPS], alpha=BN_MOMENTUM)
            return torch.addcmul(b.to(x.dtype), out, g.to(x.dtype)) if reduced else torch.addcmul(b, out, g)
        scale = torch.rsqrt(self.running_var + BN_EPS).view(1, c, 1, 1)
        if reduced:  # x (scale g) + (b - mean scale g): one pass over the bf16 map
            a = scale * g
            return torch.addcmul((b - self.running_mean.view(1, c, 1, 1) * a).to(x.dtype), x, a.to(x.dtype))
        return (x - self.running_mean.view(1, c, 1, 1)) * scale * g + b
