#!/usr/bin/env python3
"""Independent, deliberately simple reference *value* solver for small mill games.

Written from the project's rules reference, docs/RULES.md (sections 1, 4 and 5),
and the decisions in README.md, not from the Rust sources.  Move generation is the one of
tools/perft_ref.py (itself written from docs/RULES.md); this file adds the values.

Method: the explicit state graph of every position reachable from the start
(breadth-first over perft_ref.gen_moves), then plain retrograde analysis
(backward induction by plies with a FIFO queue, "counting children"):
  * a position with no legal move is lost in 0 plies (this covers: fewer than 3
    stones, blocked, and under mill=wins the side NOT to move having a line);
    exception: full-board=draw makes the full board after the last placement a
    draw (unless, under mill=wins, the last placement made a line);
  * a position is won in d+1 plies if some move leads to a position lost in d
    plies (the smallest such d: the winner shortens);
  * it is lost in 1+max plies if every move leads to a won position (the loser
    lengthens);
  * everything left undecided is a draw (endless play).
Values are for the side to move; a win has an odd, a loss an even number of
plies.

N-move rule (nmove=N, docs/RULES.md section 5): the state is (position, counter)
explicitly.  The counter is 0 while any hand has stones (placing phase) and at
the position after the last placement; in the moving phase a move that closes
a mill sets it to 0, any other move adds 1.  A quiet move that brings it to N
ends the game in a draw, unless the opponent is left without a legal move (then
the mover wins, as always).  Under mill=wins a mill ends the game, so the
plies to the end in the (position, counter) graph equal docs/RULES.md's Z (plies to
the winning mill or the end).  Under mill=removes a second pass computes Z:
every moving-phase move that closes a mill leads to a terminal carrying the
child's value at counter 0 with 0 plies (a placing-phase mill is an ordinary
move, so placing positions count plies to the first moving-phase mill or the
end, as millbase does).  --wdl-only skips that pass and compares win/draw/loss
only.  --accepted also offers millbase every arrangement whose stone counts fit
the start (small boards only), compares the values of those it accepts and
lists reachable ones it refuses.

Usage:
  python3 tools/values_ref.py --rules three [--position POS] [--dump FILE]
  python3 tools/values_ref.py --rules three --compare --bin MILLBASE --db DIR
      [--sample-moves K] [--all-counters] [--accepted] [--wdl-only] [--scratch DIR]
With --compare, the rule set is built with `MILLBASE build --rules R --db DIR`
(skipped if --no-build), every reachable position is queried with
`MILLBASE query --rules R --db DIR --json -` (board strings
"<board> <side> <wh> <bh> [counter]"), and value, plies and every move's value
are compared; each disagreement is printed.  --all-counters also queries every
counter 0..N-1 of every reachable moving-phase position (reachable or not with
that counter).
--dump FILE writes one line per reachable position: "<query line>\t<value>\t<plies>".
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from array import array
from collections import deque

sys.dont_write_bytecode = True  # no __pycache__ in the repo
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perft_ref as pr  # noqa: E402

WIN, DRAW, LOSS = 1, 0, -1
NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss"}


def parse_spec(spec):
    """perft_ref's rules plus 'nmove' (None or N)."""
    parts = spec.split(",")
    nmove = None
    keep = []
    for p in parts:
        if p.startswith("nmove="):
            v = p.split("=", 1)[1]
            if v == "off":
                nmove = None
            elif v.isdigit() and 1 <= int(v) <= 1000:
                nmove = int(v)
            else:
                raise ValueError("bad nmove %r" % v)
        else:
            keep.append(p)
    rules = pr.parse_rules(",".join(keep))
    w, b = rules["stones"]
    if w + b > rules["B"].n:
        raise ValueError("hands %d/%d exceed the board's %d points" % (w, b, rules["B"].n))
    rules["nmove"] = nmove
    return rules


