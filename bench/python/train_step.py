"""Training-step speed of a HamGAN config in PyTorch eager Python, the reference
for `hamgan bench train` (docs/training.md, "Training speed").

The same networks as the C++ library, from the `hamgan` Python package (python/hamgan; the checkout's copy
when it is not installed) built from the config's model keys: SAGAN-style ResNet G with class-conditional
BN, projection D, TF-GAN spectral norm (one power iteration per call, W / max(1, sigma); the context blocks'
1x1 convs W / sigma), every context block the package has (none, sa, sa_dense, ham with nmf/vq/cd, random or
online bases, one-step or BPTT; ylg and ea where the package holds them).
Precision as `hamgan --precision`: fp32 (TF32 off), tf32 (TF32 in cuBLAS and cuDNN; the default on CUDA),
bf16 (G and D forward passes under bf16 autocast with the library's float32 parts, losses in float32).
Training as the trainer's step functions: hinge (or ns) loss, Adam with the
config's TTUR rates, d_steps D updates on one D call over real ‖ fake, one G
update through a frozen D, EMA of G's parameters and buffers. Parameter counts
are asserted equal to model-info's before anything is timed.

  python3 bench/python/train_step.py --config experiments/fmnist_ham.toml --steps 30 --threads 2 --out F.json
  python3 bench/python/train_step.py --config experiments/fmnist_ham.toml --flops   # the blocks' FLOP share
  python3 bench/python/train_step.py --config experiments/fmnist_ham.toml --steps 3 --profile   # + op counts
  python3 bench/python/train_step.py --config experiments/fmnist_ham.toml --compile default   # torch.compile
Prints the JSON keys of `hamgan bench train --out`; --profile adds "profile": ATen ops, kernels and host
syncs per step and phase, from --steps more steps under torch.profiler (bench/python/hamgan_torch_profile.py),
and memory-bound bytes and float32<->bf16 activation casts from --steps more (bench/python/traffic_counter.py).
Benchmark code only: the library never imports it.
"""
import argparse
import json
import os
import resource
import sys
import time
import tomllib

try:
    import torch
    from hamgan_torch import load_model_toml, model_info
    from hamgan_torch_data import Data
    from hamgan_torch_profile import profile_steps, table
    from hamgan_torch_train import Bench, resolve_precision
    from traffic_counter import traffic_steps
except ImportError:
    print("train_step.py: PyTorch missing (pip install torch)")
    sys.exit(3)

# TrainConfig's defaults for the keys a config file may leave out (gan/train/train_config.h).
TRAIN_DEFAULTS = dict(batch_size=64, g_lr=1e-4, d_lr=4e-4, beta1=0.0, beta2=0.999, adam_eps=1e-8, d_steps=1,
                      loss="hinge", channels_last=False, ema=True, ema_decay=0.9999, ema_start=1000, seed=0,
                      dataset="/usr/share/datasets/fashion-mnist", dataset_split="train")


# ---------------------------------------------------------------- timing

