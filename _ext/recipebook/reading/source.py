"""Read a recipe file: JSON with the line and column of every value and key.

The standard ``json`` module reports where a broken file fails, but forgets where
each value of a good one came from. This small reader keeps that, so every later
problem can name its line and column, and it rejects duplicate keys, which
``json`` would silently collapse.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import json
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..problems import Kind, Problem, pointer_join

_WS = re.compile(r"[ \t\n\r]*")
# json's own string reader (C-accelerated); typeshed does not declare it
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}
# Recipes nest about a dozen levels; far deeper input is refused before any recursive
# reader (json's, this module's, the schema validator's) can run out of stack on it.
MAX_DEPTH = 100
_SURROGATE = re.compile("[\ud800-\udfff]")
# A recipe is tens of kilobytes; a file far larger is refused before it is read whole (a link to
# /dev/zero would otherwise fill the memory). Numbers hold few digits; Python refuses to convert
# an integer of more than 4,300 digits, and nothing in a recipe needs more than a few dozen.
MAX_BYTES = 4 * 1024 * 1024
MAX_DIGITS = 100
_LONG_NUMBER = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[0-9]{' + str(MAX_DIGITS + 1) + ",}", re.DOTALL)
# a string (its loop unrolled, so a multi-megabyte string is read in milliseconds), or a bracket
_BRACKETS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def line_starts(text: str) -> list[int]:
    """The offset at which each line of a text starts."""
    return [0] + [m.end() for m in re.finditer("\n", text)]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Document:
    """A parsed JSON file: its data and where each pointer starts."""

    path: str
    data: Any
    values: Mapping[str, tuple[int, int]]  # where each pointer's value starts (line, column)
    keys: Mapping[str, tuple[int, int]]  # where each object member's key starts
    text: str | None = dataclasses.field(default=None, repr=False, compare=False)  # the file's text

    @functools.cached_property
    def _line_starts(self) -> list[int]:
        return line_starts(self.text or "")

    def real(self, pointer: str) -> str:
        """Where the value at a pointer was written in the file (itself here; a recipe with shared
        grids places a target's value where its grid part wrote it)."""
        return pointer

    def offset(self, pointer: str, *, key: bool = False) -> int | None:
        """The offset in the text where the value (or the key) at a pointer was written, or None."""
        table = self.keys if key else self.values
        if self.text is None or pointer not in table:
            return None
        line, column = table[pointer]
        return self._line_starts[line - 1] + column - 1

    def where_inside(self, pointer: str, index: int) -> tuple[int, int]:
        """Line and column in the file of the character ``index`` of the string value at a pointer:
        escapes (``\\n``, ``\\u00e9``) count as the one character they write. The value's start
        when the text is not kept or the value is not a string."""
        line, column = self.where(pointer)
        if self.text is None:
            return line, column
        starts = self._line_starts
        offset = starts[line - 1] + column - 1
        if not self.text.startswith('"', offset):
            return line, column
        offset += 1
        for _ in range(index):
            if self.text.startswith("\\u", offset):
                high = int(self.text[offset + 2 : offset + 6], 16)
                pair = 0xD800 <= high < 0xDC00 and self.text.startswith("\\u", offset + 6)
                offset += 12 if pair else 6
            elif self.text.startswith("\\", offset):
                offset += 2
            elif self.text.startswith('"', offset) or offset >= len(self.text):
                break
            else:
                offset += 1
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    def problem_inside(self, pointer: str, index: int, message: str, *, kind: Kind = Kind.RULE) -> Problem:
        """A problem at the character ``index`` of the string value at a pointer (see where_inside)."""
        line, column = self.where_inside(pointer, index)
        return Problem(file=self.path, line=line, column=column, pointer=pointer, message=message, kind=kind)

    def where(self, pointer: str, *, key: bool = False) -> tuple[int, int]:
        """Line and column of a pointer's value (or its key); the nearest parent if unknown."""
        table = self.keys if key else self.values
        probe = pointer
        while True:
            if probe in table:
                return table[probe]
            if probe in self.values:
                return self.values[probe]
            if not probe:
                return (1, 1)
            probe = probe.rsplit("/", 1)[0]

    def problem(self, pointer: str, message: str, *, kind: Kind = Kind.RULE, key: bool = False) -> Problem:
        line, column = self.where(pointer, key=key)
        return Problem(file=self.path, line=line, column=column, pointer=pointer, message=message, kind=kind)


class _NotJSON(Exception):
    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.values: dict[str, tuple[int, int]] = {}
        self.keys: dict[str, tuple[int, int]] = {}
        self.duplicates: list[tuple[str, int]] = []
        self.surrogates: list[tuple[str, int]] = []  # strings that are not Unicode text
        self._line_starts = line_starts(text)

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset)  # lines starting at or before offset
        return line, offset - self._line_starts[line - 1] + 1

    def skip(self, i: int) -> int:
        match = _WS.match(self.text, i)
        assert match is not None  # the pattern matches the empty string
        return match.end()

    def value(self, i: int, pointer: str) -> tuple[Any, int]:
        i = self.skip(i)
        self.values[pointer] = self.position(i)
        ch = self.text[i]
        if ch == "{":
            return self.object(i + 1, pointer)
        if ch == "[":
            return self.array(i + 1, pointer)
        if ch == '"':
            return self.string(i, pointer)
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, i):
                return literal, i + len(word)
        match = _NUMBER.match(self.text, i)
        if match is None:  # NaN and Infinity: Python reads them, JSON does not have them
            raise _NotJSON(i, "NaN and Infinity are not JSON numbers")
        number = match.group()
        return (float(number) if any(c in number for c in ".eE") else int(number)), match.end()

    def string(self, i: int, pointer: str) -> tuple[str, int]:
        """The string whose quote is at i (a \\ud800-style escape can make a lone surrogate)."""
        result, end = _scanstring(self.text, i + 1)
        if _SURROGATE.search(result):
            self.surrogates.append((pointer, i))
        return result, end

    def object(self, i: int, pointer: str) -> tuple[dict[str, Any], int]:
        result: dict[str, Any] = {}
        i = self.skip(i)
        if self.text[i] == "}":
            return result, i + 1
        while True:
            i = self.skip(i)
            key_at = i
            key, i = self.string(key_at, pointer)
            child = pointer_join(pointer, key)
            if key in result:
                self.duplicates.append((child, key_at))
            self.keys[child] = self.position(key_at)
            i = self.skip(i) + 1  # the colon
            result[key], i = self.value(i, child)
            i = self.skip(i)
            if self.text[i] == "}":
                return result, i + 1
            i += 1  # the comma

    def array(self, i: int, pointer: str) -> tuple[list[Any], int]:
        result: list[Any] = []
        i = self.skip(i)
        if self.text[i] == "]":
            return result, i + 1
        while True:
            item, i = self.value(i, pointer_join(pointer, len(result)))
            result.append(item)
            i = self.skip(i)
            if self.text[i] == "]":
                return result, i + 1
            i += 1


