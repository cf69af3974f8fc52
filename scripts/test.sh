#!/usr/bin/env bash
# The test command: installs the engines the tests need into .engines/, then
# runs formatting, lint and the whole test suite. Works on a fresh checkout.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup-engines.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
