#!/bin/sh
# Installs the reference engines the lab compares ours with: zonemaster-cli 8.0.1 (Zonemaster engine
# 9.0.1) and DNSViz 0.11.2, from Debian unstable, in a root of their own so the machine's Debian stays
# as it is. Needs root and debootstrap. Safe to run again: an existing root is only brought up to date.
#   sh packages/lab/scripts/install-reference.sh [MIRROR]
# LAB_REFERENCE_ROOT names the root (default /var/cache/dns-lab-reference/sid). MIRROR defaults to
# the first Debian archive that the machine's apt sources name.
set -eu
root=${LAB_REFERENCE_ROOT:-/var/cache/dns-lab-reference/sid}
# apt reads only *.list and *.sources there: a disabled file (other suffix) must not be taken.
sources=$(find /etc/apt/sources.list /etc/apt/sources.list.d -maxdepth 1 -type f \( -name '*.list' -o -name '*.sources' \) 2>/dev/null || true)
mirror=${1:-$(grep -hoE '^(URIs:[[:space:]]*|deb[[:space:]]+)https?://[^[:space:]]+' $sources /dev/null \
  | sed -E 's/^(URIs:[[:space:]]*|deb[[:space:]]+)//' | grep -v -- '-security' | grep -E '/debian/?$' | head -n 1)}
[ -n "$mirror" ] || { echo "install-reference: no Debian mirror found in the apt sources; give one as the argument" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "install-reference: debootstrap is missing (apt-get install debootstrap)" >&2; exit 2; }

if [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "install-reference: making a Debian unstable root in $root from $mirror"
  mkdir -p "$(dirname "$root")"
  debootstrap --variant=minbase sid "$root" "$mirror" >/dev/null
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# The mirror may serve a Release file past its Valid-Until date (a snapshot); the packages are still signed.
chroot "$root" apt-get -qq -o Acquire::Check-Valid-Until=false update
DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends zonemaster-cli dnsviz >/dev/null
chroot "$root" zonemaster-cli --version | head -n 2
chroot "$root" dnsviz --version 2>/dev/null | head -n 1 || true
echo "install-reference: ready in $root"
