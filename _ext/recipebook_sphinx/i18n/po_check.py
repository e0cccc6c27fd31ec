"""Translation catalogs checked before a build reads them: every problem at its file and line.

A catalog is written by hand, and by people the project does not know, so it is read as hostile
(``po``: the one reader) and a translation may hold nothing its English does not have, whatever
form it takes. Reported as ``FILE:LINE: message``:

- the file itself: a FIFO, a device, a directory or a symbolic link out of the locale folder
  named ``*.po``, a file over ``po.MAX_BYTES``, bytes that are not UTF-8; beside the catalogs, a
  compiled ``.mo`` with no ``.po`` (the build would load it unchecked) and a ``sphinx.js`` (Sphinx
  would put it into every page as a script);
- what ``msgfmt --check`` refuses: a string not closed on its line, an escape gettext does not
  have, a keyword out of place or missing, a message defined twice, a header without a UTF-8
  ``Content-Type``, plural forms the messages do not match or an expression outside gettext's
  grammar (``nplurals=N; plural=EXPR;`` with ``n``, numbers, ``! * / % + - < <= > >= == != &&
  || ?:`` and parentheses, its value a form for every n), a ``msgstr`` that does not start and end
  with a newline where its ``msgid`` does;
- what would change a page: format fields (``{name}``, ``%(name)s``) the English does not have
  exactly, with the same specs, conversions and attributes, and no more often than it has them;
  Markdown and MyST constructs the English does not have, compared as MyST parses them (roles and
  their targets, directives, links and images with their addresses after character references are
  read, raw HTML, targets, footnotes); HTML tags; addresses; characters a reader does not see
  (Unicode's default-ignorable code points, the fillers among them, controls, variation
  selectors), named by code point; a quotation mark in a message a theme writes into an attribute;
  a translation far longer than its English.

Pure Python, nothing of Sphinx: the build checks every catalog when its extension loads, before it
writes a file, and compiles them itself (``compile_language``); ``make html`` runs
``python -m recipebook_sphinx.i18n --compile LOCALE_DIR`` before anything else;
the translation gate (``intl_check``) reports the same lines.

Each catalog that passes is compiled with a stamp beside it (``.NAME.checked``: what was checked
and what was written), so the next build compiles it again only when something it was checked
with has changed: its bytes, its place, the site's MyST extensions, the checker's own code (every
module of ``recipebook`` and ``recipebook_sphinx``), the versions of the Markdown parsers it
reads with, or its ``.mo``. Every build of the suite and of a portal would otherwise check the same
unchanged catalogs again (a third of a second each time).
"""

from __future__ import annotations

import dataclasses
import hashlib
import html
import importlib.metadata
import os
import re
import runpy
import stat
import string
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import regex
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

import recipebook
from recipebook.checking.characters import INVISIBLE, describe

from . import po
from .plural import FORMS as _PLURAL_FORMS
from .plural import plural_problem
from .po import Catalog, CatalogProblem, Message

__all__ = [
    "CatalogProblem",
    "check_file",
    "check_language",
    "check_text",
    "compile_language",
    "main",
    "plural_problem",
]

_CHARSET = re.compile(r"charset\s*=\s*([^\s;]+)", re.IGNORECASE)
# a translation may be this much longer than its English, and no more: a page does not grow
LONGER = 3
LONGER_BY = 120
# Catalogs whose messages theme templates write into HTML attributes without escaping them
# (furo's title="{{ _('Search') }}"): a quotation mark there would end the attribute.
ATTRIBUTE_CATALOGS = frozenset({"sphinx", "recipebook"})
# Catalogs of strings that templates and scripts write as they are (no Markdown reads them); the
# others are pages' catalogs, read as MyST Markdown.
TEMPLATE_CATALOGS = frozenset({"sphinx", "recipebook", "recipe-labels"})
# the MyST syntax extensions of the site (conf.py's myst_enable_extensions) when none is given
SITE = Path(__file__).resolve().parents[3] / "conf.py"


