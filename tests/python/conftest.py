"""Shared fixtures: table folders built once per session by the millbase
binary (`MILLBASE_BIN`, which `cargo test` sets; else `millbase` on PATH)."""

import os
import shutil
import subprocess

import pytest


def millbase_bin():
    return os.environ.get("MILLBASE_BIN") or shutil.which("millbase") or "millbase"


def run(*args, input=None):
    """Runs the millbase binary; returns the completed process."""
    return subprocess.run(
        [millbase_bin(), *args], input=input, capture_output=True, text=True
    )


@pytest.fixture(scope="session")
def db(tmp_path_factory):
    """A folder with the tables of `three`, `three,nmove=10` and
    `standard,stones=5`."""
    folder = tmp_path_factory.mktemp("db")
    for rules in ["three", "three,nmove=10", "standard,stones=5"]:
        out = run("build", "--rules", rules, "--db", str(folder))
        assert out.returncode == 0, out.stderr
    return folder
