"""The explorers' content, kept in a file of their own between reading a page and writing it.

An explorer node (``html.recipe_explorer``) carries its view and its text form: a large recipe's
page holds hundreds of them, about 40 MB in memory, and Sphinx keeps every doctree it reads (or
its pickle) until the page is written. So, once a page is read and every reader of the text forms
at ``doctree-read`` has run (the search terms), :func:`put_away` writes each explorer's view and
children to one file per page beside the doctrees (``<doctreedir>/recipebook-explorers/``) and
leaves the node empty; the page's post-transforms put them back when the page is resolved for
writing (the HTML visitor, the search indexer, the Markdown view and the text builders then see
the node as it was read): :class:`BringBackLast`, an HTML build's last, so that no other
post-transform walks them; :class:`BringBack`, every other builder's first. The page written
is the same; what a build holds between reading and writing is the pages without their explorers.

The file is written when the page is read and removed when it is read again or removed
(``clear``); a rebuild that reuses a doctree reuses its file.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import SphinxError
from sphinx.transforms.post_transforms import SphinxPostTransform

from .html import recipe_explorer

FOLDER = "recipebook-explorers"
KEY = "rb_stashed"  # the attribute of an emptied explorer: its place in the page's file
Stashed = tuple[Any, list[nodes.Node]]  # an explorer's view (an ExplorerView) and its children


def path(env: BuildEnvironment, docname: str) -> Path:
    return Path(env.doctreedir, FOLDER, docname + ".pickle")


def clear(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    """env-purge-doc: the page is read again or removed; its explorers' file goes with its doctree."""
    path(env, docname).unlink(missing_ok=True)


def put_away(app: Sphinx, doctree: nodes.document) -> None:
    """doctree-read, after every other handler: each explorer's view and text form to the page's
    file; the node keeps its attributes and its place in the file."""
    env = app.env
    kept: list[Stashed] = []
    for node in doctree.findall(recipe_explorer):
        children = list(node.children)
        for child in children:
            child.parent = None  # pickled alone, not with the page
            for each in child.findall():
                # a node a parser made may hold the document itself (docutils' Node.document;
                # reStructuredText's does): back in its place, it finds it through its parent
                each.document = None  # type: ignore[assignment]  # docutils' own default; its stub says document
        kept.append((node.attributes.pop("view"), children))
        node.children = []
        node[KEY] = len(kept) - 1
    target = path(env, env.docname)
    if not kept:
        target.unlink(missing_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    partial.write_bytes(pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL))
    partial.replace(target)


def bring_back(env: BuildEnvironment, docname: str, doctree: nodes.Node) -> None:
    """Each emptied explorer of the page its view and text form again."""
    emptied = [node for node in doctree.findall(recipe_explorer) if KEY in node]
    if not emptied:
        return
    source = path(env, docname)
    try:
        kept: list[Stashed] = pickle.loads(source.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, ValueError) as error:
        kept, why = [], str(error)
    else:
        why = f"it holds {len(kept)} explorers, the page {len(emptied)}"
    if len(kept) != len(emptied):
        raise SphinxError(
            f"the explorers of page {docname!r} are not as they were read in {source} ({why}); "
            "build again with a fresh doctree folder (sphinx-build -E)"
        )
    for node in emptied:
        view, children = kept[node.attributes.pop(KEY)]
        node["view"] = view
        node.extend(children)


class BringBackLast(SphinxPostTransform):
    """An HTML build's page its explorers as they were read after every other post-transform
    (Sphinx's reference resolver, sphinx-design's tabs, Furo's table wrapper, ...), just before
    ``doctree-resolved``: none of them walks the explorers' text forms, a portal page's largest
    part. The HTML visitor writes an explorer from its view and skips the text form; Sphinx's
    search indexer and the Markdown view (``doctree-resolved``) read the text form, which none of
    those post-transforms changed (the site and its Markdown views are byte for byte the same)."""

    default_priority = 999
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        bring_back(self.env, self.env.docname, self.document)


class BringBack(BringBackLast):
    """Every other builder's page (text, LaTeX, man, ...) its explorers before any other
    post-transform: each of its post-transforms sees the text form it writes."""

    default_priority = 1

    def is_supported(self) -> bool:
        return not super().is_supported()


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", put_away, priority=900)
    app.connect("env-purge-doc", clear)
    app.add_post_transform(BringBack)
    app.add_post_transform(BringBackLast)
