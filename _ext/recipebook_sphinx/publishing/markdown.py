"""A plain Markdown view of each page, written beside its HTML (``page.md``).

Prose, headings, lists, tables and code as Markdown; each command explorer becomes
the commands of the selection it opens on (the recommended one).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.locale import get_translation

from .. import store

_LOCAL_HTML = re.compile(r"^(?![a-z]+:)(?P<path>[^#?]*)\.html(?P<rest>[#?].*)?$")


class MarkdownWriter(nodes.NodeVisitor):
    """Turns a resolved doctree into Markdown text (only the node kinds the site uses)."""

    def __init__(self, document: nodes.document, env: Any, recipes_dir: str, translate: Callable[[str], str]) -> None:
        super().__init__(document)
        self.env = env
        self.recipes_dir = recipes_dir
        self._ = translate
        self.blocks: list[str] = []
        self.level = 0

    # structure -------------------------------------------------------------
    def text_of(self, node: nodes.Node) -> str:
        return "".join(self.inline(child) for child in node.children).strip()

    def inline(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Text):
            return node.astext().replace("\n", " ")
        if isinstance(node, nodes.literal):
            return f"`{node.astext()}`"
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
            return f"[{self.text_of(node)}]({target})" if target else self.text_of(node)
        if isinstance(node, nodes.raw):
            return ""
        return "".join(self.inline(child) for child in node.children)

    def add(self, text: str) -> None:
        if text.strip():
            self.blocks.append(text.rstrip())

    def walk_children(self, node: nodes.Node) -> None:
        for child in node.children:
            self.dispatch(child)

    def dispatch(self, node: nodes.Node) -> None:
        method = getattr(self, f"do_{type(node).__name__}", None)
        if method is not None:
            method(node)
        elif isinstance(node, nodes.Element):
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
        self.add("#" * max(self.level, 1) + " " + self.text_of(node))

    def do_paragraph(self, node: nodes.paragraph) -> None:
        self.add(self.text_of(node))

    def do_rubric(self, node: nodes.rubric) -> None:
        self.add(f"**{self.text_of(node)}**")

    def do_literal_block(self, node: nodes.literal_block) -> None:
        language = node.get("language", "")
        self.add(f"```{'' if language in ('default', 'none') else language}\n{node.astext()}\n```")

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
        self.add("\n".join(f"- {self.text_of(f[0])}: {self.text_of(f[1])}" for f in node.children))

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

    def do_sd_tab_label(self, node: nodes.Element) -> None:
        depth, parent = 0, node.parent
        while parent is not None:  # strategy tabs hold target tabs: one heading level each
            depth += "sd-tab-set" in parent.get("classes", [])
            parent = parent.parent
        self.add(f"{'#' * (self.level + depth)} {' — '.join(self.inline(c) for c in node.children)}")

    def do_sd_tab_input(self, node: nodes.Element) -> None:
        pass

    def do_container(self, node: nodes.container) -> None:
        if node.get("design_component") == "tab-item":
            label = next((c for c in node.children if isinstance(c, nodes.rubric)), None)
            if label is not None:
                self.add(f"{'#' * (self.level + 1)} {' — '.join(self.inline(c) for c in label.children)}")
            for child in node.children:
                if child is not label:
                    self.dispatch(child)
            return
        self.walk_children(node)

    def do_raw(self, node: nodes.raw) -> None:
        if node.get("rb_recipe"):
            self.explorer(node)

    do_recipe_explorer = do_raw  # the explorer node carries the same rb_* attributes

    def do_compound(self, node: nodes.compound) -> None:
        if "toctree-wrapper" not in node.get("classes", []):
            self.walk_children(node)

    def do_comment(self, node: nodes.comment) -> None:
        pass

    do_target = do_substitution_definition = do_system_message = do_comment

    def explorer(self, node: nodes.Element) -> None:
        recipe = store.recipe(self.env, store.path_for(self.recipes_dir, node["rb_recipe"]))
        if recipe is None:
            return
        # the build's view of the recipe: the commands the page opens on, expanded once
        target = store.view(self.env, recipe).target(node["rb_strategy"], node["rb_target"])
        choice = ", ".join(f"{axis}={value}" for axis, value in target.opening_selection().items())
        intro = (
            self._("Recommended selection: {selection}")
            if target.template.recommended is not None
            else self._("Base selection: {selection}")
        )
        self.add(intro.format(selection=choice))
        for role, rank, text in target.opening_commands():
            where = "" if rank is None else f", rank {rank}"
            self.add(f"```bash\n# {role}{where}\n{text}\n```")
        for node_name, cmd in target.template.router:
            self.add(f"```bash\n# router: {node_name}\n{cmd}\n```")


def to_markdown(doctree: nodes.document, env: Any, recipes_dir: str, translate: Callable[[str], str]) -> str:
    return MarkdownWriter(doctree, env, recipes_dir, translate).result()


def write(app: Any, doctree: nodes.document, docname: str) -> None:
    """doctree-resolved: write the page's Markdown view beside its HTML (not for the not-found page)."""
    if app.builder.format != "html" or docname == app.config.notfound_pagename:
        return
    markdown = to_markdown(doctree, app.env, app.config.recipebook_dir, get_translation("recipebook"))
    target = Path(app.outdir, docname + ".md")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(markdown, encoding="utf-8")


def setup(app: Any) -> None:
    app.connect("doctree-resolved", write)
