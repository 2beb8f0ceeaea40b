#!/usr/bin/env python3
"""Independent, deliberately simple reference perft for Nine Men's Morris.

Follows /work/shared/RULES.md sections 1-3 plus the decisions of the brief:
  * removals are done one at a time, each checked against the protection rule
    on the board as it is at that moment; they lapse when there is no legal
    target and stop once the opponent has fewer than 3 stones (board + hand);
  * a move is (from, to, SET of removed points); distinct moves are counted.

Usage: python3 tools/perft_ref.py --depth N [--rules SPEC] [--divide] [--memo] [POSITION]
POSITION: "<24 chars W/B/.> <w|b> [<white hand> <black hand>]" (optional '/').
"""
import argparse
import sys

# ---- board -----------------------------------------------------------------
LINES = []
for s in range(3):
    b = 8 * s
    LINES += [(b, b + 1, b + 2), (b + 2, b + 3, b + 4), (b + 4, b + 5, b + 6), (b + 6, b + 7, b)]
LINES += [(1, 9, 17), (3, 11, 19), (5, 13, 21), (7, 15, 23)]
LINE_MASKS = [sum(1 << p for p in ln) for ln in LINES]
LINES_OF = [[m for m in LINE_MASKS if m >> p & 1] for p in range(24)]

EDGES = []
for s in range(3):
    EDGES += [(8 * s + i, 8 * s + (i + 1) % 8) for i in range(8)]
EDGES += [(1, 9), (9, 17), (3, 11), (11, 19), (5, 13), (13, 21), (7, 15), (15, 23)]
ADJ = [[] for _ in range(24)]
for a, b in EDGES:
    ADJ[a].append(b)
    ADJ[b].append(a)
assert len(LINES) == 16 and len(EDGES) == 32

FULL = (1 << 24) - 1


def points(bits):
    return [p for p in range(24) if bits >> p & 1]


def count(bits):
    return bin(bits).count("1")


def in_mill(p, bits):
    return any(m & bits == m for m in LINES_OF[p])


# ---- rules -----------------------------------------------------------------
DEFAULT_RULES = {"stones": 9, "flying": 3, "protection": "standard",
                 "removals": 1, "double-mill": "one", "lasker": False}


def parse_rules(spec):
    parts = spec.split(",")
    if parts[0] != "standard":
        raise ValueError("rules spec must start with 'standard': %r" % spec)
    r = dict(DEFAULT_RULES)
    for kv in parts[1:]:
        if "=" not in kv:
            raise ValueError("bad override %r" % kv)
        k, v = kv.split("=", 1)
        if k == "stones" and v.isdigit() and 3 <= int(v) <= 12:
            r[k] = int(v)
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
        else:
            raise ValueError("unknown rule key/value %r" % kv)
    return r


# ---- positions -------------------------------------------------------------
# A position is (bits[2], hand[2], side): index 0 = white, 1 = black.

def parse_position(text, stones):
    f = text.split()
    if not f:
        return ((0, 0), (stones, stones), 0)
    board = f[0].replace("/", "")
    if len(board) != 24 or any(c not in "WB." for c in board):
        raise ValueError("board must be 24 chars of W/B/.: %r" % f[0])
    if len(f) < 2 or f[1] not in ("w", "b") or len(f) not in (2, 4):
        raise ValueError("position: <board> <w|b> [<white hand> <black hand>]")
    hands = (int(f[2]), int(f[3])) if len(f) == 4 else (0, 0)
    w = sum(1 << i for i, c in enumerate(board) if c == "W")
    b = sum(1 << i for i, c in enumerate(board) if c == "B")
    return ((w, b), hands, 0 if f[1] == "w" else 1)


# ---- move generation -------------------------------------------------------

def legal_targets(opp, rules):
    """Opponent points that may be removed now."""
    stones = points(opp)
    if rules["protection"] == "none":
        return stones
    free = [p for p in stones if not in_mill(p, opp)]
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
    bits, hand, side = pos
    me, opp = bits[side], bits[1 - side]
    if count(me) + hand[side] < 3:
        return {}                             # side to move has lost
    empty = FULL & ~(me | opp)
    steps = []                                # (from, to)
    slides = [(f, t) for f in points(me) for t in ADJ[f] if empty >> t & 1]
    if hand[side] > 0:
        steps += [(None, t) for t in points(empty)]
        if rules["lasker"]:
            steps += slides
    elif rules["flying"] and count(me) <= rules["flying"]:
        steps += [(f, t) for f in points(me) for t in points(empty)]
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
        mills = sum(1 for m in LINES_OF[t] if m & new_me == m)
        k = 0
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
        pos = parse_position(" ".join(a.position), rules["stones"])
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
