#!/usr/bin/env bash
# Build benchmark: wall time, peak memory, per-pair times, cumulative time
# up to 10 and 12 stones in total, placing-phase totals, disk used.
# Usage: tools/bench_build.sh [DB_DIR] [RULES]   (defaults: db, standard)
# Resumed runs only time what they compute; start from an empty DB_DIR for
# the whole build; with the moving-phase tables already in DB_DIR it times
# the placing phase alone.
set -euo pipefail
db=${1:-db}
rules=${2:-standard}
cd "$(dirname "$0")/.."
cargo build --release --quiet
log=$(mktemp)
/usr/bin/time -v target/release/millbase build --rules "$rules" --db "$db" 2> "$log" || { tail -20 "$log"; exit 1; }
python3 tools/summarise_build.py "$log"
# The tables go to folders named by the rules (the moving phase is shared
# between stone counts), so the whole folder is measured.
echo "disk: $(du -sh "$db" | cut -f1) in $db"
