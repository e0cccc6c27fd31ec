"""The translation gate: every catalog of a language compiles, is complete, keeps markup.

Each catalog is read as the build reads it first (``po_check``: what ``msgfmt --check``
refuses, {placeholders} of the English kept, no HTML the English does not have) and by
``msgfmt --check`` itself.

A translation also keeps every name, flag and number of its English: model and package
names (A.X-K2, gpt-oss-120b, vllm-rbln, RBLN-CR13), flags (--max-model-len) and numbers
(262,144, 0.12.0) appear in it as often as in the English, so a fuzzy match that gettext
offered from another message (another model's title) fails here even without its mark.

Usage: python -m recipebook_sphinx.i18n.intl_check LOCALE_DIR LANG
Prints one line per problem (FILE:LINE: message) and exits 1 if there is any.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from markdown_it import MarkdownIt

from . import po, po_check

_MD = MarkdownIt("commonmark")
_ROLE = re.compile(r"\{[a-z:]+\}$")
_TARGET = re.compile(r"<([^<>]+)>\s*$")
_FORMAT = re.compile(r"(?<!\{)\{[a-z_]+\}(?!\})")
# closing stars right after punctuation or code, directly followed by Hangul: CommonMark
# does not close them, so the stars would show on the page
_STUCK = re.compile(r"[^\w\s*]\*{1,2}(?=[\uac00-\ud7a3])")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
# What a translation keeps as it is: flags, and every word with a digit in it, which takes in
# numbers (8, 262,144, 0.12.0) and model, device and format names (A.X-K2, gpt-oss-120b,
# RBLN-CR13, NVFP4).  ASCII only, so a Korean particle after a name (A.X-K2는) is not part of it.
_WORD = re.compile(
    r"(?<![A-Za-z0-9_.-])(?:--?[A-Za-z][A-Za-z0-9_-]*|[A-Za-z0-9][A-Za-z0-9_]*(?:[.,:/-][A-Za-z0-9_]+)*)"
)


def kept_tokens(text: str) -> Counter[str]:
    """Flags, names and numbers of a message, outside code spans (markup() compares those)."""
    words = _WORD.findall(_CODE_SPAN.sub(" ", text))
    return Counter(w for w in words if w.startswith("-") or any(c.isdigit() for c in w))


@dataclasses.dataclass(frozen=True)
class Markup:
    """What must survive translation: code, link and role targets, emphasis, placeholders."""

    code: Counter[str]
    links: Counter[str]
    strong: int
    emphasis: int
    placeholders: frozenset[str]


def markup(text: str) -> Markup:
    code: Counter[str] = Counter()
    links: Counter[str] = Counter()
    strong = emphasis = 0
    for block in _MD.parse(text):
        previous = ""
        for token in block.children or ():
            if token.type == "code_inline":
                if role := _ROLE.search(previous):  # {doc}`text <target>`: only the target must match
                    target = _TARGET.search(token.content)
                    code[f"{role.group()}<{target.group(1) if target else token.content}>"] += 1
                else:
                    code[token.content] += 1
            elif token.type == "link_open":
                links[str(token.attrs.get("href", ""))] += 1
            elif token.type == "strong_open":
                strong += 1
            elif token.type == "em_open":
                emphasis += 1
            previous = token.content if token.type == "text" else ""
    return Markup(
        code=code, links=links, strong=strong, emphasis=emphasis, placeholders=frozenset(_FORMAT.findall(text))
    )


def entry_problems(entry: po.Message) -> list[str]:
    if entry.obsolete or not entry.id:
        return []
    if entry.fuzzy:
        return ["fuzzy: review the translation, then remove the fuzzy flag"]
    if not all(text.strip() for text in entry.strings):
        return ["untranslated"]
    found = []
    msgid, msgstr = entry.id, entry.strings[0]
    if _STUCK.search(_CODE_SPAN.sub("`", msgstr)):  # code spans may show such markup literally
        found.append(
            "bold or emphasis ends in punctuation or code and a Korean letter follows: the stars "
            "would show; put a space or punctuation after them"
        )
    source, target = markup(msgid), markup(msgstr)
    missing = kept_tokens(msgid) - kept_tokens(msgstr)
    if missing:
        found.append(
            "names, flags or numbers of the English are missing: "
            + ", ".join(sorted(missing.elements()))
            + " (is this the translation of another message?)"
        )
    for field in ("code", "links", "strong", "emphasis", "placeholders"):
        if getattr(source, field) != getattr(target, field):
            found.append(
                f"markup differs from the English ({field}): {getattr(source, field)!r} "
                f"became {getattr(target, field)!r}"
            )
    return found


def check(locale_dir: Path, language: str) -> list[str]:
    """Every problem of every catalog of one language."""
    folder = Path(locale_dir) / language / "LC_MESSAGES"
    checked = po_check.read_language([locale_dir], language)
    if not checked.catalogs and not checked.problems:
        return [f"{folder}: no catalogs"]
    problems = [str(problem) for problem in checked.problems]
    for path, catalog in sorted(checked.catalogs.items()):
        if not catalog.opened:
            continue  # its problem is reported; msgfmt would wait on a FIFO or read what a link leads to
        compiled = subprocess.run(
            ["msgfmt", "--check", "-o", "/dev/null", str(path)],
            capture_output=True,
            text=True,
            errors="replace",
            check=False,
        )
        if compiled.returncode:
            problems += [f"msgfmt: {line}" for line in compiled.stderr.strip().splitlines()]
        for entry in catalog.messages:
            line = entry.fields["msgid"].line if "msgid" in entry.fields else entry.line
            problems += [f"{path}:{line}: {p}" for p in entry_problems(entry) if not entry.damaged]
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not po_check.LANGUAGE.fullmatch(argv[1]) or not Path(argv[0]).is_dir():
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    problems = check(Path(argv[0]), argv[1])
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
