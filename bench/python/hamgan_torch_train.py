"""The trainer's step functions (gan/step/steps.cpp) in PyTorch eager Python, for bench/python/train_step.py:
the losses, the precision modes, and G, D, G_ema (the hamgan package's networks) with their Adam optimisers,
stepped as the library steps them."""
import torch
import torch.nn.functional as F

from hamgan_torch import Discriminator, Generator


def d_loss_fn(kind, real, fake):
    if kind == "hinge":
        return torch.relu(1 - real).mean() + torch.relu(1 + fake).mean()
    return F.softplus(-real).mean() + F.softplus(fake).mean()


def g_loss_fn(kind, fake):
    return -fake.mean() if kind == "hinge" else F.softplus(-fake).mean()


def resolve_precision(name, device):
    """The `precision` key's modes (gan/step/precision.cpp): auto is tf32 on CUDA, fp32 elsewhere."""
    if name == "auto":
        name = "tf32" if device.type == "cuda" else "fp32"
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = name != "fp32"
        torch.backends.cudnn.allow_tf32 = name != "fp32"
        torch.backends.cudnn.benchmark = True  # as the trainer on CUDA
    return name


class Bench:
    def __init__(self, m, t, device, channels_last=False, precision="fp32"):
        """m: the model config (hamgan.config keys), t: the train keys."""
        torch.manual_seed(t["seed"])
        self.m, self.t, self.device = m, t, device
        self.autocast_dtype = torch.bfloat16 if precision == "bf16" else None
        self.g = Generator(m).to(device)
        self.d = Discriminator(m).to(device)
        self.g_ema = Generator(m).to(device) if t["ema"] else None
        if self.g_ema is not None:
            self.g_ema.load_state_dict(self.g.state_dict())
        self.memory_format = torch.channels_last if channels_last else torch.contiguous_format
        for net in (self.g, self.d, self.g_ema):
            if net is not None:
                net.to(memory_format=self.memory_format)
        betas = (t["beta1"], t["beta2"])
        self.g_opt = torch.optim.Adam(self.g.parameters(), lr=t["g_lr"], betas=betas, eps=t["adam_eps"])
        self.d_opt = torch.optim.Adam(self.d.parameters(), lr=t["d_lr"], betas=betas, eps=t["adam_eps"])
        self.noise = torch.Generator().manual_seed(t["seed"] + 1)
        self.step = 0
        if self.g_ema is not None:
            self.ema_pairs = list(zip(list(self.g.parameters()) + [b for b in self.g.buffers() if b.is_floating_point()],
                                      list(self.g_ema.parameters()) + [b for b in self.g_ema.buffers() if b.is_floating_point()]))

    def forward_precision(self):
        """bf16: the forward passes under autocast; otherwise nothing changes."""
        return torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.autocast_dtype is not None)

    def draw_noise(self, n):
        z = torch.randn(n, self.m["z_dim"], generator=self.noise)
        y = torch.randint(0, self.m["num_classes"], (n,), generator=self.noise)
        return z.to(self.device), y.to(self.device)

    def d_step(self, batches, timer=None):
        self.d.requires_grad_(True)
        for real, y_real in batches:
            real = real.to(self.device).contiguous(memory_format=self.memory_format)
            y_real = y_real.to(self.device)
            z, y_fake = self.draw_noise(real.size(0))
            with self.forward_precision():
                with torch.no_grad():
                    fake = self.g(z, y_fake)
                logits = self.d(torch.cat([real, fake.to(real.dtype)]), torch.cat([y_real, y_fake])).float()
            loss = d_loss_fn(self.t["loss"], logits[:real.size(0)], logits[real.size(0):])
            timer and timer.lap("d_forward")
            self.d_opt.zero_grad()
            loss.backward()
            timer and timer.lap("d_backward")
            self.d_opt.step()
            timer and timer.lap("d_optimiser")
        self.d.requires_grad_(False)

    def g_step(self, timer=None):
        z, y = self.draw_noise(self.t["batch_size"])
        with self.forward_precision():
            logits = self.d(self.g(z, y), y).float()
        loss = g_loss_fn(self.t["loss"], logits)
        timer and timer.lap("g_forward")
        self.g_opt.zero_grad()
        loss.backward()
        timer and timer.lap("g_backward")
        self.g_opt.step()
        timer and timer.lap("g_optimiser")

    @torch.no_grad()
    def ema_step(self):
        if self.g_ema is None:
            return
        decay = 0.0 if self.step < self.t["ema_start"] else self.t["ema_decay"]
        for p, e in self.ema_pairs:
            e.mul_(decay).add_(p, alpha=1 - decay)

