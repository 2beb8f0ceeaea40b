#!/usr/bin/env python3
"""Independent, deliberately simple reference perft for mill games.

Follows the rules reference (docs/RULES.md) sections 1-4 plus the decisions of the brief:
  * removals are done one at a time, each checked against the protection rule
    on the board as it is at that moment; they lapse when there is no legal
    target and stop once the opponent has fewer than 3 stones (board + hand);
  * a move is (from, to, SET of removed points); distinct moves are counted;
  * a side to move with fewer than 3 stones (board + hand) has no moves;
  * each side's phase is its own: with stones in hand it places (under
    lasker=on it may instead slide to an adjacent point); with none in hand
    it slides, or flies when flying allows (at most 3 resp. 4 on the board),
    whatever the opponent still has in hand;
  * mill=wins: closing a line never removes anything; a position where the
    side NOT to move has a full line of its own stones is over (the side to
    move has lost) and has no moves;
  * full-board=draw|loss has no effect on move generation (a full board has
    no moves either way); a blocked side to move has no moves.

Usage: python3 tools/perft_ref.py --depth N [--rules SPEC] [--divide] [--memo] [POSITION]
SPEC: PRESET[,key=value...] (PRESET: standard, lasker, twelve, six, three);
      if the first part contains '=', the preset is standard.
      keys: board=standard|diagonals|six|three, stones=N|W/B (3..12),
      flying=3|4|off, protection=standard|none|strict, removals=1|2,
      double-mill=one|per-mill, lasker=on|off, full-board=draw|loss,
      mill=removes|wins.
POSITION: "start" (or nothing): empty board, hands from stones=, White to move;
      else "<board> <w|b> [<white hand> <black hand>]", the board one
      character W/B/. per point of the rule set's board (24, 16 or 9); a '/'
      may follow every 8 characters.  Hands default to 0 0.
The last line printed is the count.
"""
import argparse
import sys


# ---- boards (docs/RULES.md sections 2 and 4) ------------------------------------

class Board:
    def __init__(self, name, npoints, lines, edges, nlines, nedges):
        assert len(lines) == nlines, (name, len(lines))
        assert len(edges) == nedges, (name, len(edges))
        assert len(set(frozenset(e) for e in edges)) == nedges, name
        assert len(set(frozenset(ln) for ln in lines)) == nlines, name
        for ln in lines:
            assert len(set(ln)) == 3 and all(0 <= p < npoints for p in ln), (name, ln)
        for a, b in edges:
            assert a != b and 0 <= a < npoints and 0 <= b < npoints, (name, a, b)
        self.name = name
        self.n = npoints
        self.lines = lines
        self.edges = edges
        self.full = (1 << npoints) - 1
        masks = [sum(1 << p for p in ln) for ln in lines]
        self.line_masks = masks
        self.lines_of = [[m for m in masks if m >> p & 1] for p in range(npoints)]
        self.adj = [[] for _ in range(npoints)]
        for a, b in edges:
            self.adj[a].append(b)
            self.adj[b].append(a)


def square_lines(b):
    return [(b, b + 1, b + 2), (b + 2, b + 3, b + 4), (b + 4, b + 5, b + 6), (b + 6, b + 7, b)]


def square_edges(b):
    return [(b + i, b + (i + 1) % 8) for i in range(8)]


def make_boards():
    # standard: 24 points, 16 lines, 32 edges (section 2)
    std_lines = square_lines(0) + square_lines(8) + square_lines(16)
    std_lines += [(1, 9, 17), (3, 11, 19), (5, 13, 21), (7, 15, 23)]
    std_edges = square_edges(0) + square_edges(8) + square_edges(16)
    std_edges += [(1, 9), (9, 17), (3, 11), (11, 19), (5, 13), (13, 21), (7, 15), (15, 23)]
    # diagonals: standard plus the four corner diagonals, lines and edges (4.1)
    diag = [(0, 8, 16), (2, 10, 18), (4, 12, 20), (6, 14, 22)]
    diag_lines = std_lines + diag
    diag_edges = std_edges + [e for a, b, c in diag for e in ((a, b), (b, c))]
    # six: two squares, 16 points, 8 lines, 20 edges (4.2)
    six_lines = square_lines(0) + square_lines(8)
    six_edges = square_edges(0) + square_edges(8) + [(1, 9), (3, 11), (5, 13), (7, 15)]
    # three: 3x3 grid with diagonals, 9 points, 8 lines, 16 edges (4.3)
    three_lines = [(0, 1, 2), (2, 3, 4), (4, 5, 6), (6, 7, 0),
                   (7, 8, 3), (1, 8, 5), (0, 8, 4), (2, 8, 6)]
    three_edges = [(i, (i + 1) % 8) for i in range(8)] + [(8, i) for i in range(8)]
    return {
        "standard": Board("standard", 24, std_lines, std_edges, 16, 32),
        "diagonals": Board("diagonals", 24, diag_lines, diag_edges, 20, 40),
        "six": Board("six", 16, six_lines, six_edges, 8, 20),
        "three": Board("three", 9, three_lines, three_edges, 8, 16),
    }


