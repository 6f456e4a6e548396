#!/usr/bin/env bash
# `cmake --install BUILD --prefix P` gives a hamgan that runs without the build tree:
#   install_test.sh BUILD_DIR SOURCE_DIR
# Installs into a scratch prefix, then checks that no RUNPATH entry of P/bin/hamgan lies in the build
# tree, that it runs with an empty environment (no LD_LIBRARY_PATH, no PATH), and that the experiment
# files installed under P/share/hamgan/experiments are the source tree's, one for one, and load.
set -euo pipefail
build="$(realpath "$1")" src="$(realpath "$2")"
work="$(mktemp -d "${HAMGAN_TEST_TMP:-/tmp}/install_XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install failed"; }
bin="$work/prefix/bin/hamgan"
[ -x "$bin" ] || fail "no $bin"
runpath=$(readelf -d "$bin" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
[ -n "$runpath" ] || fail "the installed hamgan has no RUNPATH (LibTorch would not be found)"
IFS=: read -r -a entries <<< "$runpath"
for e in "${entries[@]}"; do
  case "$e" in "$build"*) fail "RUNPATH entry $e lies in the build tree" ;; esac
done
version=$(env -i "$bin" --version) || fail "the installed hamgan does not run: $version"
echo "$version"
(cd "$src/experiments" && find . -name '*.toml' | sort) > "$work/want"
(cd "$work/prefix/share/hamgan/experiments" && find . -name '*.toml' | sort) > "$work/got"
diff "$work/want" "$work/got" || fail "the installed experiment files differ from experiments/"
env -i "$bin" model-info --config "$work/prefix/share/hamgan/experiments/fmnist_ham.toml" > "$work/info" 2>&1 ||
  { cat "$work/info"; fail "model-info on the installed fmnist_ham.toml failed"; }
echo "ok: RUNPATH $runpath; $(wc -l < "$work/got") experiment files"