# A state key: (white bits, black bits, white hand, black hand, side, counter).
def key_of(pos, c):
    (w, b), (wh, bh), side = pos
    return (w, b, wh, bh, side, c)


def pos_of(key):
    w, b, wh, bh, side, _ = key
    return ((w, b), (wh, bh), side)


def board_string(key, n):
    w, b = key[0], key[1]
    s = "".join("W" if w >> i & 1 else "B" if b >> i & 1 else "." for i in range(n))
    return s


def query_line(key, rules):
    n = rules["B"].n
    w, b, wh, bh, side, c = key
    s = "%s %s %d %d" % (board_string(key, n), "wb"[side], wh, bh)
    if rules["nmove"] is not None and wh == 0 and bh == 0:
        s += " %d" % c
    return s


def closes_mill(pos, move, rules):
    """Did this move end with its stone on a line full of the mover's stones?"""
    f, t, _ = move
    (bits, _, side) = pos
    me = bits[side] | (1 << t)
    if f is not None:
        me &= ~(1 << f)
    return any(m & me == m for m in rules["B"].lines_of[t])


def child_counter(pos, c, move, rules):
    N = rules["nmove"]
    if N is None:
        return 0
    (_, hands, _) = pos
    if hands[0] or hands[1]:
        return 0                              # placing phase: no counter yet
    return 0 if closes_mill(pos, move, rules) else c + 1


def is_full_board_draw(key, rules):
    if rules["full-board"] != "draw":
        return False
    w, b, wh, bh, side, _ = key
    board = rules["B"]
    if wh or bh or (w | b) != board.full:
        return False
    if rules["mill"] == "wins":
        other = (w, b)[1 - side]
        if any(m & other == m for m in board.line_masks):
            return False                      # the last placement made a line: won
    return True


class Solved:
    pass