# -- the header and the file as a whole -------------------------------------------------------


def _header(catalog: Catalog) -> Iterator[CatalogProblem]:
    path, messages = catalog.path, catalog.messages
    header = catalog.header
    if header is None:
        if any(m.damaged for m in messages[:1]):
            return  # the first message, likely the header, has a line reported already
        yield CatalogProblem(path, 1, 'no header (msgid "" with its Content-Type); `make intl-update` writes one')
        return
    if header.damaged:
        return
    where = header.translations[0].line
    field = header.translations[0]
    names: dict[str, list[int]] = {}
    offset = 0
    for line in field.text.split("\n"):
        if ":" in line:
            names.setdefault(line.partition(":")[0].strip().lower(), []).append(field.line_of(offset))
        offset += len(line) + 1
    for name, lines in sorted(names.items()):
        if len(lines) > 1:
            yield CatalogProblem(path, lines[1], f"the header gives {name} more than once; keep one")
    fields = catalog.header_fields()
    content_type, content_line = fields.get("content-type", ("", where))
    charset = _CHARSET.search(content_type)
    if charset is None:
        yield CatalogProblem(
            path,
            content_line,
            'the header has no Content-Type charset; write "Content-Type: text/plain; charset=UTF-8\\n"',
        )
    elif charset.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
        yield CatalogProblem(
            path,
            content_line,
            f"the header's charset is {charset.group(1)!r}; catalogs are read as UTF-8: write charset=UTF-8",
        )
    plural = [m for m in messages if not m.obsolete and not m.damaged and m.plural is not None]
    forms, forms_line = fields.get("plural-forms", (None, where))
    if forms is not None:
        wrong = plural_problem(forms)
        if wrong:
            yield CatalogProblem(path, forms_line, f"Plural-Forms {forms!r}: {wrong}")
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
    declared = _PLURAL_FORMS.match(forms)
    if declared is None:  # reported above, with what is wrong in it
        return
    count = int(declared.group(1))
    for message in plural:
        given = len(message.translations)
        if given != count:
            yield CatalogProblem(
                path,
                message.translations[-1].line,
                f"{given} plural form(s) where the header's Plural-Forms has nplurals={count}",
            )


def _duplicates(catalog: Catalog) -> Iterator[CatalogProblem]:
    first: dict[tuple[str | None, str], int] = {}
    for message in catalog.messages:
        if message.obsolete:
            continue
        key = (message.context, message.id)
        if key in first:
            yield CatalogProblem(
                catalog.path, message.line, f"message defined twice (first at line {first[key]}); keep one of them"
            )
        else:
            first[key] = message.line


# -- format fields ----------------------------------------------------------------------------

_FORMATTER = string.Formatter()
# every {...} that is not {{ or }}: the format fields (and MyST roles) of any message
_BRACED_ANY = re.compile(r"(?<!\{)\{(?!\{)([^{}]*)\}")


def _fields(text: str) -> Counter[str] | str:
    """Each format field as written ({name}, {name!r}, {name.attr:spec}), counted; or why the text is
    no format string."""
    found: Counter[str] = Counter()
    try:
        for _, name, spec, conversion in _FORMATTER.parse(text):
            if name is None:
                continue
            written = name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            found["{" + written + "}"] += 1
            if spec and "{" in spec:
                nested = _fields(spec)
                if isinstance(nested, str):
                    return nested
                found += nested
    except ValueError as error:
        return str(error)
    return found


def _shown(fields: Iterable[str]) -> str:
    return ", ".join(sorted(fields))


