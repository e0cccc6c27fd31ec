"""Pages of a translated build that show a message with no translation.

Sphinx keeps the English of a message its catalog lacks, and marks the node
``translated=False`` (a page whose catalog does not exist at all is not marked, so that is
done here).  Each page's untranslated messages are kept in the ``recipebook`` domain; at the end
of the build one note lists the pages, so an author who added a recipe sees that its
Korean page is English until the catalogs are updated and translated.  A note, not a
warning: the author's ``make html`` (warnings are errors) still succeeds; ``make test``
fails on the same pages (tests/test_i18n.py, which finds them by the ``untranslated``
class this module has Sphinx put on them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders.gettext import MessageCatalogBuilder
from sphinx.config import Config
from sphinx.locale import get_translation, get_translator, is_translator_registered
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.nodes import NodeMatcher, extract_messages

from .. import store
from ..config import site_config

logger = logging.getLogger(__name__)
SHOWN = 3  # messages quoted per page in the note
LABELS_CATALOG = "recipe-labels"
_english_labels: list[str] = []  # labels shown untranslated by the document being read
# What a page shows in English: messages, and (catalog, label) for the recipe labels.
Untranslated = list[str | tuple[str, str]]


def _has_entry(catalog: str, text: str) -> bool:
    """Whether the build language's catalog translates ``text`` (a translation may equal the English)."""
    if not is_translator_registered(catalog):
        return False
    entries = getattr(get_translator(catalog), "_catalog", None)  # GNUTranslations; NullTranslations has none
    return bool(entries and entries.get(text))


def labels(catalog: str = LABELS_CATALOG) -> Callable[[str], str]:
    """The catalog's translation of a label, remembering each label it has no entry for; the labels
    go to the page being read, whose ``doctree-read`` collects them."""
    translate = get_translation(catalog)

    def label(text: str) -> str:
        if text and not _has_entry(catalog, text):
            _english_labels.append(text)
        return translate(text)

    return label


def _translating(config: Config) -> bool:
    return site_config(config).translating


class MarkUntranslated(SphinxTransform):
    """Mark the messages of a page that has no catalog at all as untranslated."""

    default_priority = 24  # after sphinx.transforms.i18n.Locale (20), before its totaliser (25)

    def apply(self, **kwargs: Any) -> None:
        if issubclass(self.env._builder_cls, MessageCatalogBuilder) or not _translating(self.config):
            return
        if next(NodeMatcher(nodes.Element, translated=Any).findall(self.document), None) is not None:
            return  # Locale found the page's catalog and marked every message
        for node, _message in extract_messages(self.document):
            node["translated"] = False


def _configure(app: Sphinx, config: Config) -> None:
    if not config.translation_progress_classes:
        config.translation_progress_classes = "untranslated"


def _collect(app: Sphinx, doctree: nodes.document) -> None:
    shown_labels = list(dict.fromkeys(_english_labels))  # each once, in the page's order
    _english_labels.clear()
    if not _translating(app.config) or app.builder.format != "html":
        return
    # a toctree is marked by the message of its last entry, whatever its caption's state
    found: Untranslated = [
        " ".join(node.astext().split())
        for node in NodeMatcher(nodes.Element, translated=False).findall(doctree)
        if not isinstance(node, addnodes.toctree)
    ]
    pages = store.data(app.env)["untranslated"]
    if found or shown_labels:
        pages[app.env.docname] = [*found, *((LABELS_CATALOG, label) for label in shown_labels)]
    else:
        pages.pop(app.env.docname, None)


def catalog_of(docname: str, compact: bool = True) -> str:
    """The catalog (domain) that holds a page's messages, as gettext_compact lays them out."""
    return docname.split("/", 1)[0] if compact and "/" in docname else docname


def note(pages: Mapping[str, Untranslated], language: str, compact: bool = True) -> str:
    """The note listing the pages: the number of untranslated messages of each, the first few,
    and every recipe label it shows in English, each with the catalog entry that fills it."""
    lines = [
        f"note: {len(pages)} page(s) in {language!r} show English where a message has no translation; "
        "run `make intl-update`, translate the new entries in locale/, then `make html` "
        "(`make test` fails until they are translated):"
    ]
    folder = f"locale/{language}/LC_MESSAGES"
    for docname, found in sorted(pages.items()):
        messages = [m for m in found if isinstance(m, str)]
        shown_labels = [label for _catalog, label in (m for m in found if not isinstance(m, str))]
        if messages:
            quoted = "; ".join(repr(m[:60]) for m in messages[:SHOWN]) + ("; …" if len(messages) > SHOWN else "")
            lines.append(
                f"  {docname}: {len(messages)} message(s) of {folder}/{catalog_of(docname, compact)}.po: {quoted}"
            )
        for label in shown_labels:
            lines.append(f"  {docname}: label {label!r}: msgid {label!r} in {folder}/{LABELS_CATALOG}.po")
    return "\n".join(lines)


def _report(app: Sphinx, exception: Exception | None) -> None:
    pages = store.data(app.env)["untranslated"]
    if exception is None and pages and app.builder.format == "html" and _translating(app.config):
        logger.info(note(pages, app.config.language, bool(app.config.gettext_compact)))


def setup(app: Sphinx) -> None:
    app.add_transform(MarkUntranslated)
    app.connect("config-inited", _configure)
    app.connect("doctree-read", _collect)
    app.connect("build-finished", _report)
