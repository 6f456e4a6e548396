#!/usr/bin/env bash
# scripts/install_deps.sh where it cannot install: each case must stop before installing anything with
# exit status 1 and one line on stderr that names what is missing and the container image.
#   install_deps_test.sh SOURCE_DIR
# Stand-ins on a PATH of their own: without apt (no dpkg-query, no apt-get); without root (`id -u` says
# 1000), a dpkg-query that finds nothing installed, and no sudo; and an unknown option.
set -euo pipefail
src="$(realpath "$1")"
work="$(mktemp -d "${HAMGAN_TEST_TMP:-/tmp}/install_deps_XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL ($1): $2"; cat "$work/err"; exit 1; }
tools() {  # $1: a bin folder holding links to the basic tools the script itself uses
  mkdir -p "$1"
  for t in bash dirname realpath grep cat; do ln -sf "$(command -v "$t")" "$1/$t"; done
}
expect_refusal() {  # $1: case, $2: bin folder, then the script's arguments; the rest of the phrases after --
  local name="$1" bin="$2" rc=0
  shift 2
  local args=()
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  env -i PATH="$bin" HAMGAN_VENV="$work/venv" bash "$src/scripts/install_deps.sh" "${args[@]}" \
    > "$work/out" 2> "$work/err" || rc=$?
  [ "$rc" -eq 1 ] || fail "$name" "exit status $rc, not 1"
  [ "$(wc -l < "$work/err")" -eq 1 ] || fail "$name" "not one line on stderr"
  for want in "$@"; do grep -qF -- "$want" "$work/err" || fail "$name" "stderr does not say '$want'"; done
  [ ! -e "$work/venv" ] || fail "$name" "it created the environment"
  echo "ok ($name): $(cat "$work/err")"
}

tools "$work/no_apt"
ln -sf "$(command -v id)" "$work/no_apt/id"
expect_refusal "no apt" "$work/no_apt" -- "no apt on this machine" "libhdf5-dev" "container image"

tools "$work/no_root"
printf '#!/bin/sh\necho 1000\n' > "$work/no_root/id"
printf '#!/bin/sh\nexit 1\n' > "$work/no_root/dpkg-query"
printf '#!/bin/sh\nexit 1\n' > "$work/no_root/apt-get"
chmod +x "$work/no_root/id" "$work/no_root/dpkg-query" "$work/no_root/apt-get"
expect_refusal "no root, no sudo" "$work/no_root" -- "needs root" "libhdf5-dev" "libgtest-dev" "container image"
expect_refusal "no root, no sudo, --runtime" "$work/no_root" --runtime -- "needs root" "libhdf5-dev" "container image"
grep -q libgtest-dev "$work/err" && fail "--runtime" "it asks for GoogleTest"

expect_refusal "unknown option" "$work/no_root" --tests -- "unknown option --tests"
