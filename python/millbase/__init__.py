"""Exact values of mill games (Nine Men's Morris and its variants) from
millbase's tables.

    >>> import millbase
    >>> rules = millbase.Rules("three")
    >>> report = millbase.build(rules, "db")     # as `millbase build --rules three`
    >>> tables = millbase.open_tables("db", rules)
    >>> tables.probe(millbase.Position.start(rules))
    Value('win', 9)

See docs/PYTHON.md.
"""

from ._millbase import (
    CheckResult,
    Move,
    Position,
    PracticalMove,
    Rules,
    TableError,
    Tables,
    Value,
    VerifyResult,
    __version__,
    build,
    check,
    open_tables,
    verify,
)

__all__ = [
    "CheckResult",
    "Move",
    "Position",
    "PracticalMove",
    "Rules",
    "TableError",
    "Tables",
    "Value",
    "VerifyResult",
    "__version__",
    "build",
    "check",
    "open_tables",
    "verify",
]
