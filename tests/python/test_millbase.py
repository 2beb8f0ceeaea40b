"""The Python bindings against the command line and against the game's
own rules: values, moves, errors, threads."""

import json
import random
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

import millbase
from conftest import run


def test_rules_read_and_refuse():
    r = millbase.Rules("standard,stones=5")
    assert r.board == "standard"
    assert "stones=5" in r.canonical()
    assert millbase.Rules(r.canonical()) == r
    assert hash(millbase.Rules(r.canonical())) == hash(r)
    assert millbase.Rules("three,nmove=10").nmove == 10
    assert millbase.Rules("three").nmove is None
    with pytest.raises(ValueError, match="unknown preset"):
        millbase.Rules("nine")
    with pytest.raises(ValueError):
        millbase.Position.start(42)


def test_positions_moves_and_play():
    rules = millbase.Rules("three")
    start = millbase.Position.start(rules)
    assert start == millbase.Position.parse("start", "three")
    assert start.to_move == "white"
    assert start.hands == (3, 3)
    moves = start.legal_moves()
    assert len(moves) == 9
    assert all(m.from_ is None and m.removes == [] for m in moves)
    b2 = start.play("b2")
    assert b2 == start.play(next(m for m in moves if m.to == "b2"))
    assert b2.to_move == "black" and b2.hands == (2, 3)
    # Equality and hashing go by position: two roads to one position.
    one = start.play("a1 b2 c3")
    other = start.play("c3 b2 a1")
    assert one == other and hash(one) == hash(other)
    assert len({one, other, b2}) == 2
    # The text forms read back.
    assert millbase.Position.parse(str(one), rules) == one
    assert millbase.Position.parse("1. a1 b2 2. c3", rules) == one
    with pytest.raises(ValueError):
        b2.play("b2")  # occupied
    with pytest.raises(ValueError, match="not a legal move"):
        b2.play(next(m for m in moves if m.to == "b2"))  # a move of another position
    with pytest.raises(ValueError):
        millbase.Position.parse("not a position", rules)
    # Three in a row ends the three men's game (mill=wins).
    won = start.play("a1 a2 b1 b2 c1")
    assert won.is_game_over() == "line"
    assert start.is_game_over() is None


def test_moves_in_the_moving_phase():
    rules = millbase.Rules("standard,stones=5")
    pos = millbase.Position.parse("a7 d7 b2 f2 c5 e5 e3 c3 g4 a1", rules)
    assert pos.hands == (0, 0)
    slides = pos.legal_moves()
    assert slides and all(m.from_ is not None for m in slides)
    m = slides[0]
    assert str(m) == f"{m.from_}-{m.to}" + "".join("x" + r for r in m.removes)


def cli_answer(db, rules, position):
    out = run("query", "--rules", rules, "--db", str(db), "--json", position)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_probes_match_the_command_line(db):
    tables = millbase.open_tables(str(db), "three")
    assert tables.rules == millbase.Rules("three")
    start = millbase.Position.start("three")
    assert tables.probe(start) == tables.probe(start)
    v = tables.probe(start)
    assert (v.kind, v.plies) == ("win", 9)
    assert repr(v) == "Value('win', 9)"
    assert tables.probe_wdl(start) == "win"
    cli = cli_answer(db, "three", "start")
    moves = tables.probe_moves(start)
    assert [str(m) for m, _ in moves] == [m["move"] for m in cli["moves"]]
    assert [(v.kind, v.plies) for _, v in moves] == [
        (m["value"], m["plies"]) for m in cli["moves"]
    ]
    practical = tables.practical(start)
    assert sorted(str(p.move) for p in practical) == sorted(str(m) for m, _ in moves)
    assert any(p.rank == 1 for p in practical)


def random_positions(rules, count, seed):
    """Positions of random games from the start, a few plies apart."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = millbase.Position.start(rules)
        for _ in range(rng.randrange(1, 60)):
            moves = pos.legal_moves()
            if not moves or pos.is_game_over():
                break
            pos = pos.play(rng.choice(moves))
            if rng.random() < 0.3:
                out.append(pos)
    return out[:count]


def test_ten_thousand_positions_agree_with_the_command_line(db):
    rules = millbase.Rules("standard,stones=5")
    tables = millbase.open_tables(db, rules)
    positions = random_positions(rules, 10_000, seed=5)
    text = "\n".join(str(p) for p in positions) + "\n"
    out = run("query", "--rules", "standard,stones=5", "--db", str(db), "--json", "-", input=text)
    assert out.returncode == 0, out.stderr
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(answers) == len(positions)
    for pos, answer in zip(positions, answers):
        v = tables.probe(pos)
        assert (v.kind, v.plies) == (answer["value"], answer["plies"]), str(pos)
        assert tables.probe_wdl(pos) == answer["value"]


def test_a_game_to_the_end_against_the_tables(db):
    rules = millbase.Rules("three")
    tables = millbase.open_tables(db, rules)
    pos = millbase.Position.start(rules)
    value = tables.probe(pos)
    plies = 0
    while pos.is_game_over() is None:
        best, best_value = tables.probe_moves(pos)[0]
        assert (best_value.kind, best_value.plies) == (value.kind, value.plies)
        pos = pos.play(best)
        plies += 1
        value = tables.probe(pos)
    # White wins in 9 plies with best play on both sides.
    assert plies == 9
    assert pos.is_game_over() == "line"


def test_the_nmove_rule(db):
    tables = millbase.open_tables(db, "three,nmove=10")
    pos = millbase.Position.parse("a1 b2 c3 a3 c1 b1", "three,nmove=10")
    assert pos.counter == 0
    at0 = tables.probe_at(pos, 0)
    assert tables.probe(pos) == at0
    # At the counter's end the game is drawn by the rule.
    assert tables.probe_at(pos, 10).kind == "draw"


def test_missing_and_damaged_tables_raise_table_error(db, tmp_path):
    with pytest.raises(millbase.TableError, match="millbase build --rules three"):
        millbase.open_tables(tmp_path / "nothing", "three")
    empty = tmp_path / "empty"
    empty.mkdir()
    tables = millbase.open_tables(empty, "three")
    with pytest.raises(millbase.TableError) as missing:
        tables.probe(millbase.Position.start("three"))
    assert isinstance(missing.value, OSError)
    assert ".mbt" in str(missing.value) and "millbase build --rules three" in str(missing.value)
    # A copy of the folder with every table's last bytes flipped.
    damaged = tmp_path / "damaged"
    shutil.copytree(db, damaged)
    for table in (damaged / "three").glob("*.mbt"):
        data = bytearray(table.read_bytes())
        data[-8:] = bytes(b ^ 0x55 for b in data[-8:])
        table.write_bytes(bytes(data))
    tables = millbase.open_tables(damaged, "three")
    with pytest.raises(millbase.TableError, match="corrupt"):
        for pos in random_positions("three", 200, seed=1):
            tables.probe(pos)
    # A position of other rules is refused, not looked up.
    with pytest.raises(ValueError, match="rules"):
        millbase.open_tables(db, "three").probe(millbase.Position.start("standard,stones=5"))


def test_threads_probe_one_tables_at_once(db):
    tables = millbase.open_tables(db, "standard,stones=5")
    positions = random_positions("standard,stones=5", 2_000, seed=9)
    alone = [tables.probe(p) for p in positions]
    fresh = millbase.open_tables(db, "standard,stones=5")
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(fresh.probe, positions))
    assert together == alone
