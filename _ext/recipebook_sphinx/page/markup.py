"""Markup fixes for what Sphinx and sphinx-design write, so HTML checkers find nothing.

- A toctree caption (sidebar, index page) is ``<p role="heading">``, which needs an
  ``aria-level``: a workaround of Sphinx issue #14030
  (https://github.com/sphinx-doc/sphinx/issues/14030); remove it once Sphinx writes one.
- Furo's ``table-wrapper`` (a table wider than the screen scrolls in it) takes the keyboard's
  focus, so a keyboard reader can scroll it too.
- A catalogue cell names its column (``data-label``), for the stacked rows of a narrow screen.
- sphinx-design puts ``aria-controls`` on each tab's ``<label for=...>``, which HTML does
  not allow on the label of a form control. The tab stays a radio button with its label,
  and its panel follows the label in the page (recipebook.js finds it that way).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.html5 import HTML5Translator
from sphinx_design.tabs import sd_tab_label


class Translator(HTML5Translator):
    def visit_entry(self, node: nodes.entry) -> None:
        # a cell that names its column (data-label) reads on its own when a narrow screen
        # stacks the table's rows (the catalogue, recipebook.css)
        super().visit_entry(node)
        label = node.get("rb_label")
        if label and self.body[-1].endswith(">"):
            self.body[-1] = self.body[-1][:-1] + f' data-label="{self.attval(label)}">'

    def starttag(self, node: nodes.Element, tagname: str, *args: Any, **attributes: Any) -> str:
        # a table wider than the screen scrolls in Furo's wrapper: the keyboard must reach it to
        # scroll it (axe: scrollable-region-focusable); sphinx-design writes containers, through here
        if tagname == "div" and "table-wrapper" in node.get("classes", ()):
            attributes.setdefault("tabindex", "0")
        return super().starttag(node, tagname, *args, **attributes)

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


def setup(app: Sphinx) -> None:
    app.set_translator("html", Translator)
    app.add_post_transform(TabLabels)
