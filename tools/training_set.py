#!/usr/bin/env python3
"""Writes a training set for a learned player: positions from random games,
with their values from the tables, as numpy arrays in one `.npz` file.

    tools/training_set.py DB RULES COUNT OUT.npz

Arrays: `code` (uint64, `Position.code`: the stones, hands and side to
move), `wdl` (int8: 1 win, 0 draw, -1 loss for the side to move) and
`plies` (int32, plies to the end with best play, -1 for a draw).
"""

import random
import sys

import numpy as np

import millbase


def main():
    db, spec, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    rules = millbase.Rules(spec)
    tables = millbase.open_tables(db, rules)
    rng = random.Random(2024)
    seen = set()
    while len(seen) < count:
        pos = millbase.Position.start(rules)
        while pos.is_game_over() is None and len(seen) < count:
            pos = pos.play(rng.choice(pos.legal_moves()))
            seen.add(pos.code)
    code = np.array(sorted(seen), dtype=np.uint64)
    wdl, plies = tables.probe_many(code)  # every core, without the GIL
    np.savez_compressed(out, code=code, wdl=wdl, plies=plies)
    wins, draws, losses = (wdl == 1).sum(), (wdl == 0).sum(), (wdl == -1).sum()
    print(f"{out}: {len(code)} positions, {wins} wins, {draws} draws, {losses} losses")


if __name__ == "__main__":
    main()
