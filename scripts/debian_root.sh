# Sourced by scripts/check_fresh_debian.sh and scripts/check_container.sh, which both build a Debian 12
# root with debootstrap.
# The Debian mirror this machine's apt uses (HAMGAN_FRESH_MIRROR overrides it; deb.debian.org without one).
debian_mirror() {
  local mirror
  mirror=$(grep -rhoE '^(URIs:|deb) +https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
             /etc/apt/sources.list.d/*.list 2>/dev/null | grep -v security | awk '{print $2}' | head -1 || true)
  echo "${HAMGAN_FRESH_MIRROR:-${mirror:-http://deb.debian.org/debian}}"
}
# The certificate authorities added under /usr/local/share/ca-certificates, into the root $1: a site whose
# proxy inspects TLS needs them for pip (ca-certificates adds them to the root's store when installed).
add_site_cas() {
  if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    mkdir -p "$1/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/"
  fi
}
