"""Translation catalogs checked before a build reads them: every problem at its file and line.

A catalog is written by hand, and neither babel (which compiles the catalogs of the build)
nor polib stops at a mistake in it: an unclosed ``msgstr "레시`` compiles to "레", a
``{variant`` left open stops the build in the middle with ``ValueError: expected '}'``.
This module reads a ``.po`` file line by line and reports, as ``FILE:LINE: message``:

- what ``msgfmt --check`` refuses: a string not closed on its line, an escape gettext does
  not have, a line it cannot read, a keyword out of place or missing (``msgid`` without
  ``msgstr``), a message defined twice, a header without a UTF-8 ``Content-Type`` or with
  plural forms the messages do not match, a ``msgstr`` that does not start and end with a
  newline where its ``msgid`` does, and a ``python-format`` message whose ``%(name)s``
  directives differ from its English;
- what would break or change a page: a translation whose ``{placeholders}`` are not those
  of its English (one lost, renamed, added or left unclosed: ``str.format`` raises on it,
  and a MyST role such as ``{doc}`` is lost), HTML the English does not have (a
  ``</script><script>`` in a theme string or a page would run on every page), and, in the
  catalogs theme templates write into attributes unescaped (``sphinx.po``, ``recipebook.po``),
  a quotation mark the English does not have; an image or an address the English does not have
  (a page would load it, or send its reader there), and characters a reader does not see
  (bidirectional and zero-width characters, controls, variation selectors), named by code point.

Pure Python, nothing of Sphinx: the build calls ``check_language`` at ``config-inited``,
before it compiles or reads a catalog; the translation gate (``intl_check``) and
``python -m recipebook_sphinx.i18n.po_check LOCALE_DIR LANG`` report the same lines.
"""

from __future__ import annotations

import dataclasses
import os
import re
import string
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

_KEYWORD = re.compile(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)(?=[\s\"]|$)")
_WORD = re.compile(r"[^\s\"]+")
# gettext's escapes (po-lex.c): these letters, up to three octal digits, \x and hex digits
_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "\\": "\\", '"': '"'}
_OCTAL = re.compile(r"[0-7]{1,3}")
_HEX = re.compile(r"x([0-9A-Fa-f]+)")
_PLURAL_FORMS = re.compile(r"^\s*nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*[^;]+;?\s*$")
_CHARSET = re.compile(r"charset\s*=\s*([^\s;]+)", re.IGNORECASE)
# a python-format directive (%(name)s, %5.2f, %%), or a lone % that is none
_PERCENT = re.compile(
    r"%(?:\((?P<name>[^)]*)\))?[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?(?P<conv>[diouxXeEfFgGcrsa%])|%"
)
# where a translation could open markup: the start of a tag, a comment, a declaration
_MARKUP_START = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)|<!--|<!|<\?")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>")
# {name} that is not {{name}}: a format field or a MyST role, in a message that is no format string
_BRACED = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")
_FORMATTER = string.Formatter()
# Catalogs whose messages theme templates write into HTML attributes without escaping them
# (furo's title="{{ _('Search') }}"): a quotation mark there would end the attribute.
ATTRIBUTE_CATALOGS = frozenset({"sphinx", "recipebook"})