def solve(rules, extra=(), progress=False, zfrom=None):
    """Explicit graph from the start (plus the keys in extra), then retrograde.

    zfrom (N-move rule only): a solved graph of the same rules; then every
    moving-phase move that closes a mill leads to a sentinel terminal carrying
    that child's value (at counter 0, from zfrom) with 0 plies, so the plies
    computed are docs/RULES.md's Z (plies to the winning mill or the end) instead of
    plies to the end."""
    N = rules["nmove"]
    start = key_of(((0, 0), tuple(rules["stones"]), 0), 0)
    index = {}
    keys = []
    reach = array("b")                        # 1 = reachable from the start
    child_start = array("q", [0])
    children = array("i")
    term = array("b")                         # per node: 0 normal, 1 terminal loss, 2 terminal draw

    def add(k, r):
        i = index.get(k)
        if i is None:
            i = len(keys)
            index[k] = i
            keys.append(k)
            reach.append(r)
            todo.append(i)
        return i

    todo = deque()
    sentinel = {}
    if zfrom is not None:
        for v in (LOSS, WIN, DRAW):
            sentinel[v] = add(("Z", v), 0)
            term.append({LOSS: 1, WIN: 3, DRAW: 2}[v])
            child_start.append(0)
    add(start, 1)
    for k in extra:
        add(k, 0)
    # children of node i are only known after expansion; expand in index order
    expanded = len(sentinel)
    while expanded < len(keys):
        i = expanded
        k = keys[i]
        expanded += 1
        pos = pos_of(k)
        c = k[5]
        if N is not None and c >= N:
            # the game ended at counter N: a draw unless the mover left no move
            mv = pr.gen_moves(pos, rules)
            term.append(1 if not mv else 2)
            child_start.append(len(children))
            continue
        mv = pr.gen_moves(pos, rules)
        if not mv:
            term.append(2 if is_full_board_draw(k, rules) else 1)
            child_start.append(len(children))
            continue
        term.append(0)
        for m, cp in mv.items():
            cc = child_counter(pos, c, m, rules)
            if zfrom is not None and k[2] == 0 and k[3] == 0 and closes_mill(pos, m, rules):
                ck = key_of(cp, 0)
                children.append(sentinel[zfrom.val[zfrom.index[ck]]])
                continue
            j = add(key_of(cp, cc), reach[i])
            if reach[i] and not reach[j]:
                reach[j] = 1
            children.append(j)
        child_start.append(len(children))
        if progress and expanded % 200000 == 0:
            print("expanded %d of %d" % (expanded, len(keys)), file=sys.stderr)
    # reachability again (an extra node may have been reached later from the start)
    n = len(keys)
    reach = array("b", bytes(n))
    s0 = len(sentinel)
    reach[s0] = 1
    stack = [s0]
    while stack:
        i = stack.pop()
        for p in range(child_start[i], child_start[i + 1]):
            j = children[p]
            if not reach[j]:
                reach[j] = 1
                stack.append(j)
    # parents (CSR)
    pcount = array("q", bytes(8 * (n + 1)))
    for j in children:
        pcount[j + 1] += 1
    for i in range(n):
        pcount[i + 1] += pcount[i]
    parents = array("i", bytes(4 * len(children)))
    fill = array("q", pcount[:n])
    for i in range(n):
        for p in range(child_start[i], child_start[i + 1]):
            j = children[p]
            parents[fill[j]] = i
            fill[j] += 1
    del fill
    # retrograde
    val = array("b", bytes(n))
    depth = array("i", bytes(4 * n))
    left = array("i", [child_start[i + 1] - child_start[i] for i in range(n)])
    decided = array("b", bytes(n))
    q = deque()
    for i in range(n):
        if term[i] == 1 or term[i] == 3:
            val[i] = LOSS if term[i] == 1 else WIN
            decided[i] = 1
            q.append(i)
        elif term[i] == 2:
            decided[i] = 1                    # a draw, never propagates
    while q:
        j = q.popleft()
        vj, dj = val[j], depth[j]
        for p in range(pcount[j], pcount[j + 1]):
            i = parents[p]
            if decided[i]:
                continue
            if vj == LOSS:
                val[i], depth[i], decided[i] = WIN, dj + 1, 1
                q.append(i)
            else:
                left[i] -= 1
                if left[i] == 0:
                    val[i], depth[i], decided[i] = LOSS, dj + 1, 1
                    q.append(i)
    s = Solved()
    s.rules, s.keys, s.index, s.val, s.depth, s.reach, s.term = rules, keys, index, val, depth, reach, term
    return s


def zpass(rules, s):
    """The Z pass over every node of s, reachability taken from s (mills cut the graph)."""
    sz = solve(rules, [k for k in s.keys if k[0] != "Z"], zfrom=s)
    for i, k in enumerate(sz.keys):
        if k[0] != "Z":
            sz.reach[i] = s.reach[s.index[k]]
    sz.zfrom = s
    return sz


def value_of(s, k):
    i = s.index[k]
    v = s.val[i]
    return (NAMES[v], s.depth[i] if v != DRAW else None)


def move_values(s, k):
    """{(from, to, frozenset removes): (value, plies)} for the side making the move."""
    rules = s.rules
    pos = pos_of(k)
    out = {}
    for m, cp in pr.gen_moves(pos, rules).items():
        cc = child_counter(pos, k[5], m, rules)
        v, d = value_of(s, key_of(cp, cc))
        if v == "loss":
            out[m] = ("win", d + 1)
        elif v == "win":
            out[m] = ("loss", d + 1)
        else:
            out[m] = ("draw", None)
    return out


def millbase_query(binary, spec, db, lines, scratch, tag):
    """Yield millbase's JSON answer to each line, in order (streamed: tables can be large)."""
    os.makedirs(scratch, exist_ok=True)
    inp = os.path.join(scratch, tag + ".in")
    with open(inp, "w") as f:
        f.write("\n".join(lines) + "\n")
    err = os.path.join(scratch, tag + ".err")
    with open(inp) as f, open(err, "w") as ef:
        p = subprocess.Popen(["nice", "-n", "19", binary, "query", "--rules", spec, "--db", db,
                              "--json", "-"], stdin=f, stdout=subprocess.PIPE, stderr=ef, text=True)
        got = 0
        for x in p.stdout:
            if x.strip():
                got += 1
                yield json.loads(x)
        p.wait()
    if got != len(lines):
        raise RuntimeError("millbase answered %d lines for %d: %s" % (got, len(lines), open(err).read()[:500]))


