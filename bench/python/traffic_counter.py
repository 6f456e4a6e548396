"""Memory-bound bytes and float32<->bf16 activation casts per training step and phase, for
`train_step.py --profile`: the rules of the C++ library's core/op_traffic.h applied to the ops PyTorch
dispatches, as a TorchDispatchMode sees them (below autograd and autocast, so the backward passes and
autocast's casts are in).

  bytes  every op that does work and is not a convolution or a matrix product: its tensor arguments read,
         the tensors it returns written; an op that only writes an argument (copy_, fill_, zero_, out=) does
         not read it; an in-place op returning nothing (_foreach_*_) writes its first argument; a gather
         (index_select, index, gather, embedding, take) reads from its first argument only what it writes.
         Per image: the bytes of tensors that grow with the batch (first dimension a multiple of it, no
         parameter's shape), over the batch.
  cast   a copy_ or _to_copy between float32 and bfloat16 of an activation: the first dimension a multiple
         of the batch, at least two more larger than one, and not the shape of a parameter of G or D.
"""
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from hamgan_torch_profile import KEYS, METADATA_OPS, profiled_step

# Must match is_compute_bound_op in core/op_traffic.cpp (besides every name containing "conv").
PRODUCTS = frozenset(("aten::mm", "aten::bmm", "aten::addmm", "aten::baddbmm", "aten::addbmm", "aten::matmul",
                      "aten::linear", "aten::mv", "aten::addmv", "aten::dot", "aten::_addmm_activation",
                      "aten::mkldnn_linear"))
GATHERS = frozenset(("aten::index_select", "aten::index", "aten::gather", "aten::embedding", "aten::take"))
FLOAT_OR_BF16 = (torch.float32, torch.bfloat16)


def compute_bound(name):
    return "conv" in name or name in PRODUCTS


def tensors(tree):
    return [t for t in tree_flatten(tree)[0] if isinstance(t, torch.Tensor)]


def nbytes(t):
    return t.numel() * t.element_size()


def kernel_bytes(name, overload, args, kwargs, out, size=nbytes):
    """The bytes the op moves, each tensor counted as size(tensor)."""
    written = tensors(out)
    total = sum(size(t) for t in written)
    if not written and name.endswith("_") and args:
        total += sum(size(t) for t in tensors(args[0]))
    if name in GATHERS:  # reads from its first argument only what it writes
        return 2 * total + sum(size(t) for t in tensors((args[1:], kwargs)))
    only_writes = name == "aten::copy_" or name.endswith(("fill_", "zero_")) or overload.startswith("out")
    targets = {t.data_ptr() for t in written} if only_writes else set()
    return total + sum(size(t) for t in tensors((args, kwargs)) if t.data_ptr() not in targets)


class ActivationRule:
    def __init__(self, batch, parameter_shapes):
        self.batch, self.parameter_shapes = batch, set(parameter_shapes)

    def grows_with_batch(self, t):
        shape = tuple(t.shape)
        return len(shape) > 0 and shape[0] > 0 and shape[0] % self.batch == 0 and shape not in self.parameter_shapes

    def is_activation(self, t):
        return self.grows_with_batch(t) and sum(n > 1 for n in t.shape[1:]) >= 2

    def per_sample_bytes(self, t):
        return nbytes(t) if self.grows_with_batch(t) else 0

    def is_cast(self, name, args, out):
        if name == "aten::copy_":
            dst, src = args[0], args[1]
        elif name == "aten::_to_copy":
            src, dst = args[0], out
        else:
            return False
        return (src.dtype != dst.dtype and src.dtype in FLOAT_OR_BF16 and dst.dtype in FLOAT_OR_BF16
                and self.is_activation(dst))


class TrafficCounter(TorchDispatchMode):
    """Counts into the phase that is open: begin(order) and lap(phase) as PhaseRanges, so profiled_step
    drives it the way it drives the profiler's ranges."""

    def __init__(self, rule):
        super().__init__()
        self.rule, self.order, self.phase = rule, iter(()), "other"
        self.bytes, self.per_sample, self.casts = (dict.fromkeys(KEYS, 0) for _ in range(3))

    def begin(self, order):
        self.order = iter(order)
        self.phase = next(self.order)

    def lap(self, phase):
        assert phase == self.phase, f"phase {phase} ended while {self.phase} was open"
        self.phase = next(self.order, "other")

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = func._schema.name
        if name.startswith("aten::") and name not in METADATA_OPS:
            if not compute_bound(name):
                self.bytes[self.phase] += kernel_bytes(name, func._overloadname, args, kwargs, out)
                self.per_sample[self.phase] += kernel_bytes(name, func._overloadname, args, kwargs, out,
                                                            self.rule.per_sample_bytes)
            self.casts[self.phase] += self.rule.is_cast(name, args, out)
        return out


def traffic_steps(bench, data, steps):
    """The "profile" keys of `hamgan bench train --profile` for bytes and casts, over `steps` more steps."""
    shapes = [tuple(p.shape) for net in (bench.g, bench.d) for p in net.parameters()]
    counter = TrafficCounter(ActivationRule(bench.t["batch_size"], shapes))
    with counter:
        for _ in range(steps):
            profiled_step(bench, data, counter)
    for table in (counter.bytes, counter.per_sample, counter.casts):
        table["total"] = sum(table[k] for k in KEYS[:-1])
    per_step = lambda table: {k: table[k] / steps for k in table}
    return {"memory_bound_bytes_per_step": per_step(counter.bytes),
            "memory_bound_bytes_per_image": counter.per_sample["total"] / steps / bench.t["batch_size"],
            "activation_casts_per_step": per_step(counter.casts)}