@dataclasses.dataclass(frozen=True, order=True)
class CatalogProblem:
    """One thing wrong in a catalog, at a line of its file."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


@dataclasses.dataclass
class _Field:
    keyword: str  # msgctxt, msgid, msgid_plural, msgstr, msgstr[N]
    line: int
    text: str = ""


@dataclasses.dataclass
class _Entry:
    line: int
    obsolete: bool
    flags: frozenset[str]
    fields: dict[str, _Field] = dataclasses.field(default_factory=dict)
    damaged: bool = False  # a line of it could not be read

    def text(self, keyword: str) -> str | None:
        field = self.fields.get(keyword)
        return None if field is None else field.text

    @property
    def translations(self) -> list[_Field]:
        return [f for k, f in self.fields.items() if k.startswith("msgstr")]


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
            out.append(chr(int(hexa.group(1), 16) % 0x110000))
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
    """Reads a catalog's lines into entries, noting every line it cannot read."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.entries: list[_Entry] = []
        self.problems: list[CatalogProblem] = []
        self._flags: set[str] = set()
        self._entry: _Entry | None = None
        self._field: _Field | None = None

    def problem(self, line: int, message: str) -> None:
        self.problems.append(CatalogProblem(self.path, line, message))

    def read(self, text: str) -> None:
        for number, raw in enumerate(text.split("\n"), 1):
            self.line(number, raw.rstrip("\r"))
        self.close()

    def line(self, number: int, raw: str) -> None:
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
            if not line or line.startswith("|"):  # a previous msgid of an obsolete entry
                return
        elif line.startswith("#"):
            if line.startswith("#,"):
                self._flags |= {flag.strip() for flag in line[2:].split(",") if flag.strip()}
            return
        if not line:
            return
        try:
            if line.startswith('"'):
                self.continuation(line)
            else:
                self.keyword(number, line, obsolete)
        except _LineError as error:
            where = f"{self._field.keyword}: " if self._field is not None else ""
            self.problem(number, where + str(error))
            if self._entry is not None:
                self._entry.damaged = True  # what is missing from it follows from this line
            self._field = None

    def continuation(self, line: str) -> None:
        if self._field is None:
            _strings(line, 0)  # a broken string is reported as such
            raise _LineError("a string with no keyword before it (msgid, msgstr, ...)")
        self._field.text += _strings(line, 0)

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
        entry = self._entry
        starts = keyword == "msgctxt" or (keyword == "msgid" and (entry is None or "msgctxt" not in entry.fields))
        if starts or entry is None:
            self.close()
            entry = self._entry = _Entry(line=number, obsolete=obsolete, flags=frozenset(self._flags))
            self._flags = set()
        self._place(entry, keyword)
        self._field = entry.fields[keyword] = _Field(keyword, number)
        self._field.text = _strings(line, match.end())

    def _place(self, entry: _Entry, keyword: str) -> None:
        """Whether a keyword may come here in its entry (raises _LineError when it may not)."""
        if keyword in entry.fields:
            raise _LineError(f"a second {keyword} in one message; a message has one of each")
        if keyword == "msgid" or keyword == "msgctxt":
            return
        if "msgid" not in entry.fields:
            raise _LineError(f"{keyword} without a msgid before it")
        translated = any(k.startswith("msgstr") for k in entry.fields)
        if keyword == "msgid_plural":
            if translated:
                raise _LineError("msgid_plural after msgstr; it follows msgid")
            return
        plural = "msgid_plural" in entry.fields
        if keyword == "msgstr" and plural:
            raise _LineError("a message with msgid_plural takes msgstr[0], msgstr[1], ..., not msgstr")
        if keyword.startswith("msgstr["):
            if not plural:
                raise _LineError(f"{keyword} without msgid_plural; a message without plural forms takes msgstr")
            index = int(keyword[7:-1])
            expected = sum(k.startswith("msgstr[") for k in entry.fields)
            if index != expected:
                raise _LineError(f"{keyword} where msgstr[{expected}] is next; number the plural forms from 0")
        elif keyword == "msgstr" and translated:
            raise _LineError("a second msgstr in one message")

    def close(self) -> None:
        entry, self._entry, self._field = self._entry, None, None
        if entry is None:
            return
        if entry.damaged:  # its line is reported; what it lacks may follow from that line
            self.entries.append(entry)
            return
        if "msgid" not in entry.fields:
            self.problem(entry.line, "msgctxt without a msgid after it")
        elif not entry.translations:
            self.problem(
                entry.fields["msgid"].line, 'msgid without msgstr; add msgstr "" for a message not translated yet'
            )
        else:
            self.entries.append(entry)


