"""MyST's renderer, as the extension installs it (recipebook_sphinx/page/myst_documents.py), makes
no document it throws away: given the document to render into (what Sphinx gives it, for every
page and every translated message), it makes none of its own; given none, it makes one. What it
renders is the same as MyST's own renderer renders."""

from __future__ import annotations

from typing import Any

import pytest
from docutils import nodes
from myst_parser.config.main import MdParserConfig
from myst_parser.mdit_to_docutils import base
from myst_parser.parsers.mdit import create_md_parser

from recipebook_sphinx.page import myst_documents

TEXT = "# A title\n\nSome *text* with `code`, a [link](https://example.com).\n\n- one\n- two\n"


@pytest.fixture
def settings_made(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every docutils default settings make_document builds (its costly part), counted."""
    made: list[object] = []
    build = base.get_default_settings

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(args)
        return build(*args, **kwargs)

    monkeypatch.setattr(base, "get_default_settings", counted)
    myst_documents.setup()
    assert base.DocutilsRenderer.setup_render is myst_documents.setup_render
    return made


def _render(document: nodes.document | None) -> nodes.document:
    parser = create_md_parser(MdParserConfig(), base.DocutilsRenderer)
    if document is not None:
        parser.options["document"] = document
    rendered: nodes.document = parser.render(TEXT)
    return rendered


def test_a_render_given_its_document_makes_none(settings_made: list[object]) -> None:
    document = base.make_document()
    settings_made.clear()
    assert _render(document) is document
    assert settings_made == []
    assert base.make_document is not myst_documents._never_used  # put back after the render


def test_a_render_given_no_document_makes_one(settings_made: list[object]) -> None:
    rendered = _render(None)
    assert len(settings_made) == 1 and isinstance(rendered, nodes.document)
    assert rendered.next_node(nodes.title).astext() == "A title"


def test_what_is_rendered_is_what_myst_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    ours = _render(base.make_document()).pformat()
    monkeypatch.setattr(base.DocutilsRenderer, "setup_render", myst_documents._SETUP_RENDER)
    assert _render(base.make_document()).pformat() == ours
    assert "A title" in ours and "https://example.com" in ours
