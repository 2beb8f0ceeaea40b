#!/usr/bin/env bash
# Seconds and slots per second of each moving-phase pair on one thread:
# every pair up to 11 stones in total that 5-5, 6-4, 7-3 and 6-5 need (the
# pairs of the comparison with Malom in docs/BENCHMARKS.md), built from
# scratch into a fresh folder, then the machine figure.
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
"$bin" build --no-placing --subspaces 5-5,6-4,7-3,6-5 --threads "$threads" --machine-figure \
    --db "$db" 2> "$log" \
    || { tail -20 "$log"; exit 1; }
awk '
    /^  initialise:/ { init = $2 }
    /^  propagate:/ { prop = $2 }
    /^  write:/ { write = $2 }
    /^solved/ {
        pair = $2; i = 3
        if ($3 == "+") { pair = $2 " + " $4; i = 5 }
        slots = $i; gsub(/[(]/, "", slots)
        secs = $(i + 3)
        # Binaries before the write stage count it in propagation.
        printf "%-9s %12s %8.1f s %7.2f M slots/s  (initialise %s s, propagate %s s, write %s s)\n", \
            pair, slots, secs, slots / secs / 1e6, init, prop, write == "" ? "-" : write
        write = ""
        total += secs
    }
    END { printf "total %31.1f s\n", total }
' "$log"
grep -E '^(rate|machine figure)' "$log"
