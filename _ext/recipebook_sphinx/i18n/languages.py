"""Languages: the switcher, hreflang alternates, canonical URLs, translated UI strings."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.config import Config
from sphinx.locale import get_translation

from ..config import language as current
from ..config import site_config
from ..paths import LOCALE
from . import po_check

_ = get_translation("recipebook")

LANGUAGE_NAMES = {"en": "English", "ko": "한국어"}
OG_LOCALES = {"en": "en_US", "ko": "ko_KR"}
DESCRIPTION_LENGTH = 200


def configure(app: Sphinx, config: Config) -> None:
    """Per language: the canonical base (with a site URL) and the site's title."""
    if config.recipebook_site_url:
        config.html_baseurl = f"{config.recipebook_site_url.rstrip('/')}/{current(config)}/"
    if config.html_title == config.project:  # the site's own name is translated like any other text
        config.html_title = str(_(config.project))  # its msgid is added by catalogs.extension_catalog


# What json.dumps leaves that an inline <script> must not hold: '</script>' or '<!--' would end
# or change the script element, '&' starts a character reference in XHTML, and U+2028/U+2029
# end a line in JavaScript before ES2019.  As \u escapes they are the same JSON strings.
_SCRIPT_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def script_json(value: Any) -> str:
    """JSON to write inside an inline <script>: no text in it can close the element."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True).translate(_SCRIPT_ESCAPES)


def catalog_folders(app: Sphinx) -> list[Path]:
    """The locale folders of a build: the project's (conf.py's locale_dirs) and the extension's."""
    folders = [Path(app.srcdir, folder) for folder in app.config.locale_dirs]
    return [*folders, LOCALE] if LOCALE not in {Path(os.path.abspath(f)) for f in folders} else folders


def prepare_catalogs(app: Sphinx) -> None:
    """When the extension loads, before the build writes a file: every catalog of every language
    of the locale folders checked (``po_check``), then compiled by the project's own reader and
    writer, the only compiled catalogs a build loads (Sphinx compiles none: gettext_auto_build).
    The English build reads them too (the landing page names every language in its own words).

    A problem stops the build here, each one as FILE:LINE: message (never a traceback from
    the middle of the build, where a broken {placeholder} would raise).
    """
    app.config.gettext_auto_build = False
    folders = catalog_folders(app)
    extensions = frozenset(getattr(app.config, "myst_enable_extensions", ()) or ())
    problems = []
    for language in po_check.languages_in(folders):
        problems += po_check.compile_language(folders, language, relative_to=app.confdir, extensions=extensions)
    if problems:
        lines = [str(problem) for problem in sorted(problems)]
        lines.append(f"{len(problems)} problem(s) in the translation catalogs; the build stops before it reads them")
        raise SystemExit("\n".join(lines))


def add_ui_strings(app: Sphinx) -> None:
    """Translated strings for the scripts (sphinx-copybutton has no Korean of its own)."""
    if app.builder.format != "html":
        return
    strings = {
        "Copy": _("Copy"),
        "Copy to clipboard": _("Copy to clipboard"),
        "Copied!": _("Copied!"),
        "Failed to copy": _("Failed to copy"),
        "Copying is blocked here: select the text and copy it yourself.": _(
            "Copying is blocked here: select the text and copy it yourself."
        ),
        "Clear the values": _("Clear the values"),
        "A stored value was not used, because it could change the command: {names}": _(
            "A stored value was not used, because it could change the command: {names}"
        ),
        "Ignored from the link: {parts}": _("Ignored from the link: {parts}"),
        "The link was too long to read; the page shows its first selection.": _(
            "The link was too long to read; the page shows its first selection."
        ),
        "The link names a strategy or target this page does not have; it was ignored.": _(
            "The link names a strategy or target this page does not have; it was ignored."
        ),
        "Enter a host name or an IPv4 address, such as 10.0.0.5.": _(
            "Enter a host name or an IPv4 address, such as 10.0.0.5."
        ),
        "Enter a port: a whole number from 1 to 65535, such as 8000.": _(
            "Enter a port: a whole number from 1 to 65535, such as 8000."
        ),
        "Use letters, digits and . - _ : / only: quotes, spaces, $, backquotes and other shell characters would "
        "change the command.": _(
            "Use letters, digits and . - _ : / only: quotes, spaces, $, backquotes and other shell characters would "
            "change the command."
        ),
        # the catalogue's filters
        "Narrow the list": _("Narrow the list"),
        "Provider": _("Provider"),
        "NPU": _("NPU"),
        "NPU count": _("NPU count"),
        "Strategy kind": _("Strategy kind"),
        "Feature": _("Feature"),
        "Any": _("Any"),
        "Aggregated": _("Aggregated"),
        "Prefill/decode disaggregated": _("Prefill/decode disaggregated"),
        "Speculative decoding": _("Speculative decoding"),
        "KV offload": _("KV offload"),
        "{shown} of {total} recipes": _("{shown} of {total} recipes"),
    }
    app.add_js_file(None, body=f"window.RB_STRINGS = {script_json(strings)};")
    if current(app.config) != "en" and (script := _search_count_script()):
        app.add_js_file(None, body=script)


