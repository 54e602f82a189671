#!/usr/bin/env bash
# Install what dp_stream needs on Debian 12, for one purpose:
#   scripts/setup.sh demo   what `make demo` needs: build the extension, run
#                           PostgreSQL, draw the chart
#   scripts/setup.sh        (or `test`) everything: the demo's packages and
#                           what `make test` and the benchmarks add (pgTAP,
#                           pg_prove, pg_cron, bc, the fuzzing toolchain)
# Idempotent: when every package is present it only checks and returns.
set -euo pipefail

purpose=${1:-test}

# build and run: a compiler, the server and its PGXS headers, libsodium.
# (Debian's postgresql-server-dev-15 itself depends on clang-14 and
# llvm-14-dev, for the JIT bitcode PGXS builds: those come with it.)
packages=(
  build-essential
  postgresql-15
  postgresql-server-dev-15
  libsodium-dev
  gnuplot-nox
)

case "$purpose" in
  demo) ;;
  test)
    packages+=(
      postgresql-15-pgtap
      postgresql-15-cron
      libtap-parser-sourcehandler-pgtap-perl
      pkg-config
      bc
      # memcheck of the unit tests (make unit-valgrind) and the instruction
      # counts of bench/step_work.sh
      valgrind
      # fuzzing (make fuzz, fuzz-replay, fuzz-coverage): clang with libFuzzer and
      # the sanitizer runtimes; llvm-14 has llvm-symbolizer, llvm-cov, llvm-profdata
      clang-14
      libclang-rt-14-dev
      libfuzzer-14-dev
      llvm-14
      # PostgreSQL 17 and 18 built from their release tarballs for the other
      # majors' tests (scripts/postgres.sh): their tarballs ship no generated
      # parser; zlib, so that their pg_restore reads 15's compressed dumps
      bison
      flex
      zlib1g-dev
      # Citus built from its source tarball for test/citus.sh
      liblz4-dev
      libzstd-dev
      libkrb5-dev
    )
    ;;
  *)
    echo "usage: scripts/setup.sh [demo|test]" >&2
    exit 2
    ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "setup: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
# The Debian postgresql-15 package would create and start a system cluster;
# policy-rc.d keeps the installer from starting any service on this machine.
if [ ! -e /usr/sbin/policy-rc.d ] && [ "$(id -u)" -eq 0 ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
