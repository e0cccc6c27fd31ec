"""The not-found page: sphinx-notfound-page renders ``source/404.md`` in each language,
themed and translated like any page, with links that work under the site's path.

sphinx-notfound-page makes the theme's links and resources absolute under
``notfound_urls_prefix``; the prefix here is the path of ``recipebook_site_url`` (if any)
and the language, so a site served under ``https://docs.example.com/recipes/`` answers a
missing page with styles and links that resolve. Links in the page's own text are
relative after Sphinx resolves them; they are made absolute the same way here, since
the extension only rewrites images there (its ``doctree_resolved``).
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config

from ..config import site_config


def configure(app: Sphinx, config: Config) -> None:
    """config-inited: absolute links under the site's path and the language's tree."""
    site = site_config(config)
    config.notfound_urls_prefix = f"{site.site_path}/{site.language}/"


def absolute_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """doctree-resolved: the page's own internal links, absolute like the theme's."""
    if docname != app.config.notfound_pagename:
        return
    prefix = app.config.notfound_urls_prefix
    for reference in doctree.findall(nodes.reference):
        uri = reference.get("refuri", "")
        if uri and "://" not in uri and not uri.startswith(("#", "/", "mailto:")):
            reference["refuri"] = prefix + uri


def setup(app: Sphinx) -> None:
    app.setup_extension("notfound.extension")
    app.connect("config-inited", configure)
    app.connect("doctree-resolved", absolute_links)