class Timer:
    def __init__(self, device):
        self.device, self.ms, self.last = device, {}, None

    def sync(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def restart(self):
        self.sync()
        self.last = time.perf_counter()

    def lap(self, phase):
        self.sync()
        now = time.perf_counter()
        self.ms[phase] = self.ms.get(phase, 0.0) + 1000.0 * (now - self.last)
        self.last = now


def full_step(bench, data, timer):
    timer.restart()
    batches = [data.next() for _ in range(bench.t["d_steps"])]
    timer.lap("data")
    bench.d_step(batches)
    timer.lap("d_step")
    bench.g_step()
    bench.step += 1
    timer.lap("g_step")
    bench.ema_step()
    timer.lap("ema_step")


def split_step(bench, data, timer):
    batches = [data.next() for _ in range(bench.t["d_steps"])]
    timer.restart()
    bench.d_step(batches, timer)
    timer.restart()
    bench.g_step(timer)


def count_step_flops(bench, data):
    """Matmul/conv FLOPs (forward and backward) of one full step: D update, G update, EMA."""
    from torch.utils.flop_counter import FlopCounterMode
    full_step(bench, data, Timer(bench.device))  # past step 0's one-off work
    counter = FlopCounterMode(display=False)
    with counter:
        full_step(bench, data, Timer(bench.device))
    return counter.get_total_flops()


def step_flops(bench, data):
    """The config's step FLOPs against the same step with no context blocks: the blocks' share is the
    difference (the counter's per-module split misattributes backward work around parameter-free modules)."""
    with_blocks = count_step_flops(bench, data)
    bare = {**bench.m, "g_block": "none", "d_block": "none"}
    precision = "bf16" if bench.autocast_dtype is not None else "fp32"
    without = count_step_flops(Bench(bare, bench.t, bench.device, bench.memory_format == torch.channels_last,
                                     precision), data)
    return {"step_flops": with_blocks, "step_flops_without_context": without,
            "context_flops": with_blocks - without, "context_share": (with_blocks - without) / with_blocks}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True, help="HamGAN experiment TOML file")
    p.add_argument("--steps", type=int, default=20, help="timed steps")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    p.add_argument("--batch", type=int, default=0, help="images per D and G update (0: the config's batch_size)")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: PyTorch's default)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--precision", default="auto", choices=("auto", "fp32", "tf32", "bf16"),
                   help="as hamgan --precision (auto: tf32 on CUDA, fp32 on CPU)")
    p.add_argument("--channels_last", choices=("true", "false"), nargs="?", const="true",
                   help="NHWC conv weights and real images (default: the config's channels_last)")
    p.add_argument("--hamgan", default=os.environ.get("HAMGAN_BIN", "build/hamgan"), help="hamgan binary (model-info)")
    p.add_argument("--params_only", action="store_true", help="check parameter counts against model-info and stop")
    p.add_argument("--flops", action="store_true",
                   help="count one training step's matmul/conv FLOPs (torch.utils.flop_counter) with and without "
                        "the context blocks, and stop")
    p.add_argument("--profile", action="store_true",
                   help="after the timed steps, count ATen ops, kernels and host syncs per phase over --steps "
                        "profiled steps (the JSON's \"profile\")")
    p.add_argument("--compile", choices=("default", "max-autotune-no-cudagraphs"),
                   help="torch.compile G and D with this mode (static shapes), as a PyTorch user would; compiled "
                        "during the warm-up steps")
    p.add_argument("--out", help="write the JSON here too")
    a = p.parse_args()
    if a.steps < 1:
        sys.exit(f"train_step.py: --steps must be >= 1, got {a.steps}")
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    with open(a.config, "rb") as f:
        t = {**TRAIN_DEFAULTS, **{k: v for k, v in tomllib.load(f).items() if k in TRAIN_DEFAULTS}}
    if a.batch > 0:
        t["batch_size"] = a.batch
    m = load_model_toml(a.config)
    info = model_info(a.hamgan, a.config)
    device = torch.device(a.device)
    precision = resolve_precision(a.precision, device)
    channels_last = t["channels_last"] if a.channels_last is None else a.channels_last == "true"
    bench = Bench(m, t, device, channels_last, precision)
    counts = {net: sum(p.numel() for p in module.parameters()) for net, module in (("G", bench.g), ("D", bench.d))}
    for net in ("G", "D"):
        assert counts[net] == info[net + "_total"], \
            f"{net}: {counts[net]} parameters here, model-info says {info[net + '_total']} ({info[net + '_context']})"
    if a.params_only:
        print(json.dumps({"G_params": counts["G"], "D_params": counts["D"]}))
        return
    data = Data(t, m, torch.Generator().manual_seed(t["seed"]), device)
    if a.compile:  # the optimisers and the EMA keep the modules' own parameters
        bench.g = torch.compile(bench.g, mode=a.compile, dynamic=False)
        bench.d = torch.compile(bench.d, mode=a.compile, dynamic=False)
        a.warmup = max(a.warmup, 2)  # compiling happens in the first D and G steps
    if a.flops:
        print(json.dumps(step_flops(bench, data), indent=2))
        return
    for _ in range(a.warmup):
        full_step(bench, data, Timer(device))
    timer = Timer(device)
    timer.sync()
    start, cpu_start = time.perf_counter(), time.process_time()
    for _ in range(a.steps):
        full_step(bench, data, timer)
    timer.sync()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    split = Timer(device)
    for _ in range(a.steps):
        split_step(bench, data, split)
    if device.type == "cuda":
        peak, kind = torch.cuda.max_memory_allocated(device), "cuda caching allocator peak of live tensor bytes"
    else:
        peak, kind = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "peak resident set size of the process"
    # Untimed, and after the peak is read: the profiler slows the steps and holds their events in memory.
    profile = {**profile_steps(bench, data, a.steps), **traffic_steps(bench, data, a.steps)} if a.profile else None
    its = a.steps / seconds
    result = {
        "implementation": f"pytorch-compile-{a.compile}" if a.compile else "pytorch-eager",
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda"
        else f"CPU, {torch.get_num_threads()} threads",
        "torch_version": torch.__version__,
        "precision": precision,
        "channels_last": bool(channels_last),
        "threads": torch.get_num_threads(),
        "data": data.description,
        "batch": t["batch_size"],
        "warmup": a.warmup,
        "steps": a.steps,
        "step_ms": 1000.0 * seconds / a.steps,
        "step_cpu_ms": 1000.0 * cpu_seconds / a.steps,
        "its_per_s": its,
        "images_per_s": its * t["batch_size"] * t["d_steps"],
        "peak_memory_bytes": peak,
        "peak_memory_kind": kind,
        "phase_ms": {k: timer.ms[k] / a.steps for k in ("data", "d_step", "g_step", "ema_step")},
        "split_ms": {k: split.ms[k] / a.steps for k in ("d_forward", "d_backward", "d_optimiser",
                                                         "g_forward", "g_backward", "g_optimiser")},
        "G_params": counts["G"],
        "D_params": counts["D"],
    }
    if profile is not None:
        result["profile"] = profile
        print(table(profile))
    text = json.dumps(result, indent=2)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
