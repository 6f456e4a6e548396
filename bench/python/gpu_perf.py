"""The PyTorch-side parts of `bench/gpu_session.sh perf`, one JSON line per measurement on stdout:

  gpu_perf.py convs CONFIG DEVICE BATCH     every convolution of one training step of CONFIG, alone in cuDNN
      (bf16, channels_last), in both resampling forms of docs/models.md: G's upsample + 3x3 against the 4x4
      transposed convolution, D's 3x3 + pool against the 4x4 strided one; with the step's multiplicities
      (G forward twice, backward once; D forward and backward on 2B images, forward and input gradient on B)
  gpu_perf.py profile CONFIG DEVICE BATCH   the reference step's GPU kernel time by category (torch.profiler)

The layer plans come from the hamgan package (python/hamgan/networks.py), so they follow the config.
Benchmark code only: the library never imports it.
"""
import json
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, "bench/python")
sys.path.insert(0, "python")
from hamgan.config import load_model_toml  # noqa: E402
from hamgan.networks import discriminator_plan, generator_plan  # noqa: E402


def emit(d):
    print(json.dumps(d), flush=True)


def timed_ms(fn, device, reps=6, warm=2):
    """Median milliseconds of fn() (CUDA events on a GPU, the wall clock elsewhere)."""
    for _ in range(warm):
        fn()
    times = []
    for _ in range(reps):
        if device.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t = time.perf_counter()
            fn()
            times.append(1000 * (time.perf_counter() - t))
    return sorted(times)[len(times) // 2]


def conv_ms(device, n, cin, cout, side, form, input_grad=True, weight_grad=True):
    """(forward ms, backward ms) of one convolution on (n, cin, side, side): form conv3 (3x3), conv1 (1x1),
    up (4x4 transposed, stride 2: the folded upsample + 3x3) or down (4x4, stride 2: the folded 3x3 + pool)."""
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    cl = torch.channels_last
    x = torch.randn(n, cin, side, side, device=device, dtype=dtype).contiguous(memory_format=cl)
    if form == "up":
        w = torch.randn(cin, cout, 4, 4, device=device, dtype=dtype).contiguous(memory_format=cl)
        op = lambda a, b: F.conv_transpose2d(a, b, stride=2, padding=1)  # noqa: E731
    elif form == "down":
        w = torch.randn(cout, cin, 4, 4, device=device, dtype=dtype).contiguous(memory_format=cl)
        op = lambda a, b: F.conv2d(a, b, stride=2, padding=1)  # noqa: E731
    else:
        k = 3 if form == "conv3" else 1
        w = torch.randn(cout, cin, k, k, device=device, dtype=dtype).contiguous(memory_format=cl)
        op = lambda a, b: F.conv2d(a, b, padding=k // 2)  # noqa: E731
    with torch.no_grad():
        forward = timed_ms(lambda: op(x, w), device)
    wanted = [t.detach().requires_grad_() for t, on in ((x, input_grad), (w, weight_grad)) if on]
    if not wanted:
        return forward, 0.0
    xg = wanted[0] if input_grad else x
    wg = wanted[-1] if weight_grad else w
    upstream = torch.randn_like(op(x, w))
    both = timed_ms(lambda: torch.autograd.grad(op(xg, wg), wanted, upstream), device)
    return forward, max(0.0, both - forward)


def step_layers(m):
    """(net, layer, cin, cout, input side, separate form, folded form or None) of every convolution."""
    layers = []
    for name, cin, cout, side in generator_plan(m):
        layers += [("G", f"{name}.conv1", cin, cout, side // 2, "conv3@2x", "up"),  # on the block's input
                   ("G", f"{name}.conv2", cout, cout, side, "conv3", None),
                   ("G", f"{name}.shortcut", cin, cout, side // 2, "conv1", None)]
    layers.append(("G", "conv_out", generator_plan(m)[-1][2], m["image_channels"], m["resolution"], "conv3", None))
    plan = discriminator_plan(m)
    for i, (name, cin, cout, side) in enumerate(plan):
        down = i < len(plan) - 1
        in_side = side * 2 if down else side
        layers += [("D", f"{name}.conv1", cin, cout, in_side, "conv3", None),
                   ("D", f"{name}.conv2", cout, cout, in_side, "conv3+pool" if down else "conv3", "down" if down else None)]
        if down:
            layers.append(("D", f"{name}.shortcut", cin, cout, side, "conv1", None))
    return layers


def convs(config, device, batch):
    m = load_model_toml(config)
    totals = {"separate": 0.0, "folded": 0.0}
    rows = []
    for net, layer, cin, cout, side, separate, folded in step_layers(m):
        for form_name, form in (("separate", separate), ("folded", folded or separate)):
            kind = {"conv3@2x": "conv3", "conv3+pool": "conv3"}.get(form, form)
            size = side * 2 if form == "conv3@2x" else side
            images = net == "D" and layer.startswith("block1.") and layer != "block1.conv2"
            if net == "G":  # forward in d_step (no grad) and g_step, backward once
                f, b = conv_ms(device, batch, cin, cout, size, kind)
                ms = 2 * f + b
            else:  # D: forward + backward on 2B images, forward + input gradient on B (G's step)
                f1, b1 = conv_ms(device, 2 * batch, cin, cout, size, kind, input_grad=not images)
                f2, b2 = conv_ms(device, batch, cin, cout, size, kind, weight_grad=False)
                ms = f1 + b1 + f2 + b2
            totals[form_name] += ms
            if folded or form_name == "separate":
                rows.append([net, layer, form, round(ms, 3)])
    emit({"measure": "conv_step_ms", "config": config, "batch": batch, "device": str(device),
          "separate_ms": round(totals["separate"], 2), "folded_ms": round(totals["folded"], 2),
          "columns": ["net", "layer", "form", "ms_per_step"], "rows": rows})


CATEGORIES = (("layout", ("nchwtonhwc", "nhwctonchw", "transpose")),
              ("copy_cast", ("copy", "to_copy", "cat_")),
              ("conv", ("fprop", "dgrad", "wgrad", "implicit_gemm", "convolve", "winograd", "conv")),
              ("gemm", ("gemm", "nvjet", "cutlass", "gemv", "splitk")),
              ("batch_norm", ("batch_norm", "welford", "bn_")),
              ("upsample", ("upsample",)), ("pool", ("pool",)),
              ("optimiser", ("multi_tensor", "fused_adam", "foreach")),
              ("reduce", ("reduce",)), ("softmax", ("softmax",)), ("rng", ("philox", "distribution", "rand")),
              ("elementwise", ("elementwise", "vectorized", "unrolled", "index", "where", "fill")))


def category(name):
    low = name.lower()
    return next((cat for cat, keys in CATEGORIES if any(k in low for k in keys)), "other")


def profile(config, device, batch):
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile
    import tomllib
    import train_step as ts
    from hamgan_torch_data import Data
    from hamgan_torch_train import Bench
    with open(config, "rb") as f:
        t = {**ts.TRAIN_DEFAULTS, **{k: v for k, v in tomllib.load(f).items() if k in ts.TRAIN_DEFAULTS}}
    t["batch_size"] = batch
    m = load_model_toml(config)
    bench = Bench(m, t, device, True, "bf16")
    data = Data(t, m, torch.Generator().manual_seed(t["seed"]), device)
    for _ in range(3):
        ts.full_step(bench, data, ts.Timer(device))
    steps = 3
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with torch_profile(activities=activities) as prof:
        for _ in range(steps):
            ts.full_step(bench, data, ts.Timer(device))
    kernels = [(e.name, e.time_range.elapsed_us()) for e in prof.events() if e.device_type != DeviceType.CPU]
    by_category = {}
    for name, us in kernels:
        ms, count = by_category.get(category(name), (0.0, 0.0))
        by_category[category(name)] = (ms + us / 1000 / steps, count + 1 / steps)
    busy = sum(ms for ms, _ in by_category.values())
    order = sorted(by_category.items(), key=lambda kv: -kv[1][0])
    emit({"measure": "reference_kernel_profile", "config": config, "batch": batch, "device": str(device),
          "gpu_busy_ms": round(busy, 2), "ms_by_category": {k: round(v[0], 2) for k, v in order},
          "kernels_by_category": {k: round(v[1]) for k, v in order}})


if __name__ == "__main__":
    part, config, device, batch = sys.argv[1], sys.argv[2], torch.device(sys.argv[3]), int(sys.argv[4])
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    {"convs": convs, "profile": profile}[part](config, device, batch)
