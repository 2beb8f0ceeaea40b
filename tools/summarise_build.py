#!/usr/bin/env python3
"""Summarises a `millbase build` log (stderr, not a terminal), optionally
with GNU time -v output in it: per-pair seconds, cumulative seconds up to
10 and 12 stones in total, slots per second, the placing phase's totals and
slowest subspaces, wall time and peak memory. Under the N-move rule the
pure pass and the rule's pass are summed apart."""
import re
import sys

text = open(sys.argv[1]).read()
pairs = re.findall(r"solved (\d+)-(\d+)(?: \+ \d+-\d+)? \((\d+) slots\) in ([\d.]+) s", text)
# A pair solved again starts a new pass: under the N-move rule a build from
# nothing solves the pure game's moving phase first, then the rule's.
passes = [[]]
for pair in pairs:
    if any(p[:2] == pair[:2] for p in passes[-1]):
        passes.append([])
    passes[-1].append(pair)
for n, run in enumerate(passes):
    if len(passes) > 1:
        print(f"moving-phase pass {n + 1} of {len(passes)}:")
    cum = {10: 0.0, 12: 0.0}
    total_s = total_slots = 0
    for w, b, slots, secs in run:
        w, b, slots, secs = int(w), int(b), int(slots), float(secs)
        total_s += secs
        total_slots += slots
        for limit in cum:
            if w + b <= limit:
                cum[limit] += secs
        print(f"{w}-{b}: {slots} slots, {secs:.1f} s")
    print(f"pairs solved: {len(run)}, {total_slots} slots, {total_s:.0f} s of solving "
          f"({total_slots / max(total_s, 1e-9) / 1e6:.2f} M slots/s)")
    for limit, secs in cum.items():
        print(f"up to {limit} stones in total: {secs:.0f} s")
placing = re.findall(r"solved (\d+)-(\d+)-(\d+)-(\d+) \((\d+) slots\) in ([\d.]+) s", text)
if placing:
    slots = sum(int(p[4]) for p in placing)
    secs = sum(float(p[5]) for p in placing)
    print(f"placing subspaces solved: {len(placing)}, {slots} slots, {secs:.0f} s "
          f"({slots / max(secs, 1e-9) / 1e6:.2f} M slots/s)")
    for p in sorted(placing, key=lambda p: -float(p[5]))[:5]:
        print(f"  {p[0]}-{p[1]}-{p[2]}-{p[3]}: {p[4]} slots, {float(p[5]):.1f} s")
m = re.search(r"Elapsed \(wall clock\) time.*: (.*)", text)
if m:
    print(f"wall time: {m.group(1)}")
m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
if m:
    print(f"peak resident memory: {int(m.group(1)) / 1024 / 1024:.2f} GiB")
