"""The Markdown view of each page (``page.md`` beside its HTML), and the store of them all.

The view is written from the page's resolved doctree, the same nodes the HTML comes from:
prose, headings, lists, tables and code; each explorer as its text form (``explorer/text.py``):
its selectors, the opening selection's commands role by role and rank by rank, the router,
roles and nodes, the client request and the benchmark, in the order the HTML shows them.
Headings nest as the page does: a strategy's tab under the section that holds the explorer,
its targets under it, a target's roles under the target.

Every text is escaped for Markdown: what a recipe or a translation holds never becomes
markup (``escape``), inline code takes a run of backquotes longer than any inside it, and a
code block a fence longer than any inside it.

A view is written once, beside its page, when the page is written; ``llms-full.txt`` is
streamed from those files at the end of the build (``view``), one view at a time: this
build's, and an earlier build's of a page it did not rewrite (Sphinx writes a page again
whenever its HTML is missing, and the view with it).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes

from ..explorer import html as explorer_html

_LOCAL_HTML = re.compile(r"^(?![a-z]+:)(?P<path>[^#?]*)\.html(?P<rest>[#?].*)?$")
# what may start or end markup in CommonMark (and GitHub's tables and strikethrough) inline
# text: backslash, backquote, star, brackets, angle brackets, pipe, tilde; an underscore at
# a word's edge; an ampersand that would start a character reference
_SPECIAL = re.compile(r"([\\`*\[\]<>|~])|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|&(?=#?[0-9A-Za-z]+;)")
_LINE_START = re.compile(r"^(\s*)(?:([-+*>#=])|(\d+)([.)]))", re.MULTILINE)


def escape(text: str) -> str:
    """Text that Markdown shows as it is: markup characters backslash-escaped (so a character
    reference such as ``&lt;`` stays text, and ``<script>`` is not HTML)."""
    text = _SPECIAL.sub(lambda m: "\\" + m.group(), text)
    return _LINE_START.sub(
        lambda m: m.group(1) + ("\\" + m.group(2) if m.group(2) else m.group(3) + "\\" + m.group(4)), text
    )


def inline_code(text: str) -> str:
    """Inline code that holds any text: delimited by more backquotes than any run inside it."""
    text = text.replace("\n", " ")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.strip()) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(text: str, language: str = "") -> str:
    """A fenced code block that closes only where it should: its fence is longer than any run
    of backquotes in the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def link_target(target: str) -> str:
    return "<" + target.replace("<", "%3C").replace(">", "%3E") + ">" if re.search(r"[\s()<>]", target) else target


