#!/usr/bin/env bash
# Installs what building and testing contentful-mirror needs on Debian/Ubuntu, when it is
# missing: the libraries it links (libarchive-dev and libcurl4-openssl-dev, found through
# pkg-config) and the archive tools the tests read exports back with (bsdtar, tar's xz and zstd
# helpers, unzip), GNU time for the benchmark's peak-RSS figures, and strace for the test of the
# commit order. The Swift 6 toolchain itself is not a Debian package: it must already be on PATH.
set -euo pipefail

if ! command -v swift >/dev/null 2>&1; then
  echo "install-dependencies: no 'swift' on PATH. Install a Swift 6 toolchain (https://swift.org/install) and run this again." >&2
  exit 1
fi

packages=(libarchive-dev libcurl4-openssl-dev pkg-config libarchive-tools xz-utils zstd unzip time strace)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-dependencies: please install ${missing[*]} with your system's package manager." >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-dependencies: ${missing[*]} missing and not root (no sudo): install them and run this again." >&2
    exit 1
  fi
fi
echo "install-dependencies: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
