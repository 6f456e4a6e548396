#!/usr/bin/env bash
# Loader images/s per format, compression and label order, one process, side by side in one run:
# BigGAN-layout HDF5 (none, LZF, gzip; shuffled and class-sorted), the same with a full shuffle
# (shuffle_window 0, each image read on its own), and a dataset_tool ZIP; at 128 and 64 pixels.
# Then what chunk windows do to the randomness of batches on ImageNet-sized label layouts.
# Writes docs/bench/cpu_data_*.json (or $HAMGAN_BENCH_OUT/). Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${HAMGAN_BIN:-build/hamgan}"
out="${HAMGAN_BENCH_OUT:-docs/bench}"
seconds="${HAMGAN_BENCH_SECONDS:-5}"
workers="${HAMGAN_BENCH_WORKERS:-2}"
[ -x "$bin" ] || { echo "no $bin: build first (scripts/build.sh hamgan)" >&2; exit 1; }
mkdir -p "$out"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
run() {  # name, then bench data options
  local name="$1"; shift
  echo "== $name"
  "$bin" bench data --workers "$workers" --seconds "$seconds" --out "$out/cpu_data_$name.json" "$@" | tail -3
}
for size in 128 64; do
  for comp in none lzf gzip; do
    run "${size}_${comp}" --size "$size" --compression "$comp"
    run "${size}_${comp}_sorted" --size "$size" --compression "$comp" --class_sorted
    run "${size}_${comp}_full_shuffle" --size "$size" --compression "$comp" --shuffle_window 0
  done
  run "${size}_zip" --size "$size" --format zip
done
for layout in class_sorted shuffled; do
  for shards in 1 8; do
    "$bin" bench order --"$layout" --shards "$shards" --out "$out/cpu_order_${layout}_${shards}rank.json"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
