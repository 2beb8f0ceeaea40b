"""Exact values of mill games (Nine Men's Morris and its variants) from
millbase's tables.

    >>> import millbase
    >>> rules = millbase.Rules("three")
    >>> tables = millbase.open_tables("db", rules)      # built by `millbase build --rules three`
    >>> tables.probe(millbase.Position.start(rules))
    Value('win', 9)

See docs/PYTHON.md.
"""

from ._millbase import (
    Move,
    Position,
    PracticalMove,
    Rules,
    TableError,
    Tables,
    Value,
    __version__,
    open_tables,
)

__all__ = [
    "Move",
    "Position",
    "PracticalMove",
    "Rules",
    "TableError",
    "Tables",
    "Value",
    "__version__",
    "open_tables",
]
