#!/usr/bin/env bash
# The placing phase of a rule set timed alone: its moving-phase tables are
# built once into CACHE (reused on later runs), hard-linked into a fresh
# folder, and the placing phase built there under GNU time. With SUBSPACE,
# every placing table is built first and then that one alone again.
# Usage: tools/bench_placing.sh BINARY CACHE [RULES] [SUBSPACE]
#   (RULES defaults to standard,stones=7)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1
cache=$2
rules=${3:-standard,stones=7}
one=${4:-}
if [ ! -f "$cache/.moving-built" ]; then
    "$bin" build --rules "$rules" --no-placing --db "$cache" 2> "$cache.moving.log"
    touch "$cache/.moving-built"
fi
db=$(mktemp -d)
log="$db.log"
trap 'rm -rf "$db" "$log"' EXIT
cp -al "$cache/." "$db/"
rm -f "$db/.millbase.lock" "$db/.moving-built"
if [ -n "$one" ]; then
    "$bin" build --rules "$rules" --db "$db" 2> /dev/null
    find "$db" -name "$one.mbt" -delete
fi
/usr/bin/time -v "$bin" build --rules "$rules" --db "$db" 2> "$log"
python3 tools/summarise_build.py "$log" | grep -E 'placing subspaces solved|^  [0-9]|wall time|peak resident'