def _placeholders(source: str, translation: str) -> str | None:
    """Format fields a translation does not keep exactly as its English has them, or None."""
    wanted = _fields(source)
    if isinstance(wanted, str):  # the English is no format string (a brace in code): compare its {...}
        english = Counter("{" + m + "}" for m in _BRACED_ANY.findall(source))
        written = Counter("{" + m + "}" for m in _BRACED_ANY.findall(translation))
        lost, added = english - written, written - english
        if lost:
            return f"the translation loses {_shown(lost)} of the English; keep the English's placeholders exactly"
        if added:
            return f"the translation has {_shown(added)}, which the English does not have; keep only the English's"
        return None
    found = _fields(translation)
    if isinstance(found, str):
        keep = f"keep {_shown(wanted)} of the English whole, and " if wanted else ""
        return (
            f"the translation is not a valid format string ({found}), so formatting it would stop the build; "
            f"{keep}write '{{{{' and '}}}}' for a literal brace"
        )
    problems = []
    if set(wanted) - set(found):
        problems.append(f"loses {_shown(set(wanted) - set(found))} of the English")
    if set(found) - set(wanted):
        problems.append(f"has {_shown(set(found) - set(wanted))}, which the English does not have")
    if problems:
        hint = (
            " (a format spec, conversion or attribute is part of a field: it could pad the page, or read "
            "what the English does not show)"
            if any(c in "".join(set(found) - set(wanted)) for c in ":!.[")
            else ""
        )
        return f"the translation {' and '.join(problems)}; keep the English's placeholders exactly{hint}"
    more = found - wanted
    if more:
        return (
            f"the translation repeats {_shown(more)} more often than the English does; a placeholder appears as "
            "often as in the English, or less"
        )
    return None


# a %-directive as Python's % operator reads it (%(name)s, %5.2f, %%), or a lone % that is none
_PERCENT = re.compile(
    r"%(?:\((?P<name>[^)]*)\))?(?P<flags>[#0 +-]*)(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d+))?[hlL]?"
    r"(?P<conv>[diouxXeEfFgGcrsa%])|%"
)


def _percent(text: str) -> tuple[Counter[str], int] | str:
    """Each %-directive as written, counted, and how many take no name; or why the text has a '%'
    that starts none."""
    found: Counter[str] = Counter()
    positional = 0
    for match in _PERCENT.finditer(text):
        if match.group("conv") is None:
            after = text[match.end() : match.end() + 1] or "the end"
            return f"'%' before {after!r} starts no directive; write '%%' for a percent sign"
        if match.group("conv") == "%":
            continue
        found[match.group()] += 1
        positional += match.group("name") is None
    return found, positional


def _python_format(source: str, translation: str) -> str | None:
    """%-directives the translation does not keep exactly (a width pads the page), whatever the flags
    say: the English decides whether a message is a %-format string."""
    wanted, found = _percent(source), _percent(translation)
    if isinstance(wanted, str) or not wanted[0]:
        return None
    if isinstance(found, str):
        return f"the translation is not a valid Python format string: {found}"
    names = re.compile(r"%\(([^)]*)\)")
    if wanted[1] != found[1]:
        return f"the translation has {found[1]} %-directive(s) where the English has {wanted[1]}"
    lost = {d for d in wanted[0] if d not in found[0]}
    added = {d for d in found[0] if d not in wanted[0]}
    if lost or added:
        lost_names = {m for d in lost for m in names.findall(d)} - {m for d in found[0] for m in names.findall(d)}
        if lost_names and not added:
            shown = ", ".join(f"%({n})s" for n in sorted(lost_names))
            return f"the translation loses {shown}; keep the English's directives exactly"
        parts = [
            f"loses {_shown(lost)}" if lost else "",
            f"has {_shown(added)}, which the English does not have" if added else "",
        ]
        return (
            f"the translation {' and '.join(p for p in parts if p)}; keep the English's directives exactly "
            "(a width or precision is part of a directive: it could pad the page)"
        )
    more = found[0] - wanted[0]
    if more:
        return f"the translation repeats {_shown(more)} more often than the English does"
    return None


# -- markup -----------------------------------------------------------------------------------

