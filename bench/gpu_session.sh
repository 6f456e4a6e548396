#!/usr/bin/env bash
# The GPU measurements of docs/training.md ("Training speed") and docs/ham.md (Table 3), in calls short
# enough for a lent GPU machine that has CUDA, cmake, ninja and PyTorch but no package registry.
#
#   scripts/offline_deps.sh               # on a Debian machine with apt, once: the C++ libraries, in .gpu-deps
#   bench/gpu_session.sh build            # on the GPU machine (carry .gpu-deps): configure and build build-gpu/
#   bench/gpu_session.sh test             # ctest on the GPU build (the CUDA tests run instead of skipping)
#   bench/gpu_session.sh bench            # training speed (HamGAN and the PyTorch reference) and Table 3
#   bench/gpu_session.sh eval             # the FID pipeline: batch sizes at 10k images, then 50k end to end
#   bench/gpu_session.sh perf             # the step's open numbers in one call (bench/gpu_perf.sh): HamGAN ham and
#                                         # none, both resampling forms, eager and compiled PyTorch, conv times, profile
#
# Each phase fits in 10 minutes on 16 cores and one H100; `bench train` and `bench modules` run one half of
# `bench` each. Results gather in /tmp/hamgan-gpu (kept between the calls of one machine) and are copied
# to $OUT (else gpu-results/) after each phase as two files, since the device tool returns few:
# gpu_results.tar.gz, every JSON file and log, and summary.txt, the tables.
# Environment: HAMGAN_GPU_STEPS (timed training steps, 20), HAMGAN_GPU_CONFIGS (default
# "imagenet128_ham imagenet128_sa"), HAMGAN_GPU_PRECISIONS ("tf32 bf16"), HAMGAN_GPU_BATCH (256),
# HAMGAN_BENCH_DEVICE (cuda; cpu runs the same commands for a dry run), HAMGAN_GPU_TARGETS (build only
# these, e.g. "hamgan test_cuda"), HAMGAN_GPU_EVAL_BATCHES ("100 250 500").
set -euo pipefail
cd "$(dirname "$0")/.."
phase="${1:?usage: bench/gpu_session.sh build|test|bench|eval|perf [train|modules]}"
part="${2:-all}"
out="${OUT:-gpu-results}"
work="${HAMGAN_GPU_WORK:-/tmp/hamgan-gpu}"
res="$work/results"
mkdir -p "$out" "$res"
# shellcheck disable=SC1091
[ -f .gpu-deps/env.sh ] && source .gpu-deps/env.sh
export HAMGAN_BUILD_DIR="${HAMGAN_BUILD_DIR:-build-gpu}"
BIN="$HAMGAN_BUILD_DIR/hamgan"
device="${HAMGAN_BENCH_DEVICE:-cuda}"
summary="$res/summary.txt"

pack() {
  tar -czf "$out/gpu_results.tar.gz" -C "$work" results
  cp "$summary" "$out/summary.txt" 2>/dev/null || true
  echo "results: $out/gpu_results.tar.gz, $out/summary.txt"
}

