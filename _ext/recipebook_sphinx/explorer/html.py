"""The explorer's node and how each builder writes it.

``recipe_explorer``: one explorer grid. It carries the explorer's view (``node["view"]``, an
``ExplorerView``: every label already translated) and, as its children, the text form of the
same explorer. HTML renders ``explorer.html`` (beside this module) from the view and skips the
children; every other builder (text, LaTeX, man, ...) and Sphinx's search indexer take the
children, as Sphinx's ``todo_node`` and sphinx-design's tab nodes do; so does the Markdown view.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
from docutils import nodes
from markupsafe import Markup

from .text import text_form
from .view import Code, ExplorerView, node_needs

HERE = Path(__file__).resolve().parent


class recipe_explorer(nodes.container):  # docutils names its node classes in lower case
    """One explorer grid; ``view`` is its ExplorerView, the children its text form."""


def make_explorer(view: ExplorerView, **attributes: str) -> recipe_explorer:
    """The node of an explorer, without its text form yet: ``add_text_form`` gives it its
    children once Sphinx's translation transforms have gone through the page (see there)."""
    return recipe_explorer("", classes=["rb-explorer-text"], view=view, **attributes)


def add_text_form(node: recipe_explorer) -> list[nodes.Node]:
    """The node's text form (``text.text_form`` of its view) as its children; returns them.

    Made after the transforms that look for messages to translate (Sphinx's ``Locale``, which
    visits every element of a page twice, the source fixes before it, and the extension's
    ``MarkUntranslated`` on a page without a catalog) rather than in the directive: they leave
    the text form alone (directive output is kept out of the catalogs, and an explorer's words are
    already in the page's language), but each element they skip costs them a rendering of it as
    XML for a debug message, hundreds of thousands on a portal's Korean pages. Every later
    transform, ``doctree-read`` (the search terms, ``stash.put_away``) and every builder see the
    children as before."""
    children: list[nodes.Node] = [*text_form(node["view"])]
    node.extend(children)
    return children


# -- HTML ------------------------------------------------------------------------------


_JSON_BOUNDARY = re.compile(r"([,{\[])")


def _escaped(text: str) -> str:
    """Escaped shell text with a line-break opportunity (<wbr>) after each comma and opening
    brace or bracket: a JSON value written on one line wraps for display at its own
    boundaries, not inside a name. <wbr> adds no character, so what is copied is unchanged."""
    return _JSON_BOUNDARY.sub(r"\1<wbr>", html.escape(text, quote=False)) if text else ""


def code_markup(text: str) -> Markup:
    """_escaped as markup, for the template's ``code`` filter."""
    return Markup(_escaped(text))


_NAME_BOUNDARY = re.compile(r"(?<=[A-Za-z0-9])([_-])(?=[A-Za-z0-9])")


def breakable_name(text: str) -> Markup:
    """An escaped name (a flag, an env name) that may wrap after its inner underscores and
    hyphens (<wbr>, no character added): a table header narrower than the name."""
    return Markup(_NAME_BOUNDARY.sub(r"\1<wbr>", html.escape(text, quote=False)))


class _CollapsingLoader(jinja2.FileSystemLoader):
    """Drops the line breaks and indentation of a template: the HTML has no whitespace between tags."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        return "".join(line.strip() for line in source.splitlines()), filename, uptodate


def _attribute(value: Any) -> Markup:
    return value if isinstance(value, Markup) else Markup(html.escape(str(value)))


@functools.cache
def templates() -> jinja2.Environment:
    """The extension's template environment (read-only, shared by every build)."""
    environment = jinja2.Environment(
        loader=_CollapsingLoader(HERE), autoescape=True, finalize=_attribute, undefined=jinja2.StrictUndefined
    )
    environment.filters["code"] = code_markup
    environment.filters["breakable"] = breakable_name
    environment.globals["code_html"] = code_html
    environment.globals["node_needs"] = node_needs
    return environment


def code_html(view: ExplorerView, block: Code) -> Markup:
    """A code block of the explorer: its <pre> with each line's classes and change marks, and
    its copy button. Written here rather than in the template: the lines are most of the page,
    and string joins are many times quicker than a template's loops over them."""
    added, removed = html.escape(view.marks.added), html.escape(view.marks.removed)
    out = [f'<div class="rb-code"><div class="highlight"><pre id="{html.escape(block.pre_id)}"']
    if block.node:
        out.append(f' data-node="{block.node}"')
    if block.head:
        out.append(f' data-head="{block.head}"')
    if block.long:  # it scrolls: a keyboard reaches it, a screen reader names it
        label = html.escape(view.long_code_label)
        out.append(f' class="rb-long" tabindex="0" role="region" aria-label="{label}"')
    out.append(">")
    for line in block.lines:
        body = "".join(
            f'<span class="rb-ph">{_escaped(run.text)}</span>' if run.placeholder else _escaped(run.text)
            for run in line.parts
        )
        if line.varies:
            body = f'<span class="rb-var">{body}</span>'
        if line.mark == "add":
            body = f'<ins class="rb-add"><span class="rb-sr"> {added} </span>{body}</ins>'
        elif line.mark == "del":
            body = f'<del><span class="rb-sr"> {removed} </span>{body}</del>'
        text = _escaped(line.lead) + body + _escaped(line.trail)
        out.append(f'<span class="{" ".join(line.classes)}">{text}</span>' if line.classes else text)
    texts = view.copy_texts
    done, title, label = html.escape(texts.done), html.escape(texts.title), html.escape(texts.label)
    out.append(
        f'</pre></div><button type="button" class="rb-copy" hidden data-done="{done}" title="{title}">'
        f"{label}</button></div>"
    )
    return Markup("".join(out))


def render_html(view: ExplorerView) -> str:
    return templates().get_template("explorer.html").render(view=view)


def visit_explorer_html(translator: Any, node: recipe_explorer) -> None:
    translator.body.append(render_html(node["view"]))
    raise nodes.SkipNode