def _too_deep(text: str) -> int | None:
    """The offset of the first bracket nested deeper than MAX_DEPTH, if any (strings skipped)."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        ch = match.group()[0]
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif ch in "]}":
            depth -= 1
    return None


def _previous(text: str, pos: int) -> int:
    """The offset of the last character before pos that is not white space (-1 if none)."""
    i = pos - 1
    while i >= 0 and text[i] in " \t\n\r":
        i -= 1
    return i


def _unclosed(text: str) -> tuple[int, str] | None:
    """The innermost bracket still open at the end of the text, or an unclosed string's quote."""
    stack: list[tuple[int, str]] = []
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token[0] == '"':
            if len(token) == 1 or not token.endswith('"') or (token.endswith('\\"') and _odd_backslashes(token)):
                return match.start(), '"'
        elif token in "[{":
            stack.append((match.start(), token))
        elif stack:
            stack.pop()
    return stack[-1] if stack else None


def _odd_backslashes(token: str) -> bool:
    run = len(token) - 1 - len(token[:-1].rstrip("\\"))
    return run % 2 == 1


def _string_start(text: str, pos: int) -> int:
    """The opening quote of the string that holds pos (strings never span lines)."""
    line_start = text.rfind("\n", 0, pos) + 1
    start = line_start
    for match in re.finditer(r'"(?:[^"\\\n]|\\.)*"?', text[line_start : pos + 1]):
        start = line_start + match.start()
    return start


