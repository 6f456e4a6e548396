#!/usr/bin/env bash
# Installs whatever is missing for building and testing HamGAN on Debian 12:
# Debian packages through apt, LibTorch through pip's torch package (pinned),
# and the Python reference implementations used only inside tests.
# Idempotent: returns in about a second when everything is present.
set -euo pipefail

TORCH_VERSION="${HAMGAN_TORCH_VERSION:-2.12.1}"
APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libhdf5-dev libpng-dev libjpeg62-turbo-dev zlib1g-dev libzip-dev
  libcli11-dev libgtest-dev libgmock-dev libtomlplusplus-dev liblzf-dev libgloo-dev libssl-dev nlohmann-json3-dev
  clang libclang-rt-14-dev
  dataset-fashion-mnist
)
# Reference implementations for tests only; never imported by the product.
# An entry "package:module" names the import when it differs from the package.
# pytorch-fid calls scipy's sqrtm(disp=...), removed in scipy 1.18; torchvision
# 0.27.x is the release built against torch 2.12 (pinned so pip keeps torch).
# prdc (NAVER's density/coverage code, which brings scikit-learn) is pinned to the
# version the PRDC test compares against.
PIP_TEST_PACKAGES=(numpy "scipy<1.18:scipy" h5py pillow:PIL "torchvision==0.27.1:torchvision" "tensorboard==2.21.0:tensorboard"
  pytorch-fid:pytorch_fid torch-fidelity:torch_fidelity "prdc==0.2:prdc")

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install_deps: apt packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
if ! "$PY" -c "import torch, sys; sys.exit(0 if torch.__version__.split('+')[0] == '$TORCH_VERSION' else 1)" 2>/dev/null; then
  echo "install_deps: pip torch==$TORCH_VERSION (LibTorch comes inside it)"
  "$PY" -m pip install -q --disable-pip-version-check "torch==$TORCH_VERSION"
fi
pip_missing=()
for p in "${PIP_TEST_PACKAGES[@]}"; do
  "$PY" -c "import ${p#*:}" 2>/dev/null || pip_missing+=("${p%%:*}")
done
if [ ${#pip_missing[@]} -gt 0 ]; then
  echo "install_deps: pip (test references): ${pip_missing[*]}"
  "$PY" -m pip install -q --disable-pip-version-check "torch==$TORCH_VERSION" "${pip_missing[@]}"
fi
