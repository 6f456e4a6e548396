#!/usr/bin/env bash
# Training speed of one config: `hamgan bench train` against the same networks
# and step in PyTorch eager Python (bench/python/train_step.py), one after the
# other, same threads, batch, warm-up, timed steps, device and precision; prints
# both and the ratio.
#   bench/train_vs_pytorch.sh CONFIG [STEPS] [THREADS] [BATCH] [OUT_DIR] [PRECISION] [DEVICE]
# BATCH 0 keeps the config's batch_size. With OUT_DIR, both JSON files are kept
# there as <config>_<precision>_hamgan.json and <config>_<precision>_pytorch.json.
# PRECISION: auto (default: tf32 on CUDA, fp32 on CPU), fp32, tf32 or bf16.
# DEVICE: cpu (default) or cuda.
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
"$BIN" bench train --config "$config" --steps "$steps" --warmup 5 --threads "$threads" "${batch_args[@]}" \
  --precision "$precision" --device "$device" --out "$out/${name}_hamgan.json" >/dev/null
python3 bench/python/train_step.py --config "$config" --steps "$steps" --warmup 5 --threads "$threads" \
  --batch "$batch" --precision "$precision" --device "$device" --hamgan "$BIN" --out "$out/${name}_pytorch.json" >/dev/null
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/${name}_hamgan.json" "$out/${name}_pytorch.json" "$name" <<'PY'
import json, sys
ours, ref = (json.load(open(p)) for p in sys.argv[1:3])
print(f"{sys.argv[3]}: {ours['device_name']}, {ours['precision']}, batch {ours['batch']}, {ours['steps']} steps, "
      f"{ours['data']}")
print("| implementation | it/s | img/s | step ms | step CPU ms | d_step ms | g_step ms | ema ms | peak MiB |")
print("|---|---|---|---|---|---|---|---|---|")
for r in (ours, ref):
    p = r["phase_ms"]
    print(f"| {r['implementation']} {r['torch_version']} | {r['its_per_s']:.2f} | {r['images_per_s']:.0f} | "
          f"{r['step_ms']:.1f} | {r['step_cpu_ms']:.1f} | {p['d_step']:.1f} | {p['g_step']:.1f} | {p['ema_step']:.2f} | "
          f"{r['peak_memory_bytes'] / 2**20:.0f} |")
print(f"HamGAN / PyTorch it/s: {ours['its_per_s'] / ref['its_per_s']:.2f}x; "
      f"PyTorch / HamGAN step CPU time: {ref['step_cpu_ms'] / ours['step_cpu_ms']:.2f}x")
PY
