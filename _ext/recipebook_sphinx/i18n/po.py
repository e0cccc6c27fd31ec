"""The one reader of translation catalogs (``.po``), and the writer of what the build loads (``.mo``).

Every part of the project that needs a catalog's messages reads them here: the check that runs
before a build (``po_check``), the translation gate (``intl_check``), the merge of new English
(``catalogs --update``) and the compiled catalogs the build loads (``write_compiled``). What this
reader does not understand is reported, at its line, and the message it belongs to is not used;
nothing reads the file again some other way.

A catalog is a file a translator hands in, so it is read as hostile: only a regular file (a FIFO
would block the reader, a device never end), of at most ``MAX_BYTES``, that stays inside its
locale folder (a symbolic link may not reach out of it), decoded as UTF-8.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import stat
import struct
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import cast

from babel.messages.catalog import Catalog as BabelCatalog
from babel.messages.catalog import Message as BabelMessage

# A catalog of this project is a few hundred kilobytes; a far larger one is refused unread.
MAX_BYTES = 4 * 1024 * 1024
_KEYWORD = re.compile(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)(?=[\s\"]|$)")
_WORD = re.compile(r"[^\s\"]+")
# gettext's escapes (po-lex.c): these letters, up to three octal digits, \x and hex digits
_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "\\": "\\", '"': '"'}
_OCTAL = re.compile(r"[0-7]{1,3}")
_HEX = re.compile(r"x([0-9A-Fa-f]+)")
# msgstr[N]: gettext languages have at most six plural forms; a larger index is a mistake
MAX_PLURAL_INDEX = 9


@dataclasses.dataclass(frozen=True, order=True)
class CatalogProblem:
    """One thing wrong in a catalog, at a line of its file."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        # one problem, one line: a file name's or a message's control characters shown escaped
        return "".join(
            ch if ch.isprintable() or ch == " " else ascii(ch)[1:-1]
            for ch in f"{self.file}:{self.line}: {self.message}"
        )


@dataclasses.dataclass
class Field:
    """One keyword of a message and its text (its strings joined, escapes read)."""

    keyword: str  # msgctxt, msgid, msgid_plural, msgstr, msgstr[N]
    line: int
    text: str = ""
    starts: list[tuple[int, int]] = dataclasses.field(default_factory=list)  # (offset in text, line)

    def add(self, line: int, text: str) -> None:
        self.starts.append((len(self.text), line))
        self.text += text

    def line_of(self, offset: int) -> int:
        """The line of the file that holds the character at an offset of the text."""
        found = self.line
        for start, line in self.starts:
            if start > offset:
                break
            found = line
        return found


@dataclasses.dataclass
class Message:
    """One entry of a catalog as written: its keywords, flags and comments."""

    line: int
    obsolete: bool
    flags: frozenset[str]
    fields: dict[str, Field] = dataclasses.field(default_factory=dict)
    comments: list[str] = dataclasses.field(default_factory=list)  # "# ": the translator's
    auto_comments: list[str] = dataclasses.field(default_factory=list)  # "#.": the extractor's
    locations: list[str] = dataclasses.field(default_factory=list)  # "#:"
    previous: dict[str, str] = dataclasses.field(default_factory=dict)  # "#| msgid": the English before
    damaged: bool = False  # a line of it could not be read

    def text(self, keyword: str) -> str | None:
        field = self.fields.get(keyword)
        return None if field is None else field.text

    @property
    def id(self) -> str:
        return self.text("msgid") or ""

    @property
    def context(self) -> str | None:
        return self.text("msgctxt")

    @property
    def plural(self) -> str | None:
        return self.text("msgid_plural")

    @property
    def fuzzy(self) -> bool:
        return "fuzzy" in self.flags

    @property
    def translations(self) -> list[Field]:
        return [f for k, f in self.fields.items() if k.startswith("msgstr")]

    @property
    def strings(self) -> list[str]:
        return [f.text for f in self.translations]

    @property
    def is_header(self) -> bool:
        return not self.obsolete and self.id == "" and self.context is None

    @property
    def used(self) -> bool:
        """Whether a build shows this translation: read whole, not obsolete, not fuzzy, every form
        translated (gettext shows the English otherwise)."""
        strings = self.strings
        return (
            not self.damaged
            and not self.obsolete
            and not self.fuzzy
            and bool(self.id)
            and bool(strings)
            and all(strings)
        )