def _header(entries: list[_Entry], path: str) -> Iterator[CatalogProblem]:
    header = next((e for e in entries if not e.obsolete and e.text("msgid") == "" and "msgctxt" not in e.fields), None)
    if header is None:
        if any(e.damaged for e in entries[:1]):
            return  # the first message, likely the header, has a line reported already
        yield CatalogProblem(path, 1, 'no header (msgid "" with its Content-Type); `make intl-update` writes one')
        return
    if header.damaged:
        return
    fields = {}
    for line in (header.text("msgstr") or "").split("\n"):
        key, colon, value = line.partition(":")
        if colon:
            fields[key.strip().lower()] = value.strip()
    where = header.translations[0].line
    charset = _CHARSET.search(fields.get("content-type", ""))
    if charset is None:
        yield CatalogProblem(
            path, where, 'the header has no Content-Type charset; write "Content-Type: text/plain; charset=UTF-8\\n"'
        )
    elif charset.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
        yield CatalogProblem(
            path,
            where,
            f"the header's charset is {charset.group(1)!r}; catalogs are read as UTF-8: write charset=UTF-8",
        )
    plural = [e for e in entries if not e.obsolete and not e.damaged and "msgid_plural" in e.fields]
    forms = fields.get("plural-forms")
    if forms is not None and not _PLURAL_FORMS.match(forms):
        yield CatalogProblem(path, where, f"Plural-Forms is {forms!r}; write 'nplurals=N; plural=EXPRESSION;'")
        return
    if not plural:
        return
    if forms is None:
        yield CatalogProblem(
            path,
            plural[0].line,
            "a message has plural forms but the header has no Plural-Forms (for Korean: 'nplurals=1; plural=0;')",
        )
        return
    count = int(_PLURAL_FORMS.match(forms).group(1))  # type: ignore[union-attr]  # the header was checked above
    for entry in plural:
        given = len(entry.translations)
        if given != count:
            yield CatalogProblem(
                path,
                entry.translations[-1].line,
                f"{given} plural form(s) where the header's Plural-Forms has nplurals={count}",
            )


def _duplicates(entries: list[_Entry], path: str) -> Iterator[CatalogProblem]:
    first: dict[tuple[str | None, str], int] = {}
    for entry in entries:
        if entry.obsolete:
            continue
        key = (entry.text("msgctxt"), entry.text("msgid") or "")
        if key in first:
            yield CatalogProblem(
                path, entry.line, f"message defined twice (first at line {first[key]}); keep one of them"
            )
        else:
            first[key] = entry.line


def _brace_fields(text: str) -> set[str] | str:
    """The names of a format string's fields ({name}, {0}, {} as ''), or why it is none."""
    names: set[str] = set()
    try:
        for _, name, spec, _ in _FORMATTER.parse(text):
            if name is None:
                continue
            names.add(re.split(r"[.\[]", name, maxsplit=1)[0])
            if spec and "{" in spec:
                nested = _brace_fields(spec)
                if isinstance(nested, str):
                    return nested
                names |= nested
    except ValueError as error:
        return str(error)
    return names


def _shown(names: Iterable[str]) -> str:
    return ", ".join("{" + name + "}" for name in sorted(names))


def _placeholders(source: str, translation: str) -> str | None:
    """What is wrong with the {placeholders} of a translation, or None."""
    wanted = _brace_fields(source)
    if isinstance(wanted, str):  # the English is no format string (a brace in code): compare {names}
        lost = Counter(_BRACED.findall(source)) - Counter(_BRACED.findall(translation))
        if lost:
            return f"the translation loses {_shown(lost)} of the English; keep the English's placeholders exactly"
        return None
    found = _brace_fields(translation)
    if isinstance(found, str):
        keep = f"keep {_shown(wanted)} of the English whole, and " if wanted else ""
        return (
            f"the translation is not a valid format string ({found}), so formatting it would stop the build; "
            f"{keep}write '{{{{' and '}}}}' for a literal brace"
        )
    problems = []
    if wanted - found:
        problems.append(f"loses {_shown(wanted - found)} of the English")
    if found - wanted:
        problems.append(f"has {_shown(found - wanted)}, which the English does not have")
    if problems:
        return f"the translation {' and '.join(problems)}; keep the English's placeholders exactly"
    return None


