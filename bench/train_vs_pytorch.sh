#!/usr/bin/env bash
# Training speed of one config: `hamgan bench train` against the same networks
# and step in PyTorch eager Python (bench/python/train_step.py), one after the
# other, same threads, batch, warm-up, timed steps, device and precision; prints
# both and the ratio.
#   bench/train_vs_pytorch.sh CONFIG [STEPS] [THREADS] [BATCH] [OUT_DIR] [PRECISION] [DEVICE]
# BATCH 0 keeps the config's batch_size. With OUT_DIR, both JSON files are kept
# there as <config>_<precision>_hamgan.json and <config>_<precision>_pytorch.json.
# PRECISION: auto (default: tf32 on CUDA, fp32 on CPU), fp32, tf32 or bf16.
# DEVICE: cpu (default) or cuda. HAMGAN_BENCH_PROFILE=1 also counts kernels and host syncs per step (--profile).
# HAMGAN_BENCH_COMPILE="default max-autotune-no-cudagraphs" (any of the two) adds the reference under
# torch.compile with each mode, in the same run, as <config>_<precision>_compile_<mode>.json.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh  # python3 below is the project environment's
config="${1:?usage: bench/train_vs_pytorch.sh CONFIG [STEPS] [THREADS] [BATCH] [OUT_DIR] [PRECISION] [DEVICE]}"
steps="${2:-30}"
threads="${3:-2}"
batch="${4:-0}"
BIN="${HAMGAN_BUILD_DIR:-build}/hamgan"
[ -x "$BIN" ] || { echo "train_vs_pytorch: $BIN not built; run scripts/build.sh hamgan" >&2; exit 1; }
out="${5:-}"
precision="${6:-auto}"
device="${7:-cpu}"
if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
name=$(basename "$config" .toml)_$precision
batch_args=()
[ "$batch" != 0 ] && batch_args=(--batch "$batch")
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
profile=()
[ "${HAMGAN_BENCH_PROFILE:-0}" = 1 ] && profile=(--profile)
"$BIN" bench train --config "$config" --steps "$steps" --warmup 5 --threads "$threads" "${batch_args[@]}" \
  --precision "$precision" --device "$device" "${profile[@]}" --out "$out/${name}_hamgan.json" >/dev/null
python3 bench/python/train_step.py --config "$config" --steps "$steps" --warmup 5 --threads "$threads" \
  --batch "$batch" --precision "$precision" --device "$device" --hamgan "$BIN" "${profile[@]}" \
  --out "$out/${name}_pytorch.json" >/dev/null
compiled=()
for mode in ${HAMGAN_BENCH_COMPILE:-}; do
  python3 bench/python/train_step.py --config "$config" --steps "$steps" --warmup 5 --threads "$threads" \
    --batch "$batch" --precision "$precision" --device "$device" --hamgan "$BIN" --compile "$mode" \
    --out "$out/${name}_compile_$mode.json" >/dev/null
  compiled+=("$out/${name}_compile_$mode.json")
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/${name}_hamgan.json" "$out/${name}_pytorch.json" "$name" "${compiled[@]}" <<'PY'
import json, sys
ours, ref = (json.load(open(p)) for p in sys.argv[1:3])
others = [json.load(open(p)) for p in sys.argv[4:]]
print(f"{sys.argv[3]}: {ours['device_name']}, {ours['precision']}, batch {ours['batch']}, {ours['steps']} steps, "
      f"{ours['data']}")


def per_network(p, net):  # d_step / g_step ms, whether the phases come whole or split
    key = net + "_step"
    return p[key] if key in p else sum(p[f"{net}_{x}"] for x in ("forward", "backward", "optimiser"))


def counts(r):  # kernels / host syncs per step with --profile
    prof = r.get("profile")
    if not prof:
        return "—"
    return f"{prof['kernels_per_step']['total']:.0f} / {prof['host_syncs_per_step']['total']:.0f}"


print("| implementation | it/s | img/s | step ms | step CPU ms | d_step ms | g_step ms | ema ms | peak MiB "
      "| kernels / syncs per step |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in (ours, ref, *others):
    p = r["phase_ms"]
    ema = p.get("ema_step", p.get("ema", 0.0))
    print(f"| {r['implementation']} {r['torch_version']} | {r['its_per_s']:.2f} | {r['images_per_s']:.0f} | "
          f"{r['step_ms']:.1f} | {r['step_cpu_ms']:.1f} | {per_network(p, 'd'):.1f} | {per_network(p, 'g'):.1f} | "
          f"{ema:.2f} | {r['peak_memory_bytes'] / 2**20:.0f} | {counts(r)} |")
print(f"HamGAN / PyTorch it/s: {ours['its_per_s'] / ref['its_per_s']:.2f}x; "
      f"PyTorch / HamGAN step CPU time: {ref['step_cpu_ms'] / ours['step_cpu_ms']:.2f}x")
for r in others:
    print(f"HamGAN / {r['implementation']} it/s: {ours['its_per_s'] / r['its_per_s']:.2f}x")
PY
