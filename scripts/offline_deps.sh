#!/usr/bin/env bash
# Prepares, on a Debian 12 machine with apt, the C++ libraries that a machine without a package
# registry lacks (a GPU node with CUDA, CMake, ninja and a pip PyTorch, say), for copying there:
#
#   scripts/offline_deps.sh                 # here: downloads and unpacks into .gpu-deps/
#   (copy the tree with .gpu-deps/ to the other machine)
#   source .gpu-deps/env.sh                 # there: CMake, pkg-config and the loader find them
#   bench/gpu_session.sh build              # or scripts/build.sh
#
# The packages are unpacked, not installed: .gpu-deps/root mirrors their /usr. git ignores .gpu-deps.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
exclude=$(git rev-parse --git-path info/exclude)  # .git/info may not exist yet
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu-deps/' "$exclude" 2>/dev/null || echo '/.gpu-deps/' >> "$exclude"
rm -rf .gpu-deps
mkdir -p .gpu-deps/debs .gpu-deps/root
pkgs=(
  libhdf5-dev libhdf5-103-1 libhdf5-cpp-103-1 libhdf5-hl-100 libhdf5-hl-cpp-100
  libsz2 libaec0 libaec-dev zlib1g-dev
  libpng-dev libpng16-16
  libjpeg62-turbo libjpeg62-turbo-dev
  libcli11-dev
  libgtest-dev libgmock-dev googletest
  libzip-dev libzip4
  liblzf-dev liblzf1
  libgloo-dev libgloo0
  libtomlplusplus-dev libtomlplusplus3 nlohmann-json3-dev
  libssl-dev libssl3
  pkgconf pkgconf-bin libpkgconf3
)
[ -n "$(ls /var/lib/apt/lists/ 2>/dev/null | grep -v lock)" ] || apt-get update -qq
(cd .gpu-deps/debs && apt-get download "${pkgs[@]}" 2>/dev/null >/dev/null)
for f in .gpu-deps/debs/*.deb; do dpkg -x "$f" .gpu-deps/root; done
rm -rf .gpu-deps/debs
# Fewer bytes to copy: no documentation, no static libraries the build does not link (GoogleTest
# ships only static ones, so those stay), no Fortran bindings.
rm -rf .gpu-deps/root/usr/share/doc .gpu-deps/root/usr/share/man .gpu-deps/root/usr/share/hdf5_examples
find .gpu-deps/root -name '*.a' ! -name 'libgtest*' ! -name 'libgmock*' -delete
find .gpu-deps/root -name '*fortran*' -delete
cp scripts/offline_env.sh .gpu-deps/env.sh
du -sh .gpu-deps
echo "ready: copy the tree with .gpu-deps; there, run: source .gpu-deps/env.sh"