def _percent(text: str) -> tuple[dict[str, str], list[str]] | str:
    named: dict[str, str] = {}
    positional: list[str] = []
    for match in _PERCENT.finditer(text):
        conv = match.group("conv")
        if conv is None:
            after = text[match.end() : match.end() + 1] or "the end"
            return f"'%' before {after!r} starts no directive; write '%%' for a percent sign"
        if conv == "%":
            continue
        if match.group("name") is not None:
            named[match.group("name")] = conv
        else:
            positional.append(conv)
    return named, positional


def _python_format(source: str, translation: str) -> str | None:
    wanted, found = _percent(source), _percent(translation)
    if isinstance(wanted, str):
        return None
    if isinstance(found, str):
        return f"the translation is not a valid Python format string: {found}"
    if wanted[0].keys() != found[0].keys():
        lost = ", ".join(f"%({n})s" for n in sorted(wanted[0].keys() - found[0].keys()))
        extra = ", ".join(f"%({n})s" for n in sorted(found[0].keys() - wanted[0].keys()))
        parts = [f"loses {lost}" if lost else "", f"has {extra}, which the English does not have" if extra else ""]
        return f"the translation {' and '.join(p for p in parts if p)}; keep the English's directives exactly"
    if len(wanted[1]) != len(found[1]):
        return f"the translation has {len(found[1])} %-directive(s) where the English has {len(wanted[1])}"
    return None


def _markup_starts(text: str) -> Counter[str]:
    return Counter(
        (f"<{m.group(1)}{m.group(2).lower()}>" if m.group(2) else m.group()) for m in _MARKUP_START.finditer(text)
    )


def _markup(source: str, translation: str) -> str | None:
    """HTML in a translation that its English does not have, named, or None."""
    added = _markup_starts(translation) - _markup_starts(source)
    changed = Counter(_TAG.findall(translation)) - Counter(_TAG.findall(source))
    if added:
        return (
            f"the translation has HTML the English does not have: {', '.join(sorted(added))}; a page or a "
            "theme template would use it as markup (or run it): keep only the English's markup"
        )
    if changed:
        return (
            f"the translation changes the English's HTML tag(s) {', '.join(sorted(changed))}; "
            "keep each tag exactly as in the English"
        )
    return None


def _quotes(source: str, translation: str) -> str | None:
    """A quotation mark the English does not have, in a message a template writes into an attribute."""
    for mark in ('"', "'"):
        if translation.count(mark) > source.count(mark):
            return (
                f"the translation has a {mark} the English does not have: a theme template writes this message "
                "into an HTML attribute, where it would end the attribute; use “ ” or ‘ ’ instead"
            )
    return None


def _leading_newlines(source: str, translation: str) -> str | None:
    for end, where in ((str.startswith, "start"), (str.endswith, "end")):
        if end(source, "\n") != end(translation, "\n"):
            return f"msgid and msgstr do not both {where} with '\\n'; give the translation the English's line breaks"
    return None


# an address or a Markdown image: what a page would fetch or send its reader to
_ADDRESS = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*:)?//[^\s<>\"'()\[\]`]+|\bwww\.[^\s<>\"'()\[\]`]+")
_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)")


def _hidden(text: str) -> Counter[str]:
    """The characters of a text that do not show: format, control (but tab and newline), line and
    paragraph separators, and variation selectors."""
    return Counter(
        ch
        for ch in text
        if (unicodedata.category(ch) in ("Cf", "Cc", "Zl", "Zp") and ch not in "\t\n")
        or "\ufe00" <= ch <= "\ufe0f"
        or "\U000e0100" <= ch <= "\U000e01ef"
    )


