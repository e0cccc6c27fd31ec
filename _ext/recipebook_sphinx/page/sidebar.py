"""Furo's sidebar (its navigation tree) rendered once per folder, and marked for each page.

Furo shows the whole table of contents in every page's sidebar: for each page it asks Sphinx
for the global toctree (``toctree(collapse=False, titles_only=True, maxdepth=-1,
includehidden=True)``), which copies, resolves and renders every entry, and then parses the
HTML again to add its checkboxes (``furo.navigation.get_navigation_tree``). With N recipe pages
that is O(N) a page, O(N²) a build: most of the writing time of a large portal.

Two pages of one folder get the same tree but for the page itself. Sphinx resolves the tree
for a page P by (1) giving every entry that links P without an anchor, and each of its
ancestors, the class ``current`` (``_toctree_add_classes``), and (2) writing each link relative
to P's own URI, which for the HTML builder depends only on P's folder, except the links to P
itself, which become ``#``. Furo then checks the checkbox of each ``current`` entry with
children and adds ``current-page`` to the last ``current`` entry. So the tree is rendered once
per folder and build, through Sphinx's and Furo's own functions, for a document name of that
folder that no page has (nothing ``current``), and each page's tree is that text with P's
marks put in (``mark``).

Only where that holds: the HTML builder (not dirhtml or singlehtml) with Furo, a page whose
``toctree`` is still Sphinx's own (sphinx-notfound-page gives the 404 page another), and whose
links in the tree have the expected form (no anchor into P, a plain URI); any other page gets
Furo's own computation. ``tests/test_sidebar.py`` compares every page's tree with Furo's.

Furo computes its tree at ``html-page-context`` (priority 500): just before, the page's
``toctree`` is taken out of the context (Furo then computes an empty tree at no cost), and just
after, it is put back and the page's tree set.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
import weakref
from typing import Any

from furo.navigation import get_navigation_tree
from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.environment import BuildEnvironment

# Furo's call of the context's toctree (furo._compute_navigation_tree)
FURO_ARGUMENTS = {"collapse": False, "titles_only": True, "maxdepth": -1, "includehidden": True}
_OWN = "_recipebook_own_toctree"  # the page's toctree as Sphinx made it, noted first
_TAKEN = "_recipebook_taken_toctree"  # the toctree, out of Furo's way
_TREE = "_recipebook_navigation_tree"  # the page's tree, for after Furo
_NOWHERE = "\x00sidebar"  # a document name no page has (a NUL is in no file name)
_TAG = re.compile(r'<(/?)(ul|li)\b[^>]*>|<a class="reference internal" href="([^"]*)">')
_PLAIN_URI = re.compile(r"[A-Za-z0-9_.~/%-]+")  # quote()'s output: written as it is in an attribute
_LI_CLASS = re.compile(r'^<li class="(toctree-l[0-9]+)((?: has-children)?)">$')


@dataclasses.dataclass
class _Element:
    start: int  # where its start tag begins in the text
    end: int  # where its start tag ends
    tag: str  # "ul" or "li"
    parent: int | None  # index of the enclosing element


@dataclasses.dataclass
class Tree:
    """A folder's tree with nothing current, and where each link is."""

    text: str
    elements: list[_Element]
    links: dict[str, list[tuple[int, int, int | None]]]  # href -> (start, end of its <a>, parent element)


def parse(text: str) -> Tree | None:
    """The tree's elements and links; None if it is not the shape ``mark`` knows."""
    elements: list[_Element] = []
    links: dict[str, list[tuple[int, int, int | None]]] = {}
    open_: list[int] = []
    for match in _TAG.finditer(text):
        closing, tag, href = match.groups()
        if href is not None:
            links.setdefault(href, []).append((match.start(), match.end(), open_[-1] if open_ else None))
        elif closing:
            if not open_ or elements[open_[-1]].tag != tag:
                return None
            open_.pop()
        else:
            if tag == "ul" and match.group() != "<ul>":
                return None
            if tag == "li" and not _LI_CLASS.match(match.group()):
                return None
            elements.append(_Element(match.start(), match.end(), tag, open_[-1] if open_ else None))
            open_.append(len(elements) - 1)
    if open_:
        return None
    return Tree(text, elements, links)