@dataclasses.dataclass
class Catalog:
    """A catalog's messages in file order, and the problems of reading it."""

    path: str
    messages: list[Message]
    problems: list[CatalogProblem]
    opened: bool = True  # False: the file could not be read as text (its problem says why)

    @property
    def header(self) -> Message | None:
        return next((m for m in self.messages if m.is_header), None)

    def header_fields(self) -> dict[str, tuple[str, int]]:
        """The header's fields, names in lower case, each with its value and the line of the file it
        is written on (the last of a name repeated)."""
        header = self.header
        field = header.fields.get("msgstr") if header else None
        found: dict[str, tuple[str, int]] = {}
        offset = 0
        for line in field.text.split("\n") if field else ():
            key, colon, value = line.partition(":")
            if colon and field is not None:
                found[key.strip().lower()] = (value.strip(), field.line_of(offset))
            offset += len(line) + 1
        return found


class _LineError(Exception):
    pass


def _string(line: str, i: int) -> tuple[str, int]:
    """The C-style string whose opening quote is at i, and the index after its closing quote."""
    out: list[str] = []
    j = i + 1
    while j < len(line):
        ch = line[j]
        if ch == '"':
            return "".join(out), j + 1
        if ch != "\\":
            out.append(ch)
            j += 1
            continue
        nxt = line[j + 1 : j + 2]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            j += 2
        elif octal := _OCTAL.match(line, j + 1):
            out.append(chr(int(octal.group(), 8)))
            j = octal.end()
        elif hexa := _HEX.match(line, j + 1):
            digits = hexa.group(1)
            if len(digits) > 6 or int(digits, 16) > 0x10FFFF:
                raise _LineError(f"'\\x{digits}' is no character; write the character itself")
            out.append(chr(int(digits, 16)))
            j = hexa.end()
        elif not nxt:
            raise _LineError("a backslash at the end of the line; a string ends on its own line with '\"'")
        else:
            raise _LineError(
                f"'\\{nxt}' is not an escape gettext knows (\\n, \\t, \\\\, \\\" and a few more); "
                "write '\\\\' for a backslash"
            )
    raise _LineError("unclosed string: no closing double quote before the end of the line")


def _strings(line: str, i: int) -> str:
    """All the strings from i to the end of the line, joined (gettext allows several)."""
    parts: list[str] = []
    while True:
        while i < len(line) and line[i] in " \t":
            i += 1
        if i == len(line):
            return "".join(parts)
        if line[i] != '"':
            word = _WORD.match(line, i)
            raise _LineError(
                f"{(word.group() if word else line[i])!r} is not a string: after a keyword, a line holds "
                "only strings in double quotes"
            )
        part, i = _string(line, i)
        parts.append(part)