def _characters(source: str, translation: str) -> str | None:
    """Invisible, bidirectional or control characters a translation adds, named by code point."""
    added = _hidden(translation) - _hidden(source)
    if not added:
        return None
    named = ", ".join(f"U+{ord(ch):04X} {unicodedata.name(ch, 'CONTROL CHARACTER')}" for ch in sorted(added))
    return (
        f"the translation has characters the English does not have and a reader does not see: {named} "
        "(a bidirectional control reorders the text, a zero-width or control character changes what is copied "
        "and searched); remove them"
    )


def _addresses(source: str, translation: str) -> str | None:
    """A link or an image a translation adds: the page would fetch it or send its reader there."""
    added = Counter(_ADDRESS.findall(translation)) - Counter(_ADDRESS.findall(source))
    images = Counter(_IMAGE.findall(translation)) - Counter(_IMAGE.findall(source))
    if images:
        return (
            f"the translation adds an image the English does not have: {', '.join(sorted(images))}; "
            "a page would load it from there; keep only the English's images"
        )
    if added:
        return (
            f"the translation adds an address the English does not have: {', '.join(sorted(added))}; "
            "keep only the English's links"
        )
    return None


def _translation_problems(entry: _Entry, path: str) -> Iterator[CatalogProblem]:
    if entry.obsolete or entry.damaged or "fuzzy" in entry.flags or not entry.text("msgid"):
        return
    in_attributes = Path(path).stem in ATTRIBUTE_CATALOGS
    source = entry.text("msgid") or ""
    plural = entry.text("msgid_plural")
    for index, field in enumerate(entry.translations):
        if not field.text:
            continue  # not translated yet: the English is shown
        english = source if (plural is None or index == 0) else plural
        checks = [_leading_newlines, _placeholders, _markup, _characters, _addresses]
        if "python-format" in entry.flags:
            checks.append(_python_format)
        if in_attributes:
            checks.append(_quotes)
        for check in checks:
            message = check(english, field.text)
            if message:
                yield CatalogProblem(path, field.line, f"{field.keyword}: {message}")


def check_text(text: str, path: str) -> list[CatalogProblem]:
    """Every problem of a catalog's text; path is what the problems name."""
    reader = _Reader(path)
    reader.read(text)
    problems = list(reader.problems)
    entries = reader.entries
    problems += _header(entries, path)
    problems += _duplicates(entries, path)
    for entry in entries:
        problems += _translation_problems(entry, path)
    return sorted(set(problems))


def check_file(path: str | Path, shown: str | None = None) -> list[CatalogProblem]:
    """Every problem of one catalog file (named as shown, or by its path)."""
    name = shown or str(path)
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return [
            CatalogProblem(name, line, f"not UTF-8 text ({error.reason} at byte {error.start}); save the file as UTF-8")
        ]
    return check_text(text.removeprefix("\ufeff"), name)


def catalog_files(locale_dirs: Iterable[str | Path], language: str) -> list[Path]:
    """The catalogs of one language in the locale folders, each file once."""
    found: dict[Path, None] = {}
    for folder in locale_dirs:
        for path in sorted(Path(folder, language, "LC_MESSAGES").glob("*.po")):
            found.setdefault(path.resolve(), None)
    return list(found)


def check_language(
    locale_dirs: Iterable[str | Path], language: str, relative_to: str | Path | None = None
) -> list[CatalogProblem]:
    """Every problem of every catalog of one language (file names relative to a folder if given)."""
    problems: list[CatalogProblem] = []
    for path in catalog_files(locale_dirs, language):
        shown = str(path)
        if relative_to is not None and path.is_relative_to(Path(relative_to).resolve()):
            shown = os.path.relpath(path, Path(relative_to).resolve())
        problems += check_file(path, shown)
    return sorted(problems)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m recipebook_sphinx.i18n.po_check LOCALE_DIR LANG", file=sys.stderr)
        return 2
    problems = check_language([argv[0]], argv[1], relative_to=Path.cwd())
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
