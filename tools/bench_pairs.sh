#!/usr/bin/env bash
# Seconds per moving-phase pair on one thread: the 15 subspaces up to 10
# stones in total (the pairs of the Malom comparison in SOLVING.md among
# them), each built from scratch into a fresh folder.
# Usage: tools/bench_pairs.sh [BINARY] [THREADS]
#   (defaults: target/release/millbase after building it, 1 thread)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
threads=${2:-1}
if [ -z "$bin" ]; then
    cargo build --release --quiet
    bin=target/release/millbase
fi
db=$(mktemp -d)
log="$db/build.log"
trap 'rm -rf "$db"' EXIT
"$bin" build --no-placing --subspaces 5-5,6-4,7-3 --threads "$threads" --db "$db" 2> "$log" \
    || { tail -20 "$log"; exit 1; }
awk '
    /^  initialise:/ { init = $2 }
    /^  propagate:/ { prop = $2 }
    /^solved/ {
        pair = $2; i = 3
        if ($3 == "+") { pair = $2 " + " $4; i = 5 }
        slots = $i; gsub(/[(]/, "", slots)
        secs = $(i + 3)
        printf "%-9s %12s %8.1f s  (initialise %s s, propagate %s s)\n", pair, slots, secs, init, prop
        total += secs
    }
    END { printf "total %31.1f s\n", total }
' "$log"
grep -E '^(rate|machine figure)' "$log"
