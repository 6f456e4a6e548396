#!/usr/bin/env bash
# Fuzzes HamGAN's readers of outside bytes with libFuzzer (clang, ASan + UBSan).
#   scripts/fuzz.sh [TARGET[,TARGET...]|all] [SECONDS]     e.g. scripts/fuzz.sh fuzz_png 300
# Targets: tests/fuzz/fuzz_*.cpp; seed corpora: tests/fuzz/corpus/<target>/ (read only;
# new inputs go to build-fuzz/corpus/<target>/). A crash, sanitizer report, uncaught
# exception other than a HamGAN error, > 2 GB allocated or > 10 s on one input
# (fuzz_checkpoint: 60 s) is a finding: the input is saved as
# build-fuzz/findings/<target>/crash-* and the script exits non-zero. Each target ends
# with libFuzzer's stats (executions, coverage).
# HAMGAN_FUZZ_SEED=N fixes libFuzzer's seed, HAMGAN_FUZZ_FRESH=1 starts from the seed
# corpus alone and HAMGAN_FUZZ_RUNS="fuzz_png=300000 ..." fixes each target's number of
# inputs: together they make a run repeat exactly what an earlier run explored. Targets run
# side by side, HAMGAN_FUZZ_JOBS at a time (default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
TARGET="${1:-all}"
SECONDS_EACH="${2:-60}"
BUILD_DIR="${HAMGAN_FUZZ_BUILD_DIR:-build-fuzz}"
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz: clang with libFuzzer not installed (Debian: clang libclang-rt-14-dev); skipped"
  exit 0
fi
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  torch_prefix=$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
    -DHAMGAN_FUZZ=ON -DHAMGAN_WITH_CUDA=OFF -DCMAKE_PREFIX_PATH="$torch_prefix" >/dev/null
fi
targets=()
if [ "$TARGET" = all ]; then
  for f in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
else
  IFS=, read -r -a targets <<< "$TARGET"
fi
cmake --build "$BUILD_DIR" -j "${HAMGAN_JOBS:-$(nproc)}" --target "${targets[@]}"

# LibTorch and HDF5 keep process-lifetime caches that are not leaks of the reader.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# The -runs= option HAMGAN_FUZZ_RUNS gives target $1, or nothing.
runs_of() {
  local spec
  for spec in ${HAMGAN_FUZZ_RUNS:-}; do [ "${spec%%=*}" = "$1" ] && echo "-runs=${spec#*=}"; done
  return 0
}
# One target: its log, its findings, and exit 0 when clean.
fuzz_target() {
  local t=$1 seeds="tests/fuzz/corpus/$1" work="$BUILD_DIR/corpus/$1" findings="$BUILD_DIR/findings/$1"
  [ "${HAMGAN_FUZZ_FRESH:-0}" = 1 ] && rm -rf "$work"
  mkdir -p "$work" "$findings"
  # LibTorch's unpickler reserves a string length read from the file before it
  # checks there are that many bytes (docs/reliability.md, "Left as is"): a forged
  # checkpoint costs one short-lived reservation of up to 4 GiB, then a clean error.
  # Touching those pages is kernel time that varies with the machine: 18 s for the seed corpus's
  # forged string on one 2-core VM, under 10 s on others, so that target's limit per input is 60 s.
  local runs malloc_limit=2048 rss_limit=2048 timeout=10
  runs="$(runs_of "$t")"
  [ "$t" = fuzz_checkpoint ] && malloc_limit=4600 rss_limit=6144 timeout=60  # the reservation is filled, and shadowed
  "$BUILD_DIR/$t" "$work" "$seeds" -max_total_time="$SECONDS_EACH" -timeout=$timeout -rss_limit_mb=$rss_limit \
    -malloc_limit_mb=$malloc_limit -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/" \
    ${HAMGAN_FUZZ_SEED:+-seed=$HAMGAN_FUZZ_SEED} $runs > "$BUILD_DIR/$t.log" 2>&1
}
# libFuzzer uses one core per target: the targets run side by side, one per core
# (HAMGAN_FUZZ_JOBS), and report in the order they were named.
jobs_max="${HAMGAN_FUZZ_JOBS:-$(nproc)}"
declare -A pid_of
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  fuzz_target "$t" &
  pid_of[$t]=$!
done
status=0
for t in "${targets[@]}"; do
  runs="$(runs_of "$t")"
  echo "== $t: ${runs:-${SECONDS_EACH}s}"
  if ! wait "${pid_of[$t]}"; then
    echo "fuzz: $t found a failing input (see $BUILD_DIR/$t.log and $BUILD_DIR/findings/$t/):"
    grep -E "ERROR|SUMMARY|terminate|==[0-9]+==|Test unit written" "$BUILD_DIR/$t.log" | head -8 || true
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov: .*ft:" "$BUILD_DIR/$t.log" | tail -3 | sed 's/^/  /' || true
done
exit $status