# Sphinx's search page reports the number of pages found through its own catalog, whose
# Korean leaves the message empty: the Korean results page showed no count.  The messages
# are Sphinx's (searchtools.js), the translations ours; they fill in only a missing one.
SEARCH_FOUND_ONE = "Search finished, found one page matching the search query."
SEARCH_FOUND_MANY = "Search finished, found ${resultCount} pages matching the search query."


def _search_count_script() -> str:
    one = str(_("Search finished, found one page matching the search query."))
    many = str(_("Search finished, found ${resultCount} pages matching the search query."))
    if many == SEARCH_FOUND_MANY:
        return ""
    data = script_json({"key": SEARCH_FOUND_ONE, "one": one, "many": many})
    return (
        "(function (m) {\n"
        '  if (typeof Documentation === "undefined") return;\n'
        "  var known = Documentation.TRANSLATIONS[m.key];\n"
        "  if (Array.isArray(known) ? known.some(Boolean) : known) return;\n"
        "  // one plural form (Korean): every count takes the form that shows the number\n"
        "  var single = Documentation.PLURAL_EXPR(1) === Documentation.PLURAL_EXPR(2);\n"
        "  Documentation.TRANSLATIONS[m.key] = single ? [m.many] : [m.one, m.many];\n"
        f"}})({data});"
    )


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    config = app.config
    lang = current(config)
    builder = app.builder
    assert isinstance(builder, StandaloneHTMLBuilder)  # html-page-context: an HTML builder's event
    suffix = builder.out_suffix
    up = "../" * pagename.count("/")
    base = config.recipebook_site_url.rstrip("/")
    not_found = pagename == config.notfound_pagename
    alternates = []
    for other in config.recipebook_languages:
        href = f"{up}../{other}/{pagename}{suffix}"
        if not_found:  # served at any missing address: absolute, to the language's start page
            href = f"{site_config(config).site_path}/{other}/index{suffix}"
        url = f"{base}/{other}/{pagename}{suffix}" if base else href
        alternates.append(
            {
                "lang": other,
                "name": LANGUAGE_NAMES.get(other, other),
                "href": href,
                "url": url,
                "og_locale": OG_LOCALES.get(other, other),
            }
        )
    context["rb_alternates"] = alternates
    context["rb_lang"] = lang
    context["rb_canonical"] = "" if not_found else f"{pagename.rsplit('/', 1)[-1]}{suffix}"
    context["_rb"] = _
    context["rb_og_locale"] = OG_LOCALES.get(lang, lang)
    context["rb_description"] = description(doctree)
    if doctree is not None and not not_found:  # its Markdown view (mdview writes it)
        context["rb_markdown"] = pagename.rsplit("/", 1)[-1] + ".md"


def description(doctree: Any) -> str:
    """The page's first paragraph, shortened: for search results and link previews."""
    if doctree is None:
        return ""
    paragraph = doctree.next_node(nodes.paragraph)
    text = " ".join(paragraph.astext().split()) if paragraph is not None else ""
    return text if len(text) <= DESCRIPTION_LENGTH else text[: DESCRIPTION_LENGTH - 1].rsplit(" ", 1)[0] + "…"
