#!/usr/bin/env bash
# The demo: installs what is missing, builds the CLI, converts the default
# Fashion-MNIST (Debian's dataset-fashion-mnist) to a BigGAN-layout HDF5 file
# in runs/ and shows what it holds. Idempotent: a second run reuses the build
# and rewrites the same outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh hamgan
BUILD_DIR="${HAMGAN_BUILD_DIR:-build}"
mkdir -p runs
"$BUILD_DIR/hamgan" prepare --output runs/fashion_mnist_32.hdf5 --size 32
"$BUILD_DIR/hamgan" data-info runs/fashion_mnist_32.hdf5 --grid runs/fashion_mnist_32_examples.png