def mark(tree: Tree, href: str) -> str | None:
    """The tree as Sphinx and Furo write it for the page that ``href`` links (from the page's
    folder); None where that page needs Furo's own computation."""
    if not _PLAIN_URI.fullmatch(href) or f'href="{href}#' in tree.text:
        return None
    found = tree.links.get(href, [])
    if not found and f'"{href}"' in tree.text:
        return None  # a link to the page in a form not parsed
    edits: dict[int, tuple[int, str]] = {}  # start -> (end, replacement)
    current: set[int] = set()
    for start, end, parent in found:
        edits[start] = (end, '<a class="current reference internal" href="#">')
        while parent is not None:
            current.add(parent)
            parent = tree.elements[parent].parent
    last_li = max(
        (i for i in current if tree.elements[i].tag == "li"), default=None, key=lambda i: tree.elements[i].start
    )
    for i in current:
        element = tree.elements[i]
        if element.tag == "ul":
            edits[element.start] = (element.end, '<ul class="current">')
            continue
        li = _LI_CLASS.match(tree.text[element.start : element.end])
        assert li is not None  # the tree was read as Furo's: each li starts as the pattern says
        level, children = li.groups()
        page = " current-page" if i == last_li else ""
        edits[element.start] = (element.end, f'<li class="{level} current{children}{page}">')
        if children:  # Furo's checkbox, right after the entry's link: checked
            insert = _checkbox_label_end(tree.text, element.end)
            if insert is None:
                return None
            edits[insert] = (insert, ' checked=""')  # attributes in name order: after aria-label
    parts = []
    at = 0
    for start in sorted(edits):
        end, replacement = edits[start]
        if start < at:
            return None
        parts += [tree.text[at:start], replacement]
        at = end
    parts.append(tree.text[at:])
    return "".join(parts)


def _checkbox_label_end(text: str, li_end: int) -> int | None:
    """Where the aria-label of the checkbox of the entry whose start tag ends at li_end ends."""
    if not text.startswith("<a ", li_end):
        return None
    link_end = text.find("</a>", li_end)
    label = link_end + len("</a><input aria-label=")
    if (
        link_end < 0
        or not text.startswith("</a><input aria-label=", link_end)
        or text[label : label + 1] not in ('"', "'")
    ):
        return None
    end = text.find(text[label], label + 1) + 1  # the value's closing quote (bs4 quotes with the other)
    if end == 0 or not text.startswith(' class="toctree-checkbox"', end):
        return None
    return end


# -- in the build --------------------------------------------------------------------------

_TREES: weakref.WeakKeyDictionary[Sphinx, dict[str, Tree | None]] = weakref.WeakKeyDictionary()


def _applies(app: Sphinx) -> bool:
    builder = app.builder
    return (
        type(builder).name == "html"
        and isinstance(builder, StandaloneHTMLBuilder)
        and app.config.html_theme == "furo"
        and builder.get_target_uri("a/b") == "a/b" + builder.link_suffix
    )


def folder_tree(app: Sphinx, folder: str) -> Tree | None:
    """The tree of the pages of `folder`, nothing current: rendered once per folder and build."""
    trees = _TREES.setdefault(app, {})
    if folder not in trees:
        builder: Any = app.builder
        html = builder._get_local_toctree(posixpath.join(folder, _NOWHERE), **FURO_ARGUMENTS)
        trees[folder] = parse(get_navigation_tree(html))
    return trees[folder]


def page_tree(app: Sphinx, pagename: str) -> str | None:
    """The page's navigation tree as Furo computes it; None: let Furo compute it."""
    folder = posixpath.dirname(pagename)
    tree = folder_tree(app, folder)
    if tree is None:
        return None
    builder: Any = app.builder
    href = builder.get_relative_uri(posixpath.join(folder, _NOWHERE), pagename)
    return mark(tree, href)


def _note(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if "toctree" in context:
        context[_OWN] = context["toctree"]


def _before_furo(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    own = context.get(_OWN)
    if own is None or context.get("toctree") is not own or not _applies(app):
        return
    tree = page_tree(app, pagename)
    if tree is not None:
        context[_TREE] = tree
        context[_TAKEN] = context.pop("toctree")


def _after_furo(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    context.pop(_OWN, None)
    if _TAKEN in context:
        context["toctree"] = context.pop(_TAKEN)
        context["furo_navigation_tree"] = context.pop(_TREE)


def _forget(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """env-updated: a new build's table of contents, a new tree."""
    _TREES.pop(app, None)
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", _note, priority=1)
    app.connect("html-page-context", _before_furo, priority=499)
    app.connect("html-page-context", _after_furo, priority=501)
    app.connect("env-updated", _forget)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
