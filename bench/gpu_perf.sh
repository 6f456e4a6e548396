#!/usr/bin/env bash
# `bench/gpu_session.sh perf`: the open numbers of the GPU step in one call under ten minutes, one JSON line
# per measurement on stdout and in $OUT/perf.jsonl (with the logs and JSON files in $OUT/perf.tar.gz):
#   hamgan_train   hamgan bench train --profile: imagenet128_ham and imagenet128_none (separate resampling),
#                  imagenet128_ham with --resample_conv folded, and imagenet128_ham at batch 32 (the per-GPU
#                  batch of 8-way data parallelism, where launches dominate)
#   reference      bench/python/train_step.py: eager, then torch.compile (mode default)
#   conv_step_ms   every convolution of the step alone in cuDNN, both resampling forms (gpu_perf.py convs)
#   reference_kernel_profile   the reference step's GPU kernel time by category (gpu_perf.py profile)
# A part that fails or would overrun the budget prints a line with "status" and the run goes on.
# Environment: HAMGAN_PERF_BUDGET_S (560), HAMGAN_PERF_BATCH (256), HAMGAN_PERF_STEPS (15),
# HAMGAN_PERF_WARMUP (5), HAMGAN_PERF_PARTS ("train reference convs profile"), HAMGAN_BENCH_DEVICE (cuda;
# cpu with a small batch is a dry run of the same commands).
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
[ -f .gpu-deps/env.sh ] && source .gpu-deps/env.sh
BIN="${HAMGAN_BUILD_DIR:-build-gpu}/hamgan"
PY="${HAMGAN_PY:-python3}"
device="${HAMGAN_BENCH_DEVICE:-cuda}"
batch="${HAMGAN_PERF_BATCH:-256}"
steps="${HAMGAN_PERF_STEPS:-15}"
warmup="${HAMGAN_PERF_WARMUP:-5}"
parts=" ${HAMGAN_PERF_PARTS:-train reference convs profile} "
out="${OUT:-gpu-results}"
work="${HAMGAN_GPU_WORK:-/tmp/hamgan-gpu}/perf"
mkdir -p "$out" "$work"
jsonl="$work/perf.jsonl"
: > "$jsonl"
start=$(date +%s)
budget="${HAMGAN_PERF_BUDGET_S:-560}"
left() { echo $((budget - ($(date +%s) - start))); }
emit() { echo "$1" | tee -a "$jsonl"; }
pack() { tar -czf "$out/perf.tar.gz" -C "$work" . 2>/dev/null; cp "$jsonl" "$out/perf.jsonl"; }
trap pack EXIT
wanted() { [[ "$parts" == *" $1 "* ]]; }
# fits MEASURE NEED_S: whether NEED_S seconds are left; else a "skipped" line
fits() {
  [ "$(left)" -ge "$2" ] && return 0
  emit "{\"measure\":\"$1\",\"status\":\"skipped\",\"reason\":\"$(left) s left, needs $2\"}"
  return 1
}
# cap CAP_S: a timeout of at most CAP_S that ends 10 s before the budget does
cap() { local l=$(($(left) - 10)); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }

# One line from a bench JSON file (hamgan bench train or train_step.py): speed, phases, counts.
summarise() {  # MEASURE FILE EXTRA_JSON
  "$PY" - "$@" <<'PY'
import json, sys
measure, path, extra = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
r = json.load(open(path))
line = {"measure": measure, **extra, "implementation": r["implementation"], "device": r["device_name"],
        "torch": r["torch_version"], "precision": r["precision"], "channels_last": r["channels_last"],
        "batch": r["batch"], "its_per_s": round(r["its_per_s"], 3), "step_ms": round(r["step_ms"], 2),
        "phase_ms": {k: round(v, 2) for k, v in r["phase_ms"].items()}, "peak_mib": round(r["peak_memory_bytes"] / 2**20)}
prof = r.get("profile")
if prof:
    for key in ("kernels_per_step", "host_syncs_per_step", "memory_bound_bytes_per_step", "activation_casts_per_step"):
        if key in prof:
            line[key] = prof[key]["total"]
print(json.dumps(line))
PY
}

failed() {  # MEASURE LOG EXTRA_JSON
  emit "{\"measure\":\"$1\",$3,\"status\":\"failed or timed out\",\"log_tail\":$(tail -n 3 "$2" | "$PY" -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}"
}

hamgan_train() {  # CONFIG BATCH FORM
  local name="hamgan_${1}_b$2_$3" extra="\"config\":\"$1\",\"resample_conv\":\"$3\""
  fits hamgan_train 40 || return 0
  if timeout "$(cap 120)" "$BIN" bench train --config "experiments/$1.toml" --precision bf16 --channels_last true \
       --device "$device" --batch "$2" --steps "$steps" --warmup "$warmup" --resample_conv "$3" --profile \
       --out "$work/$name.json" > "$work/$name.log" 2>&1; then
    summarise hamgan_train "$work/$name.json" "{$extra}" | tee -a "$jsonl"
  else
    failed hamgan_train "$work/$name.log" "$extra"
  fi
}

reference() {  # NAME NEED_S CAP_S [train_step.py options]
  local name=$1 need=$2 limit=$3
  shift 3
  fits reference "$need" || return 0
  if timeout "$(cap "$limit")" "$PY" bench/python/train_step.py --config experiments/imagenet128_ham.toml \
       --device "$device" --precision bf16 --channels_last true --batch "$batch" --steps "$steps" --warmup "$warmup" \
       --hamgan "$BIN" --out "$work/$name.json" "$@" > "$work/$name.log" 2>&1; then
    summarise reference "$work/$name.json" '{"config":"imagenet128_ham"}' | tee -a "$jsonl"
  else
    failed reference "$work/$name.log" "\"run\":\"$name\""
  fi
}

driver() {  # PART MEASURE NEED_S CAP_S
  fits "$2" "$3" || return 0
  if ! timeout "$(cap "$4")" "$PY" bench/python/gpu_perf.py "$1" experiments/imagenet128_ham.toml "$device" "$batch" \
       2> "$work/$1.log" | tee -a "$jsonl"; then
    failed "$2" "$work/$1.log" "\"part\":\"$1\""
  fi
}

gpu=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)
emit "{\"measure\":\"env\",\"gpu\":\"${gpu:-none}\",\"hamgan\":\"$("$BIN" --version 2>/dev/null | head -1)\",\"budget_s\":$budget}"
[ -x "$BIN" ] || { emit '{"measure":"env","status":"not built: run bench/gpu_session.sh build first"}'; exit 1; }
if wanted train; then
  hamgan_train imagenet128_ham "$batch" separate
  hamgan_train imagenet128_none "$batch" separate
  hamgan_train imagenet128_ham "$batch" folded
fi
wanted reference && reference reference_eager 60 150
wanted reference && reference reference_compile 150 330 --compile default
wanted train && hamgan_train imagenet128_ham 32 separate
wanted convs && driver convs conv_step_ms 60 150
wanted profile && driver profile reference_kernel_profile 45 120
emit "{\"measure\":\"done\",\"elapsed_s\":$(($(date +%s) - start))}"