def describe_error(text: str, error: json.JSONDecodeError) -> tuple[int, str]:
    """Where a JSON text breaks and what is wrong there, in words that lead to the fix."""
    pos, msg = error.pos, error.msg
    here = text[pos] if pos < len(text) else ""
    before = _previous(text, pos)
    prev = text[before] if before >= 0 else ""
    if msg.startswith("Unexpected UTF-8 BOM"):
        return 0, "the file starts with a byte order mark; save it as UTF-8 without one"
    if text.lstrip().startswith(("//", "/*")) or text[pos : pos + 2] in ("//", "/*"):
        return pos, "comments are not allowed in JSON; remove the comment"
    if (
        prev == ","
        and here in "]}"
        and here
        and msg in ("Expecting value", "Expecting property name enclosed in double quotes")
    ):
        return before, f"trailing comma: JSON allows no comma before {here!r}; remove it"
    if prev == "," and here == ",":
        return pos, "two commas in a row; remove one"
    if prev in "[{" and here == ",":
        return pos, "a comma with no value before it; remove it"
    if msg.startswith("Unterminated string") or (msg.startswith("Invalid control character") and here in "\n\r"):
        start = _string_start(text, pos) if not msg.startswith("Unterminated") else pos
        return start, "unclosed string: no closing double quote before the end of the line"
    if msg.startswith("Invalid control character"):
        return pos, "a control character (such as a tab) inside a string; write it as an escape such as \\t"
    if msg.startswith("Invalid \\escape"):
        return pos, "invalid escape in a string; write \\\\ for a backslash"
    if here == "'":
        return pos, "single quotes are not JSON; use double quotes"
    if not here and msg in ("Expecting ',' delimiter", "Expecting value"):
        found = _unclosed(text)
        if found is not None:
            return found[0], f"unclosed {found[1]!r}: the file ends before it is closed"
    if msg == "Expecting ',' delimiter":
        if here in "]}":
            found = _unclosed(text[:pos])
            opener = found[1] if found else "?"
            return pos, f"{here!r} does not close the {opener!r} that is open here"
        return before + 1, "missing comma between values"
    if msg == "Expecting ':' delimiter":
        return before + 1, "missing colon after the key"
    if msg == "Expecting property name enclosed in double quotes":
        return pos, "a key must be a string in double quotes"
    if msg == "Expecting value":
        if not here:
            return pos, "the file holds no JSON value"
        if prev == ":" and here in ",}":
            return pos, "missing value after the colon"
        return (
            pos,
            "not a JSON value: write a string in double quotes, a number, true, false, null, an object or an array",
        )
    if msg == "Extra data":
        return pos, "extra text after the JSON value ends; a file holds one value (a missing or extra bracket?)"
    return pos, msg


class _Doubtful(Exception):
    """The quick reader met what only the full reader reports (a repeated key, NaN)."""


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Doubtful
    return result


def _no_constant(name: str) -> Any:
    raise _Doubtful


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


_FULL_READER = object()  # what _quick gives when the full reader must look


def _quick(text: str) -> Any:
    """The data of well-formed JSON with nothing to report, read by the standard reader, or
    _FULL_READER when the full reader must look (a repeated key, NaN or Infinity, a surrogate
    escape)."""
    if _SURROGATE_ESCAPE.search(text):
        return _FULL_READER
    try:
        return json.loads(text, object_pairs_hook=_no_repeats, parse_constant=_no_constant)
    except _Doubtful:
        return _FULL_READER