def compare(args, rules, s, pure=None):
    spec = args.rules
    N = rules["nmove"]
    if not args.no_build:
        r = subprocess.run(["nice", "-n", "19", args.bin, "build", "--rules", spec, "--db", args.db],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("BUILD FAILED:", r.stderr[-2000:])
            return 1
    todo = [i for i in range(len(s.keys)) if s.reach[i] and s.keys[i][0] != "Z"
            and not (N is not None and s.keys[i][5] >= N)]
    if N is not None and args.all_counters:
        moving = set()
        for i in todo:
            k = s.keys[i]
            if k[2] == 0 and k[3] == 0:
                moving.add(k[:5])
        have = set(s.keys[i] for i in todo)
        for k5 in sorted(moving):
            for c in range(N):
                if k5 + (c,) not in have:
                    todo.append(s.index[k5 + (c,)])
    lines = [query_line(s.keys[i], rules) for i in todo]
    tag = spec.replace(",", "_").replace("/", "-").replace("=", "")
    out = millbase_query(args.bin, spec, args.db, lines, args.scratch, tag)
    wdl_only = args.wdl_only
    problems = []
    nmoves = 0
    refused = 0
    for i, line, ans in zip(todo, lines, out):
        k = s.keys[i]
        reach = "reachable" if s.reach[i] else "unreached-counter"
        if "error" in ans:
            refused += 1
            problems.append("REFUSED [%s] %s: millbase: %s; reference: %s" %
                            (reach, line, ans["error"], value_of(s, k)))
            continue
        mine = value_of(s, k)
        theirs = (ans["value"], ans["plies"])
        if wdl_only:
            mine, theirs = mine[0], theirs[0]
        if mine != theirs:
            problems.append("VALUE [%s] %s: millbase %s, reference %s" % (reach, line, theirs, mine))
        if N is not None and pure is not None and k[2] == 0 and k[3] == 0:
            pk = k[:5] + (0,)
            pv = value_of(pure, pk)
            exp_pure = None if pv[0] == "draw" else {"value": pv[0], "plies": pv[1]}
            got = ans.get("pure")
            if got is not None and got.get("value") == "draw":
                got = {"value": "draw", "plies": got.get("plies")}
            if pv[0] == "draw":
                exp_pure = {"value": "draw", "plies": None}
            if got != exp_pure and not (got is None and exp_pure is None):
                problems.append("PURE %s: millbase %s, reference %s" % (line, got, exp_pure))
            # z: the stored Z, null for draws at counter 0
            z0 = value_of(s, pk)
            exp_z = z0[1] if z0[0] != "draw" else None
            if not wdl_only and ans.get("z") != exp_z:
                problems.append("Z %s: millbase z=%s, reference Z=%s" % (line, ans.get("z"), exp_z))
            # rule_draw: a draw at this counter that the pure game decides;
            # docs/RULES.md 5 keeps "cursed win" / "blessed loss" for Z > N (a draw
            # at every counter, so already at counter 0); one decided at
            # counter 0 is "drawn by the counter" at a later counter.
            exp_rd = None
            v_here = value_of(s, k)[0]
            if v_here == "draw" and pv[0] != "draw":
                if z0[0] == "draw":
                    exp_rd = "cursed win" if pv[0] == "win" else "blessed loss"
                else:
                    exp_rd = "%s drawn by the counter" % pv[0]
            if ans.get("rule_draw") != exp_rd:
                problems.append("RULE_DRAW %s: millbase %s, reference %s (pure %s, Z at counter 0 %s)" %
                                (line, ans.get("rule_draw"), exp_rd, pv, z0))
        if args.sample_moves and (i % args.sample_moves == 0 or args.sample_moves == 1):
            nmoves += 1
            mv = move_values(s, k)
            got = {}
            for m in ans["moves"]:
                mk = (m["from"], m["to"], frozenset(m["removes"]))
                got[mk] = (m["value"], m["plies"])
            if set(got) != set(mv):
                problems.append("MOVES-SET %s: only millbase %s; only reference %s" %
                                (line, sorted(map(pr.move_str, set(got) - set(mv))),
                                 sorted(map(pr.move_str, set(mv) - set(got)))))
            for mk in set(got) & set(mv):
                a, b = got[mk], mv[mk]
                if wdl_only:
                    a, b = a[0], b[0]
                if a != b:
                    problems.append("MOVE %s move %s: millbase %s, reference %s" %
                                    (line, pr.move_str(mk), a, b))
    counts = {}
    for i in todo:
        v = NAMES[s.val[i]]
        counts[v] = counts.get(v, 0) + 1
    print("rules %s: %d positions queried (%d reachable%s), %s; moves compared at %d positions; "
          "%d refused; %d disagreements%s" %
          (spec, len(todo), sum(1 for i in todo if s.reach[i]),
           "" if N is None else ", counters 0..%d" % (N - 1), counts, nmoves, refused, len(problems),
           " (win/draw/loss only)" if wdl_only else ""))
    for p in problems[:args.max_report]:
        print("  " + p)
    if len(problems) > args.max_report:
        print("  ... %d more" % (len(problems) - args.max_report))
    return 1 if problems else 0


def candidates(rules):
    """Every (board, side, hands[, counter]) whose stone counts fit the start's hands."""
    from itertools import product
    n = rules["B"].n
    W, B = rules["stones"]
    N = rules["nmove"]
    for cells in product((0, 1, 2), repeat=n):
        w = sum(1 << i for i, x in enumerate(cells) if x == 1)
        b = sum(1 << i for i, x in enumerate(cells) if x == 2)
        nw, nb = pr.count(w), pr.count(b)
        if nw > W or nb > B:
            continue
        for wh in range(W - nw + 1):
            for bh in range(B - nb + 1):
                for side in (0, 1):
                    if N is not None and wh == 0 and bh == 0:
                        for c in range(N):
                            yield (w, b, wh, bh, side, c)
                    else:
                        yield (w, b, wh, bh, side, 0)


def accepted(args, rules, pure):
    spec = args.rules
    N = rules["nmove"]
    cands = list(candidates(rules))
    lines = [query_line(k, rules) for k in cands]
    tag = "all_" + spec.replace(",", "_").replace("/", "-").replace("=", "")
    out = list(millbase_query(args.bin, spec, args.db, lines, args.scratch, tag))
    for ans in out:
        ans.pop("moves", None)
    ok = [k for k, ans in zip(cands, out) if "error" not in ans]
    s = solve(rules, ok)
    if N is not None and rules["mill"] == "removes" and not args.wdl_only:
        s = zpass(rules, s)
    problems = []
    reasons = {}
    for k, line, ans in zip(cands, lines, out):
        i = s.index.get(k)
        reach = i is not None and s.reach[i]
        if "error" in ans:
            r = ans["error"]
            reasons[r] = reasons.get(r, 0) + 1
            if reach:
                problems.append("REFUSED reachable %s: %s" % (line, r))
            continue
        mine = value_of(s, k)
        theirs = (ans["value"], ans["plies"])
        if args.wdl_only:
            mine, theirs = mine[0], theirs[0]
        if mine != theirs:
            problems.append("VALUE [%s] %s: millbase %s, reference %s" %
                            ("reachable" if reach else "unreachable", line, theirs, mine))
    print("rules %s: %d candidate arrangements offered, %d accepted (%d of them unreachable), "
          "%d refused; %d disagreements" %
          (spec, len(cands), len(ok), sum(1 for k in ok if not s.reach[s.index[k]]),
           len(cands) - len(ok), len(problems)))
    for r, c in sorted(reasons.items(), key=lambda x: -x[1])[:40]:
        print("  refused %d: %s" % (c, r[:200]))
    for p in problems[:args.max_report]:
        print("  " + p)
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="three")
    ap.add_argument("--position", help="print the value of this position (perft_ref syntax, "
                    "optionally a 5th field: the counter) and of its moves")
    ap.add_argument("--dump")
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--bin", default="target/release/millbase")
    ap.add_argument("--db", default=os.path.join(tempfile.gettempdir(), "vref", "db"))
    ap.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "vref"))
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--sample-moves", type=int, default=1,
                    help="compare every move's value at every K-th position (0: never)")
    ap.add_argument("--all-counters", action="store_true")
    ap.add_argument("--wdl-only", action="store_true", help="compare win/draw/loss only, not plies")
    ap.add_argument("--max-report", type=int, default=200)
    ap.add_argument("--accepted", action="store_true",
                    help="with --compare: also offer millbase every arrangement whose counts fit "
                    "(stones on the board + in hand <= the start's, any side, any counter), compare "
                    "the values of those it accepts and list reachable ones it refuses (small boards)")
    a = ap.parse_args()
    try:
        rules = parse_spec(a.rules)
    except ValueError as e:
        print("error:", e, file=sys.stderr)
        sys.exit(2)
    N = rules["nmove"]
    extra = []
    s0 = solve(rules, progress=True)
    if N is not None:
        # every counter of every reachable moving-phase position (for Z and --all-counters)
        for i, k in enumerate(s0.keys):
            if s0.reach[i] and k[2] == 0 and k[3] == 0:
                for c in range(N):
                    if k[:5] + (c,) not in s0.index:
                        extra.append(k[:5] + (c,))
        s = solve(rules, extra, progress=True) if extra else s0
    else:
        s = s0
    pure = None
    if N is not None:
        pr_rules = dict(rules)
        pr_rules["nmove"] = None
        pure = solve(pr_rules, progress=True)
    start = key_of(((0, 0), tuple(rules["stones"]), 0), 0)
    if N is not None and rules["mill"] == "removes" and not a.wdl_only:
        # plies to the end are not Z when a mill does not end the game: a second
        # pass with every moving-phase mill as a terminal of its child's value
        sz = zpass(rules, s)
        bad = sum(1 for i, k in enumerate(sz.keys) if k[0] != "Z" and sz.val[i] != s.val[s.index[k]])
        if bad:
            print("INTERNAL: the Z pass changed %d values" % bad)
        s = sz
    nreach = sum(1 for i, k in enumerate(s.keys)
                 if s.reach[i] and k[0] != "Z" and not (N is not None and k[5] >= N))
    print("rules %s: %d reachable states; start: %s %s" % ((a.rules, nreach) + value_of(s, start)))
    if a.position:
        f = a.position.split()
        c = int(f[4]) if len(f) == 5 else 0
        pos = pr.parse_position(" ".join(f[:4]), rules)
        k = key_of(pos, c)
        if k not in s.index:
            s = solve(rules, extra + [k])
        print(query_line(k, rules), *value_of(s, k))
        for m, v in sorted(move_values(s, k).items(), key=lambda x: pr.move_str(x[0])):
            print("  ", pr.move_str(m), *v)
    if a.dump:
        with open(a.dump, "w") as f:
            for i, k in enumerate(s.keys):
                if s.reach[i] and k[0] != "Z" and not (N is not None and k[5] >= N):
                    v, d = value_of(s, k)
                    f.write("%s\t%s\t%s\n" % (query_line(k, rules), v, d))
    if a.compare:
        rc = compare(a, rules, s, pure)
        if a.accepted:
            rc |= accepted(a, rules, pure)
        sys.exit(rc)


if __name__ == "__main__":
    main()