class _Reader:
    """Reads a catalog's lines into messages, noting every line it cannot read."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.messages: list[Message] = []
        self.problems: list[CatalogProblem] = []
        self._comments: dict[str, list[str]] = {"#": [], "#.": [], "#:": []}
        self._flags: set[str] = set()
        self._previous: dict[str, str] = {}
        self._previous_key: str | None = None
        self._message: Message | None = None
        self._field: Field | None = None

    def problem(self, line: int, message: str) -> None:
        self.problems.append(CatalogProblem(self.path, line, message))

    def read(self, text: str) -> None:
        for number, raw in enumerate(text.split("\n"), 1):
            self.line(number, raw.rstrip("\r"))
        self.close()

    def comment(self, line: str) -> None:
        self._field = None
        if line.startswith("#,"):
            self._flags |= {flag.strip() for flag in line[2:].split(",") if flag.strip()}
        elif line.startswith("#|"):
            self.previous(line[2:].strip())
        elif line.startswith(("#.", "#:")):
            self._comments[line[:2]].append(line[2:].strip())
        else:
            self._comments["#"].append(line[1:].strip())

    def previous(self, line: str) -> None:
        """A line of the English a fuzzy message had before (``#| msgid "..."``): kept, not judged."""
        try:
            if line.startswith('"') and self._previous_key is not None:
                self._previous[self._previous_key] += _strings(line, 0)
                return
            match = _KEYWORD.match(line)
            if match is not None and match.group(1) in ("msgctxt", "msgid", "msgid_plural"):
                self._previous_key = match.group(1)
                self._previous[self._previous_key] = _strings(line, match.end())
        except _LineError:
            self._previous_key = None  # a damaged previous English is dropped: only a reminder

    def line(self, number: int, raw: str) -> None:
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
            if not line or line.startswith("|"):  # a previous msgid of an obsolete message
                return
        elif line.startswith("#"):
            if self._message is not None and self._message.translations:
                self.close()  # comments start the next message
            self.comment(line)
            return
        if not line:
            return
        try:
            if line.startswith('"'):
                self.continuation(number, line)
            else:
                self.keyword(number, line, obsolete)
        except _LineError as error:
            where = f"{self._field.keyword}: " if self._field is not None else ""
            self.problem(number, where + str(error))
            if self._message is not None:
                self._message.damaged = True  # what is missing from it follows from this line
            self._field = None

    def continuation(self, number: int, line: str) -> None:
        if self._field is None:
            _strings(line, 0)  # a broken string is reported as such
            raise _LineError("a string with no keyword before it (msgid, msgstr, ...)")
        self._field.add(number, _strings(line, 0))

    def keyword(self, number: int, line: str, obsolete: bool) -> None:
        self._field = None
        match = _KEYWORD.match(line)
        if match is None:
            word = _WORD.match(line)
            raise _LineError(
                f"unknown keyword {(word.group() if word else line)!r}; a catalog knows msgctxt, msgid, "
                "msgid_plural, msgstr and msgstr[N]"
            )
        keyword = match.group(1)
        message = self._message
        starts = keyword == "msgctxt" or (
            keyword == "msgid" and (message is None or "msgctxt" not in message.fields or "msgid" in message.fields)
        )
        if starts or message is None:
            self.close()
            message = self._message = Message(
                line=number,
                obsolete=obsolete,
                flags=frozenset(self._flags),
                comments=self._comments["#"],
                auto_comments=self._comments["#."],
                locations=self._comments["#:"],
                previous=self._previous,
            )
            self._flags, self._previous, self._previous_key = set(), {}, None
            self._comments = {"#": [], "#.": [], "#:": []}
        self._place(message, keyword)
        self._field = message.fields[keyword] = Field(keyword, number)
        self._field.add(number, _strings(line, match.end()))

    def _place(self, message: Message, keyword: str) -> None:
        """Whether a keyword may come here in its message (raises _LineError when it may not)."""
        if keyword in message.fields:
            raise _LineError(f"a second {keyword} in one message; a message has one of each")
        if keyword == "msgid" or keyword == "msgctxt":
            return
        if "msgid" not in message.fields:
            raise _LineError(f"{keyword} without a msgid before it")
        translated = any(k.startswith("msgstr") for k in message.fields)
        if keyword == "msgid_plural":
            if translated:
                raise _LineError("msgid_plural after msgstr; it follows msgid")
            return
        plural = "msgid_plural" in message.fields
        if keyword == "msgstr" and plural:
            raise _LineError("a message with msgid_plural takes msgstr[0], msgstr[1], ..., not msgstr")
        if keyword.startswith("msgstr["):
            if not plural:
                raise _LineError(f"{keyword} without msgid_plural; a message without plural forms takes msgstr")
            index = int(keyword[7:-1])
            expected = sum(k.startswith("msgstr[") for k in message.fields)
            if index != expected:
                raise _LineError(f"{keyword} where msgstr[{expected}] is next; number the plural forms from 0")
            if index > MAX_PLURAL_INDEX:
                raise _LineError(f"{keyword}: no language has more than {MAX_PLURAL_INDEX + 1} plural forms")
        elif keyword == "msgstr" and translated:
            raise _LineError("a second msgstr in one message")

    def close(self) -> None:
        message, self._message, self._field = self._message, None, None
        if message is None:
            return
        for field in message.fields.values():
            # the compiled catalog separates plural forms with NUL and a context with EOT: a string
            # holding one would be read back as another message
            for separator, name in (("\x00", "NUL"), ("\x04", "END OF TRANSMISSION")):
                if separator in field.text and not message.damaged:
                    self.problem(
                        field.line,
                        f"{field.keyword}: holds the character U+{ord(separator):04X} {name}, "
                        "which a compiled catalog uses to separate strings; remove it",
                    )
                    message.damaged = True
        if message.damaged:  # its line is reported; what it lacks may follow from that line
            self.messages.append(message)
            return
        if "msgid" not in message.fields:
            self.problem(message.line, "msgctxt without a msgid after it")
        elif not message.translations:
            self.problem(
                message.fields["msgid"].line, 'msgid without msgstr; add msgstr "" for a message not translated yet'
            )
        else:
            self.messages.append(message)


def read_text(text: str, path: str) -> Catalog:
    """A catalog's messages and the lines that could not be read (path is what problems name)."""
    reader = _Reader(path)
    reader.read(text.removeprefix("\ufeff"))
    return Catalog(path=path, messages=reader.messages, problems=reader.problems)


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is, in words; None for a regular file."""
    for test, words in _KINDS:
        if test(mode):
            return words
    return None if stat.S_ISREG(mode) else "not a regular file"


def outside(path: Path, folder: Path | None) -> Path | None:
    """Where a path really leads when that is outside the folder (a symbolic link on the way)."""
    if folder is None:
        return None
    real = Path(os.path.realpath(path))
    return None if real.is_relative_to(os.path.realpath(folder)) else real


def read_bytes(path: Path, name: str, within: Path | None = None) -> tuple[bytes | None, CatalogProblem | None]:
    """A catalog file's bytes, or the problem that stops reading it: a link out of the locale
    folder, a file that is no regular file (opened without waiting, judged by what was opened), a
    file over MAX_BYTES."""

    def refused(message: str) -> tuple[None, CatalogProblem]:
        return None, CatalogProblem(name, 1, message)

    elsewhere = outside(path, within)
    if elsewhere is not None:
        return refused(
            f"a symbolic link to {elsewhere}, outside the locale folder; a catalog is a file of the project's "
            "locale folder: copy it there"
        )
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        return refused(f"cannot read the catalog: {error.strerror or error}")
    try:
        info = os.fstat(handle)
        kind = not_regular(info.st_mode)
        if kind:
            return refused(f"not a regular file but {kind}; a catalog is a text file")
        if info.st_size > MAX_BYTES:
            return refused(f"the file is larger than {MAX_BYTES // (1024 * 1024)} MiB; a catalog is far smaller")
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(handle, min(1 << 20, MAX_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        return refused(f"cannot read the catalog: {error.strerror or error}")
    finally:
        os.close(handle)
    if size > MAX_BYTES:
        return refused(f"the file is larger than {MAX_BYTES // (1024 * 1024)} MiB; a catalog is far smaller")
    return b"".join(chunks), None


def read_file(path: str | Path, shown: str | None = None, within: Path | None = None) -> Catalog:
    """One catalog file (named as shown, or by its path), read as hostile: see the module."""
    name = shown or str(path)
    data, refused = read_bytes(Path(path), name, within)
    if data is None:
        assert refused is not None
        return Catalog(path=name, messages=[], problems=[refused], opened=False)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        message = f"not UTF-8 text ({error.reason} at byte {error.start}); save the file as UTF-8"
        return Catalog(path=name, messages=[], problems=[CatalogProblem(name, line, message)], opened=False)
    return read_text(text, name)


def folder_files(folder: Path, within: Path) -> Iterator[Path]:
    """Every file of one LC_MESSAGES folder and its subfolders (a folder whose name starts with a
    dot is skipped, as Sphinx skips it), in a stable order. A folder that leads out of ``within``
    (a symbolic link on the way) is not entered: it is yielded itself, for its problem; a linked
    folder inside is entered once, so a link to a folder above it ends."""
    inside = os.path.realpath(within)
    seen: set[str] = set()
    stack = [folder]
    while stack:
        current = stack.pop()
        real = os.path.realpath(current)
        if real != inside and not real.startswith(inside + os.sep):
            yield current
            continue
        if real in seen:
            continue
        seen.add(real)
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir():
                if not entry.name.startswith("."):
                    stack.append(Path(entry.path))
            else:
                yield Path(entry.path)


def _key(message: Message) -> str:
    key = message.id
    if message.plural is not None:
        key += "\0" + message.plural
    if message.context is not None:
        key = message.context + "\x04" + key
    return key


def compiled(catalog: Catalog) -> bytes:
    """The catalog as GNU gettext's binary format, as Python's gettext (and so Sphinx) loads it:
    the header and every message a build shows (``Message.used``); nothing else."""
    entries: dict[str, str] = {}
    for message in catalog.messages:
        if message.is_header and not message.damaged:
            entries[""] = message.text("msgstr") or ""
        elif message.used:
            entries[_key(message)] = "\0".join(message.strings)
    keys = sorted(entries, key=lambda k: k.encode("utf-8"))
    ids = [k.encode("utf-8") for k in keys]
    strings = [entries[k].encode("utf-8") for k in keys]
    count = len(keys)
    start = 7 * 4 + 16 * count
    offsets, blob = [], b""
    for data in ids + strings:
        offsets.append((len(data), start + len(blob)))
        blob += data + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, count, 28, 28 + 8 * count, 0, start)
    table = b"".join(struct.pack("<2I", length, offset) for length, offset in offsets)
    return header + table + blob


def write_compiled(po: Path, catalog: Catalog) -> None:
    """Write the catalog's ``.mo`` beside its ``.po``: replaced (never written through a link or
    into a FIFO that was there) when its bytes differ, and dated no older than the ``.po``, so
    that nothing else compiles the ``.po`` again."""
    mo = po.with_suffix(".mo")
    data = compiled(catalog)
    try:
        same = stat.S_ISREG(os.lstat(mo).st_mode) and mo.read_bytes() == data
    except OSError:
        same = False
    if not same:
        # named .part, not .mo: a build checking the folder meanwhile sees no compiled catalog of its own
        handle, temporary = tempfile.mkstemp(dir=po.parent, prefix=f".{po.stem}.mo.", suffix=".part")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, mo)
        except OSError:
            Path(temporary).unlink(missing_ok=True)
            raise
    if os.stat(mo).st_mtime_ns < os.stat(po).st_mtime_ns:
        with contextlib.suppress(OSError):  # another build replaced it meanwhile: that one is as new
            os.utime(mo)


def to_babel(catalog: Catalog) -> BabelCatalog:
    """The catalog as babel's Catalog, for babel's merge and writer (``catalogs --update``): the
    messages as read here, the obsolete ones kept, each fuzzy message's previous English too."""
    out = BabelCatalog()
    for message in catalog.messages:
        if message.damaged:
            continue
        msgid: str | tuple[str, ...] = message.id
        string: str | tuple[str, ...] = message.text("msgstr") or ""
        previous: tuple[str, ...] = ()
        if message.plural is not None:
            msgid = (message.id, message.plural)
            string = tuple(message.strings)
        if "msgid" in message.previous:
            previous = (message.previous["msgid"],)
            if "msgid_plural" in message.previous:
                previous += (message.previous["msgid_plural"],)
        entry = BabelMessage(
            msgid,
            string,
            # babel's own reader keeps a location without a line as (name, None); its annotation says int
            locations=cast("list[tuple[str, int]]", [_location(t) for line in message.locations for t in line.split()]),
            flags=message.flags,
            auto_comments=message.auto_comments,
            user_comments=message.comments,
            previous_id=previous,
            context=message.context,
        )
        if message.obsolete:
            out.obsolete[out._key_for(msgid, message.context)] = entry
        else:
            out[msgid] = entry
    return out


def _location(text: str) -> tuple[str, int | None]:
    path, colon, line = text.rpartition(":")
    return (path, int(line)) if colon and line.isdigit() else (text, None)


def every_file(folders: Iterable[str | Path], language: str) -> Mapping[Path, Path]:
    """Each file of a language's LC_MESSAGES folders, once, with the locale folder it belongs to."""
    found: dict[Path, Path] = {}
    for folder in folders:
        messages = Path(folder, language, "LC_MESSAGES")
        if not messages.is_dir():
            continue
        for path in folder_files(messages, Path(folder)):
            found.setdefault(path, Path(folder))
    return found