BOARDS = make_boards()


def points(bits, n):
    return [p for p in range(n) if bits >> p & 1]


def count(bits):
    return bin(bits).count("1")


def in_mill(p, bits, board):
    return any(m & bits == m for m in board.lines_of[p])


# ---- rules -----------------------------------------------------------------
STANDARD = {"board": "standard", "stones": (9, 9), "flying": 3,
            "protection": "standard", "removals": 1, "double-mill": "one",
            "lasker": False, "full-board": "loss", "mill": "removes"}
PRESETS = {
    "standard": dict(STANDARD),
    "lasker": dict(STANDARD, stones=(10, 10), lasker=True),
    "twelve": dict(STANDARD, board="diagonals", stones=(12, 12), flying=3,
                   **{"full-board": "draw"}),
    "six": dict(STANDARD, board="six", stones=(6, 6), flying=0),
    "three": dict(STANDARD, board="three", stones=(3, 3), flying=0, mill="wins"),
}


def parse_stones(v):
    parts = v.split("/")
    if len(parts) not in (1, 2) or not all(x.isdigit() and 3 <= int(x) <= 12 for x in parts):
        return None
    w = int(parts[0])
    b = int(parts[-1])
    return (w, b)


def parse_rules(spec):
    parts = spec.split(",")
    if "=" in parts[0]:
        r = dict(PRESETS["standard"])
        overrides = parts
    else:
        if parts[0] not in PRESETS:
            raise ValueError("unknown preset %r (standard, lasker, twelve, six, three)" % parts[0])
        r = dict(PRESETS[parts[0]])
        overrides = parts[1:]
    for kv in overrides:
        if "=" not in kv:
            raise ValueError("bad override %r (key=value)" % kv)
        k, v = kv.split("=", 1)
        if k == "board" and v in BOARDS:
            r[k] = v
        elif k == "stones" and parse_stones(v) is not None:
            r[k] = parse_stones(v)
        elif k == "flying" and v in ("3", "4", "off"):
            r[k] = 0 if v == "off" else int(v)
        elif k == "protection" and v in ("standard", "none", "strict"):
            r[k] = v
        elif k == "removals" and v in ("1", "2"):
            r[k] = int(v)
        elif k == "double-mill" and v in ("one", "per-mill"):
            r[k] = v
        elif k == "lasker" and v in ("on", "off"):
            r[k] = v == "on"
        elif k == "full-board" and v in ("draw", "loss"):
            r[k] = v
        elif k == "mill" and v in ("removes", "wins"):
            r[k] = v
        else:
            raise ValueError("unknown rule key/value %r" % kv)
    r["B"] = BOARDS[r["board"]]
    return r


# ---- positions -------------------------------------------------------------
# A position is (bits[2], hand[2], side): index 0 = white, 1 = black.

def parse_board_string(s, n):
    chars = []
    prev_slash = False
    for c in s:
        if c == "/":
            # a '/' may follow every 8 characters (never two in a row, never first)
            if prev_slash or not chars or len(chars) % 8 != 0:
                raise ValueError("'/' only after every 8 characters: %r" % s)
            prev_slash = True
            continue
        prev_slash = False
        if c not in "WB.":
            raise ValueError("board characters must be W, B or '.': %r" % s)
        chars.append(c)
    if len(chars) != n:
        raise ValueError("board must have %d points for this board, got %d: %r"
                         % (n, len(chars), s))
    return chars


def parse_position(text, rules):
    board = rules["B"]
    f = text.split()
    if not f or f == ["start"]:
        return ((0, 0), tuple(rules["stones"]), 0)
    chars = parse_board_string(f[0], board.n)
    if len(f) < 2 or f[1] not in ("w", "b") or len(f) not in (2, 4):
        raise ValueError("position: start | <board> <w|b> [<white hand> <black hand>]")
    if len(f) == 4:
        if not (f[2].isdigit() and f[3].isdigit()):
            raise ValueError("hands must be non-negative integers")
        hands = (int(f[2]), int(f[3]))
    else:
        hands = (0, 0)
    w = sum(1 << i for i, c in enumerate(chars) if c == "W")
    b = sum(1 << i for i, c in enumerate(chars) if c == "B")
    return ((w, b), hands, 0 if f[1] == "w" else 1)


