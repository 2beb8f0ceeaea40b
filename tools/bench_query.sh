#!/usr/bin/env bash
# Query benchmark on built tables: probe latency (cold and warm, from
# benches/query.rs) and batch throughput of `millbase query --json -` on
# 100,000 random moving-phase positions.
# Usage: tools/bench_query.sh [DB_DIR] [COUNT]   (defaults: db, 100000)
set -euo pipefail
db=${1:-db}
count=${2:-100000}
cd "$(dirname "$0")/.."
cargo build --release --quiet
MILLBASE_DB="$db" cargo bench --quiet --bench query
positions=$(mktemp)
python3 - "$count" > "$positions" <<'PY'
import random, sys
random.seed(1)
for _ in range(int(sys.argv[1])):
    w, b = random.randint(3, 9), random.randint(3, 9)
    points = random.sample(range(24), w + b)
    cells = ["."] * 24
    for p in points[:w]:
        cells[p] = "W"
    for p in points[w:]:
        cells[p] = "B"
    s = "".join(cells)
    print(f"{s[:8]}/{s[8:16]}/{s[16:]} {random.choice('wb')} 0 0")
PY
start=$(date +%s.%N)
target/release/millbase query --db "$db" --json - < "$positions" > "$positions.out"
end=$(date +%s.%N)
lines=$(wc -l < "$positions.out")
errors=$(grep -c '"error"' "$positions.out" || true)
python3 -c "import sys; n, t = int(sys.argv[1]), float(sys.argv[2]) - float(sys.argv[3]); print(f'batch: {n} positions in {t:.1f} s = {n / t:,.0f} queries/s (with every move valued)')" "$lines" "$end" "$start"
echo "lines with an error: $errors"
rm -f "$positions" "$positions.out"
