"""Type stubs of millbase's Python bindings (see docs/PYTHON.md)."""

from os import PathLike
from typing import Callable, Literal, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

RulesLike = Union["Rules", str]
PathLikeStr = Union[str, "PathLike[str]"]
Kind = Literal["win", "draw", "loss"]

class TableError(OSError):
    """A table is missing or damaged; the message names the file and the
    `millbase build` command that makes it."""

class Rules:
    """A rule set, read from its text ("standard", "standard,stones=5",
    "twelve,nmove=50"). A bad text raises ValueError."""

    def __init__(self, spec: str) -> None: ...
    def canonical(self) -> str: ...
    @property
    def short_name(self) -> str: ...
    @property
    def board(self) -> str: ...
    @property
    def nmove(self) -> Optional[int]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Move:
    """A legal move of a position; str() gives it in the position's
    notation ("d7-d6xd2", "1-9x13")."""

    @property
    def from_(self) -> Optional[str]: ...
    @property
    def to(self) -> str: ...
    @property
    def removes(self) -> list[str]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Position:
    """A position under its rules, with its N-move counter; str() gives
    the board string."""

    @staticmethod
    def parse(text: str, rules: RulesLike) -> Position: ...
    @staticmethod
    def start(rules: RulesLike) -> Position: ...
    @staticmethod
    def from_code(code: int, rules: RulesLike) -> Position: ...
    @property
    def code(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def to_move(self) -> Literal["white", "black"]: ...
    @property
    def hands(self) -> tuple[int, int]: ...
    @property
    def counter(self) -> int: ...
    def legal_moves(self) -> list[Move]: ...
    def play(self, move: Union[Move, str]) -> Position: ...
    def is_game_over(self) -> Optional[Literal["stones", "line", "blocked", "nmove"]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Value:
    """A value for the side to move: kind, and plies to the end with best
    play (None for a draw)."""

    @property
    def kind(self) -> Kind: ...
    @property
    def plies(self) -> Optional[int]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class PracticalMove:
    """A move's practical standing (see the README's `query --practical`)."""

    move: Move
    value: Value
    rank: Optional[int]
    replies: int
    errors: int
    score: int

class Tables:
    """A rule set's table folder, opened once; safe to probe from several
    threads at once. Probes run without the GIL."""

    @property
    def rules(self) -> Rules: ...
    def probe(self, pos: Position) -> Value: ...
    def probe_wdl(self, pos: Position) -> Kind: ...
    def probe_at(self, pos: Position, counter: int) -> Value: ...
    def probe_moves(self, pos: Position) -> list[tuple[Move, Value]]: ...
    def practical(self, pos: Position) -> list[PracticalMove]: ...
    def probe_many(
        self, positions: Union[Sequence[Position], npt.NDArray[np.uint64]]
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]]: ...

class CheckResult:
    ok: bool
    tables: int
    slots: int
    bad: int
    placing: bool
    failed: list[str]
    def __bool__(self) -> bool: ...

class VerifyResult:
    verdict: Kind
    by_tables: bool
    by_search: bool

def open_tables(db: PathLikeStr, rules: RulesLike) -> Tables: ...
def build(
    rules: RulesLike,
    db: PathLikeStr,
    threads: Optional[int] = None,
    progress: bool = True,
    callback: Optional[Callable[[str, int, int], object]] = None,
) -> dict[str, dict[str, float]]: ...
def check(rules: RulesLike, db: PathLikeStr, threads: Optional[int] = None) -> CheckResult: ...
def verify(
    rules: RulesLike,
    db: PathLikeStr,
    method: Literal["both", "tables", "search"] = "both",
    threads: Optional[int] = None,
) -> VerifyResult: ...