# ---- move generation -------------------------------------------------------

def legal_targets(opp, rules):
    """Opponent points that may be removed now."""
    board = rules["B"]
    stones = points(opp, board.n)
    if rules["protection"] == "none":
        return stones
    free = [p for p in stones if not in_mill(p, opp, board)]
    if rules["protection"] == "strict":
        return free
    return free if free else stones          # standard: all in mills -> any


def removal_sets(opp, opp_hand, k, rules):
    """All sets of removed points reachable by k sequential removals."""
    if k == 0 or count(opp) + opp_hand < 3:
        return {frozenset()}
    targets = legal_targets(opp, rules)
    if not targets:
        return {frozenset()}                  # lapses
    out = set()
    for t in targets:
        for rest in removal_sets(opp & ~(1 << t), opp_hand, k - 1, rules):
            out.add(rest | {t})
    return out


def gen_moves(pos, rules):
    """Dict: move (from or None, to, frozenset removed) -> child position."""
    board = rules["B"]
    n = board.n
    bits, hand, side = pos
    me, opp = bits[side], bits[1 - side]
    if count(me) + hand[side] < 3:
        return {}                             # side to move has lost
    wins = rules["mill"] == "wins"
    if wins and any(m & opp == m for m in board.line_masks):
        return {}                             # the side not to move has a line: over
    empty = board.full & ~(me | opp)
    steps = []                                # (from, to)
    slides = [(f, t) for f in points(me, n) for t in board.adj[f] if empty >> t & 1]
    if hand[side] > 0:
        steps += [(None, t) for t in points(empty, n)]
        if rules["lasker"]:
            steps += slides
    elif rules["flying"] and count(me) <= rules["flying"]:
        steps += [(f, t) for f in points(me, n) for t in points(empty, n)]
    else:
        steps += slides
    moves = {}
    for f, t in steps:
        new_me = me | (1 << t)
        new_hand = list(hand)
        if f is None:
            new_hand[side] -= 1
        else:
            new_me &= ~(1 << f)
        k = 0
        if not wins:
            mills = sum(1 for m in board.lines_of[t] if m & new_me == m)
            if mills:
                k = rules["removals"] * (mills if rules["double-mill"] == "per-mill" else 1)
        for rem in removal_sets(opp, hand[1 - side], k, rules):
            new_opp = opp
            for r in rem:
                new_opp &= ~(1 << r)
            nb = [0, 0]
            nb[side], nb[1 - side] = new_me, new_opp
            moves[(f, t, rem)] = ((nb[0], nb[1]), tuple(new_hand), 1 - side)
    return moves


def perft(pos, depth, rules, memo=None):
    """Number of move sequences of length depth.  memo (--memo, off by
    default) is a plain cache of this pure function of (pos, depth)."""
    if depth == 0:
        return 1
    if memo is not None and (pos, depth) in memo:
        return memo[(pos, depth)]
    moves = gen_moves(pos, rules)
    if depth == 1:
        n = len(moves)                        # bulk counting
    else:
        n = sum(perft(c, depth - 1, rules, memo) for c in moves.values())
    if memo is not None:
        memo[(pos, depth)] = n
    return n


def move_str(m):
    f, t, rem = m
    s = ("" if f is None else str(f)) + "-" + str(t)
    return s + "".join("x%d" % r for r in sorted(rem))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, required=True)
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--divide", action="store_true")
    ap.add_argument("--memo", action="store_true",
                    help="cache perft(pos, depth) (for deep runs; same result)")
    ap.add_argument("position", nargs="*")
    a = ap.parse_args()
    try:
        rules = parse_rules(a.rules)
        pos = parse_position(" ".join(a.position), rules)
    except ValueError as e:
        print("error:", e, file=sys.stderr)
        sys.exit(2)
    if a.depth < 0:
        print("error: depth must be >= 0", file=sys.stderr)
        sys.exit(2)
    memo = {} if a.memo else None
    if a.divide and a.depth >= 1:
        total = 0
        moves = gen_moves(pos, rules)
        for m in sorted(moves, key=lambda m: (-1 if m[0] is None else m[0], m[1], sorted(m[2]))):
            n = perft(moves[m], a.depth - 1, rules, memo)
            total += n
            print(move_str(m), n)
        print(total)
    else:
        print(perft(pos, a.depth, rules, memo))


if __name__ == "__main__":
    main()