# where a translation could open markup: the start of a tag, a comment, a declaration
_MARKUP_START = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)|<!--|<!|<\?")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>")


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


def _markdown(extensions: frozenset[str]) -> Any:
    """The Markdown parser the site's pages are read with: MyST's, with the site's extensions
    (made once per catalog checked)."""
    return create_md_parser(MdParserConfig(enable_extensions=set(extensions)), RendererHTML)


def site_extensions() -> frozenset[str]:
    """conf.py's myst_enable_extensions (the catalogs are the site's; its pages are parsed so;
    read once per language checked)."""
    try:
        return frozenset(runpy.run_path(str(SITE)).get("myst_enable_extensions", ()))
    except (OSError, SyntaxError):
        return frozenset()


# tokens that only carry text, or its emphasis: a translation may have them as it likes
_PLAIN_TOKENS = frozenset(
    {
        "text",
        "softbreak",
        "hardbreak",
        "inline",
        "paragraph_open",
        "paragraph_close",
        "em_open",
        "em_close",
        "strong_open",
        "strong_close",
        "s_open",
        "s_close",
        "code_inline",
        "link_close",
    }
)
_ROLE_TARGET = re.compile(r"<([^<>]*)>\s*$")


def _construct(token: Any) -> tuple[str, ...]:
    """What a token does, in the terms that must match the English: a link by its address, a role by
    its name and target, a directive or a code block by its whole text, HTML by its text."""
    kind = token.type
    if kind == "link_open":
        return ("link", token.attrs.get("href", ""))
    if kind == "image":
        return ("image", token.attrs.get("src", ""))
    if kind == "myst_role":
        target = _ROLE_TARGET.search(token.content)
        return ("role", token.meta.get("name", ""), target.group(1) if target else token.content)
    if kind in ("fence", "colon_fence", "code_block", "html_block", "html_inline", "myst_target", "front_matter"):
        return (kind, token.info, token.content)
    if kind.startswith("footnote"):
        return (kind, str(token.meta.get("label", "")))
    return (kind, token.info, token.markup, token.content, repr(sorted(token.attrs.items())))


def _tokens(tokens: Iterable[Any]) -> Iterator[Any]:
    for token in tokens:
        yield token
        if token.children:
            yield from _tokens(token.children)


@dataclasses.dataclass(frozen=True)
class _Read:
    """A message as a page would read it: its constructs, and its text as a reader sees it."""

    constructs: Counter[tuple[str, ...]]
    shown: str


def _read(text: str, markdown: Any) -> _Read:
    try:
        tokens = list(_tokens(markdown.parse(text, {})))
    except Exception:  # a parser that stops on a hostile text: the text is refused, as unreadable
        return _Read(Counter({("unreadable", text): 1}), text)
    constructs = Counter(_construct(t) for t in tokens if t.type not in _PLAIN_TOKENS)
    parts = [t.content for t in tokens if t.type in ("text", "code_inline", "html_inline", "html_block")]
    parts += [t.attrs.get("href", "") for t in tokens if t.type == "link_open"]
    parts += [t.attrs.get("src", "") for t in tokens if t.type == "image"]
    return _Read(constructs, "\n".join(parts))


_DIRECTIVE = re.compile(r"\s*(\{[^{}\s]*\})")


def _only_roles(english: str, text: str, source: _Read, translation: _Read) -> bool:
    """Whether the format fields a translation changes are all roles and directives it adds
    (``{download}`x``` is a role to MyST and a field to str.format: one cause)."""
    roles = set()
    for kind, *rest in translation.constructs - source.constructs:
        if kind == "role":
            roles.add("{" + rest[0] + "}")
        elif kind in ("fence", "colon_fence") and (named := _DIRECTIVE.match(rest[0])):
            roles.add(named.group(1))
    wanted, found = _fields(english), _fields(text)
    if isinstance(wanted, str) or isinstance(found, str):
        return bool(roles)
    changed = set(found - wanted) | set(wanted - found)
    return bool(changed) and changed <= roles


