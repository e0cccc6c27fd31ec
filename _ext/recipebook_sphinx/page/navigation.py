"""Rewrite every page whose navigation changed, on an incremental build.

The theme's sidebar shows the whole table of contents on every page, and each page links
to the previous and next page in it.  Sphinx rewrites only the pages it re-read, so
after a recipe (a page) is added or removed, or a title changes, the pages not re-read
kept the old sidebar and previous/next links until ``make clean``.  The navigation is the
pages in table-of-contents order with their titles; when it differs from the last
build's, every page is handed back to Sphinx as updated (``env-updated``), which writes
them again without reading them.
"""

from __future__ import annotations

from collections.abc import Iterable

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .. import store

Navigation = tuple[tuple[str, str], ...]


def navigation(env: BuildEnvironment) -> Navigation:
    """The pages in table-of-contents order from the root document, with their titles."""
    order: list[tuple[str, str]] = []
    seen: set[str] = set()

    def visit(docname: str) -> None:
        if docname in seen or docname not in env.found_docs:
            return
        seen.add(docname)
        title = env.titles.get(docname)
        order.append((docname, title.astext() if title is not None else ""))
        for child in env.toctree_includes.get(docname, ()):
            visit(child)

    visit(env.config.root_doc)
    return tuple(order)


def _changed(app: Sphinx, env: BuildEnvironment) -> Iterable[str]:
    now = navigation(env)
    state = store.data(env)
    before = state["navigation"]
    state["navigation"] = now
    if before is None or before == now:
        return ()
    return sorted(env.found_docs)


def setup(app: Sphinx) -> None:
    app.connect("env-updated", _changed)
