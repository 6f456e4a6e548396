"""ATen ops, kernels and host synchronisation points per training step and phase, counted with torch.profiler,
for `train_step.py --profile`: the PyTorch side of the C++ library's counts (core/op_counter.cpp), with the
same definitions, so launch counts and stalls can be compared on any device.

  op      a profiler event named aten::* with no aten::* event below it (a leaf of the dispatch tree);
  kernel  an aten::* event not in METADATA_OPS (a view, an allocation or a no-op conversion does no work) with
          no such event below it: a convolution whose only children allocate counts once; a multi-tensor op
          (aten::_foreach_*, aten::_fused_*) counts once, as on CUDA, and nothing inside it counts;
  sync    an event in HOST_SYNC_OPS, leaf or not; on CUDA also each blocking host-device copy, found as the
          warnings of torch.cuda.set_sync_debug_mode("warn") less those the HOST_SYNC_OPS on the GPU raise.
On CUDA, "device_kernels_per_step" adds what the GPU ran (kernels, memcpys, memsets), a check on the op rule.
"""
import warnings

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile, record_function

PHASES = ("data", "d_forward", "d_backward", "d_optimiser", "g_forward", "g_backward", "g_optimiser", "ema")
KEYS = PHASES + ("other", "total")

# Leaf ATen ops that launch no work: views, allocations, no-op conversions.
# Must match metadata_ops() in core/op_counter.cpp, or the two kernel counts stop being comparable.
METADATA_OPS = frozenset((
    "aten::view", "aten::_unsafe_view", "aten::reshape", "aten::_reshape_alias", "aten::as_strided", "aten::t",
    "aten::transpose", "aten::permute", "aten::expand", "aten::expand_as", "aten::slice", "aten::select",
    "aten::narrow", "aten::unsqueeze", "aten::squeeze", "aten::detach", "aten::detach_", "aten::alias",
    "aten::lift_fresh", "aten::empty", "aten::empty_like", "aten::empty_strided", "aten::resize_", "aten::set_",
    "aten::unbind", "aten::split", "aten::split_with_sizes", "aten::chunk", "aten::to", "aten::contiguous",
    "aten::result_type", "aten::view_as", "aten::flatten", "aten::unflatten", "aten::movedim", "aten::diagonal",
    "aten::requires_grad_", "aten::retain_grad", "aten::_has_compatible_shallow_copy_type", "aten::is_nonzero",
    "aten::size", "aten::stride", "aten::numel", "aten::dim", "aten::item", "aten::resolve_conj", "aten::resolve_neg",
))

# Ops after which the host holds a value read from the device (.item()) or must know a data-dependent size.
# Must match core/op_counter.cpp.
HOST_SYNC_OPS = frozenset(("aten::_local_scalar_dense", "aten::nonzero", "aten::masked_select", "aten::_unique2",
                           "aten::unique_consecutive", "aten::unique_dim"))

BLOCKING_COPY = "aten::copy_ (blocking host-device)"  # the host_sync_ops name of the sync-debug copies
SYNC_WARNING = "synchronizing CUDA operation"  # in the text of set_sync_debug_mode's warnings


class PhaseRanges:
    """A train_step.Timer stand-in for Bench.d_step / g_step: lap(phase) ends that phase's
    record_function("phase:<name>") range and opens the next one's, so the ranges tile the step without gaps
    (as OpCounter's phase switches do), and counts the sync warnings raised within each range."""

    def __init__(self, warned):
        self.warned, self.sync_warnings = warned, dict.fromkeys(PHASES, 0)
        self.order, self.name, self.range, self.mark = iter(()), None, None, 0

    def begin(self, order):
        self.order = iter(order)
        self._open(next(self.order))

    def _open(self, name):
        self.name, self.mark = name, len(self.warned)
        self.range = record_function("phase:" + name)
        self.range.__enter__()

    def lap(self, phase):
        assert phase == self.name, f"phase {phase} ended while {self.name} was open"
        self.range.__exit__(None, None, None)
        self.sync_warnings[phase] += sum(SYNC_WARNING in str(w.message) for w in self.warned[self.mark:])
        following = next(self.order, None)
        if following is not None:
            self._open(following)


def profiled_step(bench, data, ranges):
    """train_step.full_step's work, each phase in its range: zero_grad falls in d_backward / g_backward, where
    Bench's timed split puts it (it dispatches no op: gradients are set to None)."""
    d_steps = bench.t["d_steps"]
    ranges.begin(("data",) + ("d_forward", "d_backward", "d_optimiser") * d_steps
                 + ("g_forward", "g_backward", "g_optimiser", "ema"))
    batches = [data.next() for _ in range(d_steps)]
    ranges.lap("data")
    bench.d_step(batches, ranges)
    bench.g_step(ranges)
    bench.step += 1
    bench.ema_step()
    ranges.lap("ema")


def phase_of(event, ranges):
    """The phase whose range holds the event: by the parent chain on the step's thread, else (autograd's
    device threads) by the time the event ran in."""
    e = event
    while e is not None:
        if e.name.startswith("phase:"):
            return e.name[len("phase:"):]
        e = e.cpu_parent
    for start, end, name in ranges:
        if start <= event.time_range.start and event.time_range.end <= end:
            return name
    return "other"