def _constructs(source: _Read, translation: _Read) -> str | None:
    added = translation.constructs - source.constructs
    if not added:
        return None
    if all(kind.startswith("html_") for kind, *_ in added):  # in the words of a template's HTML
        html = [
            "".join(c[2] for c in read.constructs.elements() if c[0].startswith("html_"))
            for read in (source, translation)
        ]
        worded = _markup(*html)
        if worded:
            return worded
    named = []
    for construct in sorted(added):
        kind, *rest = construct
        if kind == "role":
            named.append(f"the role {{{rest[0]}}} with {rest[1]!r}")
        elif kind in ("link", "image"):
            named.append(f"{'an image' if kind == 'image' else 'a link'} to {rest[0]!r}")
        elif kind in ("fence", "colon_fence"):
            named.append(f"a block {rest[0]!r}" if rest[0] else "a code block")
        elif kind in ("html_block", "html_inline"):
            named.append(f"the HTML {rest[1].strip()[:60]!r}")
        else:
            named.append(kind.replace("_", " ").replace(" open", ""))
    return (
        f"the translation has Markdown the English does not have: {'; '.join(named)}; a page would read a file, "
        "link, include or show what the English does not: keep the English's roles, links and blocks exactly"
    )


# an address or a Markdown image: what a page would fetch or send its reader to
_ADDRESS = re.compile(
    r"(?:[A-Za-z][A-Za-z0-9+.-]*:)?//[^\s<>\"'()\[\]`]+|\bwww\.[^\s<>\"'()\[\]`]+"
    r"|\b(?:javascript|vbscript|data|file|mailto):[^\s<>\"'\[\]`]+",
    re.IGNORECASE,
)
_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)")


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


_SELECTOR = regex.compile(r"\p{Variation_Selector}")


def _hidden(text: str) -> Counter[str]:
    """The characters of a text that do not show: the invisible class of the recipe check (Unicode's
    default-ignorable code points, controls, separators, fillers) and variation selectors (two
    classes of single characters that share none: each found in one pass over the text)."""
    return Counter(INVISIBLE.findall(text)) + Counter(_SELECTOR.findall(text))


def _characters(source: str, translation: str) -> str | None:
    """Invisible, bidirectional or control characters a translation adds, named by code point."""
    added = _hidden(translation) - _hidden(source)
    if not added:
        return None
    named = ", ".join(describe(ch) for ch in sorted(added))
    return (
        f"the translation has characters the English does not have and a reader does not see: {named} "
        "(a bidirectional control reorders the text, a zero-width, filler or control character changes what is "
        "copied and searched); remove them"
    )


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


def _length(source: str, translation: str) -> str | None:
    limit = LONGER * len(source) + LONGER_BY
    if len(translation) > limit:
        return (
            f"the translation is {len(translation):,} characters long, its English {len(source):,}; a translation "
            f"has at most {LONGER} times the English's length and {LONGER_BY} characters more"
        )
    return None


_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)


def _without_code(text: str) -> str:
    """A page's text without its code spans (and role contents): what is literal there is no HTML."""
    return _CODE.sub(" ", text) if "`" in text else text


def _decoded(text: str) -> str:
    """A text with its character references read, as HTML and Markdown read them (&#47; is /)."""
    return html.unescape(text) if "&" in text else text


