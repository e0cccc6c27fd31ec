"""The page's inline nodes and how HTML writes them.

- ``flag_help``: vLLM's help text of a flag, in English on every page (``lang="en"`` in
  HTML); flags and values it quotes in backquotes are inline code children.
- ``markdown_link``: the link from a page to its Markdown view (``type="text/markdown"``).
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes


class flag_help(nodes.inline):  # docutils names its node classes in lower case
    """vLLM's help text of a flag (English on every page)."""


class markdown_link(nodes.reference):
    """A link to the page's Markdown view."""


_QUOTED = re.compile(r"`([^`\s]+)`")  # a flag or a value: no spaces (a lone backquote stays text)


def make_flag_help(text: str) -> flag_help:
    """vLLM's help of a flag as a node: text, with each backquoted flag or value as inline code."""
    node = flag_help(classes=["rb-help"])
    node["support_smartquotes"] = False  # quoted as vLLM wrote it
    last = 0
    for match in _QUOTED.finditer(text):
        if match.start() > last:
            node += nodes.Text(text[last : match.start()])
        node += nodes.literal(match.group(1), match.group(1))
        last = match.end()
    if last < len(text):
        node += nodes.Text(text[last:])
    return node


def visit_help_html(translator: Any, node: flag_help) -> None:
    translator.body.append(translator.starttag(node, "span", "", lang="en"))


def depart_help_html(translator: Any, node: flag_help) -> None:
    translator.body.append("</span>")


def visit_markdown_link_html(translator: Any, node: markdown_link) -> None:
    translator.body.append(translator.starttag(node, "a", "", href=node["refuri"], type="text/markdown"))


def depart_markdown_link_html(translator: Any, node: markdown_link) -> None:
    translator.body.append("</a>")
