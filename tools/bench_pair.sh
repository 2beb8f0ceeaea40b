#!/usr/bin/env bash
# Seconds of one moving-phase pair solved again from a finished build, at
# its real size: every other moving table of DIR hard-linked (or copied)
# into a scratch folder beside the stats file, the pair rebuilt there, its
# initialisation and propagation printed, and its tables compared byte for
# byte with the finished ones.
# Usage: tools/bench_pair.sh BINARY DIR RULES PAIR [THREADS]
#   DIR: the folder of the rule set's moving tables (e.g. db/standard);
#   e.g. tools/bench_pair.sh target/release/millbase db/standard standard 7-5 2
set -euo pipefail
bin=$1 dir=$2 rules=$3 pair=$4 threads=${5:-2}
twin=$(echo "$pair" | awk -F- '{print $2"-"$1}')
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
work="$scratch/$(basename "$dir")"
mkdir -p "$work"
for f in "$dir"/[0-9]*-[0-9]*.mbt; do
    case $(basename "$f" .mbt) in
        *-*-*) continue ;;
        "$pair" | "$twin") continue ;;
    esac
    ln "$f" "$work/" 2>/dev/null || cp "$f" "$work/"
done
cp "$dir/stats.json" "$work/"
"$bin" build --rules "$rules" --no-placing --subspaces "$pair" --threads "$threads" \
    --db "$scratch" 2> "$scratch/build.log" || { tail -20 "$scratch/build.log"; exit 1; }
grep -E '^  (initialise|propagate|write)' "$scratch/build.log" | tr '\n' ' '
grep '^solved' "$scratch/build.log" | sed 's/;.*//'
for s in "$pair" "$twin"; do
    cmp "$work/$s.mbt" "$dir/$s.mbt"
done
echo "tables identical"