class _Located:
    """Where each pointer of a text starts, found on first use."""

    def __init__(self, text: str) -> None:
        self.text = text

    @functools.cached_property
    def tables(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
        reader = _Reader(self.text)
        reader.value(0, "")
        return reader.values, reader.keys


class _Positions(Mapping[str, tuple[int, int]]):
    """The values (0) or keys (1) table of a text, read only when asked."""

    def __init__(self, located: _Located, which: int) -> None:
        self.located, self.which = located, which

    def _table(self) -> dict[str, tuple[int, int]]:
        return self.located.tables[self.which]

    def __getitem__(self, pointer: str) -> tuple[int, int]:
        return self._table()[pointer]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


def _long_number(text: str) -> tuple[int, int] | None:
    """The offset and length of the first run of more than MAX_DIGITS digits outside strings."""
    for match in _LONG_NUMBER.finditer(text):
        if match.group()[0] != '"':
            return match.start(), len(match.group())
    return None


def parse(text: str, path: str) -> tuple[Document | None, list[Problem]]:
    """Parse JSON text; return the document, or the problems that stop it."""
    long_number = _long_number(text)
    if long_number is not None:
        offset, digits = long_number
        line, column = _Reader(text).position(offset)
        message = f"a number of {digits} digits; a number in a recipe has at most {MAX_DIGITS} digits"
        return None, [Problem(file=path, line=line, column=column, pointer="", message=message, kind=Kind.JSON)]
    deep = _too_deep(text)
    if deep is not None:
        line, column = _Reader(text).position(deep)
        return None, [
            Problem(
                file=path,
                line=line,
                column=column,
                pointer="",
                message=f"invalid JSON: nested more than {MAX_DEPTH} levels deep",
                kind=Kind.JSON,
            )
        ]
    try:
        quick = _quick(text)  # the standard reader finds and locates syntax errors
    except json.JSONDecodeError as error:
        offset, message = describe_error(text, error)
        line, column = _Reader(text).position(offset)
        return None, [
            Problem(file=path, line=line, column=column, pointer="", message=f"invalid JSON: {message}", kind=Kind.JSON)
        ]
    if quick is not _FULL_READER:  # most files: no position is needed unless a later check finds a problem
        located = _Located(text)
        return Document(
            path=path, data=quick, values=_Positions(located, 0), keys=_Positions(located, 1), text=text
        ), []
    reader = _Reader(text)
    try:
        data, _ = reader.value(0, "")
    except _NotJSON as error:
        line, column = reader.position(error.offset)
        return None, [
            Problem(file=path, line=line, column=column, pointer="", message=f"invalid JSON: {error}", kind=Kind.JSON)
        ]
    document = Document(path=path, data=data, values=reader.values, keys=reader.keys, text=text)
    found = [
        (pointer, offset, "duplicate key: only the last value would count") for pointer, offset in reader.duplicates
    ]
    found += [
        (pointer, offset, "a \\u escape makes a lone surrogate, which is not a character; write the character itself")
        for pointer, offset in reader.surrogates
    ]
    problems = []
    for pointer, offset, message in found:
        line, column = reader.position(offset)
        problems.append(Problem(file=path, line=line, column=column, pointer=pointer, message=message, kind=Kind.JSON))
    return document, problems


def value_problems(text: str) -> list[Problem]:
    """The problems of a JSON text inside a recipe (a flag's or an environment variable's value),
    read as the recipe file itself is read: syntax, a repeated key, NaN, a number of more than
    MAX_DIGITS digits, nesting deeper than MAX_DEPTH; each at its line and column of the text."""
    return parse(text, "")[1]


def loads(text: str) -> Any:
    """A JSON text inside a recipe, read by this module's reader (never ``json.loads`` alone, which
    keeps the last of two keys, converts 5,000 digits until Python refuses, and recurses until
    the stack ends): its data, or ``json.JSONDecodeError`` with the first problem."""
    document, problems = parse(text, "")
    if problems or document is None:
        first = problems[0]
        starts = line_starts(text)
        offset = starts[first.line - 1] + first.column - 1 if first.line - 1 < len(starts) else 0
        raise json.JSONDecodeError(first.message, text, min(offset, len(text)))
    return document.data


def read(path: str | Path, what: str = "recipe", limit: int = MAX_BYTES) -> tuple[Document | None, list[Problem]]:
    """Read and parse a file (``what`` it holds: a recipe, a stored result, ...); unreadable or
    non-UTF-8 files become problems too: a file that is not a regular file, one linked from
    outside its folder and one past ``limit`` bytes are refused unread."""
    name = str(path)

    def refused(message: str) -> tuple[None, list[Problem]]:
        return None, [Problem(file=name, line=1, column=1, pointer="", message=message, kind=Kind.JSON)]

    try:
        # the type first (a FIFO would block the read, a device never end it), then a capped read
        kind = _not_regular(os.stat(path).st_mode)
        if kind:
            return refused(f"not a regular file but {kind}; a {what} is a JSON file")
        elsewhere = _linked_out(path)
        if elsewhere is not None:
            return refused(
                f"a symbolic link to {elsewhere}, outside the {what}'s folder: the site would publish a file from "
                f"elsewhere; copy the {what} into the folder instead"
            )
        with Path(path).open("rb") as handle:
            raw = handle.read(limit + 1)
        if len(raw) > limit:
            return refused(f"the file is larger than {limit // (1024 * 1024)} MiB; a {what} is far smaller")
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it
    except UnicodeDecodeError as error:
        return None, [
            Problem(
                file=name,
                line=1,
                column=1,
                pointer="",
                message=f"not UTF-8 text: {error.reason} at byte {error.start}",
                kind=Kind.JSON,
            )
        ]
    except OSError as error:
        return None, [
            Problem(
                file=name, line=1, column=1, pointer="", message=f"cannot read file: {error.strerror}", kind=Kind.JSON
            )
        ]
    return parse(text, name)


def _linked_out(path: str | Path) -> str | None:
    """Where a recipe file really is, when a symbolic link leads out of the folder it is in."""
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    real = os.path.realpath(path)
    return None if os.path.dirname(real) == folder or real.startswith(folder + os.sep) else real


def _not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is, in words, or None for a regular file."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    for test, words in kinds:
        if test(mode):
            return words
    return None if stat.S_ISREG(mode) else "not a regular file"
