#!/usr/bin/env bash
# Installs the Debian packages cuwheel needs to build and test, and nothing
# else. Safe to run repeatedly: it asks apt only for what is missing.
# Why each package is here: see README.md, "Dependencies".
set -euo pipefail

packages=(
  cmake ninja-build pkg-config g++
  libzip-dev libzstd-dev liblz4-dev
  libisal-dev                   # ISA-L igzip: inflate and CRC-32 of wheel members
  libssl-dev                    # libcrypto: SHA-256 for RECORD checks
  nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
  libgtest-dev
  libcurl4-openssl-dev          # toolkit download: HTTP(S) client
  libgpgme-dev gnupg            # toolkit: OpenPGP signature checks on RPM headers
  libarchive-dev                # toolkit: gzip/xz/zstd repodata, RPM payload extraction
  libexpat1-dev                 # toolkit: streaming parser for repodata XML
  rpm createrepo-c zstd         # toolkit tests: build, sign and index a test repository (zstd metadata)
  clang-14 libclang-rt-14-dev   # the test tree: libFuzzer and the sanitizer runtimes
  ccache                        # rebuilds of the trees reuse unchanged objects
  python3 zip unzip
  python3-venv                  # the wheel and Python API tests: a fresh virtual environment per run
  elfutils                      # tests: eu-elflint checks what the ELF editor writes
  qemu-user libc6-arm64-cross   # tests: edited aarch64 libraries load under qemu-aarch64
  binutils-aarch64-linux-gnu    # tests: ... and still load after the cross strip
  libc6-ppc64el-cross binutils-powerpc64le-linux-gnu  # tests: the same for ppc64le under qemu-ppc64le
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "bootstrap: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
