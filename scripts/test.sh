#!/usr/bin/env bash
# The test command: installs the engines the tests need into .engines/, then
# runs formatting, lint and the whole test suite. Works on a fresh checkout.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup-engines.sh
# Headless Chromium opens the HTML campaign report in its test; where it
# cannot be installed (no root, no apt), that test says it skipped.
if ! command -v chromium >/dev/null && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 ||
    echo "test.sh: chromium could not be installed; the report test will skip its browser check" >&2
fi
# A one-node Slurm (Debian's slurm-wlm and munge) runs the sharded campaign
# through deploy/slurm in its test; without root or apt that test says it skipped.
if ! command -v slurmctld >/dev/null && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null 2>&1 ||
    echo "test.sh: slurm-wlm could not be installed; the Slurm test will skip" >&2
fi
# Debian's redis-cli replays every FalkorDB entry of a bug ledger as a
# maintainer would; without root or apt that test says it skipped.
if ! command -v redis-cli >/dev/null && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-tools >/dev/null 2>&1 ||
    echo "test.sh: redis-tools could not be installed; the ledger's redis-cli test will skip" >&2
fi
scripts/house.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
cargo test --workspace --all-features --locked