def _translation_problems(message: Message, path: str, markdown: Any) -> Iterator[CatalogProblem]:
    if message.obsolete or message.damaged or message.fuzzy or not message.id:
        return
    in_attributes = Path(path).stem in ATTRIBUTE_CATALOGS
    in_templates = Path(path).stem in TEMPLATE_CATALOGS
    plural = message.plural
    for index, field in enumerate(message.translations):
        if not field.text:
            continue  # not translated yet: the English is shown
        english = message.id if (plural is None or index == 0) else plural
        text = field.text
        found = [_length(english, text), _leading_newlines(english, text)]
        if found[0]:  # far longer than its English: not read further
            yield CatalogProblem(path, field.line, f"{field.keyword}: {found[0]}")
            continue
        source_read, translation_read = _read(english, markdown), _read(text, markdown)
        shown_english = f"{english}\n{_decoded(english)}\n{source_read.shown}"
        shown = f"{text}\n{_decoded(text)}\n{translation_read.shown}"
        # what the translation adds or loses, each cause named once: HTML a template writes as it
        # is, or a Markdown construct of a page (its HTML among them); a format field (unless it is
        # only a role the construct's problem names); else an address
        markup = _markup(english, text) if in_templates else _constructs(source_read, translation_read)
        fields = _placeholders(english, text) or _python_format(english, text)
        if markup and fields and _only_roles(english, text, source_read, translation_read):
            fields = None
        found += [markup, fields, None if markup or fields else _addresses(shown_english, shown)]
        found.append(_characters(shown_english, shown))
        if in_attributes:
            found.append(_quotes(english, text))
        for message_text in found:
            if message_text:
                yield CatalogProblem(path, field.line, f"{field.keyword}: {message_text}")


def check_catalog(catalog: Catalog, extensions: frozenset[str] | None = None) -> list[CatalogProblem]:
    """Every problem of a catalog read by ``po``."""
    problems = list(catalog.problems)
    if not catalog.opened:
        return problems
    markdown = _markdown(site_extensions() if extensions is None else extensions)
    problems += _header(catalog)
    problems += _duplicates(catalog)
    for message in catalog.messages:
        problems += _translation_problems(message, catalog.path, markdown)
    return sorted(set(problems))


def check_text(text: str, path: str, extensions: frozenset[str] | None = None) -> list[CatalogProblem]:
    """Every problem of a catalog's text; path is what the problems name."""
    return check_catalog(po.read_text(text, path), extensions)


def check_file(
    path: str | Path, shown: str | None = None, within: Path | None = None, extensions: frozenset[str] | None = None
) -> list[CatalogProblem]:
    """Every problem of one catalog file (named as shown, or by its path)."""
    return check_catalog(po.read_file(path, shown, within), extensions)


# -- a language's folder ----------------------------------------------------------------------


def _shown_path(path: Path, relative_to: str | Path | None) -> str:
    if relative_to is not None:
        base = Path(os.path.abspath(relative_to))
        absolute = Path(os.path.abspath(path))
        if absolute.is_relative_to(base):
            return os.path.relpath(absolute, base)
    return str(path)


@dataclasses.dataclass
class LanguageCheck:
    """A language's catalogs, read once: each with its problems, and the problems of the folder."""

    catalogs: dict[Path, Catalog]
    problems: list[CatalogProblem]


def read_language(
    locale_dirs: Iterable[str | Path],
    language: str,
    relative_to: str | Path | None = None,
    extensions: frozenset[str] | None = None,
    passed: Iterable[Path] = (),
) -> LanguageCheck:
    """Every catalog of one language in the locale folders, read and checked, and every problem
    (file names relative to a folder if given); the catalogs in ``passed`` (checked and compiled
    as they are now: ``compile_language``) are neither read nor checked again."""
    catalogs: dict[Path, Catalog] = {}
    problems: list[CatalogProblem] = []
    extensions = site_extensions() if extensions is None else extensions
    files = po.every_file(locale_dirs, language)
    sources = {path.with_suffix("") for path in files if path.suffix == ".po"}
    skipped = frozenset(passed)
    for path, folder in files.items():
        if path in skipped:
            continue
        shown = _shown_path(path, relative_to)
        elsewhere = po.outside(path, Path(folder))
        if elsewhere is not None and path.is_dir():  # not entered: a folder elsewhere is not read
            problems.append(
                CatalogProblem(
                    shown,
                    1,
                    f"a symbolic link to the folder {elsewhere}, outside the locale folder; its catalogs are not "
                    "read: copy them into the locale folder",
                )
            )
        elif path.suffix == ".po":
            catalog = po.read_file(path, shown, Path(folder))
            catalogs[path] = catalog
            problems += check_catalog(catalog, extensions)
        elif path.suffix == ".mo" and path.with_suffix("") not in sources:
            problems.append(
                CatalogProblem(
                    shown,
                    1,
                    "a compiled catalog with no .po beside it: the build would load it unchecked; delete it "
                    "(the build compiles each .mo from its .po)",
                )
            )
        elif path.name == "sphinx.js":
            problems.append(
                CatalogProblem(
                    shown,
                    1,
                    "Sphinx would copy this file into every page as a script (its translations.js); the site's "
                    "translations are .po catalogs only: delete it",
                )
            )
    return LanguageCheck(catalogs, sorted(problems))


