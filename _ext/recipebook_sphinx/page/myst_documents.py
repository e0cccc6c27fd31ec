"""MyST-Parser's renderer makes the document it renders into only when it is not given one.

MyST-Parser 5.2's ``DocutilsRenderer.setup_render`` reads ``options.get("document",
make_document())``: it makes a whole docutils document (docutils' default settings, an option
parser of tens of thousands of options: some 3 ms) on every render, and throws it away when the
caller gave the document, which Sphinx always does: for every page, and again for every
translated message it parses (a Korean build of the shipped site: some 800 messages, a sixth of
its processor time). ``setup`` makes that document only when it is used; what is rendered is the
same (tests/adapter/test_myst_documents.py).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

from docutils import nodes
from myst_parser.mdit_to_docutils import base

_SETUP_RENDER: Callable[[base.DocutilsRenderer, dict[str, Any], MutableMapping[str, Any]], None] = (
    base.DocutilsRenderer.setup_render
)


def _never_used(source_path: str = "notset", parser_cls: object = None) -> nodes.document:
    """Stands for make_document while the renderer is given its document (the value is dropped)."""
    return None  # type: ignore[return-value]  # never read: options holds the document


def setup_render(self: base.DocutilsRenderer, options: dict[str, Any], env: MutableMapping[str, Any]) -> None:
    """MyST's setup_render, with a document made only when ``options`` holds none."""
    if "document" not in options:
        _SETUP_RENDER(self, options, env)
        return
    make_document = base.make_document
    base.make_document = _never_used  # read once, by the default of options.get, then dropped
    try:
        _SETUP_RENDER(self, options, env)
    finally:
        base.make_document = make_document


def setup() -> None:
    """Install ``setup_render`` on MyST's renderer (Sphinx's renderer inherits it); once per process."""
    base.DocutilsRenderer.setup_render = setup_render  # type: ignore[method-assign]
