"""Invisible and look-alike characters in a recipe's strings, named with the fix.

A recipe's strings are pasted into shells and written into files, links and JSON. A
character nobody can see (a zero-width space, a bidirectional control, a soft hyphen)
changes what runs without showing on the page; a character that looks like another (an em
dash for ``--``, a no-break space, typographic quotes around JSON, a fullwidth ``=``) makes
the shell or vLLM read something else than the page seems to say. Each is named by its code
point and name (``U+2014 EM DASH``), with where it is in the value and what to write.

Where each is refused:

- invisible characters (format and control characters but tab, newline and carriage
  return; line and paragraph separators; fillers such as U+3164 HANGUL FILLER): in every
  string and key, the Korean texts included;
- look-alikes: where a character carries meaning: shell text (arguments, environment
  values, router steps, the client and install lines), names, ids, keys and links, and
  the code spans and links of a text. The string values of a single-quoted JSON body in shell
  text (a prompt: ``'{"content": "你好，世界"}'``) are text the program reads, so prose. Prose (the texts, labels, titles, badges) may hold
  typographic quotes, dashes and unusual spaces, as English and Korean typesetting do;
- white space at either end of a name, id or key (``"skt/A.X-K2 "``);
- where a character carries meaning, also: combining marks and variation selectors, digits of
  other scripts (``U+0668 ARABIC-INDIC DIGIT EIGHT`` for ``8``), and letters that Unicode's
  confusables data (TR39, from the ``confusable_homoglyphs`` package) lists as looking like an
  ASCII character, such as a Cyrillic ``о`` in ``openai/gpt-оss`` (the text mixes scripts).

A character written as a character reference (``&#8238;``, ``&#x200B;``, ``&nbsp;``) is decoded
first, as a page, a Markdown view or a feed would, and named with the reference it was written as.

``check`` reads the document before the schema does: a problem found here replaces any
other problem at the same value (``load.check_file``), so ``—max-num-seqs`` is reported
as an em dash, not as an unknown flag.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import regex
from confusable_homoglyphs import confusables

from .. import shell
from ..problems import Problem, pointer_join
from ..reading.source import Document

# Strings longer than this are not scanned: the schema refuses them (every string has a
# maxLength well below it), and they are not read further.
LONGEST = 100_000

# Invisible, from Unicode's own data (the regex module's, newer than Python's unicodedata): every
# code point Unicode lets a renderer show as nothing (Default_Ignorable_Code_Point: zero-width
# characters, bidirectional controls, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, tags,
# reserved ones), every format, control (but tab, newline and carriage return), line and paragraph
# separator character, and U+2800 BRAILLE PATTERN BLANK, a symbol drawn blank. Variation
# selectors are default-ignorable too, but they belong to the character before them (an emoji's
# style in prose); where a character carries meaning they are refused as marks.
INVISIBLE = regex.compile(
    r"[[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u2800]--[\t\n\r\p{Variation_Selector}]]",
    regex.V1,
)
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# what a place that carries meaning may hold without a closer look: printable ASCII and white space
_NOT_PLAIN = re.compile(r"[^\t\n\r\x20-\x7e]")
DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d")
SINGLE_QUOTES = frozenset("\u2018\u2019\u201a\u201b\u2032\u2035\u00b4\u02b9\u02bc\u02c8\uff07")
DOUBLE_QUOTES = frozenset("\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\u02ba\u02dd\u3003\u301d\u301e\u301f\uff02")
_OTHER_LOOKALIKES = {"\u2044": "/", "\u2215": "/", "\u29f8": "/", "\u2236": ":", "\u0589": ":", "\u01c3": "!"}
# unicodedata names no control character; these are their names in Unicode's name aliases
_C0 = [
    "NULL",
    "START OF HEADING",
    "START OF TEXT",
    "END OF TEXT",
    "END OF TRANSMISSION",
    "ENQUIRY",
    "ACKNOWLEDGE",
    "BELL",
    "BACKSPACE",
    "CHARACTER TABULATION",
    "LINE FEED",
    "LINE TABULATION",
    "FORM FEED",
    "CARRIAGE RETURN",
    "SHIFT OUT",
    "SHIFT IN",
    "DATA LINK ESCAPE",
    "DEVICE CONTROL ONE",
    "DEVICE CONTROL TWO",
    "DEVICE CONTROL THREE",
    "DEVICE CONTROL FOUR",
    "NEGATIVE ACKNOWLEDGE",
    "SYNCHRONOUS IDLE",
    "END OF TRANSMISSION BLOCK",
    "CANCEL",
    "END OF MEDIUM",
    "SUBSTITUTE",
    "ESCAPE",
    "INFORMATION SEPARATOR FOUR",
    "INFORMATION SEPARATOR THREE",
    "INFORMATION SEPARATOR TWO",
    "INFORMATION SEPARATOR ONE",
]
_CONTROL_NAMES = {**{chr(i): name for i, name in enumerate(_C0)}, "\x7f": "DELETE"}

# Prose: only invisible characters are refused in it (texts, labels, titles, badges, facts).
_PROSE = re.compile(
    r"^/(?:text/[^/]+/[^/]+|badges/\d+(?:/text)?|provider|attn|variant|variants/\d+"
    r"|axes/\d+/(?:title|options/\d+/label)"
    r"|strategies/\d+/(?:label|tag|variant|options/\d+/(?:label|attn|note)))$"
)
# Prose with inline markup: its code spans and link targets carry meaning.
_MARKUP = re.compile(r"^/(?:text/[^/]+/[^/]+|strategies/\d+/options/\d+/note)$")
_CODE_SPAN = re.compile(r"<code\b[^>]*>(.*?)</code\s*>", re.IGNORECASE | re.DOTALL)
_HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
# Shell text: leading or trailing white space is harmless in it.
_SHELL = re.compile(r"/(?:args|envs|add_args|add_envs)/[^/]+$|/router/nodes/\d+/cmd$|^/client$|^/installLine$")


def describe(ch: str) -> str:
    """A character as messages name it: ``U+2014 EM DASH``."""
    name = unicodedata.name(ch, None) or _CONTROL_NAMES.get(ch) or "CONTROL CHARACTER"
    return f"U+{ord(ch):04X} {name}"


def _places(indices: list[int]) -> str:
    shown = [str(i + 1) for i in indices[:4]]
    more = len(indices) - len(shown)
    if len(indices) == 1:
        return f"character {shown[0]}"
    if more:
        return f"characters {', '.join(shown)} and {more} more"
    return f"characters {', '.join(shown[:-1])} and {shown[-1]}"


def _invisible_message(ch: str) -> str:
    if ch in _BIDI:
        return "is a bidirectional control: it can make text show in another order than it is read; remove it"
    return "is invisible: it does not show on the page but is part of the text (and of what is copied); remove it"


def _lookalike_message(ch: str, text: str, at: int) -> str | None:
    """What a character that carries meaning here is mistaken for, and the fix; None if nothing."""
    category = unicodedata.category(ch)
    if category == "Zs":
        return (
            "looks like a space but is not one: the shell does not split words at it and a name or link "
            "keeps it; write a plain space (U+0020 SPACE), or none"
        )
    if ch in DASHES:
        starts_word = at == 0 or text[at - 1] in " \t\n'\"="
        if starts_word:
            return (
                "looks like a hyphen but is not one: a flag starts with '--', two U+002D HYPHEN-MINUS; "
                "write '--' (or '-' where one hyphen is meant)"
            )
        return "looks like a hyphen but is not one; write '-' (U+002D HYPHEN-MINUS)"
    if ch in SINGLE_QUOTES:
        return "is a typographic quote, which the shell and JSON read as a plain character; write ' (U+0027 APOSTROPHE)"
    if ch in DOUBLE_QUOTES:
        return (
            "is a typographic quote, which the shell and JSON read as a plain character; "
            'write " (U+0022 QUOTATION MARK)'
        )
    plain = _OTHER_LOOKALIKES.get(ch) or unicodedata.normalize("NFKC", ch)
    if len(plain) == 1 and "!" <= plain <= "~":
        return f"looks like {plain!r} but is another character; write {plain!r} ({describe(plain)})"
    return None


def _other_script_message(ch: str) -> str | None:
    """A mark, a digit of another script or a letter that TR39 lists as confusable with an ASCII
    character, in a place that carries meaning: what it is and the fix; None if nothing."""
    category = unicodedata.category(ch)
    if category.startswith("M"):
        if "\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef":
            return (
                "is a variation selector: it does not show but is part of the text (and of what is copied); remove it"
            )
        return "is a combining mark: it changes the character before it, which then is another than it looks; remove it"
    if category == "Nd":
        digit = str(unicodedata.decimal(ch))
        return f"is a digit of another script, which the shell and vLLM do not read as {digit!r}; write {digit!r} ({describe(digit)})"
    found = confusables.is_confusable(ch, preferred_aliases=[], greedy=True) or []
    for entry in found:
        plain = [g["c"] for g in entry["homoglyphs"] if len(g["c"]) == 1 and "!" <= g["c"] <= "~"]
        if plain:
            script = entry["alias"].title()
            return (
                f"is a {script} character that looks like {plain[0]!r} ({describe(plain[0])}): the text mixes "
                f"scripts and reads as another name than it is; write {plain[0]!r}"
            )
    return None


# a character reference as HTML (and a Markdown view of it) decodes it: &#8238; &#x202E; &nbsp;
_REFERENCE = re.compile(r"&(?:#[0-9]{1,8};?|#[xX][0-9a-fA-F]{1,7};?|[A-Za-z][A-Za-z0-9]{1,31};?)")


def _message(ch: str, text: str, at: int, meaning: bool) -> str | None:
    if INVISIBLE.match(ch):
        return _invisible_message(ch)
    if meaning:
        return _lookalike_message(ch, text, at) or _other_script_message(ch)
    return None


_WORD_EDGE = re.compile(r"[\s\"'`]")


def _mixes_scripts(text: str, at: int) -> bool:
    """Whether the letter at ``at`` sits in a word that also holds ASCII letters (``gpt-оss`` with a
    Cyrillic о): TR39's mixed-script confusable. A word all in another script (``Привет``, ``你好，``)
    is text of that script."""
    if not unicodedata.category(text[at]).startswith("L"):
        return False
    start, end = at, at + 1
    while start > 0 and not _WORD_EDGE.match(text[start - 1]) and at - start < 200:
        start -= 1
    while end < len(text) and not _WORD_EDGE.match(text[end]) and end - at < 200:
        end += 1
    return any("a" <= c.lower() <= "z" for c in text[start:end])


def _findings(
    text: str, *, meaning: bool, offset: int = 0, prose: list[tuple[int, int]] | None = None
) -> dict[str, list[int]]:
    """Per message (with the character named first), the indices of the characters it is about;
    a character written as a character reference is decoded first and named with it; ``prose``:
    the spans of a shell text where look-alikes are characters of a text (a prompt)."""

    def in_prose(at: int) -> bool:
        return prose is not None and any(start <= at < end for start, end in prose)

    found: dict[str, list[int]] = {}
    pattern = _NOT_PLAIN if meaning else INVISIBLE
    for match in pattern.finditer(text):
        ch, at = match.group(), match.start()
        message = _message(ch, text, at, meaning and not in_prose(at))
        if message is None and meaning and _mixes_scripts(text, at):
            message = _other_script_message(ch)  # a word of a prompt that mixes scripts: a name in disguise
        if message is not None:
            found.setdefault(f"{describe(ch)}\0{message}", []).append(at + offset)
    if "&" in text:
        for match in _REFERENCE.finditer(text):
            decoded = html.unescape(match.group())
            if decoded == match.group() or len(decoded) != 1 or not pattern.match(decoded):
                continue
            message = _message(decoded, text, match.start(), meaning and not in_prose(match.start()))
            if message is not None:
                named = f"{describe(decoded)} (written as the character reference {match.group()!r})"
                found.setdefault(f"{named}\0{message}", []).append(match.start() + offset)
    return found


def _edge_message(text: str) -> str | None:
    if text[:1].isspace() or text[-1:].isspace():
        end, ch = ("starts", text[0]) if text[:1].isspace() else ("ends", text[-1])
        if ch in " \t\n\r":  # other spaces are named by the look-alike check
            return f"{end} with {describe(ch)}; remove it"
    return None


def _plain(text: str) -> bool:
    """Printable ASCII and inner white space only: nothing to look at closer (most strings)."""
    return (
        _NOT_PLAIN.search(text) is None
        and not (text[:1].isspace() or text[-1:].isspace())
        and ("&" not in text or _REFERENCE.search(text) is None)
    )


def text_problems(text: str, pointer: str, *, key: bool = False) -> Iterator[tuple[str, str]]:
    """(message, pointer) for each kind of character problem of one string of a recipe."""
    prose = not key and _PROSE.match(pointer) is not None
    shell_text = not key and _SHELL.search(pointer) is not None
    found = _findings(text, meaning=not prose, prose=shell.json_prose_spans(text) if shell_text else None)
    if prose and _MARKUP.match(pointer):
        parts = [(m.start(1), m.group(1)) for m in _CODE_SPAN.finditer(text)]
        parts += [(m.start(m.lastindex or 0), m.group(m.lastindex or 0)) for m in _HREF.finditer(text)]
        for start, part in parts:
            for message, indices in _findings(part, meaning=True, offset=start).items():
                found.setdefault(message, []).extend(i for i in indices if i not in found.get(message, ()))
    what = "of the key" if key else "of the value"
    for message, indices in found.items():
        named, _, fix = message.partition("\0")
        yield f"{named} at {_places(sorted(set(indices)))} {what} {fix}", pointer
    if not prose and (key or not _SHELL.search(pointer)):
        edge = _edge_message(text)
        if edge:
            yield (f"the key {edge}" if key else f"the value {edge}"), pointer


def _suspects(data: Any, path: tuple[object, ...] = ()) -> Iterator[tuple[str, tuple[object, ...], bool]]:
    """(text, path, is a key) of every string and key of a document that needs a closer look."""
    if isinstance(data, str):
        if not _plain(data):
            yield data, path, False
    elif isinstance(data, dict):
        for key, value in data.items():
            if not _plain(key):
                yield key, (*path, key), True
            yield from _suspects(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _suspects(value, (*path, i))


def check(doc: Document) -> list[Problem]:
    """15. No string or key holds an invisible character: zero-width characters,
    bidirectional controls, soft hyphens and every other format or control character but tab
    and newline, line and paragraph separators, every code point Unicode lets a renderer show as
    nothing (its default-ignorable class, the Hangul fillers such as U+3164 HANGUL FILLER among
    them) and U+2800 BRAILLE PATTERN BLANK; the Korean texts included.

    Where a character carries meaning (shell text, names, ids, keys, links, and the code spans
    and links of a text) it is not a look-alike either: a no-break or other unusual space, a
    dash or minus sign for `-`, a typographic quote for `'` or `"`, a fullwidth or other form
    of an ASCII character. Prose (texts, labels, titles, badges, and the text values of a JSON
    body such as a prompt) may use typographic quotes, dashes and no-break spaces, and any
    script; but a word that mixes Latin letters with a look-alike of another script
    (`gpt-оss` with a Cyrillic `о`) is a name in disguise, there too. A name, id or key has no
    white space at either end. This check
    reads the document before the schema does, and its problem replaces any other at the same
    value."""
    problems = []
    for text, path, key in _suspects(doc.data):
        if len(text) > LONGEST:
            continue
        for message, where in text_problems(text, pointer_join("", *path), key=key):
            problems.append(doc.problem(where, message, key=key))
    return sorted(problems)
