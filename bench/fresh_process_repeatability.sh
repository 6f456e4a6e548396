#!/usr/bin/env bash
# Whether a fresh process computes the same first training step every time: RUNS separate
# `hamgan train` processes of one step on the embedded Fashion-MNIST (a tiny model with the Hamburger in
# G and D, the same seed), then the distinct first rows of their metrics.jsonl with how many runs gave
# each. One row means repeatable. A process-level race (in a library's lazy set-up, say) shows here and
# nowhere inside one process, where every later call repeats the first (docs/training.md, "Repeatable
# runs"). Heavier load makes such races likelier: HAMGAN_REPEAT_LOAD=N keeps N busy loops beside the runs.
#   bench/fresh_process_repeatability.sh [RUNS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-100}"
threads="${2:-2}"
BIN="${HAMGAN_BUILD_DIR:-build}/hamgan"
[ -x "$BIN" ] || { echo "fresh_process_repeatability: $BIN not built; run scripts/build.sh hamgan" >&2; exit 1; }
work=$(mktemp -d)
loads=()
trap 'kill "${loads[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 "${HAMGAN_REPEAT_LOAD:-0}"); do
  (while :; do :; done) &
  loads+=($!)
done
args=(--resolution 32 --image_channels 1 --num_classes 10 --z_dim 8 --g_ch 4 --d_ch 4 --g_block ham --d_block ham
      --ham_rank 2 --batch_size 4 --steps 1 --log_every 1 --sample_every 1 --checkpoint_every 1 --device cpu
      --threads "$threads" --quiet)
for i in $(seq 1 "$runs"); do
  "$BIN" train "${args[@]}" --run-dir "$work/run" >"$work/out.txt" 2>&1 ||
    { echo "fresh_process_repeatability: run $i failed:" >&2; cat "$work/out.txt" >&2; exit 1; }
  head -1 "$work/run/metrics.jsonl" | sed 's/, "it_per_s".*//' >>"$work/rows.txt"
  rm -rf "$work/run"
  printf '\r%d/%d runs' "$i" "$runs" >&2
done
echo >&2
sort "$work/rows.txt" | uniq -c | sort -rn
distinct=$(sort -u "$work/rows.txt" | wc -l)
echo "fresh_process_repeatability: $runs runs, $distinct distinct first step(s), $threads threads"
[ "$distinct" -eq 1 ]