def on_device(event):
    """Whether the event, or an event below it, called the CUDA runtime or has device work linked to it."""
    stack = [event]
    while stack:
        e = stack.pop()
        if e.kernels or e.name.startswith("cuda"):
            return True
        stack.extend(e.cpu_children)
    return False


def count(events, sync_warnings, steps, cuda=False):
    """Per-step means by phase of the definitions in the module docstring; the JSON's "profile" value."""
    cpu = [e for e in events if e.device_type == DeviceType.CPU]  # GPU-side copies of ranges and kernels left out
    ranges = [(e.time_range.start, e.time_range.end, e.name[len("phase:"):]) for e in cpu if e.name.startswith("phase:")]
    aten = [e for e in cpu if e.name.startswith("aten::")]
    inner = set()  # ids of aten events with an aten event below them
    for e in aten:
        p = e.cpu_parent
        while p is not None and id(p) not in inner:
            if p.name.startswith("aten::"):
                inner.add(id(p))
            p = p.cpu_parent
    working = set()  # ids of aten events with an aten event below them that is not metadata-only
    for e in aten:
        if e.name in METADATA_OPS:
            continue
        p = e.cpu_parent
        while p is not None and id(p) not in working:
            if p.name.startswith("aten::"):
                working.add(id(p))
            p = p.cpu_parent
    def multi_tensor(e):
        return e.name.startswith(("aten::_foreach_", "aten::_fused_"))

    def in_multi_tensor(e):
        p = e.cpu_parent
        while p is not None:
            if multi_tensor(p):
                return True
            p = p.cpu_parent
        return False

    ops, kernels, syncs = (dict.fromkeys(KEYS, 0) for _ in range(3))
    device_syncs, sync_ops = dict.fromkeys(KEYS, 0), {}
    for e in aten:
        if in_multi_tensor(e):
            continue
        phase = phase_of(e, ranges)
        if multi_tensor(e):
            ops[phase] += 1
            kernels[phase] += 1
            continue
        ops[phase] += id(e) not in inner
        kernels[phase] += e.name not in METADATA_OPS and id(e) not in working
        if e.name in HOST_SYNC_OPS:
            syncs[phase] += 1
            sync_ops[e.name] = sync_ops.get(e.name, 0) + 1
            device_syncs[phase] += on_device(e)
    device = dict.fromkeys(KEYS, 0)  # GPU activities, each linked to the CPU event that launched it
    for e in cpu:
        if e.kernels:
            device[phase_of(e, ranges)] += len(e.kernels)
    for phase, warned in sync_warnings.items():  # a warning a HOST_SYNC_OPS op raised is counted already
        copies = max(0, warned - device_syncs[phase])
        syncs[phase] += copies
        if copies:
            sync_ops[BLOCKING_COPY] = sync_ops.get(BLOCKING_COPY, 0) + copies
    for table in (ops, kernels, syncs, device):
        table["total"] = sum(table[k] for k in KEYS[:-1])
    per_step = lambda table: {k: table[k] / steps for k in table}
    result = {"steps": steps, "kernels_per_step": per_step(kernels), "ops_per_step": per_step(ops),
              "host_syncs_per_step": per_step(syncs), "host_sync_ops": per_step(dict(sorted(sync_ops.items())))}
    if cuda:
        result["device_kernels_per_step"] = per_step(device)
    return result


def profile_steps(bench, data, steps):
    """Runs `steps` training steps under the profiler (CPU, and CUDA on a GPU) and counts them."""
    cuda = bench.device.type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")  # each sync warns, not only the first from each line
        ranges = PhaseRanges(warned)
        if cuda:
            torch.cuda.synchronize(bench.device)  # the timed steps' queued work stays out
            torch.cuda.set_sync_debug_mode("warn")
        try:
            with profile(activities=activities, record_shapes=False) as prof:
                for _ in range(steps):
                    profiled_step(bench, data, ranges)
        finally:
            if cuda:
                torch.cuda.set_sync_debug_mode("default")
    for w in warned:  # the other warnings are the user's to see
        if SYNC_WARNING not in str(w.message):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return count(prof.events(), ranges.sync_warnings, steps, cuda)


def table(result):
    """The counts as text: a row per phase, a column per count."""
    device = result.get("device_kernels_per_step")
    lines = [f"profile: {result['steps']} steps, per step",
             f"  {'phase':<12}{'kernels':>10}{'ops':>10}{'syncs':>8}" + (f"{'on GPU':>10}" if device else "")]
    for k in KEYS:
        lines.append(f"  {k:<12}{result['kernels_per_step'][k]:>10.1f}{result['ops_per_step'][k]:>10.1f}"
                     f"{result['host_syncs_per_step'][k]:>8.1f}" + (f"{device[k]:>10.1f}" if device else ""))
    if "memory_bound_bytes_per_step" in result:
        lines.append(f"  memory-bound MiB / activation casts: " + ", ".join(
            f"{k} {result['memory_bound_bytes_per_step'][k] / 2**20:.1f} / {result['activation_casts_per_step'][k]:g}"
            for k in KEYS) + f"; per image {result['memory_bound_bytes_per_image']:.0f} bytes")
    lines += [f"  sync {name}: {n:g}" for name, n in result["host_sync_ops"].items()]
    return "\n".join(lines)
