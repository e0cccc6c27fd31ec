"""The inline markup a recipe text may hold, and nothing else.

The text is judged as it is read: character references are decoded first, so
``&lt;script&gt;`` is the markup ``<script>`` (a Markdown view would write it as such) and
is refused outside ``<code>``; ``&#106;avascript:`` in a link is ``javascript:``.
"""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

ALLOWED_TAGS = frozenset({"strong", "em", "code", "a"})
# What a browser or a Markdown renderer reads as the start of markup: a tag, an end tag, a
# comment, a declaration or a processing instruction.
_MARKUP = re.compile(r"<[A-Za-z/!?]")
# Characters a link may not hold: browsers drop white space and control characters from a
# URL and read a backslash as a slash, so "/\\host" and "java\tscript:" are not what they seem.
_NOT_IN_LINK = re.compile(r"[\x00-\x20\x7f\\]")


def link_problem(href: str) -> str | None:
    """Why a link's target is not allowed, or None: http(s) with a host, or a path on this site."""
    bad = _NOT_IN_LINK.search(href)
    if bad:
        shown = {"\\": "a backslash (browsers read it as '/')"}.get(bad.group(), f"the character {bad.group()!r}")
        return f"link {href!r} holds {shown}; write the link without it"
    parts = urlsplit(href)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        if not parts.netloc:
            return f"link {href!r} has no host; write {scheme}://HOST/PATH"
        return None
    if scheme:
        return f"link scheme {scheme!r} is not allowed; use http, https or a relative link"
    if href.startswith("//"):
        return (
            f"link {href!r} has no scheme but a host ({parts.netloc!r}): it leaves the site; write "
            f"https:{href} for another site, or a path without '//' on this one"
        )
    return None


@dataclasses.dataclass(frozen=True)
class Span:
    """A piece of inline text: plain (tag None) or inside one allowed tag."""

    text: str
    tag: str | None = None
    href: str | None = None
    children: tuple[Span, ...] = ()


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.errors: list[str] = []
        self.stack: list[tuple[str, str | None, list[Span]]] = [("", None, [])]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = None
        if tag not in ALLOWED_TAGS:
            self.errors.append(f"<{tag}> is not allowed; use only <strong>, <em>, <code> and <a href>")
        for name, value in attrs:
            if tag == "a" and name == "href" and value:
                problem = link_problem(value)
                if problem:
                    self.errors.append(problem)
                href = value
            else:
                self.errors.append(f"attribute {name!r} on <{tag}> is not allowed")
        if tag == "a" and href is None:
            self.errors.append("<a> needs an href")
        self.stack.append((tag, href, []))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.errors.append(f"<{tag}/> is not allowed; use only <strong>, <em>, <code> and <a href>")

    def handle_endtag(self, tag: str) -> None:
        if len(self.stack) == 1 or self.stack[-1][0] != tag:
            self.errors.append(f"</{tag}> does not close an open tag")
            return
        name, href, children = self.stack.pop()
        self.stack[-1][2].append(Span(text="", tag=name, href=href, children=tuple(children)))

    def handle_data(self, data: str) -> None:
        in_code = any(tag == "code" for tag, _, _ in self.stack)
        found = _MARKUP.search(data)
        if found and not in_code:
            piece = data[found.start() : found.start() + 20].split(">")[0] + (
                ">" if ">" in data[found.start() :] else ""
            )
            self.errors.append(
                f"{piece!r} is markup once character references are decoded (as a Markdown view or a feed "
                "reads the text); write it inside <code>, or reword it"
            )
        self.stack[-1][2].append(Span(text=data))

    def handle_comment(self, data: str) -> None:
        self.errors.append("HTML comments are not allowed")

    def handle_decl(self, decl: str) -> None:
        self.errors.append("declarations are not allowed")

    def handle_pi(self, data: str) -> None:
        self.errors.append("processing instructions are not allowed")

    def unknown_decl(self, data: str) -> None:
        self.handle_decl(data)


def parse(text: str) -> tuple[tuple[Span, ...], list[str]]:
    """Parse inline markup into spans; the list says what is not allowed."""
    parser = _Parser()
    try:
        parser.feed(text)
        parser.close()
    except AssertionError as error:  # html.parser asserts on some broken declarations, e.g. "<![x["
        parser.errors.append(f"cannot read the markup ({error}); use only <strong>, <em>, <code> and <a href>")
    if len(parser.stack) > 1:
        parser.errors.append(f"<{parser.stack[-1][0]}> is never closed")
    return tuple(parser.stack[0][2]), parser.errors


def plain(spans: tuple[Span, ...]) -> str:
    """The text of spans without markup."""
    return "".join(s.text + plain(s.children) for s in spans)
