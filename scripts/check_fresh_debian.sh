#!/usr/bin/env bash
# Runs the README's two commands as a new user would, on a pristine Debian 12: builds a minbase bookworm
# root with debootstrap (from the Debian mirror this machine's apt uses), clones this repository's HEAD
# into it, and runs scripts/demo.sh, then scripts/test.sh, inside it, printing each one's time, result
# and the disk the set-up takes. Needs root and about 25 GB free; takes about an hour on 2 cores.
#   scripts/check_fresh_debian.sh [ROOT]      ROOT: where the Debian root goes (/var/tmp/hamgan-fresh-debian)
# HAMGAN_FRESH_KEEP=1 keeps the root afterwards; HAMGAN_FRESH_STEPS="demo test" picks the commands.
# The root gets nothing from this machine but the clone, its resolv.conf and the certificate authorities
# added under /usr/local/share/ca-certificates (a site whose proxy inspects TLS needs them for pip).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "check_fresh_debian: run as root (debootstrap and chroot need it)" >&2; exit 1; }
ROOT="$(realpath -m "${1:-/var/tmp/hamgan-fresh-debian}")"
STEPS="${HAMGAN_FRESH_STEPS:-demo test}"
LOG="${HAMGAN_FRESH_LOG:-$PWD/runs/fresh-debian.log}"
mkdir -p "$(dirname "$LOG")"
: > "$LOG"
say() { echo "$*" | tee -a "$LOG"; }

if ! command -v debootstrap >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi
source scripts/debian_root.sh
mirror="$(debian_mirror)"

unmount_all() {
  for m in dev/pts dev proc sys; do mountpoint -q "$ROOT/$m" && umount -l "$ROOT/$m"; done
  return 0
}
trap unmount_all EXIT
unmount_all
rm -rf "$ROOT"
say "check_fresh_debian: debootstrap --variant=minbase bookworm $ROOT $mirror"
start=$(date +%s)
debootstrap --variant=minbase bookworm "$ROOT" "$mirror" > "$ROOT.debootstrap.log" 2>&1 ||
  { tail -n 20 "$ROOT.debootstrap.log"; exit 1; }
say "check_fresh_debian: minbase root in $(($(date +%s) - start)) s, $(du -sh "$ROOT" | cut -f1)"

# What an installed Debian has and a debootstrap root lacks: name service for the network, and the
# /etc/hosts the installer (or a container runtime) writes, so that "localhost" and the machine's own
# name resolve (torchrun --standalone rendezvouses at the host name).
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
printf '127.0.0.1\tlocalhost\n127.0.0.1\t%s\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' "$(hostname)" > "$ROOT/etc/hosts"
add_site_cas "$ROOT"
mount -t proc proc "$ROOT/proc"
mount -t sysfs sys "$ROOT/sys"
mount --bind /dev "$ROOT/dev"
mount --bind /dev/pts "$ROOT/dev/pts"
git clone -q --no-hardlinks "$PWD" "$ROOT/root/hamgan"
say "check_fresh_debian: cloned $(git rev-parse --short HEAD) into /root/hamgan; no python3, no nvcc there:" \
    "$(chroot "$ROOT" sh -c 'command -v python3 nvcc || echo none')"

in_root() {
  env -i HOME=/root TERM=dumb LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    chroot "$ROOT" bash -c "cd /root/hamgan && $1"
}
status=0
for step in $STEPS; do
  t0=$(date +%s)
  rc=0
  in_root "scripts/$step.sh" >> "$LOG" 2>&1 || rc=$?
  say "check_fresh_debian: scripts/$step.sh exit $rc in $(($(date +%s) - t0)) s"
  [ "$rc" -eq 0 ] || { status=1; tail -n 30 "$LOG"; }
done
[ "$status" -ne 0 ] || grep -E '^(class-consistency|FID|test.sh:)|tests passed|Total Test time' "$LOG" | tee -a "$LOG.summary" || true

say "check_fresh_debian: disk: root $(du -sh "$ROOT" | cut -f1) in all;" \
    "venv $(du -sh "$ROOT/root/hamgan/.venv" 2>/dev/null | cut -f1)," \
    "build $(du -sh "$ROOT/root/hamgan/build" 2>/dev/null | cut -f1)," \
    "build-fuzz $(du -sh "$ROOT/root/hamgan/build-fuzz" 2>/dev/null | cut -f1)," \
    "Debian packages $(chroot "$ROOT" dpkg-query -W -f='${Installed-Size}\n' | awk '{s+=$1} END {printf "%.1fG", s/1048576}')," \
    "pip cache $(du -sh "$ROOT/root/.cache/pip" 2>/dev/null | cut -f1)"
say "check_fresh_debian: Debian's Python untouched:" \
    "$(ls "$ROOT/usr/lib/python3/dist-packages" | grep -ciE '^(torch|numpy)' || true) torch/numpy packages in its dist-packages"
unmount_all
[ "${HAMGAN_FRESH_KEEP:-0}" = 1 ] || rm -rf "$ROOT" "$ROOT.debootstrap.log"
say "check_fresh_debian: log $LOG"
exit "$status"
