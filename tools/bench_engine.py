#!/usr/bin/env python3
"""Time `go` in `millbase uci`: positions of random games (placing and
moving phases), each sent as `position startpos moves ...`, then `go`
timed until its `bestmove` line. A benchmark, not a test.

    tools/bench_engine.py DB [COUNT] [MILLBASE]     (default 200 positions)

DB must hold the standard game's tables; the Python package must be
installed (`pip install .`), which makes the random games.
"""

import os
import random
import statistics
import subprocess
import sys
import time

import millbase


def games(count, seed=7):
    """Move lists in Sanmill's tokens (a removal its own token)."""
    rules = millbase.Rules("standard")
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos, tokens = millbase.Position.start(rules), []
        for _ in range(rng.randrange(1, 60)):
            moves = pos.legal_moves()
            if not moves or pos.is_game_over():
                break
            move = rng.choice(moves)
            head, *removed = str(move).split("x")
            tokens += [head] + ["x" + r for r in removed]
            pos = pos.play(move)
        if pos.is_game_over() is None and pos.legal_moves():
            out.append(tokens)
    return out


def main():
    db = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    binary = sys.argv[3] if len(sys.argv) > 3 else "millbase"
    engine = subprocess.Popen(
        [binary, "uci", "--db", db], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )

    def send(line):
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def read_until(last):
        lines = []
        while True:
            line = engine.stdout.readline().rstrip("\n")
            lines.append(line)
            if last(line):
                return lines

    times, fallbacks = [], 0
    for tokens in games(count):
        send("position startpos moves " + " ".join(tokens))
        send("isready")
        answer = read_until(lambda l: l == "readyok")
        assert len(answer) == 1, answer
        start = time.perf_counter()
        send("go")
        answer = read_until(lambda l: "bestmove" in l)
        times.append((time.perf_counter() - start) * 1000)
        fallbacks += any("no table" in l for l in answer)
    send("quit")
    engine.wait()
    ordered = sorted(times)
    print(
        f"{len(times)} go: first {times[0]:.2f} ms (tables opened), median "
        f"{statistics.median(times):.2f} ms, p99 {ordered[int(len(times) * 0.99) - 1]:.2f} ms, "
        f"max {max(times):.2f} ms; {fallbacks} answered by the alpha-beta fallback"
    )


if __name__ == "__main__":
    main()
