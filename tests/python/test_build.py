"""Building, checking and verifying from Python, and probing in bulk."""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import millbase
from test_millbase import random_positions


def table_bytes(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.mbt"))}


def test_build_resumes_and_makes_the_command_line_s_tables(db, tmp_path):
    calls = []
    report = millbase.build("three", tmp_path, progress=False, callback=lambda *a: calls.append(a))
    assert report["moving"]["computed"] > 0 and report["placing"]["computed"] > 0
    assert calls and calls[-1][1] == calls[-1][2]  # done == total at the end
    assert table_bytes(tmp_path / "three") == table_bytes(db / "three")
    again = millbase.build(millbase.Rules("three"), tmp_path, threads=1, progress=False)
    assert again["moving"]["computed"] == 0 and again["placing"]["computed"] == 0


def test_an_exception_in_the_callback_stops_the_build_and_it_resumes(db, tmp_path):
    class Enough(Exception):
        pass

    def stop_after_two(step, done, total):
        if len(seen) == 2:
            raise Enough(step)
        seen.append(step)

    seen = []
    with pytest.raises(Enough):
        millbase.build("three", tmp_path, progress=False, callback=stop_after_two)
    partial = table_bytes(tmp_path / "three")
    assert 0 < len(partial) < len(table_bytes(db / "three"))
    millbase.build("three", tmp_path, progress=False)
    assert table_bytes(tmp_path / "three") == table_bytes(db / "three")


def test_ctrl_c_stops_a_build_cleanly(tmp_path):
    """A real SIGINT while the build runs (sent 0.3 s after its first step,
    from another thread) raises KeyboardInterrupt in the calling program
    at the next step, with no temporary table left; the next call resumes
    after the finished tables."""
    script = textwrap.dedent(
        f"""
        import os, signal, threading, millbase
        # Python turns SIGINT into KeyboardInterrupt unless it was started
        # with the signal ignored (a background job's children are): as in
        # a terminal, then.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        timer = []
        def first_step(step, done, total):
            if not timer:
                timer.append(threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)))
                timer[0].start()
        try:
            millbase.build("standard,stones=6", {str(tmp_path)!r}, progress=False, callback=first_step)
            print("finished")
        except KeyboardInterrupt:
            print("interrupted")
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "interrupted", out.stdout + out.stderr
    assert not list(tmp_path.rglob("*.tmp")), "a temporary table was left behind"
    made = len(list(tmp_path.rglob("*.mbt")))
    assert made > 0

    class Enough(Exception):
        pass

    def stop(step, done, total):
        raise Enough

    with pytest.raises(Enough):
        millbase.build("standard,stones=6", tmp_path, progress=False, callback=stop)


def test_check_and_verify(db, tmp_path):
    result = millbase.check("three", db)
    assert result.ok and bool(result) and result.bad == 0 and result.placing
    assert result.tables == len(list((db / "three").glob("*.mbt")))
    found = millbase.verify("three", db)
    assert (found.verdict, found.by_tables, found.by_search) == ("win", True, True)
    assert millbase.verify("three", db, method="search").by_tables is False
    with pytest.raises(ValueError):
        millbase.verify("three", db, method="guess")
    damaged = tmp_path / "damaged"
    shutil.copytree(db, damaged)
    table = sorted((damaged / "three").glob("*.mbt"))[0]
    data = bytearray(table.read_bytes())
    data[-3] ^= 0x55
    table.write_bytes(bytes(data))
    with pytest.raises(millbase.TableError, match=table.name):
        millbase.check("three", damaged)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(millbase.TableError, match="millbase build --rules three"):
        millbase.verify("three", empty, method="tables")


def test_probe_many_from_positions_and_codes(db):
    rules = millbase.Rules("standard,stones=5")
    tables = millbase.open_tables(db, rules)
    positions = random_positions(rules, 3_000, seed=3)
    wdl, plies = tables.probe_many(positions)
    assert wdl.dtype == np.int8 and plies.dtype == np.int32
    assert len(wdl) == len(plies) == len(positions)
    for p, w, n in zip(positions, wdl, plies):
        v = tables.probe(millbase.Position.from_code(p.code, rules))
        assert ({"win": 1, "draw": 0, "loss": -1}[v.kind], v.plies if v.plies is not None else -1) == (w, n)
    codes = np.array([p.code for p in positions], dtype=np.uint64)
    wdl2, plies2 = tables.probe_many(codes)
    assert (wdl2 == wdl).all() and (plies2 == plies).all()
    assert millbase.Position.from_code(positions[0].code, rules) == positions[0]
    with pytest.raises(ValueError, match="position code"):
        tables.probe_many(np.array([(1 << 24) | 1], dtype=np.uint64))  # one point, both colours
    with pytest.raises(ValueError):
        tables.probe_many(["start"])


def test_the_training_set_example(db, tmp_path):
    """tools/training_set.py writes values that agree with the tables."""
    script = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "training_set.py")
    out_file = tmp_path / "set.npz"
    out = subprocess.run(
        [sys.executable, script, str(db), "standard,stones=5", "2000", str(out_file)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    data = np.load(out_file)
    assert len(data["code"]) == 2000 == len(set(data["code"].tolist()))
    tables = millbase.open_tables(db, "standard,stones=5")
    for code, w, n in list(zip(data["code"], data["wdl"], data["plies"]))[:200]:
        v = tables.probe(millbase.Position.from_code(int(code), "standard,stones=5"))
        assert ({"win": 1, "draw": 0, "loss": -1}[v.kind], v.plies if v.plies is not None else -1) == (w, n)