def check_language(
    locale_dirs: Iterable[str | Path],
    language: str,
    relative_to: str | Path | None = None,
    extensions: frozenset[str] | None = None,
) -> list[CatalogProblem]:
    """Every problem of every catalog of one language (file names relative to a folder if given)."""
    return read_language(locale_dirs, language, relative_to, extensions).problems


def compile_language(
    locale_dirs: Iterable[str | Path],
    language: str,
    relative_to: str | Path | None = None,
    extensions: frozenset[str] | None = None,
) -> list[CatalogProblem]:
    """Check one language's catalogs; when none has a problem, write each one's ``.mo`` (the only
    compiled catalogs a build loads). Returns the problems (nothing is written if there is one).
    A catalog whose stamp says it was checked and compiled as it is now is left as it is."""
    extensions = site_extensions() if extensions is None else extensions
    checker = _checker()
    keys = {
        path: _stamp_key(path, Path(folder), checker, extensions)
        for path, folder in po.every_file(locale_dirs, language).items()
        if path.suffix == ".po"
    }
    passed = [path for path, key in keys.items() if key is not None and _stamped(path, key)]
    checked = read_language(locale_dirs, language, relative_to, extensions, passed)
    if checked.problems:
        return checked.problems
    for path, catalog in checked.catalogs.items():
        try:
            po.write_compiled(path, catalog)
            key = keys.get(path)
            if key is not None:
                _stamp(path, key)
        except OSError as error:
            shown = _shown_path(path.with_suffix(".mo"), relative_to)
            checked.problems.append(
                CatalogProblem(shown, 1, f"cannot write the compiled catalog: {error.strerror or error}")
            )
    return checked.problems


# -- the stamp of a checked, compiled catalog --------------------------------------------------

# The parsers the checks read a message with: a new version may read a text differently.
_READERS = ("markdown-it-py", "mdit-py-plugins", "myst-parser", "regex")


def _checker() -> bytes:
    """What the checks are: the code of both packages (a check may use any module of either) and
    the versions of the parsers, as bytes to hash."""
    digest = hashlib.sha256(sys.version.encode())
    for name in _READERS:
        digest.update(f"\0{name}={importlib.metadata.version(name)}".encode())
    for package in (Path(recipebook.__file__).parent, Path(__file__).parents[1]):
        for module in sorted(package.rglob("*.py")):
            digest.update(f"\0{module.relative_to(package.parent).as_posix()}\0".encode())
            digest.update(module.read_bytes())
    return digest.digest()


def _stamp_path(path: Path) -> Path:
    return path.with_name(f".{path.stem}.checked")


def _stamp_key(path: Path, folder: Path, checker: bytes, extensions: frozenset[str]) -> str | None:
    """What a catalog is checked with, hashed; None for a catalog that is not a plain file within
    its folder of at most ``po.MAX_BYTES`` (checked every time: the check says what is wrong)."""
    try:
        info = os.lstat(path)  # a link is no regular file here
        if not stat.S_ISREG(info.st_mode) or info.st_size > po.MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    digest = hashlib.sha256(checker)
    digest.update(f"\0{path.relative_to(folder).as_posix()}\0{sorted(extensions)}\0".encode())
    digest.update(data)
    return digest.hexdigest()


