"""Each page's text for the search page's summaries, written beside the page as a small file.

The search page shows under each result a summary cut from the page's text. Sphinx's
``searchtools.js`` downloads every result's whole page to cut it (tens of megabytes for one
query on a portal of a hundred recipes); the site's search reads ``_search/<docname>.json``
instead: the text of the page's main part as a reader reads it, where its commands stand, and
where each section starts and ends, a few kilobytes.

The text is made as ``recipebook-search.js`` made it from the page (its ``pageParts``): a
selector's legend and choices, a definition's term and description, a table's cells and every
block kept apart by a separator; what the page hides or only offers to click (copy buttons, the
change marks for screen readers, removed lines, the page title) left out; a command one line.

The file is bounded, whatever the page holds (a recipe page of many strategies and hardware
targets holds megabytes of commands): it keeps the page as it opens, the first tab of each tab
set (a strategy, a target) and of a closed ``<details>`` only its summary line (the Kubernetes
manifests, a ready-to-run file's text), each command cut to :data:`CODE_LIMIT` characters, and
it stops at :data:`LIMIT` bytes of text, so a query's summaries cost tens of kilobytes each.

What the tabs a page does not open with hold is still found by the search (the index has every
word of the page), so their words must be in the summary too, or the reader sees a result whose
summary shows none of the words it was found by (a strategy's own ``--enable-prefix-caching``):
after the text comes a digest, the command-line flags those tabs hold and the text does not,
each once, in the order they first stand, at most :data:`DIGEST_LIMIT` characters, marked as
code (and where it stands, ``digest``). The text leaves room for it within :data:`LIMIT`.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Final

from sphinx.application import Sphinx

FOLDER: Final = "_search"
LIMIT: Final = 48_000  # bytes of text (UTF-8) a summary file holds at most
CODE_LIMIT: Final = 2_000  # characters of one command or file kept
DIGEST_LIMIT: Final = 2_000  # characters of the flags of the tabs not opened, after the text
# a flag as a command writes it: --name, its words joined by "-", not inside a longer word
FLAG: Final = re.compile(r"(?<![\w-])--[a-z0-9]+(?:-[a-z0-9]+)*(?![\w-])")

LEFT_OUT_TAGS: Final = frozenset(
    {"h1", "script", "style", "template", "noscript", "button", "input", "select", "textarea"}
)
LEFT_OUT_CLASSES: Final = frozenset(
    {
        "headerlink",
        "rb-copy",
        "copybtn",
        "rb-sr",
        "rb-del",
        "rb-bar",
        "rb-excluded",
        "visually-hidden",
        "screen-reader-text",
        "sr-only",
    }
)
VOID: Final = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
BLOCKS: Final = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "caption",
        "dd",
        "details",
        "div",
        "dl",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "tfoot",
        "thead",
        "tr",
        "ul",
    ]
)
TITLES: Final = frozenset(["h1", "h2", "h3", "h4", "h5", "h6", "dt", "legend"])
TITLE_CLASSES: Final = frozenset({"admonition-title", "rb-role-title", "rb-rank", "rb-ph-title"})
ITEMS: Final = frozenset({"label", "td", "th"})
# Boundaries between parts of the page, weakest first; where several meet the strongest is
# written, and after a sentence's own punctuation only a space.
SPACE: Final = (0, " ")
COMMA: Final = (1, ", ")
DOT: Final = (2, " \u00b7 ")
COLON: Final = (3, ": ")
SENTENCE_END: Final = re.compile(r"[.:;!?\u3002]$")
CONTINUATION: Final = re.compile(r"[ \t]*\\\n")
# A tab's radio button or its content, a <div> opening or closing, and what holds text that is
# not markup (where "<div" may stand as text): for :func:`opening_tabs_only`.
TAB_PARTS: Final = re.compile(r'<input\b[^>]*\btype="radio"[^>]*>|<div class="sd-tab-content\b[^"]*"[^>]*>')
CHECKED: Final = re.compile(r"\schecked(?=[\s=>/])")
DIV: Final = re.compile(r"<div\b|</div>")
NOT_MARKUP: Final = re.compile(r"<script\b|<style\b|<!--|<textarea\b|<template\b")


class _Reader(HTMLParser):
    def __init__(self, limit: int = LIMIT) -> None:
        super().__init__(convert_charrefs=True)
        self.limit = limit  # bytes of text (UTF-8) it keeps at most
        self.out: list[str] = []
        self.length = 0
        self.size = 0  # bytes of text (UTF-8) written
        self.checked = False  # whether the last radio button read is the one checked
        self.pending: tuple[int, str] | None = None
        self.code: list[list[int]] = []
        self.sections: dict[str, list[int]] = {}
        # (tag, boundary, skipped, section id, a closed <details>)
        self.stack: list[tuple[str, tuple[int, str] | None, bool, str, bool]] = []
        self.pre: list[str] | None = None
        self.pre_depth = 0

    # -------------------------------------------------------------------- text

    def boundary(self, kind: tuple[int, str]) -> None:
        if self.pending is None or kind[0] > self.pending[0]:
            self.pending = kind

    def emit(self, raw: str, code: bool) -> None:
        text = re.sub(r"\s+", " ", raw)
        if not text:
            return
        if text[0] == " ":
            self.boundary(SPACE)
        trailing = text[-1] == " "
        text = text.strip()
        if code:
            text = text[:CODE_LIMIT].rstrip()
        if text and self.size < self.limit:
            if self.length and self.pending:
                sep = " " if SENTENCE_END.search(self.out[-1]) else self.pending[1]
                self.out.append(sep)
                self.length += len(sep)
                self.size += len(sep.encode())
            size = len(text.encode())
            if self.size + size > self.limit:  # the rest of the page is left out
                text = text.encode()[: self.limit - self.size].decode(errors="ignore")
                size = self.limit
            if code:
                self.code.append([self.length, self.length + len(text)])
            self.out.append(text)
            self.length += len(text)
            self.size += size
            self.pending = None
        if trailing:
            self.boundary(SPACE)

    # ------------------------------------------------------------------ markup

    def skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][2]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = set((found.get("class") or "").split())
        if tag in VOID:
            if tag == "input" and found.get("type") == "radio":
                self.checked = "checked" in found
            if tag == "br" and not self.skipping():
                if self.pre is not None:
                    self.pre.append("\n")
                else:
                    self.boundary(SPACE)
            return
        skipped = (
            self.skipping()
            or tag in LEFT_OUT_TAGS
            or bool(classes & LEFT_OUT_CLASSES)
            or "hidden" in found
            or found.get("aria-hidden") == "true"
            or ("sd-tab-content" in classes and not self.checked)  # a tab the page does not open with
            or (bool(self.stack) and self.stack[-1][4] and tag != "summary")  # inside a closed <details>
        )
        kind = None
        if not skipped:
            if tag in TITLES or classes & TITLE_CLASSES:
                kind = COLON
            elif tag in ITEMS:
                kind = COMMA
            elif tag in BLOCKS:
                kind = DOT
            if kind is not None and self.pre is None:
                self.boundary(DOT if kind is COLON else kind)
            if tag == "pre" and self.pre is None:
                self.pre = []
                self.pre_depth = len(self.stack) + 1
        section = found.get("id") or "" if tag == "section" and not skipped else ""
        if section:
            self.sections[section] = [self.length, self.length]
        self.stack.append((tag, kind, skipped, section, tag == "details" and "open" not in found))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or not any(entry[0] == tag for entry in self.stack):
            return
        while self.stack:
            name, kind, skipped, section, _closed = self.stack.pop()
            depth = len(self.stack) + 1
            if self.pre is not None and depth == self.pre_depth:
                text, self.pre = "".join(self.pre), None
                self.emit(CONTINUATION.sub("\n", text), True)
            if kind is not None and not skipped and self.pre is None:
                self.boundary(kind)
            if section:
                self.sections[section][1] = self.length
            if name == tag:
                return

    def handle_data(self, data: str) -> None:
        if self.skipping():
            return
        if self.pre is not None:
            self.pre.append(data)
        else:
            self.emit(data, False)


def opening_tabs_only(body: str) -> str:
    """The page's body with the content of each tab it does not open with emptied (a tab whose
    radio button is not checked), which the reader would skip: a recipe page of many strategies
    and targets is megabytes of such tabs, and reading them through the parser was most of the
    time a summary took. A tab that holds text which is not markup (a script, a style, a
    comment, where "<div" may stand as text) is left to the reader."""
    out: list[str] = []
    at = pos = 0
    checked = False
    while (found := TAB_PARTS.search(body, pos)) is not None:
        tag, pos = found.group(), found.end()
        if tag.startswith("<input"):
            checked = CHECKED.search(tag) is not None
            continue
        if checked:
            continue
        depth, end = 1, pos
        while depth:
            div = DIV.search(body, end)
            if div is None:  # not closed: the reader reads it as it is
                return "".join(out) + body[at:]
            depth += 1 if div.group() == "<div" else -1
            end = div.end()
        if NOT_MARKUP.search(body, pos, end - len("</div>")):
            continue
        out += [body[at:pos], "</div>"]
        at = pos = end
    return "".join(out) + body[at:]


def read(body: str, limit: int = LIMIT) -> dict[str, Any]:
    """The text of a page's body as the reader reads it (all of it, up to ``limit`` bytes), where
    its code stands, where its sections are."""
    reader = _Reader(limit)
    reader.feed(body)
    reader.close()
    return {"text": "".join(reader.out), "code": reader.code, "sections": reader.sections}


def digest(body: str, opened: str) -> str:
    """The flags the page holds beyond what it opens with (``opened``: that part's HTML), each
    once, in the order they first stand, whole flags up to :data:`DIGEST_LIMIT` characters."""
    seen = set(FLAG.findall(opened))
    kept: list[str] = []
    size = 0
    for flag in FLAG.findall(body):
        if flag in seen:
            continue
        seen.add(flag)
        if size + len(flag) + 1 > DIGEST_LIMIT:
            break
        kept.append(flag)
        size += len(flag) + 1
    return " ".join(kept)


def page_text(body: str) -> dict[str, Any]:
    """The text of a page's body as a reader reads it, where its code stands, where its sections
    are: :func:`read` of the body without the content of the tabs it does not open with, then
    the digest of the flags those tabs hold (marked as code), within :data:`LIMIT` bytes."""
    opened = opening_tabs_only(body)
    flags = digest(body, opened) if len(opened) < len(body) else ""
    if not flags:
        return read(opened)
    separator = DOT[1]
    found = read(opened, LIMIT - len((separator + flags).encode()))
    start = len(found["text"]) + len(separator)
    found["text"] += separator + flags
    found["code"].append([start, start + len(flags)])
    found["digest"] = [start, start + len(flags)]
    return found


def write(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """html-page-context: a searchable page's text is written to ``_search/<pagename>.json``."""
    if app.builder.format != "html" or doctree is None or "body" not in context:
        return
    if context.get("meta", {}) and "nosearch" in (context.get("meta") or {}):
        return
    target = Path(app.outdir, FOLDER, f"{pagename}.json")
    target.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(page_text(context["body"]), ensure_ascii=False, separators=(",", ":"))
    target.write_text(data, encoding="utf-8")
