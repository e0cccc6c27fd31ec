"""Problems found in a recipe: one type, always located, sortable, printable."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable

_ESCAPES = {c: repr(chr(c))[1:-1] for c in (*range(0x20), 0x7F)}


class Kind(enum.Enum):
    """What stage of checking found the problem (also the Sphinx warning subtype)."""

    JSON = "json"
    SCHEMA = "schema"
    RULE = "rule"
    VOCABULARY = "vocabulary"


class Level(enum.Enum):
    """How much a problem matters. An error: the recipe is wrong, it is not built and the build
    fails. A warning: a style the portal prefers (the documented spelling of a flag vLLM also
    accepts written otherwise); the recipe is built, and only a strict build (``-W``) fails."""

    ERROR = "error"
    WARNING = "warning"


@dataclasses.dataclass(frozen=True)
class Edit:
    """One change to a recipe file as written: the JSON string at a pointer (the member's key, or
    its value) from ``old`` to ``new``."""

    pointer: str
    key: bool
    old: str
    new: str


@dataclasses.dataclass(frozen=True)
class Fix:
    """A mechanical fix of a problem: what it does, in words, and the edits that do it
    (``recipebook validate --fix`` applies them in place)."""

    says: str
    edits: tuple[Edit, ...]


@dataclasses.dataclass(frozen=True, kw_only=True, order=True)
class Problem:
    """One thing wrong with a recipe file, at a line, column and JSON pointer."""

    file: str
    line: int
    column: int
    pointer: str
    message: str
    kind: Kind = dataclasses.field(default=Kind.RULE, compare=False)
    level: Level = dataclasses.field(default=Level.ERROR, compare=False)
    fix: Fix | None = dataclasses.field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        # one problem, one line; a warning says so before its message, an error is every other
        # line (as it always was)
        level = "warning: " if self.level is Level.WARNING else ""
        return self.line_of(f"{level}{self.message}")

    def line_of(self, text: str) -> str:
        """``FILE:LINE:COL: POINTER: text`` on one line: control characters (a key may hold a
        newline) are shown escaped."""
        return f"{self.file}:{self.line}:{self.column}: {self.pointer or '/'}: {text}".translate(_ESCAPES)

    @property
    def is_error(self) -> bool:
        return self.level is Level.ERROR

    def warning(self) -> Problem:
        """This problem as a warning."""
        return dataclasses.replace(self, level=Level.WARNING)


def errors(problems: Iterable[Problem]) -> list[Problem]:
    """The problems that are errors (those that keep a recipe from being built)."""
    return [problem for problem in problems if problem.level is Level.ERROR]


def warnings(problems: Iterable[Problem]) -> list[Problem]:
    """The problems that are warnings."""
    return [problem for problem in problems if problem.level is Level.WARNING]


class RecipeError(Exception):
    """Raised with every problem of one or more recipes (at least one an error); never shown as a
    traceback."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class SelectionError(ValueError):
    """A request for a selection the recipe does not offer (unknown or excluded)."""


def pointer_join(base: str, *parts: object) -> str:
    """Extend a JSON pointer (RFC 6901) with escaped reference tokens."""
    tokens = [str(p).replace("~", "~0").replace("/", "~1") for p in parts]
    return base + "".join("/" + t for t in tokens)


# A value longer than this is shown by its start and its length (a message is one line).
_SHOWN = 80


def excerpt(value: object, show: Callable[[object], str] = repr) -> str:
    """A value as a message shows it (repr, or json.dumps), cut short when long: a message is
    one line, whatever the recipe holds."""
    if isinstance(value, str):
        if len(value) <= _SHOWN:
            return show(value)
        return f"{show(value[: _SHOWN - 20])}… ({len(value):,} characters)"
    text = show(value)
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 20]}… ({len(text):,} characters)"
