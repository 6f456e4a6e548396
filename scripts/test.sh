#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
scripts/install_deps.sh
installed=$SECONDS
scripts/build.sh
built=$SECONDS
BUILD_DIR="${HAMGAN_BUILD_DIR:-build}"
# install_deps.sh installed every reference package: a test that finds one missing fails, not skips.
export HAMGAN_REQUIRE_REFERENCES=1
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${HAMGAN_TEST_JOBS:-2}" "$@"
tested=$SECONDS
# The readers of outside bytes under libFuzzer (ASan + UBSan) from the seed corpus with a
# fixed seed and a fixed number of inputs per target (about 15 s each, two at a time, the
# longest first): the same inputs every run, all clean when this was written. fuzz_hdf5
# runs by hand only: Debian's HDF5 1.10.8 still crashes inside its own metadata code on
# some crafted files (docs/reliability.md, "Left as is").
HAMGAN_FUZZ_SEED=1 HAMGAN_FUZZ_FRESH=1 \
  HAMGAN_FUZZ_RUNS="fuzz_checkpoint=100 fuzz_idx=8000 fuzz_jpeg=150000 fuzz_npz=80000 fuzz_png=250000 fuzz_toml=120000 fuzz_zip=1500 fuzz_safetensors=250000" \
  scripts/fuzz.sh fuzz_safetensors,fuzz_checkpoint,fuzz_npz,fuzz_png,fuzz_jpeg,fuzz_toml,fuzz_idx,fuzz_zip 300
echo "test.sh: set-up ${installed} s, build $((built - installed)) s, ctest $((tested - built)) s," \
     "fuzz $((SECONDS - tested)) s; ${SECONDS} s in all"