class MarkdownWriter:
    """Turns a resolved doctree into Markdown text (the node kinds the site uses)."""

    def __init__(self, document: nodes.document) -> None:
        self.document = document
        self.blocks: list[str] = []
        self.level = 0  # the heading level of the innermost section or tab

    # structure -------------------------------------------------------------
    def text_of(self, node: nodes.Node) -> str:
        return "".join(self.inline(child) for child in node.children).strip()

    def inline(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Text):
            return escape(node.astext().replace("\n", " "))
        if isinstance(node, nodes.literal):
            return inline_code(node.astext())
        if isinstance(node, nodes.strong):
            return f"**{self.text_of(node)}**"
        if isinstance(node, nodes.emphasis):
            return f"*{self.text_of(node)}*"
        if isinstance(node, nodes.reference):
            target = node.get("refuri", "")
            match = _LOCAL_HTML.match(target)
            if match:
                target = f"{match['path']}.md{match['rest'] or ''}"
            elif not target and node.get("refid"):
                target = "#" + node["refid"]
            text = self.text_of(node)
            return f"[{text}]({link_target(target)})" if target else text
        if isinstance(node, (nodes.raw, nodes.system_message)):
            return ""
        return "".join(self.inline(child) for child in node.children)

    def add(self, text: str) -> None:
        if text.strip():
            self.blocks.append(text.rstrip())

    def heading(self, level: int, text: str) -> None:
        self.add("#" * max(1, min(level, 6)) + " " + text)

    def walk_children(self, node: nodes.Node) -> None:
        for child in node.children:
            self.dispatch(child)

    def dispatch(self, node: nodes.Node) -> None:
        for cls in type(node).__mro__:
            method = getattr(self, f"do_{cls.__name__}", None)
            if method is not None:
                method(node)
                return
            if cls is nodes.Element:
                break
        if isinstance(node, nodes.Element):
            self.walk_children(node)

    def result(self) -> str:
        self.walk_children(self.document)
        return "\n\n".join(self.blocks) + "\n"

    # node kinds --------------------------------------------------------------
    def do_section(self, node: nodes.section) -> None:
        self.level += 1
        self.walk_children(node)
        self.level -= 1

    def do_title(self, node: nodes.title) -> None:
        self.heading(self.level, self.text_of(node))

    def do_paragraph(self, node: nodes.paragraph) -> None:
        self.add(self.text_of(node))

    def do_rubric(self, node: nodes.rubric) -> None:
        if node.get("rb_heading"):  # a heading of the explorer's text form
            self.heading(self.level + node["rb_heading"], self.text_of(node))
        else:
            self.add(f"**{self.text_of(node)}**")

    def do_literal_block(self, node: nodes.literal_block) -> None:
        language = node.get("language", "")
        self.add(code_block(node.astext(), "" if language in ("default", "none") else language))

    def do_bullet_list(self, node: nodes.bullet_list) -> None:
        self.add("\n".join(f"- {self.text_of(item)}" for item in node.children))

    def do_enumerated_list(self, node: nodes.enumerated_list) -> None:
        self.add("\n".join(f"{n}. {self.text_of(item)}" for n, item in enumerate(node.children, start=1)))

    def do_definition_list(self, node: nodes.definition_list) -> None:
        for item in node.children:
            term = next(c for c in item.children if isinstance(c, nodes.term))
            definition = next(c for c in item.children if isinstance(c, nodes.definition))
            self.add(f"{self.text_of(term)}\n: {self.text_of(definition)}")

    def do_field_list(self, node: nodes.field_list) -> None:
        fields = [f for f in node.children if isinstance(f, nodes.field)]
        self.add("\n".join(f"- {self.text_of(f[0])}: {self.text_of(f[1])}" for f in fields))

    def do_table(self, node: nodes.table) -> None:
        rows = [[self.text_of(entry).replace("|", "\\|") for entry in row.children] for row in node.findall(nodes.row)]
        if not rows:
            return
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
        self.add("\n".join(lines))

    def do_note(self, node: nodes.Element) -> None:
        title = next((c for c in node.children if isinstance(c, nodes.title)), None)
        body = " ".join(self.text_of(c) for c in node.children if c is not title)
        heading = f"**{self.text_of(title)}:** " if title is not None else ""
        self.add(f"> {heading}{body}")

    do_warning = do_important = do_tip = do_admonition = do_note

    def do_container(self, node: nodes.container) -> None:
        """A tab set: each tab's label is a heading one level below the enclosing one, its
        content under it (sphinx-design has made the tabs label and content siblings by now)."""
        if "sd-tab-set" not in node.get("classes", []):
            self.walk_children(node)
            return
        for child in node.children:
            if type(child).__name__ == "sd_tab_label":
                parts = [self.inline(c).strip() for c in child.children]
                self.heading(self.level + 1, " — ".join(p for p in parts if p))
            elif isinstance(child, nodes.Element) and "sd-tab-content" in child.get("classes", []):
                self.level += 1
                self.walk_children(child)
                self.level -= 1
            else:
                self.dispatch(child)

    def do_recipe_explorer(self, node: explorer_html.recipe_explorer) -> None:
        self.walk_children(node)  # its text form

    def do_sd_tab_input(self, node: nodes.Element) -> None:
        pass

    def do_compound(self, node: nodes.compound) -> None:
        if "toctree-wrapper" not in node.get("classes", []):
            self.walk_children(node)

    def do_comment(self, node: nodes.comment) -> None:
        pass

    do_target = do_substitution_definition = do_system_message = do_raw = do_comment


def to_markdown(doctree: nodes.document) -> str:
    return MarkdownWriter(doctree).result()


# -- the views of a build ------------------------------------------------------------------


def write(app: Any, doctree: nodes.document, docname: str) -> None:
    """doctree-resolved (in the main process, parallel or not): write the page's Markdown view
    beside its HTML (not the not-found page); llms-full.txt reads it from there (``view``)."""
    if app.builder.format != "html" or docname == app.config.notfound_pagename:
        return
    target = Path(app.outdir, docname + ".md")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(to_markdown(doctree), encoding="utf-8")


def view_file(app: Any, docname: str) -> Path | None:
    """The file of a page's Markdown view as written (this build's, or an earlier build's of a page
    it did not rewrite), or None for a page that has none (the not-found page, a page no longer there)."""
    if docname not in app.env.found_docs or docname == app.config.notfound_pagename:
        return None
    path = Path(app.outdir, docname + ".md")
    return path if path.is_file() else None


def setup(app: Any) -> None:
    app.connect("doctree-resolved", write)
