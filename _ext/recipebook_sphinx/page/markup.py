"""Markup fixes for what Sphinx and sphinx-design write, so HTML checkers find nothing.

- A toctree caption (sidebar, index page) is ``<p role="heading">``, which needs an
  ``aria-level``: a workaround of Sphinx issue #14030
  (https://github.com/sphinx-doc/sphinx/issues/14030); remove it once Sphinx writes one.
- sphinx-design puts ``aria-controls`` on each tab's ``<label for=...>``, which HTML does
  not allow on the label of a form control. The tab stays a radio button with its label,
  and its panel follows the label in the page (recipebook.js finds it that way).
- vLLM's help text (the flag table's description column) quotes flags and values in
  backticks; they become inline code like the page's own, so a flag never breaks inside.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.html5 import HTML5Translator
from sphinx_design.tabs import sd_tab_label


class Translator(HTML5Translator):
    def visit_title(self, node: nodes.title) -> None:
        # Sphinx #14030: the toctree caption's role="heading" lacks aria-level
        start = len(self.body)
        super().visit_title(node)
        for i in range(start, len(self.body)):
            part = self.body[i]
            if part.startswith("<p") and 'role="heading"' in part and "aria-level" not in part:
                self.body[i] = part.replace('role="heading"', 'role="heading" aria-level="2"', 1)


class TabLabels(SphinxPostTransform):
    default_priority = 250  # after sphinx-design's TabSetHtmlTransform (200)
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for label in self.document.findall(sd_tab_label):
            label.attributes.pop("aria_controls", None)


_HELP_SPAN = re.compile(r'<span lang="en">[^<]*</span>\Z')
_QUOTED = re.compile(r"`([^`\s]+)`")  # a flag or a value: no spaces (a lone backtick stays text)


def inline_code(text: str) -> str:
    """Sphinx's inline-code markup for one escaped HTML token."""
    return f'<code class="docutils literal notranslate"><span class="pre">{text}</span></code>'


class QuotedCode(SphinxPostTransform):
    default_priority = 250
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for raw in list(self.document.findall(nodes.raw)):
            text = raw.astext()
            if raw.get("format") == "html" and _HELP_SPAN.match(text) and "`" in text:
                html = _QUOTED.sub(lambda match: inline_code(match.group(1)), text)
                raw.replace_self(nodes.raw("", html, format="html"))


def setup(app: Sphinx) -> None:
    app.set_translator("html", Translator)
    app.add_post_transform(TabLabels)
    app.add_post_transform(QuotedCode)
