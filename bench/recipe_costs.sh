#!/usr/bin/env bash
# The step cost of each recipe term (docs/recipe.md, "What each term costs"): `hamgan bench train` on
# the Fashion-MNIST ham config of the recipe experiment, one option at a time, side by side in one run,
# so the ratios to the plain step are measured on the same machine and load.
#
#   bench/recipe_costs.sh [OUT_DIR]      # JSON per option in OUT_DIR (default /tmp/hamgan-recipe-costs)
#
# Environment: HAMGAN_BIN (build/hamgan), HAMGAN_RECIPE_STEPS (timed steps, 30), HAMGAN_RECIPE_CONFIG.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/hamgan-recipe-costs}"
bin="${HAMGAN_BIN:-build/hamgan}"
steps="${HAMGAN_RECIPE_STEPS:-30}"
config="${HAMGAN_RECIPE_CONFIG:-experiments/recipe/fmnist10_ham_sagan.toml}"
mkdir -p "$out"
options=(
  "plain|"
  "ns|--loss ns"
  "rpgan|--loss rpgan"
  "r1_every|--r1_gamma 0.1 --reg_every 1"
  "r1_lazy16|--r1_gamma 0.1 --reg_every 16"
  "r1r2_every|--r1_gamma 0.1 --r2_gamma 0.1 --reg_every 1"
  "r1r2_lazy4|--r1_gamma 0.1 --r2_gamma 0.1 --reg_every 4"
  "diffaug|--augment diffaug"
  "ada|--augment ada"
  "lecam|--lecam_weight 0.3"
  "modern|--loss rpgan --r1_gamma 0.1 --r2_gamma 0.1 --reg_every 4 --augment diffaug"
)
printf '| option | ms/step | ratio to plain |\n|---|---|---|\n'
base=""
for entry in "${options[@]}"; do
  name="${entry%%|*}"
  args="${entry#*|}"
  # shellcheck disable=SC2086
  "$bin" bench train --config "$config" --steps "$steps" --warmup 3 $args --out "$out/$name.json" >"$out/$name.log" 2>&1
  ms=$(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['step_ms'], 1))" "$out/$name.json")
  [ -z "$base" ] && base="$ms"
  ratio=$(python3 -c "print(f'{$ms/$base:.2f}')")
  printf '| %s | %s | %s |\n' "$name" "$ms" "$ratio"
done
