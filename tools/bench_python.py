#!/usr/bin/env python3
"""The Python bindings beside the Rust library, on the same positions and
tables: `Tables.probe_many` against the library's probes on every core, and
one `Tables.probe` call against one library call (both with the blocks
cached). A benchmark, not a test.

    tools/bench_python.py DB RULES [COUNT]     (default 100,000 positions)

DB must hold the tables of RULES (`millbase build --rules RULES --db DB`);
the package must be installed (`pip install .`). Runs
`cargo bench --bench query` with MILLBASE_CODES for the Rust side.
"""

import os
import random
import re
import subprocess
import sys
import tempfile
import timeit

import numpy as np

import millbase


def random_positions(rules, count, seed=1):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = millbase.Position.start(rules)
        for _ in range(rng.randrange(1, 80)):
            moves = pos.legal_moves()
            if not moves or pos.is_game_over():
                break
            pos = pos.play(rng.choice(moves))
            if rng.random() < 0.3:
                out.append(pos)
    return out[:count]


def main():
    db, spec = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
    rules = millbase.Rules(spec)
    positions = random_positions(rules, count)
    codes = np.array([p.code for p in positions], dtype=np.uint64)

    tables = millbase.open_tables(db, rules)
    t = timeit.default_timer()
    tables.probe_many(codes)
    first = count / (timeit.default_timer() - t)
    t = timeit.default_timer()
    tables.probe_many(codes)
    cached = count / (timeit.default_timer() - t)
    one = positions[0]
    tables.probe(one)
    rounds = 200_000
    per_call = timeit.timeit(lambda: tables.probe(one), number=rounds) / rounds * 1e6
    print(f"python probe_many of {count} positions: {first:.0f} probes/s, cached {cached:.0f} probes/s")
    print(f"python one cached probe: {per_call:.3f} us")

    with tempfile.NamedTemporaryFile(suffix=".u64", delete=False) as f:
        f.write(codes.astype("<u8").tobytes())
        name = f.name
    try:
        env = dict(os.environ, MILLBASE_DB=db, MILLBASE_RULES=spec, MILLBASE_CODES=name)
        out = subprocess.run(
            ["cargo", "bench", "--bench", "query"],
            env=env,
            capture_output=True,
            text=True,
            cwd=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
        )
        print(out.stdout, end="")
        if out.returncode != 0:
            sys.exit(out.stderr)
    finally:
        os.unlink(name)
    rust_cached = float(re.search(r"cached (\d+) probes/s", out.stdout).group(1))
    rust_one = float(re.search(r"one cached probe: ([\d.]+) us", out.stdout).group(1))
    print(f"probe_many / library, cached: {cached / rust_cached:.2f}")
    print(f"probe call - library call: {per_call - rust_one:.3f} us")


if __name__ == "__main__":
    main()