# A stamp holds the hash of the .mo beside it, then the keys of the last checks it passed, newest
# first: the site's pages and a test root's (other MyST extensions) check the same catalogs with
# other keys, and a stamp of one key alone had each build that followed the other's check every
# catalog again (make test's workers alternate them). The compiled catalog is the same for each.
KEYS_KEPT = 4


def _stamp_lines(path: Path) -> list[str]:
    """The stamp's lines: the .mo's hash, then keys (none if it cannot be read)."""
    try:
        return _stamp_path(path).read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return []


def _stamped(path: Path, key: str) -> bool:
    """Whether the catalog's stamp holds this key, and the hash of the ``.mo`` beside it now."""
    mo = path.with_suffix(".mo")
    stamp = _stamp_lines(path)
    try:
        if len(stamp) < 2 or key not in stamp[1:] or not stat.S_ISREG(os.lstat(mo).st_mode):
            return False
        return stamp[0] == hashlib.sha256(mo.read_bytes()).hexdigest()
    except OSError:
        return False


def _stamp(path: Path, key: str) -> None:
    """Write the stamp of a catalog just checked and compiled (replaced whole: a build reading it
    meanwhile sees the old stamp or the new one), with the other keys of its stamp when that
    stamp was of the same compiled catalog."""
    mo = hashlib.sha256(path.with_suffix(".mo").read_bytes()).hexdigest()
    before = _stamp_lines(path)
    kept = [k for k in before[1:] if k != key] if before[:1] == [mo] else []
    keys = [key, *kept][:KEYS_KEPT]
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.checked.", suffix=".part")
    try:
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write("\n".join([mo, *keys]) + "\n")
        os.replace(temporary, _stamp_path(path))
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        raise


def languages_in(locale_dirs: Iterable[str | Path]) -> list[str]:
    """The languages that have a catalog folder in the locale folders."""
    found = set()
    for folder in locale_dirs:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        found |= {e.name for e in entries if not e.name.startswith(".") and Path(e.path, "LC_MESSAGES").is_dir()}
    return sorted(found)


USAGE = "usage: python -m recipebook_sphinx.i18n [--compile] LOCALE_DIR [LANG ...]"
# a language code as a locale folder names it (ko, pt_BR, zh_Hant): nothing that leads elsewhere
LANGUAGE = re.compile(r"[a-z]{2,3}(?:[_-][A-Za-z0-9]{2,8}){0,2}")


def main(argv: list[str]) -> int:
    """Print every problem of the catalogs of the languages given (every language with catalogs
    when none is), exit 1 if there is any; --compile also writes the .mo files when there is none."""
    build = argv[:1] == ["--compile"]
    arguments = argv[1:] if build else argv
    if not arguments or any(a.startswith("-") or not a for a in arguments):
        print(USAGE, file=sys.stderr)
        return 2
    folder, languages = arguments[0], arguments[1:]
    for language in languages:
        if not LANGUAGE.fullmatch(language):
            print(f"{language[:40]!r} is not a language code such as ko; {USAGE}", file=sys.stderr)
            return 2
    if not Path(folder).is_dir():
        print(f"{folder}: not a folder of catalogs (LOCALE_DIR/LANG/LC_MESSAGES/*.po)", file=sys.stderr)
        return 2
    problems: list[CatalogProblem] = []
    for language in languages or languages_in([folder]):
        run = compile_language if build else check_language
        problems += run([folder], language, relative_to=Path.cwd())
    for problem in problems:
        print(problem, file=sys.stderr if build else sys.stdout)
    if problems and build:
        print(f"{len(problems)} problem(s) in the translation catalogs; nothing was built", file=sys.stderr)
    return 1 if problems else 0