case "$phase" in
  build)
    { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || echo "no nvidia-smi"; } |
      tee "$res/gpu.txt"
    # No .cu sources: the architecture list only silences LibTorch's warning about CMAKE_CUDA_ARCHITECTURES.
    export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}"
    start=$(date +%s)
    # shellcheck disable=SC2086
    HAMGAN_JOBS="${HAMGAN_JOBS:-$(nproc)}" scripts/build.sh ${HAMGAN_GPU_TARGETS:-} > "$res/build.log" 2>&1 ||
      { tail -n 40 "$res/build.log"; pack; exit 1; }
    echo "build: $(($(date +%s) - start)) s" | tee -a "$summary"
    if ldd "$BIN" | grep "not found"; then
      echo "build: libraries missing at run time (add their packages to scripts/offline_deps.sh)" | tee -a "$summary"
      pack
      exit 1
    fi
    "$BIN" --version | tee -a "$summary"
    pack
    ;;
  test)
    [ -x "$BIN" ] || { echo "gpu_session: $BIN not built; run bench/gpu_session.sh build first" >&2; exit 1; }
    # HAMGAN_REQUIRE_CUDA=1: a CUDA test that cannot run fails instead of skipping (tests/common/cuda_test_util.h),
    # and HAMGAN_TEST_DEVICE picks the GPU. Other skips (a Python reference package missing there) are
    # reported by ctest as "Skipped" and counted below, never as passed.
    status=0
    HAMGAN_REQUIRE_CUDA=1 HAMGAN_TEST_DEVICE="${HAMGAN_TEST_DEVICE:-cuda}" HAMGAN_BIN="$PWD/$BIN" \
      ctest --test-dir "$HAMGAN_BUILD_DIR" -j "${HAMGAN_TEST_JOBS:-8}" --timeout 500 \
      --output-on-failure > "$res/ctest.log" 2>&1 || status=$?
    grep -E "tests passed|tests failed|\*\*\*Failed|\*\*\*Timeout|Not Run" "$res/ctest.log" | tee -a "$summary" || true
    echo "skipped: $(grep -c '(Skipped)' "$res/ctest.log" || true); CUDA tests passed:" \
      "$(grep -cE 'Test +#[0-9]+: Cuda[A-Za-z]*\..* Passed' "$res/ctest.log" || true)" | tee -a "$summary"
    pack
    exit "$status"
    ;;
  bench)
    [ -x "$BIN" ] || { echo "gpu_session: $BIN not built; run bench/gpu_session.sh build first" >&2; exit 1; }
    steps="${HAMGAN_GPU_STEPS:-20}"
    batch="${HAMGAN_GPU_BATCH:-256}"
    if [ "$part" = all ] || [ "$part" = train ]; then
      for config in ${HAMGAN_GPU_CONFIGS:-imagenet128_ham imagenet128_sa}; do
        for precision in ${HAMGAN_GPU_PRECISIONS:-tf32 bf16}; do
          bench/train_vs_pytorch.sh "experiments/$config.toml" "$steps" 8 \
            "$batch" "$res" "$precision" "$device" 2>&1 | tee -a "$summary" ||
            echo "$config $precision: failed (see above)" | tee -a "$summary"
        done
      done
    fi
    if [ "$part" = all ] || [ "$part" = modules ]; then
      # Table 3's shape, then the GAN's (the block at 32×32 in G of imagenet128 at batch 256).
      for shape in "1 512 128 128" "256 256 32 32"; do
        name="${device}_$(echo "$shape" | tr ' ' 'x')"
        "$BIN" bench modules --device "$device" --shape $shape --blocks none sa sa_dense ylg ham:nmf ea \
          --warmup 3 --repeats 10 --out "$res/$name.json" 2>&1 | tee -a "$summary" ||
          echo "bench modules $shape: failed (see above)" | tee -a "$summary"
      done
    fi
    pack
    ;;
  eval)
    [ -x "$BIN" ] || { echo "gpu_session: $BIN not built; run bench/gpu_session.sh build first" >&2; exit 1; }
    # docs/metrics.md "FID speed": random-weight 128x128 ham G and Inception (the cost does not depend on weights).
    for batch in ${HAMGAN_GPU_EVAL_BATCHES:-100 250 500}; do
      timeout 150 "$BIN" bench fid --n 10000 --batch "$batch" --device "$device" \
        --json "$res/${device}_fid_n10000_b$batch.json" 2>&1 | tail -n 8 | tee -a "$summary" ||
        echo "bench fid batch $batch: failed or timed out" | tee -a "$summary"
      pack
    done
    timeout 240 "$BIN" bench fid --n 50000 --batch 250 --device "$device" --json "$res/${device}_fid_n50000.json" 2>&1 |
      tail -n 8 | tee -a "$summary" || echo "bench fid 50k: failed or timed out" | tee -a "$summary"
    pack
    ;;
  perf)
    exec bench/gpu_perf.sh
    ;;
  *)
    echo "gpu_session: unknown phase '$phase'; use build, test, bench, eval or perf" >&2
    exit 1
    ;;
esac
