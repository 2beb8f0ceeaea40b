#!/usr/bin/env bash
# Builds the tables of every hand W/B with 3 <= W, B <= MAX for a preset
# (moving and placing phase; tables are shared, so each build adds only
# what the previous ones did not make), timing each, then queries each start.
# Usage: tools/build_hands.sh PRESET MAX DB [MILLBASE [MAX_TOTAL]]
# (MAX_TOTAL: skip hands with W + B above it, e.g. while another build is
# still making the moving-phase tables they need)
set -euo pipefail
preset=$1 max=$2 db=$3 bin=${4:-millbase} max_total=${5:-$((2 * $2))}
for total in $(seq 6 "$max_total"); do
  for w in $(seq 3 "$max"); do
    b=$((total - w))
    if [ "$b" -lt 3 ] || [ "$b" -gt "$max" ]; then continue; fi
    rules="$preset,stones=$w/$b"
    start=$(date +%s%N)
    "$bin" build --rules "$rules" --db "$db" 2>&1 | grep -E "^(moving|placing) phase" || exit 1
    end=$(date +%s%N)
    value=$("$bin" query --rules "$rules" --db "$db" --json start | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["value"], j["plies"])')
    echo "$rules: $(( (end - start) / 1000000 )) ms; start: $value"
  done
done
