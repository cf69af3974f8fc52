#!/usr/bin/env bash
# The house rules a reviewer would otherwise check by hand: no circle of
# imports inside a crate, no Rust source file over 800 lines, and user docs
# short enough to read (README.md at most 250 lines, BENCHMARKS.md at most
# 600). Run by scripts/test.sh; exit 1 names every breach.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

status=0
python3 scripts/module-cycles.py || status=1

while read -r lines file; do
  if [[ $file != total && $lines -gt 800 ]]; then
    echo "house: $file has $lines lines (at most 800: split it by what it does)"
    status=1
  fi
done < <(git ls-files -co --exclude-standard 'crates/*.rs' | xargs wc -l)

for limit in README.md:250 BENCHMARKS.md:600; do
  file=${limit%%:*} max=${limit##*:}
  lines=$(wc -l < "$file")
  if (( lines > max )); then
    echo "house: $file has $lines lines (at most $max)"
    status=1
  fi
done

(( status == 0 )) && echo "house: every rule holds"
exit $status
